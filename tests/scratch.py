"""A scratch course for the grading tests: the course's configuration and one homework, and its reference
answers typed into the released notebook as a student would."""

import shutil
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent


def scratch_course(root, assignment="hw01", config_extra=""):
    """A course folder at ``root`` holding ``assignment``'s source and nbgrader_config.py (plus ``config_extra``)."""
    shutil.copytree(REPO / "exercises" / assignment, Path(root) / "exercises" / assignment)
    (Path(root) / "nbgrader_config.py").write_text((REPO / "nbgrader_config.py").read_text() + config_extra)
    return Path(root)


def reference_answers(assignment="hw01"):
    """The reference solution of every answer cell, by grade id, without the solution markers."""
    source = nbformat.read(str(REPO / "exercises" / assignment / f"{assignment}.ipynb"), as_version=4)
    return {c.metadata.nbgrader["grade_id"]: "\n".join(line for line in c.source.splitlines() if "SOLUTION" not in line)
            for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")}


def answered(released, assignment="hw01"):
    """The released notebook at ``released`` with the reference answers typed in."""
    answers = reference_answers(assignment)
    nb = nbformat.read(str(released), as_version=4)
    for cell in nb.cells:
        name = cell.metadata.get("nbgrader", {}).get("grade_id")
        if name in answers:
            cell.source = answers[name]
    return nb
