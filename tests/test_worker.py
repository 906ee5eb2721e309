"""The grading worker (autograder/grading/worker.py): one process grading student after student.

A scratch hw01 course is released once; submissions are put straight into its
grader's copies folder and graded through :class:`GradingWorker`, as ``grade`` does.
"""

import copy
import os
import signal
import threading
import time
from pathlib import Path

import nbformat
import pytest

from autograder.cli import main
from autograder.course import gradebook
from autograder.course.course import Course
from autograder.grading.verdict import diagnose
from autograder.grading.worker import GradingWorker
from tests.scratch import scratch_course

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not (REPO / "exercises" / "hw01").is_dir(), reason="needs exercises/hw01")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("worker-course")
    scratch_course(root, "hw01")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.setenv("RBD_CELL_TIMEOUT", "60")
        assert main(["--root", str(root), "release", "hw01"]) == 0
        yield Course(root)


def hand_in(course, student, replace=None):
    """Put the reference answers (with ``replace`` applied) into the grader's copy of <student>'s hw01."""
    source = nbformat.read(str(REPO / "exercises" / "hw01" / "hw01.ipynb"), as_version=4)
    answers = {c.metadata.nbgrader["grade_id"]: "\n".join(l for l in c.source.splitlines() if "SOLUTION" not in l)
               for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")}
    answers.update(replace or {})
    nb = copy.deepcopy(nbformat.read(str(course.release_dir / "hw01" / "hw01.ipynb"), as_version=4))
    for cell in nb.cells:
        name = cell.metadata.get("nbgrader", {}).get("grade_id")
        if name in answers:
            cell.source = answers[name]
    folder = course.student_folder("copies", student, "hw01")
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(folder / "hw01.ipynb"))


@pytest.fixture
def worker(course):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{course.root / 'gradebook.db'}")
        handle = GradingWorker(course, memory_mb=4096)
        yield handle
        handle.stop()


def run(worker, course, student, time_limit=600):
    return worker.autograde("hw01", student, course.logs() / f"hw01.{student}.log", time_limit)


def test_one_worker_grades_student_after_student(course, worker):
    hand_in(course, "ada")
    hand_in(course, "bob", {"answer-energy": "raise ValueError('not done')"})
    first = run(worker, course, "ada")
    pid = worker.proc.pid
    second = run(worker, course, "bob")
    assert first.returncode == 0 and second.returncode == 0, (first.log, second.log)
    assert worker.proc.pid == pid, "the worker should have been kept for the second student"
    ada, bob = gradebook.scores(course, "hw01", "ada"), gradebook.scores(course, "hw01", "bob")
    auto = [score for score, _ in ada["parts"].values() if score is not None]
    assert ada["score"] == sum(auto) > 0 and all(score == top for score, top in ada["parts"].values()
                                                 if score is not None), ada
    assert bob["score"] < ada["score"], (ada, bob)       # one student's answers never reach another's grade
    assert "Converting notebook" in first.log and "bob" not in first.log


def test_a_worker_past_the_time_limit_is_replaced(course, worker):
    hand_in(course, "slow", {"answer-energy": "while True:\n    pass"})
    hand_in(course, "ada")
    run(worker, course, "ada")
    pid = worker.proc.pid
    late = run(worker, course, "slow", time_limit=3)   # the loop runs until the cell's limit, 60 s: always late
    assert late.timed_out
    assert "longer than 3 s" in diagnose(late, 3)
    assert worker.proc is None
    after = run(worker, course, "ada")
    assert after.returncode == 0 and worker.proc.pid != pid, after.log


def test_a_worker_killed_while_grading_costs_only_that_student(course, worker, monkeypatch):
    """The worker is killed once nbgrader has begun on the student, whose cell never ends (no cell limit
    within the test's reach, no limit for the whole submission): the kill always lands while grading."""
    monkeypatch.setenv("RBD_CELL_TIMEOUT", "3600")    # read by the worker this test starts
    hand_in(course, "slow", {"answer-energy": "while True:\n    pass"})
    hand_in(course, "ada")
    run(worker, course, "ada")
    victim = worker.proc.pid
    log = course.logs() / "hw01.slow.log"

    def kill_once_grading():
        while "Converting notebook" not in (log.read_text() if log.is_file() else ""):
            time.sleep(0.05)
        os.kill(victim, signal.SIGKILL)

    killer = threading.Thread(target=kill_once_grading, daemon=True)
    log.unlink(missing_ok=True)
    killer.start()
    killed = run(worker, course, "slow", time_limit=3600)
    killer.join()
    assert killed.returncode == -signal.SIGKILL and not killed.timed_out
    assert "killed by signal 9" in diagnose(killed, 600)
    again = run(worker, course, "ada")
    assert again.returncode == 0 and worker.proc.pid != victim


def test_a_changed_configuration_restarts_the_worker(course, worker):
    hand_in(course, "ada")
    run(worker, course, "ada")
    pid = worker.proc.pid
    config = course.root / "nbgrader_config.py"
    stamp = config.stat().st_mtime_ns + 10**9
    os.utime(config, ns=(stamp, stamp))
    assert run(worker, course, "ada").returncode == 0
    assert worker.proc.pid != pid


def test_a_worker_without_the_sandbox_grades_nothing(course, monkeypatch):
    """Fail closed even below the grade command: the judge refuses to run a student's code unconfined."""
    hand_in(course, "unboxed")
    monkeypatch.setenv("PATH", "/nonexistent")            # no bubblewrap to be found
    monkeypatch.delenv("RBD_NO_SANDBOX", raising=False)   # and unconfined grading not asked for
    monkeypatch.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{course.root / 'gradebook.db'}")
    handle = GradingWorker(course, memory_mb=4096)
    try:
        refused = run(handle, course, "unboxed")
    finally:
        handle.stop()
    assert refused.returncode != 0, refused.log
    assert "SandboxMissing" in refused.log and "apt-get install bubblewrap" in refused.log, refused.log
    assert "the grading sandbox cannot be set up" in diagnose(refused, 600)
    book = gradebook.scores(course, "hw01", "unboxed")   # nbgrader filed the submission, and scored nothing
    assert book is None or all(score is None for score, _ in book["parts"].values()), book
