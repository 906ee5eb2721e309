"""A class through stock nbgrader's exchange, as on a JupyterHub: no hand-in is ever lost or changed.

The instructor releases with ``nbgrader release_assignment``; students
``fetch_assignment`` and ``submit`` (one on time, one late); ``nbgrader
collect`` fills ``submitted/``; then every command of the course's flow runs
on that folder in place: ``grade`` (with no folder: submitted/ is the
default), a written answer scored by hand (as the formgrader does, through
nbgrader's gradebook), ``grade --force``, ``feedback``, ``nbgrader
release_feedback`` / ``fetch_feedback``, ``export``. After every command each
collected file (the notebooks, ``timestamp.txt``, ``submission_secret.txt``)
is checked byte for byte, and so is the exchange's inbound folder.
"""

import csv
import hashlib
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.cli import main
from autograder.course import Course
from autograder.outcomes import FAILED, Outcomes
from tests.scratch import answered, scratch_course

REPO = Path(__file__).resolve().parent.parent
ASSIGNMENT = "hw01"
WRITTEN = "answer-gear-friction"   # hw01's written answer (3 points), graded by hand
pytestmark = pytest.mark.skipif(not (REPO / "exercises" / ASSIGNMENT).is_dir(), reason="needs exercises/hw01")


def nbgrader(cwd, *args, check=True):
    """Run stock nbgrader as a user would, in ``cwd``; its output."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"))
    if check:
        assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def snapshot(*folders):
    """Every file under the folders, path -> sha256 of its bytes."""
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in folders for p in sorted(Path(folder).rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A course folder with a local exchange, hw01 released through it, two students' hand-ins collected."""
    base = tmp_path_factory.mktemp("hub")
    root, exchange = base / "course", base / "exchange"
    # a late hand-in loses everything, as nbgrader's own late-penalty setting says
    scratch_course(root, ASSIGNMENT, '\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.setenv("RBD_EXCHANGE_ROOT", str(exchange))
        env.delenv("RBD_COURSE_ROOT", raising=False)
        exchange.mkdir()
        assert main(["--root", str(root), "release", ASSIGNMENT]) == 0
        nbgrader(root, "release_assignment", ASSIGNMENT)
        students = {"ada": base / "home-ada", "名前": base / "home-namae"}
        for student, home in students.items():
            home.mkdir()
            nbgrader(home, "fetch_assignment", ASSIGNMENT, "--course", "rbd-course", f"--Exchange.root={exchange}")
            mine = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            nbformat.write(answered(mine), str(mine))
        nbgrader(students["ada"], "submit", ASSIGNMENT, "--course", "rbd-course", "--student=ada",
                 f"--Exchange.root={exchange}")
        # the due date falls between the two hand-ins: 名前's is late
        on_time = datetime.now(timezone.utc)
        time.sleep(1.1)
        with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "rbd-course") as gb:
            gb.update_or_create_assignment(ASSIGNMENT, duedate=on_time.replace(tzinfo=None))
        time.sleep(1.1)
        nbgrader(students["名前"], "submit", ASSIGNMENT, "--course", "rbd-course", "--student=名前",
                 f"--Exchange.root={exchange}")
        nbgrader(root, "collect", ASSIGNMENT)
        yield {"root": root, "course": Course(root), "exchange": exchange, "homes": students, "env": env}


