"""The last stage of grading: the outcome of each submission, kept in ``autograded/outcomes.json``.

The gradebook holds scores (nbgrader files them while it grades); this file
holds what the gradebook cannot say: whether a submission could be graded at
all, and if not, why. One entry per (assignment, student), replaced when the
student is graded again. The file is rewritten atomically after every
student, so an interrupted batch leaves it consistent and a re-run picks up
where it stopped. :meth:`Outcomes.record` of a submission that could not be
graded first removes whatever an earlier grading left behind (:func:`forget`):
nothing then shows a 0 that was never earned. What a person entered by hand
(scores of written answers, comments) is never removed: the gradebook keeps
it, and the outcome says so, for the next grading to count it again.
"""

import json
import os
import shutil
import tempfile
from datetime import datetime, timezone
from typing import Optional, TypedDict

from . import gradebook

GRADED = "graded"
FLAGGED = "flagged for review"  # graded, with evidence of an attempt on the grader for a person to look at
FAILED = "could not be graded"
SCORED = (GRADED, FLAGGED)
KEPT = ("the scores and comments entered by hand are kept in the gradebook; they count again once this "
        "hand-in is graded")


class Outcome(TypedDict, total=False):
    """What an outcome holds. It is stored as JSON, so it stays a plain dict; only :func:`failed`,
    :func:`scored` and :func:`restated` make one."""

    assignment: str               # what
    student: str                  # who
    status: str                   # GRADED, FLAGGED or FAILED
    reason: str                   # why FAILED ("" otherwise)
    notes: list                   # sentences for the instructor (edited cells, limits, lateness, evidence)
    score: Optional[float]        # from the gradebook; None when FAILED (never a 0 that was not earned)
    max_score: Optional[float]
    needs_manual_grade: bool      # these six as the gradebook has them (gradebook.scores)
    parts: dict
    flagged: bool
    timestamp: str
    seconds_late: float
    late_penalty: float
    graded_at: str                # when
    log: str                      # nbgrader's output
    source: str                   # the hand-in: its label,
    sha256: str                   # fingerprint,
    name: str                     # name as handed in,
    marked_late: bool             # and Canvas's _LATE_ mark


def now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Outcomes:
    """A small table of outcomes, loaded from and saved to a JSON file."""

    def __init__(self, course):
        self.course = course
        self.path = course.autograded / "outcomes.json"
        self.entries = {}
        if self.path.is_file():
            self.entries = json.loads(self.path.read_text()).get("outcomes", {})

    @staticmethod
    def key(assignment, student):
        return f"{assignment}/{student}"

    def get(self, assignment, student) -> Optional[Outcome]:
        return self.entries.get(self.key(assignment, student))

    def record(self, outcome):
        """Keep a student's outcome; one that could not be graded leaves no grade, graded notebook or feedback."""
        if outcome["status"] == FAILED and forget(self.course, outcome["assignment"], outcome["student"]):
            outcome = dict(outcome, notes=list(outcome.get("notes", [])) + [KEPT])
        self.entries[self.key(outcome["assignment"], outcome["student"])] = outcome
        self.save()

    def drop(self, assignment, student):
        """Forget a student's outcome (not their grades): the next run grades them again."""
        if self.entries.pop(self.key(assignment, student), None) is not None:
            self.save()

    def all(self, assignment=None) -> list[Outcome]:
        """Outcomes sorted by assignment and student, optionally of one assignment."""
        rows = sorted(self.entries.values(), key=lambda o: (o["assignment"], o["student"]))
        return [o for o in rows if assignment in (None, o["assignment"])]

    def save(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".outcomes-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump({"version": 1, "outcomes": self.entries}, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


HAND_IN = ("source", "sha256", "name", "marked_late")


def failed(assignment, student, reason, log=None, **hand_in) -> Outcome:
    """The outcome of a submission that could not be graded."""
    return _outcome(assignment, student, FAILED, reason, [], dict(score=None, max_score=None), log, hand_in)


def scored(assignment, student, scores, notes, evidence, log, **hand_in) -> Outcome:
    """The outcome of a graded submission: the gradebook's ``scores``, flagged for review when there is
    ``evidence`` of an attempt on the grader."""
    return _outcome(assignment, student, FLAGGED if evidence else GRADED, "", list(notes) + list(evidence),
                    scores, log, hand_in)


def restated(previous, scores) -> Outcome:
    """An earlier outcome that stands (the same hand-in), with the gradebook's scores as they are now."""
    return {**previous, **scores}


def _outcome(assignment, student, status, reason, notes, scores, log, hand_in) -> Outcome:
    unknown = set(hand_in) - set(HAND_IN)
    if unknown:
        raise TypeError(f"not a detail of a hand-in: {', '.join(sorted(unknown))}")
    outcome = dict(assignment=assignment, student=student, status=status, reason=reason, notes=notes,
                   graded_at=now(), **scores, **hand_in)
    if log is not None:
        outcome["log"] = log
    return outcome


def remove(course, assignment, student):
    """``forget``: remove a student's outcome of an assignment, with what grading left behind (the grader's
    copy, the graded notebook, the feedback, the gradebook's entry), but never a hand-in nor what a person
    entered by hand (then the gradebook's entry and the graded notebook stay). Returns what was done."""
    book = Outcomes(course)
    known = book.get(assignment, student) is not None or student in gradebook.students(course, assignment)
    if not known:
        listed = ", ".join(sorted({o["student"] for o in book.all(assignment)})) or "none"
        raise ValueError(f"no outcome of {assignment} for student {student!r} (students with one: {listed})")
    kept = forget(course, assignment, student)
    copy = course.student_folder("copies", student, assignment)
    shutil.rmtree(copy, ignore_errors=True)
    if copy.parent.is_dir() and not any(copy.parent.iterdir()):
        copy.parent.rmdir()
    book.drop(assignment, student)
    if kept:
        return (f"removed the outcome of {assignment}/{student}; the scores and comments entered by hand stay in "
                "the gradebook (with the graded notebook they were entered on), and count again when this "
                "student is graded")
    return f"removed the outcome of {assignment}/{student} and its grades; no hand-in was touched"


def forget(course, assignment, student):
    """Remove whatever an earlier grading of this student left behind: the gradebook's entry, autograded/,
    feedback/. When a person had graded some of it by hand, the gradebook's entry and the graded notebook
    they graded are kept (only the feedback goes), and True is returned."""
    kept = gradebook.forget(course, assignment, student)
    for kind in ("feedback",) if kept else ("autograded", "feedback"):
        folder = course.student_folder(kind, student, assignment)
        shutil.rmtree(folder, ignore_errors=True)
        if folder.parent.is_dir() and not any(folder.parent.iterdir()):
            folder.parent.rmdir()
    return kept
