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

Hub users ``jo doe`` and ``jo_doe`` are two students (``jo_doe`` handed in
only hw04): ids stay as nbgrader has them. A zip from the LMS is graded
beside the exchange's hand-ins, with the same late rule for all: an entry
dated after the due date, Canvas's ``_LATE_`` mark and the exchange's
timestamp all go through nbgrader's late penalty. Stock ``release_feedback``
then goes through the whole class, zip students included.
"""

import csv
import hashlib
import os
import shutil
import subprocess
import sys
import time
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.cli import main
from autograder.course.course import Course
from autograder.course.outcomes import FAILED, Outcomes
from autograder.handback.export import status
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


def own_cache(home):
    """nbgrader's submission cache of one student (in their own home on a hub; here all share one account)."""
    return f"--Exchange.cache={home / '.nbgrader_cache'}"


def snapshot(*folders):
    """Every file under the folders (or the file itself), path -> sha256 of its bytes."""
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in folders for p in [Path(folder), *sorted(Path(folder).rglob("*"))] if p.is_file()}


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A course folder with a local exchange, hw01 released through it, two students' hand-ins collected."""
    base = tmp_path_factory.mktemp("hub")
    root, exchange = base / "course", base / "exchange"
    # a late hand-in loses everything, as nbgrader's own late-penalty setting says
    scratch_course(root, ASSIGNMENT, '\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    shutil.copytree(REPO / "exercises" / "hw04", root / "exercises" / "hw04")   # another homework of the term
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.setenv("RBD_EXCHANGE_ROOT", str(exchange))
        env.delenv("RBD_COURSE_ROOT", raising=False)
        exchange.mkdir()
        assert main(["--root", str(root), "release", ASSIGNMENT]) == 0
        nbgrader(root, "release_assignment", ASSIGNMENT)
        students = {"ada": base / "home-ada", "名前": base / "home-namae", "jo doe": base / "home-jo-doe"}
        for student, home in students.items():
            home.mkdir()
            nbgrader(home, "fetch_assignment", ASSIGNMENT, "--course", "rbd-course", f"--Exchange.root={exchange}")
            mine = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            nbformat.write(answered(mine), str(mine))
        for early in ("ada", "jo doe"):
            nbgrader(students[early], "submit", ASSIGNMENT, "--course", "rbd-course", f"--student={early}",
                     f"--Exchange.root={exchange}", own_cache(students[early]))
        # the due date falls between the two hand-ins: 名前's is late
        on_time = datetime.now(timezone.utc)
        time.sleep(1.1)
        with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "rbd-course") as gb:
            gb.update_or_create_assignment(ASSIGNMENT, duedate=on_time.replace(tzinfo=None))
        time.sleep(1.1)
        nbgrader(students["名前"], "submit", ASSIGNMENT, "--course", "rbd-course", "--student=名前",
                 own_cache(students["名前"]),
                 f"--Exchange.root={exchange}")
        nbgrader(root, "collect", ASSIGNMENT)
        # jo_doe, another hub user, handed in hw04 only (as nbgrader collect leaves it)
        other = root / "submitted" / "jo_doe" / "hw04"
        other.mkdir(parents=True)
        shutil.copy(REPO / "exercises" / "hw04" / "hw04.ipynb", other / "hw04.ipynb")
        (other / "timestamp.txt").write_text("2026-01-01 00:00:00.000000 UTC")
        # and a zip from the LMS: eve on time, zara 90 min late (the entry's time), lee marked late by Canvas
        right = nbformat.writes(answered(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
        local = {shift: time.localtime((on_time + timedelta(minutes=shift)).timestamp())[:6] for shift in (-60, 90)}
        with zipfile.ZipFile(base / "lms.zip", "w") as zf:
            for entry, shift in (("eve.ipynb", -60), ("zara.ipynb", 90), ("lee_LATE_77_88_hw01.ipynb", -60)):
                zf.writestr(zipfile.ZipInfo(entry, date_time=local[shift]), right)
        yield {"root": root, "course": Course(root), "exchange": exchange, "homes": students, "env": env,
               "zip": base / "lms.zip"}


@pytest.fixture(scope="module")
def flow(hub):
    """Every instructor command on the collected class, with the hand-ins checked after each."""
    root, course, exchange = hub["root"], hub["course"], hub["exchange"]
    handed_in = snapshot(course.submitted, exchange / "rbd-course" / "inbound", hub["zip"])
    assert sorted(Path(p).name for p in handed_in if "/submitted/" in p) == sorted(
        ["hw01.ipynb", "submission_secret.txt", "timestamp.txt"] * 3 + ["hw04.ipynb", "timestamp.txt"])
    after, logs = {}, {}

    def step(name, *argv):
        logs[name] = main(["--root", str(root), *argv])
        after[name] = snapshot(course.submitted, exchange / "rbd-course" / "inbound", hub["zip"])

    step("grade", "grade", "--assignment", ASSIGNMENT)          # no folder: submitted/, in place
    first = {o["student"]: o for o in Outcomes(course).all(ASSIGNMENT)}
    step("grade-zip", "grade", str(hub["zip"]), "--assignment", ASSIGNMENT)
    step("feedback-held", "feedback")                             # written answers not graded yet: held back
    held = sorted(p.parent.parent.name for p in course.feedback_dir.glob("*/hw01/*.html"))
    with Gradebook(course.db_url, course.course_id) as gb:          # what the formgrader does with a score
        for student in ("ada", "jo doe", "eve"):
            grade = gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, student)
            grade.manual_score, grade.needs_manual_grade = 2.5, False
        gb.db.commit()
    step("grade-force", "grade", "--assignment", ASSIGNMENT, "--force")
    graded_at = {o["student"]: o["graded_at"] for o in Outcomes(course).all(ASSIGNMENT)}
    time.sleep(1.1)
    step("grade-one", "grade", "--assignment", ASSIGNMENT, "--student", "jo doe", "--force")
    step("grade-their-folder", "grade", str(course.submitted / "jo doe"), "--force")
    regraded = sorted(o["student"] for o in Outcomes(course).all(ASSIGNMENT)
                      if o["graded_at"] != graded_at[o["student"]])
    step("feedback", "feedback")
    logs["release_feedback"] = nbgrader(root, "release_feedback", ASSIGNMENT)
    logs["fetch_feedback"] = nbgrader(hub["homes"]["ada"], "fetch_feedback", ASSIGNMENT, "--course", "rbd-course",
                                      own_cache(hub["homes"]["ada"]),
                                      "--student=ada", f"--Exchange.root={exchange}")
    after["release_feedback"] = snapshot(course.submitted, exchange / "rbd-course" / "inbound", hub["zip"])
    step("export", "export", "--out", str(root / "grades.csv"))
    with open(root / "grades.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    return {"before": handed_in, "after": after, "logs": logs, "first": first, "held": held, "rows": rows,
            "regraded": regraded, "status": status(course, ASSIGNMENT, report=lambda line: None)}


def test_every_collected_file_is_intact_after_every_command(flow):
    for command, files in flow["after"].items():
        assert files == flow["before"], f"after {command}, the collected hand-ins changed"
    assert {code for name, code in flow["logs"].items() if isinstance(code, int)} == {0}, flow["logs"]


def test_the_collected_class_is_graded_in_place_with_ids_in_any_script(flow, hub):
    first = flow["first"]
    assert set(first) == {"ada", "名前", "jo doe"}, first
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


def test_hub_names_are_kept_exactly_and_never_collide(flow, hub):
    """``jo doe`` and ``jo_doe`` are two hub users; jo_doe handed in hw04 only. A forced regrade of hw01 keeps
    jo doe's graded, hand-scored hw01 under the id nbgrader has, and lists nobody for what they did not hand in."""
    rows, course = flow["rows"], hub["course"]
    jo = rows["jo doe"]
    assert jo["status"] == "graded" and float(jo["score"]) == float(jo["max_score"]) - 3 + 2.5, jo
    assert "jo_doe" not in rows and not any("hw04" == r["student_id"] for r in rows.values()), sorted(rows)
    assert (course.autograded / "jo doe" / ASSIGNMENT / "hw01.ipynb").is_file()
    with Gradebook(course.db_url, course.course_id) as gb:
        assert {s.id for s in gb.students} >= {"jo doe", "名前"} and "jo_doe" not in {s.id for s in gb.students}
    assert flow["regraded"] == ["jo doe"], "grade --student (or naming their folder) regrades that student only"


def test_late_rules_are_the_same_for_every_source(flow):
    """penalty_method = "zero": the zip entry 90 min late, Canvas's _LATE_ and the exchange's late hand-in all
    score 0, and the status says by how much each was late; the on-time zip entry keeps its score."""
    rows = flow["rows"]
    eve, zara, lee = rows["eve"], rows["zara"], rows["77"]
    assert eve["late"] == "no" and float(eve["score"]) == float(eve["max_score"]) - 3 + 2.5, eve
    for late in (zara, lee, rows["名前"]):
        assert late["late"] == "yes" and late["score"] == "0" and float(late["late_penalty"]) > 0, late
    assert "handed in 1 h 29 min after the due date" in zara["notes"] or \
        "handed in 1 h 30 min after the due date" in zara["notes"], zara
    assert "Canvas marks it late" in lee["notes"] and "handed in 1 s after the due date" in lee["notes"], lee
    said = {r["student_id"]: r for r in flow["status"]}
    assert "after the due date" in said["zara"]["notes"] and "after the due date" in said["77"]["notes"]


def test_stock_release_feedback_goes_through_students_graded_from_a_zip(flow, hub):
    said = flow["logs"]["release_feedback"]
    assert "Error" not in said and "Traceback" not in said, said
    for student in ("ada", "jo doe", "eve"):
        assert f"Releasing feedback for student '{student}'" in said, (student, said)
    folder = hub["course"].feedback_dir / "eve" / ASSIGNMENT
    assert sorted(p.name for p in folder.iterdir()) == ["hw01.html", "submission_secret.txt", "timestamp.txt"]


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
    nbgrader(home, "submit", ASSIGNMENT, "--course", "rbd-course", "--student=cy", f"--Exchange.root={exchange}",
             own_cache(home))
    said = nbgrader(root, "collect", ASSIGNMENT)
    assert (root / "submitted" / "cy" / ASSIGNMENT / "hw01.ipynb").is_file(), said
    kept = {p: h for p, h in snapshot(hub["course"].submitted).items() if "/cy/" not in p}
    assert kept == {p: h for p, h in flow["before"].items() if "/submitted/" in p}


def test_an_extension_lifts_the_late_penalty_when_the_student_is_graded_again(flow, hub, capsys):
    root = hub["root"]
    assert flow["rows"]["名前"]["score"] == "0"
    assert main(["--root", str(root), "extend", "--assignment", ASSIGNMENT, "--student", "名前", "--hours", "1"]) == 0
    assert "hw01/名前: due 1 h later" in capsys.readouterr().out
    assert main(["--root", str(root), "grade", "--assignment", ASSIGNMENT, "--student", "名前", "--force"]) == 0
    said = capsys.readouterr().out
    assert "hw01/名前: graded" in said and "after the due date" not in said and "late" not in said, said
    outcome = Outcomes(hub["course"]).get(ASSIGNMENT, "名前")
    assert outcome["seconds_late"] == 0 and outcome["late_penalty"] == 0 and outcome["score"] > 0, outcome
    assert main(["--root", str(root), "extend", "--assignment", ASSIGNMENT, "--student", "nobody", "--hours", "1"]) == 1


def test_forget_removes_an_outcome_but_never_a_hand_in_or_a_score_entered_by_hand(flow, hub):
    root, course = hub["root"], hub["course"]
    before = snapshot(course.submitted, hub["zip"])
    assert main(["--root", str(root), "forget", "--assignment", ASSIGNMENT, "--student", "eve"]) == 0
    assert Outcomes(course).get(ASSIGNMENT, "eve") is None
    with Gradebook(course.db_url, course.course_id) as gb:
        assert gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, "eve").manual_score == 2.5
    assert snapshot(course.submitted, hub["zip"]) == before
    assert main(["--root", str(root), "grade", str(hub["zip"]), "--assignment", ASSIGNMENT, "--student", "eve"]) == 0
    eve = Outcomes(course).get(ASSIGNMENT, "eve")
    assert eve["status"] != FAILED and not eve["needs_manual_grade"], eve
    assert eve["score"] == eve["max_score"] - 3 + 2.5, eve
