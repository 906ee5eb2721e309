"""The outcome of grading each submission, kept in ``autograded/outcomes.json``.

The gradebook holds scores; this file holds what the gradebook cannot say:
whether a submission could be graded at all, and if not, why. One entry per
(assignment, student), replaced when the student is graded again. The file is
rewritten atomically after every student, so an interrupted batch leaves it
consistent and a re-run picks up where it stopped.
"""

import json
import os
import tempfile
from datetime import datetime, timezone

GRADED = "graded"
FLAGGED = "flagged for review"  # graded, with evidence of an attempt on the grader for a person to look at
FAILED = "could not be graded"
SCORED = (GRADED, FLAGGED)


def now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Outcomes:
    """A small table of outcomes, loaded from and saved to a JSON file."""

    def __init__(self, course):
        self.path = course.autograded / "outcomes.json"
        self.entries = {}
        if self.path.is_file():
            self.entries = json.loads(self.path.read_text()).get("outcomes", {})

    @staticmethod
    def key(assignment, student):
        return f"{assignment}/{student}"

    def get(self, assignment, student):
        return self.entries.get(self.key(assignment, student))

    def record(self, outcome):
        self.entries[self.key(outcome["assignment"], outcome["student"])] = outcome
        self.save()

    def remove(self, assignment, student):
        if self.entries.pop(self.key(assignment, student), None) is not None:
            self.save()

    def all(self, assignment=None):
        """Outcomes sorted by assignment and student, optionally of one assignment."""
        rows = sorted(self.entries.values(), key=lambda o: (o["assignment"], o["student"]))
        return [o for o in rows if assignment in (None, o["assignment"])]

    def save(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".outcomes-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump({"version": 1, "outcomes": self.entries}, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


def failed(assignment, student, reason, **extra):
    """The outcome of a submission that could not be graded."""
    return dict(assignment=assignment, student=student, status=FAILED, reason=reason, notes=[],
                score=None, max_score=None, graded_at=now(), **extra)
