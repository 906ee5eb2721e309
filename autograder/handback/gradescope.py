"""``gradescope``: a Gradescope autograder for one assignment, grading with the course's own pipeline.

``python -m autograder gradescope hw01`` writes ``gradescope-hw01.zip``, the
package Gradescope's *Programming Assignment* takes
(https://gradescope-autograders.readthedocs.io/en/latest/specs/). Gradescope
unpacks it into ``/autograder/source`` and runs, once when it builds the
image, ``setup.sh``:

- Python 3.11 or newer and Debian's/Ubuntu's ``bubblewrap`` (the grading
  sandbox) from apt;
- a virtual environment ``/autograder/venv`` with the kit's pins
  (``kit/requirements.txt``), nbgrader, and the course package (``lib``,
  ``autograder``), every version held to the course's ``requirements.txt``;
- :func:`prepare`: the assignment released into the course folder inside the
  package (``course/``), so its gradebook knows the assignment.

Then, for every student's upload, ``run_autograder`` runs :func:`run`: the
uploaded notebook (``/autograder/submission``, only read) is copied into a
class folder of one student and graded by :func:`autograder.grading.grade.grade` --
the same tests (the source notebook's, hidden ones included), sandbox, limits
and checks as ``python -m autograder grade`` -- in a fresh copy of the
prepared course. :func:`results` turns the outcome into
``/autograder/results/results.json``:

- one test per autograded part (an nbgrader test cell): its name (the cell id
  and the first line of its docstring), ``score``, ``max_score``, and as
  ``output`` the teaching message of the first check that failed
  (``AssertionError: ...``), never the test's code or a traceback. A part whose
  cell holds hidden tests is shown ``after_published`` (or as set with
  ``--hidden-visibility``); the others are ``visible``;
- written answers are not in it (Gradescope grades them as questions of
  their own); the top-level ``output`` says how many points they carry;
- the top-level ``score`` is the sum of the tests' scores; ``stdout`` (the
  grader's log, with the notes for the instructor) is ``hidden`` from students.

Every message is read back against the source notebook's solution and
hidden-test lines (autograder/course/leaks.py) before it is written; a message that
quotes one is replaced by a sentence saying it is not shown.

A hand-in that cannot be graded (not a notebook, another homework, the time
limit) gets no ``results.json``: the reason goes to the log and
``run_autograder`` exits with 1, so Gradescope records no score for it and
tells the student the autograder failed (a 0 would be a grade the course never
gave, and it would replace the student's active submission's score). The
student uploads again; an earlier submission can be made the active one. When
the sandbox cannot be set up, ``run_autograder`` fails the same way, unless
the package was built with ``--no-sandbox``.

The root ``/autograder`` can be moved with ``RBD_GRADESCOPE_ROOT`` (the tests
run ``run_autograder`` in a folder of their own), and the Python that runs
it with ``RBD_GRADESCOPE_PYTHON``.
"""

import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

from ..course import gradebook, leaks
from ..course.cells import grade_id, read_notebook, role
from ..course.course import CourseError
from ..course.outcomes import SCORED

ROOT_VARIABLE = "RBD_GRADESCOPE_ROOT"
STUDENT = "gradescope"       # the one student of the course inside the container
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")
SETTINGS = "gradescope.json"

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image (as root, in /autograder/source).
# It installs Python and the grading sandbox (bubblewrap) from apt, then a virtual environment with the
# course kit's pins (kit/requirements.txt), nbgrader and the course package, every version held to the
# course's requirements.txt, and releases the assignment into course/ (python -m autograder.handback.gradescope prepare).
set -euo pipefail
ROOT="${RBD_GRADESCOPE_ROOT:-/autograder}"
SOURCE="$ROOT/source"
export DEBIAN_FRONTEND=noninteractive
apt-get update
PY=""
for version in 3.13 3.12 3.11; do
    if command -v "python$version" >/dev/null; then PY="python$version"; break; fi
done
if [ -z "$PY" ]; then
    apt-get install -y --no-install-recommends python3.11
    PY=python3.11
fi
apt-get install -y --no-install-recommends "$PY-venv" bubblewrap
"$PY" -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --upgrade pip
"$ROOT/venv/bin/python" -m pip install -c "$SOURCE/requirements.txt" -r "$SOURCE/kit/requirements.txt" \
    nbgrader "$SOURCE/course"
