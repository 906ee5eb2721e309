"""Setting up to grade: the command a new instructor types first (autograder/README.md).

``.venv/bin/python -m autograder grade ...`` on a course with no gradebook
yet, from a shell whose PATH does not hold the environment's tools.
"""

import subprocess
import sys
from pathlib import Path

import pytest
from tests.scratch import scratch_course

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not (REPO / "exercises" / "hw01").is_dir(), reason="needs exercises/hw01")


def test_grade_without_a_gradebook_creates_it_and_says_what_to_run(tmp_path):
    root = tmp_path / "course"
    scratch_course(root, "hw01")
    (tmp_path / "hand-ins").mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}   # no .venv/bin, no alembic
    # --no-sandbox: what is tested here is the gradebook, whether or not bubblewrap is installed
    done = subprocess.run([sys.executable, "-m", "autograder", "--root", str(root), "grade",
                           str(tmp_path / "hand-ins"), "--no-sandbox"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert "alembic" not in done.stderr and "Errno" not in done.stderr, done.stderr
    assert done.returncode == 1 and "release it first (python -m autograder release hw01)" in done.stderr, done.stderr
    assert (root / "gradebook.db").is_file()
    released = subprocess.run([sys.executable, "-m", "autograder", "--root", str(root), "release", "hw01"],
                              env=env, capture_output=True, text=True, timeout=300)
    assert released.returncode == 0, released.stderr
