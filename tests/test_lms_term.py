"""An instructor's term into Canvas and Moodle: no file an LMS imports blanks or lowers a grade it holds.

One class of hw01, collected in ``submitted/`` and graded for real: ``ann``
hands in the reference answers (her written answer waits for a grader, so her
score is the autograded part only), ``lee`` hands in a file that is not a
notebook (Canvas holds a 7.00 for him, entered by hand for a PDF he mailed),
and ``jo doe`` hands in only hw04, another homework of the course. Then
every export an instructor runs, before and after the written answer is
scored and flagged in the formgrader (through nbgrader's gradebook, as the
formgrader does), with each file read back cell by cell.
"""

import contextlib
import csv
import io
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.cli import main
from autograder.course import gradebook
from autograder.course.course import Course
from autograder.course.outcomes import Outcomes
from autograder.grading import submissions
from tests.scratch import answered, scratch_course

REPO = Path(__file__).resolve().parent.parent
WRITTEN = "answer-gear-friction"   # hw01's written answer (3 points), graded by hand
pytestmark = pytest.mark.skipif(not all((REPO / "exercises" / hw).is_dir() for hw in ("hw01", "hw04")),
                                reason="needs exercises/hw01 and hw04")
CANVAS = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw01: Lagrange (4321)", "Current Score"],
          ["    Points Possible", "", "", "", "", "19", "(read only)"],
          ["Ann", "2001", "", "ann", "Sec A", "", "80"],
          ["Lee", "2002", "", "lee", "Sec A", "7.00", "75"],
          ["jo doe", "2003", "", "jo doe", "Sec A", "", "70"]]
ROSTER = [["Username", "Email address"], ["ann", "ann@example.org"], ["lee", "lee@example.org"]]


def write_csv(path, table):
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(table)
    return path


def read_csv(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """The class graded, then every export, before and after the written answer is scored and flagged."""
    root = scratch_course(tmp_path_factory.mktemp("term"))
    scratch_course(root, "hw04")   # a second homework of the course
    runs = {}

    def run(name, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--root", str(root), *argv])
        runs[name] = {"code": code, "out": out.getvalue(), "err": err.getvalue()}

    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.delenv("RBD_COURSE_ROOT", raising=False)
        assert main(["--root", str(root), "release", "hw01"]) == 0
        course = Course(root)
        for student, name, text in (("ann", "hw01", None), ("lee", "hw01", "my answers are in the PDF"),
                                    ("jo doe", "hw04", nbformat.writes(nbformat.v4.new_notebook()))):
            folder = course.submitted / student / name
            folder.mkdir(parents=True)
            if text is None:
                nbformat.write(answered(course.release_dir / "hw01" / "hw01.ipynb"), str(folder / f"{name}.ipynb"))
            else:
                (folder / f"{name}.ipynb").write_text(text)
        run("grade", "grade", "--assignment", "hw01")
        template, roster = write_csv(root / "canvas_export.csv", CANVAS), write_csv(root / "roster.csv", ROSTER)
        run("status", "status")
        run("rows", "export", "--out", str(root / "grades.csv"))
        run("typo", "export", "--assignment", "hw1", "--out", str(root / "typo.csv"))
        run("unreleased", "export", "--format", "canvas", "--assignment", "hw04", "--out", str(root / "hw04.csv"))
        run("stray column", "export", "--format", "canvas", "--column", "hw04=Homework 4 (4324)",
            "--out", str(root / "stray.csv"))
        run("held", "export", "--format", "canvas", "--template", str(template), "--out", str(root / "held.csv"))
        run("provisional", "export", "--format", "canvas", "--template", str(template), "--include-provisional",
            "--out", str(root / "provisional.csv"))
        run("moodle provisional", "export", "--format", "moodle", "--roster", str(roster), "--include-provisional",
            "--out", str(root / "moodle_provisional.csv"))
        with Gradebook(course.db_url, course.course_id) as gb:   # what the formgrader does: a score and the flag
            grade = gb.find_grade(WRITTEN, "hw01", "hw01", "ann")
            grade.manual_score, grade.needs_manual_grade = 2.5, False
            gb.find_submission_notebook("hw01", "hw01", "ann").flagged = True
            gb.db.commit()
        run("canvas", "export", "--format", "canvas", "--template", str(template), "--out", str(root / "canvas.csv"))
        run("minimal", "export", "--format", "canvas", "--out", str(root / "minimal.csv"))
        run("moodle", "export", "--format", "moodle", "--roster", str(roster), "--out", str(root / "moodle.csv"))
        run("rows flagged", "export", "--out", str(root / "grades_flagged.csv"))
        yield {"course": course, "root": root, "runs": runs, "most": gradebook.max_score(course, "hw01")}


def test_the_class_is_graded(term):
    assert term["runs"]["grade"]["code"] == 0, term["runs"]["grade"]
    outcomes = {o["student"]: o["status"] for o in Outcomes(term["course"]).all("hw01")}
    assert outcomes == {"ann": "graded", "lee": "could not be graded"}, outcomes


def test_a_student_who_handed_in_only_another_homework_has_no_submission_of_this_one(term):
    """jo doe handed in hw04 only: for hw01 there is no row, no status line and no LMS cell, not "could not be
    graded"."""
    runs = term["runs"]
    summary = "1 graded (0 flagged for review), 1 could not be graded"
    assert summary in runs["grade"]["out"], runs["grade"]
    assert not any(jo in runs["grade"]["out"] + runs["status"]["out"] for jo in ("jo doe", "jo_doe")), runs
    assert [r[0] for r in read_csv(term["root"] / "grades.csv")[1:]] == ["ann", "lee"]
    assert runs["status"]["out"].rstrip().endswith(summary), runs["status"]
    assert [r[3] for r in read_csv(term["root"] / "canvas.csv")] == ["SIS Login ID", "", "ann"]


def test_canvas_template_keeps_the_grade_canvas_holds_for_a_student_the_course_could_not_grade(term):
    """Lee's 7.00 is not in the file (Canvas's importer only reads the rows a file has, and would take an empty
    cell for a removal); Ann's score, written answer included, is; no other column of the export is."""
    most = term["most"]
    assert term["runs"]["canvas"]["code"] == 0, term["runs"]["canvas"]
    assert read_csv(term["root"] / "canvas.csv") == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw01: Lagrange (4321)"],
        ["    Points Possible", "", "", "", "", "19"],
        ["Ann", "2001", "", "ann", "Sec A", f"{most - 3 + 2.5:g}"]]
    assert "could not be graded" in term["runs"]["canvas"]["err"] and "hw01: lee" in term["runs"]["canvas"]["err"]
    assert read_csv(term["root"] / "minimal.csv") == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw01"],
        ["Points Possible", "", "", "", "", f"{most:g}"],
        ["ann", "", "", "ann", "", f"{most - 3 + 2.5:g}"]]