cd "$SOURCE/course"
"$ROOT/venv/bin/python" -m autograder.handback.gradescope prepare
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission: grade /autograder/submission with the course's grader and
# write /autograder/results/results.json (python -m autograder.handback.gradescope run; autograder/handback/gradescope.py).
set -euo pipefail
ROOT="${RBD_GRADESCOPE_ROOT:-/autograder}"
export PYTHONPATH="$ROOT/source/course${PYTHONPATH:+:$PYTHONPATH}"
cd "$ROOT/source/course"
exec "${RBD_GRADESCOPE_PYTHON:-$ROOT/venv/bin/python}" -m autograder.handback.gradescope run
"""


# --- building the package ----------------------------------------------------------------------
def package(course, assignment, out=None, sandbox=True, hidden_visibility="after_published"):
    """Write the Gradescope autograder zip of ``assignment``; returns its path.

    ``sandbox=False`` grades without the sandbox when it cannot be set up in
    Gradescope's container (``--no-sandbox``: for trusted code only).
    """
    course.check_assignment(assignment)
    if hidden_visibility not in VISIBILITIES:
        raise CourseError(f"--hidden-visibility must be one of {', '.join(VISIBILITIES)}, not {hidden_visibility!r}")
    repo = Path(__file__).resolve().parents[2]
    needed = [repo / "pyproject.toml", repo / "requirements.txt", repo / "kit" / "requirements.txt"]
    missing = [str(p) for p in needed if not p.is_file()]
    if missing:
        raise CourseError(f"the Gradescope package needs the course's own files, and {', '.join(missing)} "
                          "is not there: run from the course's repository")
    out = Path(out or f"gradescope-{assignment}.zip")
    settings = {"assignment": assignment, "sandbox": bool(sandbox), "hidden_visibility": hidden_visibility}
    skipped = {"__pycache__", ".ipynb_checkpoints"}
    files = {"requirements.txt": repo / "requirements.txt", "kit/requirements.txt": repo / "kit" / "requirements.txt",
             "course/pyproject.toml": repo / "pyproject.toml",
             "course/nbgrader_config.py": course.root / "nbgrader_config.py"}
    for package_dir in ("lib", "autograder"):
        for path in sorted((repo / package_dir).rglob("*")):
            if path.is_file() and not skipped & set(path.parts) and path.suffix in (".py", ".j2"):
                files[f"course/{path.relative_to(repo).as_posix()}"] = path
    ignored = {"mutants.toml", "mistakes.toml"}   # near-solutions, for the mutation check only
    source = course.source / assignment
    for path in sorted(source.rglob("*")):
        if path.is_file() and not skipped & set(path.parts) and path.name not in ignored:
            files[f"course/exercises/{assignment}/{path.relative_to(source).as_posix()}"] = path
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o100755 << 16   # executable, as Gradescope runs them
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, text)
        zf.writestr(SETTINGS, json.dumps(settings, indent=1))
        for name, path in sorted(files.items()):
            zf.write(path, name)
    return out


# --- inside the container ---------------------------------------------------------------------
def root():
    """The autograder's root: $RBD_GRADESCOPE_ROOT, else /autograder."""
    return Path(os.environ.get(ROOT_VARIABLE) or "/autograder")


def settings(base):
    return json.loads((base / "source" / SETTINGS).read_text())


def prepare(base=None):
    """setup.sh's last step: release the assignment in the packaged course (its gradebook then knows it)."""
    from ..course.course import Course
    from ..course.release import release
    base = base or root()
    course_root = base / "source" / "course"
    os.environ["RBD_GRADEBOOK_URL"] = f"sqlite:///{course_root / 'gradebook.db'}"
    release(Course(course_root), [settings(base)["assignment"]])


def run(base=None, report=print):
    """Grade the upload in ``<root>/submission`` and write ``<root>/results/results.json``; returns the results,
    or None when the upload could not be graded (then no results.json: Gradescope records no score).

    Raises :class:`CourseError` (nothing written) when grading cannot be set up, the sandbox above all.
    """
    from ..course.course import Course
    from ..grading import grade
    base = base or root()
    wanted = settings(base)
    assignment = wanted["assignment"]
    if not wanted["sandbox"]:
        os.environ["RBD_NO_SANDBOX"] = "1"   # built with --no-sandbox; else grade() fails closed without it
    work = base / "work"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(base / "source" / "course", work / "course",
                    ignore=shutil.ignore_patterns("autograded", "feedback", "__pycache__"))
    os.environ["RBD_GRADEBOOK_URL"] = f"sqlite:///{work / 'course' / 'gradebook.db'}"
    course = Course(work / "course")
    hand_in, problem = pick(base / "submission", list(course.source_notebooks(assignment)))
    outcome = None
    if not problem:
        folder = work / "hand-ins" / STUDENT
        folder.mkdir(parents=True)
        for name, path in hand_in.items():
            shutil.copyfile(path, folder / f"{name}.ipynb")
        outcomes = grade.grade(course, work / "hand-ins", assignment, force=True, jobs=1, report=report)
        outcome = outcomes[0] if outcomes else None
        problem = "" if outcome else "no notebook was found in the upload"
    out = base / "results" / "results.json"
    try:
        found = results(course, assignment, outcome, problem, wanted["hidden_visibility"])
    except Ungradable as err:
        out.unlink(missing_ok=True)
        report(f"This upload could not be graded: {err}. No results.json is written, so Gradescope records "
               "no score for it (the student sees that the autograder failed, and uploads again).")
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(found, indent=1, ensure_ascii=False))
    report(f"wrote {out}: {found['score']:g} points")
    return found


