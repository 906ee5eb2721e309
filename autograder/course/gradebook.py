"""Reading and tidying the nbgrader gradebook (SQLite by default, any SQLAlchemy URL)."""

import contextlib
from datetime import timezone

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


def due_date(course, assignment):
    """The assignment's due date (UTC, aware), or None when it has none."""
    with opened(course) as gb:
        try:
            due = gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None
    return None if due is None else due.replace(tzinfo=timezone.utc)


def max_score(course, assignment):
    with opened(course) as gb:
        return float(gb.find_assignment(assignment).max_score)


def scores(course, assignment, student):
    """Score, max score, whether manual grading is pending, each graded cell's [score, max score], whether a
    grader flagged a notebook in the formgrader, and when it was handed in: nbgrader's timestamp, the seconds
    past the due date and the late penalty nbgrader's ``AssignLatePenalties`` assessed (``score`` is before
    the penalty, as nbgrader keeps it).

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
                "needs_manual_grade": bool(submission.needs_manual_grade), "parts": parts,
                "flagged": any(notebook.flagged for notebook in submission.notebooks),
                "timestamp": submission.timestamp.isoformat() if submission.timestamp else "",
                "seconds_late": float(submission.total_seconds_late),
                "late_penalty": float(submission.late_submission_penalty or 0.0)}


def extend(course, assignment, student, hours):
    """Give a student ``hours`` past the due date (nbgrader's extension; 0 removes it). Only a hand-in already
    in the gradebook can have one (nbgrader keeps it on the submission, so that no empty submission is made)."""
    with opened(course) as gb:
        try:
            gb.find_submission(assignment, student)
        except MissingEntry:
            return False
        gb.grant_extension(assignment, student, hours=hours)
    return True


def students(course, assignment):
    """Students who have a submission of the assignment in the gradebook."""
    with opened(course) as gb:
        return sorted(s.student.id for s in gb.assignment_submissions(assignment))


def hand_graded(course, assignment, student):
    """What a person entered for this submission (in the formgrader or with nbgrader's API), by cell:
    ``{cell: {"manual_score", "extra_credit", "needs_manual_grade"}}`` for graded cells a person scored,
    and ``{cell: {"manual_comment"}}`` for comments; empty when nothing was entered by hand."""
    entered = {}
    with opened(course) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return entered
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                if grade.manual_score is not None or grade.extra_credit:
                    entered[f"{notebook.name}/{grade.name}"] = {
                        "manual_score": grade.manual_score, "extra_credit": grade.extra_credit,
                        "needs_manual_grade": bool(grade.needs_manual_grade)}
            for comment in notebook.comments:
                if comment.manual_comment:
                    entered.setdefault(f"{notebook.name}/{comment.name}", {})["manual_comment"] = \
                        comment.manual_comment
    return entered


def keep_reviewed(course, assignment, student, reviewed):
    """After an autograde, mark again as reviewed the cells a person had scored and that ``reviewed`` names
    (``notebook/cell``): nbgrader flags every hand-scored cell for review when it autogrades again, even when
    the student's answer did not change. The scores themselves nbgrader never touches."""
    with opened(course) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                if f"{notebook.name}/{grade.name}" in reviewed and grade.manual_score is not None:
                    grade.needs_manual_grade = False
        gb.db.commit()


def forget(course, assignment, student):
    """Remove a student's submission from the gradebook, so that no stale score or 0 remains; but never what a
    person entered by hand (:func:`hand_graded`): then the entry is kept, and True returned."""
    if hand_graded(course, assignment, student):
        return True
    with opened(course) as gb:
        try:
            gb.remove_submission(assignment, student)
        except MissingEntry:
            pass
    return False
