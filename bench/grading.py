"""Grading time per submission against the floor: the same notebook executed in a fresh kernel.

A scratch course (a copy of exercises/ and nbgrader_config.py) is released,
then a class of submissions made from the reference solution is graded with
``python -m autograder grade``. The floor is plain execution of the same
notebook with nbclient.
"""

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
STUDENTS = 4


def _autograder(root, *args):
    subprocess.run([sys.executable, "-m", "autograder", "--root", str(root), *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run():
    rows = []
    for source in sorted((ROOT / "exercises").glob("*/*.ipynb")):
        assignment = source.parent.name
        with tempfile.TemporaryDirectory() as tmp:
            course = Path(tmp) / "course"
            shutil.copytree(ROOT / "exercises", course / "exercises")
            shutil.copy(ROOT / "nbgrader_config.py", course)
            _autograder(course, "release", assignment)
            hand_ins = Path(tmp) / "hand_ins"
            for k in range(STUDENTS):
                (hand_ins / f"student{k}").mkdir(parents=True)
                shutil.copy(source, hand_ins / f"student{k}" / source.name)

            nb = nbformat.read(source, as_version=4)
            t0 = time.perf_counter()
            NotebookClient(nb, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": str(source.parent)}}).execute()
            floor = time.perf_counter() - t0

            t0 = time.perf_counter()
            _autograder(course, "grade", str(hand_ins), "--assignment", assignment)
            per_submission = (time.perf_counter() - t0) / STUDENTS
        rows += [
            {"benchmark": f"{assignment}: plain execution, fresh kernel (floor)", "value": floor, "unit": "s",
             "note": "nbclient"},
            {"benchmark": f"{assignment}: grading per submission ({STUDENTS} in a batch)", "value": per_submission,
             "unit": "s", "note": f"{per_submission / floor:.2f}x the floor"},
        ]
    return rows
