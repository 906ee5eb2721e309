"""A notebook's nbgrader cells: what each one is, read through nbgrader's own ``nbgrader.utils``.

Every part of the grader that asks what a cell is (the judge, the checks of
a submission, the notes, the secrets of a source notebook, the feedback
scrubber) asks here, so they agree with each other and with nbgrader.

>>> from nbformat.v4 import new_code_cell, new_markdown_cell
>>> test = new_code_cell("assert x == 1", metadata={"nbgrader": {"grade": True, "solution": False,
...                                                               "grade_id": "test-x", "points": 1}})
>>> role(test), grade_id(test), role(new_code_cell("x = 1"))
('test', 'test-x', 'free')
>>> role(new_markdown_cell("Why?", metadata={"nbgrader": {"grade": True, "solution": True, "grade_id": "why"}}))
'written'
"""

import nbformat
from nbgrader.utils import is_grade, is_locked, is_solution

ROLES = ("test", "answer", "written", "locked", "free")


def read_notebook(path):
    """A notebook file, as nbformat version 4."""
    return nbformat.read(str(path), as_version=4)


def grade_id(cell):
    """The cell's nbgrader id (``test-energy``), or None for a cell nbgrader does not know."""
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def role(cell):
    """What the cell is to grading, one of :data:`ROLES`.

    ``test``: an autograded test (a code grade cell); ``answer``: a student's
    code answer; ``written``: a written answer (a markdown solution);
    ``locked``: a cell nbgrader restores from the release (setup, text,
    tasks); ``free``: a cell without nbgrader metadata (one a student added).
    """
    if not cell.metadata.get("nbgrader"):
        return "free"
    if is_solution(cell):
        return "answer" if cell.cell_type == "code" else "written"
    if is_grade(cell) and cell.cell_type == "code":
        return "test"
    return "locked"


def restored(cell):
    """Whether nbgrader puts this cell back from the release when grading (a test, or a locked cell)."""
    return is_locked(cell)


def grade_ids(nb):
    """The nbgrader ids of a notebook's cells."""
    return {grade_id(cell) for cell in nb.cells} - {None}