@pytest.fixture(scope="module")
def flow(hub):
    """Every instructor command on the collected class, with the hand-ins checked after each."""
    root, course, exchange = hub["root"], hub["course"], hub["exchange"]
    handed_in = snapshot(course.submitted, exchange / "rbd-course" / "inbound")
    assert sorted(Path(p).name for p in handed_in if "/submitted/" in p) == [
        "hw01.ipynb", "hw01.ipynb", "submission_secret.txt", "submission_secret.txt", "timestamp.txt", "timestamp.txt"]
    after, logs = {}, {}

    def step(name, *argv):
        logs[name] = main(["--root", str(root), *argv])
        after[name] = snapshot(course.submitted, exchange / "rbd-course" / "inbound")

    step("grade", "grade", "--assignment", ASSIGNMENT)          # no folder: submitted/, in place
    first = {o["student"]: o for o in Outcomes(course).all(ASSIGNMENT)}
    step("feedback-held", "feedback")                             # written answers not graded yet: held back
    held = sorted(p.parent.parent.name for p in course.feedback_dir.glob("*/hw01/*.html"))
    with Gradebook(course.db_url, course.course_id) as gb:          # what the formgrader does with a score
        grade = gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, "ada")
        grade.manual_score, grade.needs_manual_grade = 2.5, False
        gb.db.commit()
    step("grade-force", "grade", "--assignment", ASSIGNMENT, "--force")
    step("feedback", "feedback")
    logs["release_feedback"] = nbgrader(root, "release_feedback", ASSIGNMENT)
    logs["fetch_feedback"] = nbgrader(hub["homes"]["ada"], "fetch_feedback", ASSIGNMENT, "--course", "rbd-course",
                                      "--student=ada", f"--Exchange.root={exchange}")
    after["release_feedback"] = snapshot(course.submitted, exchange / "rbd-course" / "inbound")
    step("export", "export", "--out", str(root / "grades.csv"))
    with open(root / "grades.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    return {"before": handed_in, "after": after, "logs": logs, "first": first, "held": held, "rows": rows}


def test_every_collected_file_is_intact_after_every_command(flow):
    for command, files in flow["after"].items():
        assert files == flow["before"], f"after {command}, the collected hand-ins changed"
    assert {code for name, code in flow["logs"].items() if isinstance(code, int)} == {0}, flow["logs"]


def test_the_collected_class_is_graded_in_place_with_ids_in_any_script(flow, hub):
    first = flow["first"]
    assert set(first) == {"ada", "名前"}, first
    assert all(o["status"] != FAILED for o in first.values()), first
    assert first["ada"]["score"] == first["ada"]["max_score"] - 3   # all but the written answer
    copies = hub["course"].copies
    assert (copies / "ada" / ASSIGNMENT / "timestamp.txt").is_file()


def test_nbgraders_timestamps_are_honoured(flow):
    ada, late = flow["rows"]["ada"], flow["rows"]["名前"]
    assert ada["late"] == "no" and ada["late_penalty"] == "0" and ada["timestamp"]
    assert late["late"] == "yes" and late["score"] == "0" and float(late["late_penalty"]) > 0, late
    assert "after the due date" in late["notes"] and "late penalty" in late["notes"]


def test_a_score_entered_by_hand_survives_a_forced_regrade_and_is_not_asked_for_again(flow):
    ada = flow["rows"]["ada"]
    assert ada["needs_manual_grading"] == "no", ada
    assert float(ada["score"]) == float(ada["max_score"]) - 3 + 2.5


def test_feedback_waits_for_the_written_answers_and_carries_only_what_the_student_gets(flow, hub):
    assert flow["held"] == [], "feedback was written while every written answer was ungraded"
    folder = hub["course"].feedback_dir / "ada" / ASSIGNMENT
    assert sorted(p.name for p in folder.iterdir()) == ["hw01.html", "submission_secret.txt", "timestamp.txt"]
    assert not (hub["course"].feedback_dir / "名前").exists(), "名前's written answer is not graded yet"
    page = (folder / "hw01.html").read_text()
    assert "cdnjs" not in page and "window.MathJax" in page and "<script src=\"http" not in page


def test_stock_release_and_fetch_feedback_hand_the_page_back(flow, hub):
    fetched = list((hub["homes"]["ada"] / ASSIGNMENT / "feedback").rglob("hw01.html"))
    assert len(fetched) == 1, flow["logs"]["fetch_feedback"]
    assert "window.MathJax" in fetched[0].read_text()


def test_collect_still_takes_a_student_graded_from_another_folder(flow, hub, tmp_path):
    """Grading a class folder writes nothing into submitted/, so nbgrader's collect never skips a student
    ("Submission already exists") whom the grader saw first elsewhere."""
    root, exchange = hub["root"], hub["exchange"]
    hub["env"].setenv("RBD_EXCHANGE_ROOT", str(exchange))
    home = tmp_path / "home-cy"
    home.mkdir()
    nbgrader(home, "fetch_assignment", ASSIGNMENT, "--course", "rbd-course", f"--Exchange.root={exchange}")
    mine = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nbformat.write(answered(mine), str(mine))
    emailed = tmp_path / "emailed"
    emailed.mkdir()
    shutil.copy(mine, emailed / "cy.ipynb")
    assert main(["--root", str(root), "grade", str(emailed), "--assignment", ASSIGNMENT]) == 0
    assert not (root / "submitted" / "cy").exists()
    nbgrader(home, "submit", ASSIGNMENT, "--course", "rbd-course", "--student=cy", f"--Exchange.root={exchange}")
    said = nbgrader(root, "collect", ASSIGNMENT)
    assert (root / "submitted" / "cy" / ASSIGNMENT / "hw01.ipynb").is_file(), said
    kept = {p: h for p, h in snapshot(hub["course"].submitted).items() if "/cy/" not in p}
    assert kept == {p: h for p, h in flow["before"].items() if "/submitted/" in p}
