"""``release``: generate the student version of each assignment, then prove it holds no answers.

nbgrader's generate_assignment strips solutions, hidden tests and outputs and
records the assignment in the gradebook. A release is only kept when none of
the source's secret lines (see :mod:`autograder.course.leaks`), no region marker and
no output is left in it; otherwise it is deleted and the command fails.
"""

import shutil

from . import leaks
from .cells import read_notebook
from .course import CourseError


def check_release(course, assignment):
    """Problems of a released assignment, as sentences (empty when it is safe to hand out)."""
    problems = []
    released = course.release_dir / assignment
    for name, source_path in course.source_notebooks(assignment).items():
        path = released / f"{name}.ipynb"
        if not path.is_file():
            problems.append(f"{path} is missing")
            continue
        nb = read_notebook(path)
        secrets = leaks.secret_lines(read_notebook(source_path))
        found = leaks.find_leaks(leaks.notebook_text(nb) + "\n" + str(nb.metadata), secrets)
        if found:
            problems.append(leaks.summary(path.relative_to(course.root), found))
        if any(cell.get("outputs") for cell in nb.cells):
            problems.append(f"{path.name} still has outputs")
    return problems


def release(course, assignments=()):
    """Release the given assignments (all by default); returns the folders written."""
    assignments = [course.check_assignment(a) for a in assignments] or course.assignments()
    if not assignments:
        raise CourseError(f"nothing to release: no assignment folders in {course.source}")
    written = []
    for assignment in assignments:
        log_path = course.logs() / f"release.{assignment}.log"
        run = course.nbgrader("generate_assignment", assignment, "--force", log_path=log_path)
        if run.returncode != 0:
            raise CourseError(f"nbgrader generate_assignment {assignment} failed; its output is in {log_path}:\n"
                              + "\n".join(run.log.splitlines()[-15:]))
        problems = check_release(course, assignment)
        if problems:
            shutil.rmtree(course.release_dir / assignment, ignore_errors=True)
            raise CourseError(f"the release of {assignment} gave answers away, so it was deleted:\n  "
                              + "\n  ".join(problems))
        written.append(course.release_dir / assignment)
    ensure_exchange(course)
    return written


def ensure_exchange(course):
    """Create nbgrader's exchange folder (nbgrader_config.py, ``c.Exchange.root``) if it is missing, open to every
    user as nbgrader's release_assignment makes it; without it the formgrader says release and collect are off."""
    if course.exchange.is_dir():
        return
    try:
        course.exchange.mkdir(parents=True)
        course.exchange.chmod(0o777)
    except OSError as err:
        print(f"warning: nbgrader's exchange folder {course.exchange} could not be created ({err}); set "
              "RBD_EXCHANGE_ROOT to a folder every user can write (nbgrader_config.py)")
