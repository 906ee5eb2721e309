"""Canvas's file names: ``<name>_[LATE_]<user id>_<submission id>_<uploaded file>``, read into their parts.

Canvas's "Download Submissions" zip is flat, one file per uploaded file;
each name carries the student's login or name (which may itself contain
``_``), an optional late mark, the Canvas user id, the submission id and the
file the student uploaded, with ``-1``, ``-2``... for a re-upload. Read by
autograder/grading/submissions.py (which student handed in what) and by
autograder/handback/lms.py (the Canvas user id of each graded hand-in).

>>> parts = canvas_file("doe_jane_LATE_4242_98765_hw01-1.ipynb", ["hw01"])
>>> parts.name, parts.user, parts.submission, parts.late, parts.stem, parts.copy
('doe_jane', '4242', 98765, True, 'hw01', 1)
>>> canvas_file("hw01.ipynb") is None
True
"""

import re
from dataclasses import dataclass

# <name>_[LATE_]<user id>_<submission id>_<original file name>, as Canvas names each file of its zip.
_CANVAS_IDS = re.compile(r"_(?:(?P<late>LATE)_)?(?P<user>[0-9]+)_(?P<submission>[0-9]+)_(?=.)")
# Canvas appends -1, -2, ... to a file name the student had already uploaded (hw01-1.ipynb).
_RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<n>[0-9]+)$")


@dataclass(frozen=True)
class CanvasFile:
    """The parts of one file name of Canvas's bulk download."""

    name: str          # the student's login or name, as Canvas wrote it
    user: str          # Canvas user id
    submission: int    # Canvas submission id
    late: bool
    original: str      # the file name the student uploaded (with Canvas's -N suffix, if any)

    @property
    def stem(self):
        """The uploaded file's name without .ipynb and without Canvas's -N suffix."""
        stem = self.original.removesuffix(".ipynb")
        match = _RESUBMITTED.match(stem)
        return match["stem"] if match else stem

    @property
    def copy(self):
        """Canvas's -N suffix (0 without one): the higher, the later the upload."""
        match = _RESUBMITTED.match(self.original.removesuffix(".ipynb"))
        return int(match["n"]) if match else 0


def canvas_file(filename, names=()):
    """The parts of a Canvas bulk-download file name, or None if it is not one.

    Logins may contain underscores and so may uploaded file names, so a name can
    split in more than one way: a split whose uploaded file is one of the
    assignment's notebooks (``names``) wins, otherwise the leftmost one.
    """
    splits = []
    for start in range(1, len(filename)):
        match = _CANVAS_IDS.match(filename, start)
        if match:
            splits.append(CanvasFile(filename[:start], match["user"], int(match["submission"]),
                                     bool(match["late"]), filename[match.end():]))
    for split in splits:
        if split.stem in names:
            return split
    return splits[0] if splits else None
