"""``feedback``: the HTML each graded student gets back, ready to hand back and checked to give nothing away.

nbgrader's generate_feedback writes ``feedback/<student>/<assignment>/<notebook>.html``;
:class:`autograder.course.leaks.HideHiddenTests` (configured in nbgrader_config.py)
has removed the hidden tests. Then, for each student:

- feedback is **held back** while written answers wait to be graded by hand
  (a page would show them as 0 points), unless ``allow_ungraded``;
- ``--student`` writes the pages of the named students only, after a
  regrade say; nbgrader leaves the others out and their pages stay as they
  are;
- the page's formulas render **offline**: nbconvert's MathJax macro, which
  loads MathJax from a CDN, is replaced by autograder/handback/templates (configured in
  nbgrader_config.py, which the formgrader reads too) with the course's own
  MathJax, compressed inside the page (autograder/handback/mathjax.py), so a page
  handed back works wherever the student opens it;
- each page is read back: if it shows a region marker or a line of the
  reference solution or of the hidden tests that the student did not write
  themselves, or loads a script from the network, the page is deleted and
  the command fails.

A feedback folder holds only the pages and nbgrader's ``timestamp.txt`` and
``submission_secret.txt`` (what ``nbgrader release_feedback`` needs to hand a
collected submission's feedback back through the exchange); the judge's
report stays with the graded notebook (``CourseDirectory.ignore``). A student
graded from a class folder or a zip handed in no secret: their folder gets a
new secret no student holds and the hand-in time (or, when none is known,
the time the page was written), so that stock ``release_feedback`` goes
through the whole class; it files their pages in the exchange where no one
fetches them, and they get ``feedback/<student>/`` by other means.
"""

import re
import secrets
import shutil
from datetime import datetime, timezone

from ..course import gradebook, leaks
from ..course.cells import read_notebook
from ..course.course import CourseError
from ..course.outcomes import SCORED, Outcomes


def remote_scripts(html):
    """The addresses of scripts a page would load from the network (none: everything is inlined).

    >>> remote_scripts('<script src="https://cdn.example/x.js"></script><script>let a = 1;</script>')
    ['https://cdn.example/x.js']
    """
    return re.findall(r'<script[^>]*\bsrc="((?:https?:)?//[^"]*)"', html, flags=re.I)


def check_feedback(course, assignment, student):
    """Leaks in one student's feedback pages, as sentences (empty when safe)."""
    problems = []
    for name, source_path in course.source_notebooks(assignment).items():
        page = course.student_folder("feedback", student, assignment) / f"{name}.html"
        if not page.is_file():
            continue
        secrets = leaks.secret_lines(read_notebook(source_path))
        copy = course.student_folder("copies", student, assignment) / f"{name}.ipynb"
        own = leaks.notebook_text(read_notebook(copy)) if copy.is_file() else ""
        html = page.read_text(errors="replace")
        found = leaks.find_leaks(leaks.html_text(html), secrets, own)
        if found:
            problems.append(leaks.summary(page.relative_to(course.root), found))
            page.unlink()
        elif remote_scripts(html):
            problems.append(f"{page.relative_to(course.root)} loads scripts from the network "
                            f"({', '.join(remote_scripts(html))}), so it would not work offline")
            page.unlink()
    return problems