def pick(folder, names):
    """The uploaded notebook for each of the assignment's notebooks ``names``: ({name: path}, problem)."""
    uploaded = sorted(p for p in Path(folder).rglob("*.ipynb")
                      if p.is_file() and not p.is_symlink() and ".ipynb_checkpoints" not in p.parts)
    by_name = {p.stem: p for p in uploaded}
    if all(name in by_name for name in names):
        return {name: by_name[name] for name in names}, ""
    if len(names) == 1 and len(uploaded) == 1:
        return {names[0]: uploaded[0]}, ""
    expected = ", ".join(f"{n}.ipynb" for n in names)
    if not uploaded:
        return {}, f"no notebook was uploaded: upload {expected}"
    return {}, (f"upload {expected}; the upload holds "
                f"{', '.join(p.relative_to(folder).as_posix() for p in uploaded)}")


class Ungradable(Exception):
    """The upload could not be graded: no results.json is written, so Gradescope records no score for it."""


def results(course, assignment, outcome, problem="", hidden_visibility="after_published"):
    """results.json as Gradescope's specification has it, from the grader's ``outcome``.

    Raises :class:`Ungradable` with the reason when there is no scored outcome (a ``problem`` with the
    upload, or a notebook the grader could not grade): a score of 0 would be a grade the course never gave.
    """
    if outcome is None or outcome["status"] not in SCORED:
        raise Ungradable(problem or outcome["reason"])
    parts = gradebook.scores(course, assignment, outcome["student"])["parts"]
    tests, by_hand = [], 0.0
    for name, source_path in course.source_notebooks(assignment).items():
        source = read_notebook(source_path)
        secrets = leaks.secret_lines(source)
        graded = read_notebook(course.work(assignment, outcome["student"]).autograded(name))
        own = leaks.notebook_text(read_notebook(course.work(assignment, outcome["student"]).copy(name)))
        graded_cells = {grade_id(c): c for c in graded.cells if grade_id(c)}
        for cell in source.cells:
            cell_id = grade_id(cell)
            if cell_id not in parts:
                continue
            score, max_score = parts[cell_id]
            if role(cell) != "test":
                by_hand += max_score
                continue
            hidden = leaks.MARKERS[2] in cell.source
            tests.append({"name": f"{cell_id}: {summary_line(cell.source)}".rstrip(": "),
                          "score": float(score or 0.0), "max_score": float(max_score),
                          "output": message(graded_cells.get(cell_id), score, max_score, secrets, own),
                          "visibility": hidden_visibility if hidden else "visible"})
    total = sum(t["score"] for t in tests)
    out_of = sum(t["max_score"] for t in tests)
    output = f"Autograded: {total:g} / {out_of:g} points."
    if by_hand:
        output += f" The written answers ({by_hand:g} points) are graded by hand, apart from this score."
    if any(t["visibility"] != "visible" for t in tests):
        output += " Parts with hidden tests are shown once the grades are published."
    return {"score": total, "output": output, "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"assignment": assignment, "status": outcome["status"]}}


def summary_line(source):
    """The first line of a test cell's docstring (what it checks), or ''.

    >>> summary_line('\"\"\"The energy is conserved.\\n\\nMore.\"\"\"\\nassert True')
    'The energy is conserved.'
    """
    text = source.lstrip()
    for quote in ('"""', "'''"):
        if text.startswith(quote):
            body = text[3:].split(quote)[0].strip()
            return body.splitlines()[0].strip() if body else ""
    return ""


def message(cell, score, max_score, secrets, own):
    """What a student reads for one part: the failing check's message (never its code), read for leaks."""
    if cell is None:
        return "This part was not run."
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if not errors:
        return "All checks passed." if score == max_score else ""
    text = "\n".join(f"{o.get('ename', 'Error')}: {o.get('evalue', '')}" for o in errors)
    if leaks.find_leaks(text, secrets, own):
        return "This check failed; its message quoted the grader's tests and is not shown."
    return text


def main(argv=None):
    """``python -m autograder.handback.gradescope prepare|run`` (setup.sh, run_autograder)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv not in (["prepare"], ["run"]):
        print("usage: python -m autograder.handback.gradescope prepare|run", file=sys.stderr)
        return 2
    try:
        if argv == ["prepare"]:
            prepare()
        elif run() is None:
            return 1          # the upload could not be graded: no results.json, no score
    except CourseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
