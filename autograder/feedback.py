"""``feedback``: the HTML each graded student gets back, checked to give nothing away.

nbgrader's generate_feedback writes ``feedback/<student>/<assignment>/<notebook>.html``;
:class:`autograder.leaks.HideHiddenTests` (configured in nbgrader_config.py)
has removed the hidden tests. Each page is then read back: if it shows a region
marker or a line of the reference solution or of the hidden tests that the
student did not write themselves, the page is deleted and the command fails.
"""

from . import leaks
from .cells import read_notebook
from .course import CourseError
from .outcomes import SCORED, Outcomes


def check_feedback(course, assignment, student):
    """Leaks in one student's feedback pages, as sentences (empty when safe)."""
    problems = []
    for name, source_path in course.source_notebooks(assignment).items():
        page = course.student_folder("feedback", student, assignment) / f"{name}.html"
        if not page.is_file():
            continue
        secrets = leaks.secret_lines(read_notebook(source_path))
        submitted = course.student_folder("submitted", student, assignment) / f"{name}.ipynb"
        own = leaks.notebook_text(read_notebook(submitted)) if submitted.is_file() else ""
        found = leaks.find_leaks(leaks.html_text(page.read_text(errors="replace")), secrets, own)
        if found:
            problems.append(leaks.summary(page.relative_to(course.root), found))
            page.unlink()
    return problems


def feedback(course, assignments=(), report=print):
    """Generate and check feedback for every graded submission; returns the pages written."""
    book = Outcomes(course)
    assignments = [course.check_assignment(a) for a in assignments] or \
        sorted({o["assignment"] for o in book.all() if o["status"] in SCORED})
    pages, problems = [], []
    if not assignments:
        report("nothing graded yet: no feedback to write")
    for assignment in assignments:
        students = [o["student"] for o in book.all(assignment) if o["status"] in SCORED]
        if not students:
            report(f"{assignment}: no graded submissions, no feedback to write")
            continue
        log_path = course.logs() / f"feedback.{assignment}.log"
        run = course.nbgrader("generate_feedback", assignment, "--force", log_path=log_path)
        for student in students:
            leaked = check_feedback(course, assignment, student)
            problems += leaked
            for name in course.source_notebooks(assignment):
                page = course.student_folder("feedback", student, assignment) / f"{name}.html"
                if page.is_file():
                    pages.append(page)
                elif not leaked:
                    report(f"warning: no feedback for {assignment}/{student} ({name}.html); see {log_path}")
        report(f"{assignment}: feedback for {len(students)} student(s) in "
               f"{course.feedback_dir.relative_to(course.root)}/<student>/{assignment}/"
               + ("" if run.returncode == 0 else f" (nbgrader reported errors; see {log_path})"))
    if problems:
        raise CourseError("feedback that would give answers away was deleted:\n  " + "\n  ".join(problems))
    return pages