def test_a_provisional_score_is_held_back_until_asked_for(term):
    """Before the written answer is scored Ann has only the autograded part: the export names her and the flag,
    writes nothing (she is the only one with a score) and fails; --include-provisional writes that part."""
    most, runs = term["most"], term["runs"]
    held = runs["held"]
    assert held["code"] == 1 and not (term["root"] / "held.csv").exists(), held
    assert "held back: 1 submission(s) whose written answers are still to grade by hand" in held["err"]
    assert "hw01: ann" in held["err"] and "--include-provisional" in held["err"]
    assert "no score to write" in held["err"]
    assert read_csv(term["root"] / "provisional.csv")[2] == ["Ann", "2001", "", "ann", "Sec A", f"{most - 3:g}"]
    assert "autograded part only" in runs["provisional"]["err"]
    assert read_csv(term["root"] / "moodle_provisional.csv") == [["Username", "hw01"], ["ann", f"{most - 3:g}"]]
    assert "held back" not in runs["canvas"]["err"] and "autograded part only" not in runs["canvas"]["err"]


def test_moodle_with_a_roster_writes_no_empty_cell_and_no_unknown_user(term):
    assert term["runs"]["moodle"]["code"] == 0, term["runs"]["moodle"]
    assert read_csv(term["root"] / "moodle.csv") == [["Username", "hw01"], ["ann", f"{term['most'] - 3 + 2.5:g}"]]


def test_an_unknown_assignment_or_column_is_an_error_and_no_file(term):
    typo, stray = term["runs"]["typo"], term["runs"]["stray column"]
    assert typo["code"] == 1 and "no assignment 'hw1'" in typo["err"] and not (term["root"] / "typo.csv").exists()
    assert stray["code"] == 1 and "--column names hw04, which has no grades to export" in stray["err"]
    assert not (term["root"] / "stray.csv").exists()
    unreleased = term["runs"]["unreleased"]
    assert unreleased["code"] == 1 and "hw04 has no grades: it is not in the gradebook yet" in unreleased["err"]
    assert not (term["root"] / "hw04.csv").exists()


def test_the_formgrader_flag_is_exported(term):
    before = {r["student_id"]: r for r in csv.DictReader(open(term["root"] / "grades.csv", newline=""))}
    after = {r["student_id"]: r for r in csv.DictReader(open(term["root"] / "grades_flagged.csv", newline=""))}
    assert (before["ann"]["formgrader_flag"], after["ann"]["formgrader_flag"]) == ("no", "yes")
    assert after["lee"]["formgrader_flag"] == ""   # could not be graded: nothing to flag
    assert "flagged in the formgrader; look at them before importing: hw01: ann" in term["runs"]["canvas"]["err"]
    assert "flagged in the formgrader" not in term["runs"]["provisional"]["err"]


def test_only_folders_of_other_homework_are_no_hand_in_but_a_stray_folder_is_reported(tmp_path):
    """Without grading: one student's folder of hw04 alone is not taken for a wrapper of the class, and a
    notebook in a folder that is no assignment's still says why it cannot be graded."""
    (tmp_path / "class" / "jo doe" / "hw04").mkdir(parents=True)
    (tmp_path / "class" / "jo doe" / "hw04" / "hw04.ipynb").write_text("{}")
    assert submissions.find(tmp_path / "class", "hw01", ["hw01"], others=["hw04"]) == []
    (tmp_path / "class" / "kim" / "work").mkdir(parents=True)
    (tmp_path / "class" / "kim" / "work" / "hw01.ipynb").write_text("{}")
    found = submissions.find(tmp_path / "class", "hw01", ["hw01"], others=["hw04"])
    assert [(s.label, s.problem) for s in found] == [("kim", "no notebook found in kim")]