def as_released(course, assignment, student):
    """Give a feedback folder of a student who handed in outside the exchange what ``nbgrader release_feedback``
    reads there: ``timestamp.txt`` (the hand-in time nbgrader recorded, else now) and a ``submission_secret.txt``
    no student holds."""
    folder = course.student_folder("feedback", student, assignment)
    stamp = folder / "timestamp.txt"
    if not stamp.is_file():
        when = (gradebook.scores(course, assignment, student) or {}).get("timestamp")
        when = datetime.fromisoformat(when) if when else datetime.now(timezone.utc)
        stamp.write_text(when.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    (folder / "submission_secret.txt").write_text(secrets.token_hex(16))


def feedback(course, assignments=(), report=print, allow_ungraded=False, students=()):
    """Generate and check feedback for every graded submission; returns the pages written.

    A student whose written answers are still to be graded by hand gets no
    feedback yet (reported), unless ``allow_ungraded``. ``students``: only
    these students' pages are written (nbgrader is told to leave the others
    out); the other students' pages stay as they are.
    """
    book = Outcomes(course)
    assignments = [course.check_assignment(a) for a in assignments] or \
        sorted({o["assignment"] for o in book.all() if o["status"] in SCORED})
    pages, problems = [], []
    if not assignments:
        report("nothing graded yet: no feedback to write")
    for assignment in assignments:
        graded = [o["student"] for o in book.all(assignment) if o["status"] in SCORED]
        chosen = [s for s in graded if not students or s in students]
        if students and set(students) - set(graded):
            report(f"{assignment}: no graded submission of {', '.join(sorted(set(students) - set(graded)))}: "
                   "no feedback for them")
        if not chosen:
            report(f"{assignment}: no graded submissions, no feedback to write")
            continue
        waiting = [s for s in chosen if (gradebook.scores(course, assignment, s) or {}).get("needs_manual_grade")]
        if waiting and not allow_ungraded:
            report(f"{assignment}: feedback held back for {len(waiting)} student(s) whose written answers are still "
                   f"to grade by hand ({', '.join(waiting)}): grade them in the formgrader, or pass --allow-ungraded "
                   "to hand back pages that show those answers as 0 for now")
        ready = [s for s in chosen if allow_ungraded or s not in waiting]
        log_path = course.logs() / f"feedback.{assignment}.log"
        others = sorted({p.parent.name for p in course.autograded.glob(f"*/{assignment}")} - set(chosen))
        left_out = []
        if students and others:
            if any("," in s for s in others):
                raise CourseError("feedback --student cannot leave the other students out: an id holds a comma, "
                                  "and nbgrader's list of students to leave out is comma-separated; "
                                  "run feedback without --student")
            left_out = [f"--CourseDirectory.student_id_exclude={','.join(others)}"]
        run = course.nbgrader("generate_feedback", assignment, "--force", *left_out, log_path=log_path) if ready else None
        for folder in course.feedback_dir.glob(f"*/{assignment}"):   # nbgrader writes one for every graded notebook
            if folder.parent.name not in ready and (not students or folder.parent.name in chosen):
                shutil.rmtree(folder)
                if not any(folder.parent.iterdir()):
                    folder.parent.rmdir()
        for student in ready:
            leaked = check_feedback(course, assignment, student)
            problems += leaked
            for name in course.source_notebooks(assignment):
                page = course.student_folder("feedback", student, assignment) / f"{name}.html"
                if page.is_file():
                    pages.append(page)
                elif not leaked:
                    report(f"warning: no feedback for {assignment}/{student} ({name}.html); see {log_path}")
        outside = [s for s in ready if (course.student_folder("feedback", s, assignment)).is_dir()
                   and not (course.student_folder("feedback", s, assignment) / "submission_secret.txt").is_file()]
        for student in outside:
            as_released(course, assignment, student)
        if outside:
            report(f"{assignment}: {len(outside)} student(s) did not hand in through nbgrader's exchange "
                   f"({', '.join(outside)}): nbgrader release_feedback goes past them but cannot hand their pages "
                   "back; give them feedback/<student>/ yourself")
        if ready:
            report(f"{assignment}: feedback for {len(ready)} student(s) in "
                   f"{course.feedback_dir.relative_to(course.root)}/<student>/{assignment}/"
                   + ("" if run.returncode == 0 else f" (nbgrader reported errors; see {log_path})"))
    if problems:
        raise CourseError("feedback that would give answers away was deleted:\n  " + "\n  ".join(problems))
    return pages
