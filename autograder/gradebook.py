"""Reading and tidying the nbgrader gradebook (SQLite by default, any SQLAlchemy URL)."""

import contextlib

from nbgrader.api import Gradebook, MissingEntry


@contextlib.contextmanager
def opened(course):
    with Gradebook(course.db_url, course.course_id) as gb:
        yield gb


def knows(course, assignment):
    """Whether the assignment has been released (nbgrader recorded it in the gradebook)."""
    with opened(course) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            return False
        return True


def max_score(course, assignment):
    with opened(course) as gb:
        return float(gb.find_assignment(assignment).max_score)


def scores(course, assignment, student):
    """Score, max score, whether manual grading is pending, and each graded cell's [score, max score].

    A cell's score is None while it waits to be graded by hand.
    """
    with opened(course) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return None
        parts = {grade.name: [None if grade.auto_score is None and grade.manual_score is None else float(grade.score),
                              float(grade.max_score)]
                 for notebook in submission.notebooks for grade in notebook.grades}
        return {"score": float(submission.score), "max_score": float(submission.max_score),
                "needs_manual_grade": bool(submission.needs_manual_grade), "parts": parts}


def students(course, assignment):
    """Students who have a submission of the assignment in the gradebook."""
    with opened(course) as gb:
        return sorted(s.student.id for s in gb.assignment_submissions(assignment))


def forget(course, assignment, student):
    """Remove a student's submission from the gradebook, so that no stale score or 0 remains."""
    with opened(course) as gb:
        try:
            gb.remove_submission(assignment, student)
        except MissingEntry:
            pass
