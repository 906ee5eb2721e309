"""The grader against submissions that attack it (tests/adversarial/hw01_attacks.py, autograder/THREATS.md).

One batch of every attack is graded with the real command (``python -m
autograder grade``, nbgrader underneath, two students at a time, a 5 s cell
limit). Each must get exactly its expected outcome, no other submission's
grade may change, nothing may be left behind outside the sandbox, and a batch
killed with ``kill -9`` half-way must resume and finish with every grade once.

The sandbox needs root and util-linux's ``unshare`` (as in CI); without them
these tests fail rather than pass on a weaker grader.
"""

import copy
import importlib.util
import json
import os
import signal
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder import gradebook, sandbox
from autograder.cli import main
from autograder.course import Course
from autograder.outcomes import FAILED, FLAGGED, GRADED, Outcomes

REPO = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("hw01_attacks", REPO / "tests" / "adversarial" / "hw01_attacks.py")
attacks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(attacks)
ATTACKS = {a["name"]: a for a in attacks.ATTACKS}
STATUS = {"graded": GRADED, "flagged for review": FLAGGED, "could not be graded": FAILED}
LEFT_BEHIND = [Path(p) / "left-behind.txt" for p in ("/", "/tmp", "/work", "/root", Path.home())]

pytestmark = pytest.mark.slow


def cli(root, *args):
    return main(["--root", str(root), *map(str, args)])


def solution_sources(source_nb):
    return {c.metadata.nbgrader["grade_id"]: "\n".join(l for l in c.source.splitlines() if "SOLUTION" not in l)
            for c in source_nb.cells if c.metadata.get("nbgrader", {}).get("solution")}


def build(released, answers, attack):
    nb = copy.deepcopy(released)
    replace = dict(answers) if attack["base"] == "reference" else {}
    replace.update(attack.get("replace", {}))
    for cell in nb.cells:
        name = cell.metadata.get("nbgrader", {}).get("grade_id")
        if name in replace:
            cell.source = replace[name]
    if "edit" in attack:
        attack["edit"](nb)
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    problem = sandbox.available()
    assert not problem, f"the grading sandbox is not available here: {problem}"
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(REPO / "exercises" / "hw01", root / "exercises" / "hw01")
    shutil.copy(REPO / "nbgrader_config.py", root)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.setenv("RBD_CELL_TIMEOUT", "5")
        env.delenv("RBD_COURSE_ROOT", raising=False)
        assert cli(root, "release", "hw01") == 0
        yield Course(root)


@pytest.fixture(scope="module")
def source():
    return nbformat.read(str(REPO / "exercises" / "hw01" / "hw01.ipynb"), as_version=4)


@pytest.fixture(scope="module")
def graded(course, source, tmp_path_factory):
    released = nbformat.read(str(course.release_dir / "hw01" / "hw01.ipynb"), as_version=4)
    answers = solution_sources(source)
    folder = tmp_path_factory.mktemp("attacks")
    nbformat.write(build(released, answers, {"base": "reference"}), str(folder / "honest.ipynb"))
    for name, attack in ATTACKS.items():
        nb = build(released, answers, attack)
        (folder / f"{name}.ipynb").write_text(nbformat.writes(nb, version=4) if "edit" not in attack
                                              else json.dumps(nb, indent=1))
    for path in LEFT_BEHIND:
        path.unlink(missing_ok=True)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{course.root / 'gradebook.db'}")
        env.setenv("RBD_CELL_TIMEOUT", "5")
        assert cli(course.root, "grade", folder, "--assignment", "hw01", "--jobs", "2") == 0
    return {o["student"]: o for o in Outcomes(course).all("hw01")}


def test_the_honest_submission_among_them_gets_full_marks(graded, source):
    honest = graded["honest"]
    assert honest["status"] == GRADED and honest["score"] == 15, honest


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_gets_its_expected_outcome(graded, name):
    expect, outcome = ATTACKS[name]["expect"], graded[name]
    assert outcome["status"] == STATUS[expect["status"]], outcome
    if outcome["status"] == FAILED:
        assert expect["reason"] in outcome["reason"] and outcome["score"] is None, outcome
        return
    points = {cell: score for cell, (score, _) in outcome["parts"].items() if cell.startswith("test-")}
    lost = sorted(cell for cell, score in points.items() if score == 0)
    assert lost == sorted(expect["lost"]), f"{name}: lost {lost}, expected {expect['lost']}; notes {outcome['notes']}"
    if "flag" in expect:
        assert any(expect["flag"] in note for note in outcome["notes"]), outcome["notes"]


def test_nothing_is_left_behind_outside_the_sandbox(graded):
    assert not [str(p) for p in LEFT_BEHIND if p.exists()]


def test_no_sandbox_means_no_grade_without_a_note(graded):
    for outcome in graded.values():
        assert not any("without the sandbox" in note for note in outcome.get("notes", [])), outcome


# --- kill -9 half-way, then resume ----------------------------------------------------------
def test_a_batch_killed_half_way_resumes_with_every_grade_once(course, source, tmp_path):
    released = nbformat.read(str(course.release_dir / "hw01" / "hw01.ipynb"), as_version=4)
    answers = solution_sources(source)
    folder = tmp_path / "batch"
    folder.mkdir()
    students = [f"resume{i}" for i in range(6)]
    for i, student in enumerate(students):
        nb = build(released, answers, {"base": "reference" if i % 2 == 0 else "blank"})
        nbformat.write(nb, str(folder / f"{student}.ipynb"))
    env = dict(os.environ, RBD_GRADEBOOK_URL=f"sqlite:///{course.root / 'gradebook.db'}", RBD_CELL_TIMEOUT="20")
    command = [sys.executable, "-m", "autograder", "--root", str(course.root), "grade", str(folder),
               "--assignment", "hw01", "--jobs", "2"]
    first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True, text=True)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:  # wait until some, not all, are graded
        done = [o for o in Outcomes(course).all("hw01") if o["student"] in students]
        if done:
            break
        time.sleep(0.5)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    done_before = {o["student"] for o in Outcomes(course).all("hw01") if o["student"] in students}
    assert 0 < len(done_before) < len(students), f"the kill came too late or too early: {done_before}"
    time.sleep(1)  # the nbgrader runs of the killed batch die with it
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1200)
    assert second.returncode == 0, second.stdout + second.stderr
    outcomes = {o["student"]: o for o in Outcomes(course).all("hw01") if o["student"] in students}
    assert sorted(outcomes) == students
    for i, student in enumerate(students):
        assert outcomes[student]["status"] == GRADED, outcomes[student]
        assert outcomes[student]["score"] == (15 if i % 2 == 0 else 0), outcomes[student]
    skipped = second.stdout.count("unchanged since last time")
    assert skipped == len(done_before), second.stdout
    in_book = [s for s in gradebook.students(course, "hw01") if s in students]
    assert sorted(in_book) == students  # each once
