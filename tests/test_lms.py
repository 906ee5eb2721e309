"""The LMS layouts of ``export``: Canvas's gradebook import (minimal, and filled into Canvas's own export) and Moodle's.

The export rows are given directly (``export.rows`` is replaced), so each
layout is checked cell by cell without grading notebooks; the readable names
come from a small ``outcomes.json`` as grading a Canvas download writes it.
"""

import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder import cli
from autograder.course.outcomes import FAILED, FLAGGED, GRADED
from autograder.handback import export, lms

ODD_NAME = 'Doe, "Jo" Ωmega 名前'


def row(student, assignment, status, score, most="10", provisional=False):
    return {"student_id": student, "assignment": assignment, "status": status, "score": score, "max_score": most,
            "needs_manual_grading": ("yes" if provisional else "no") if score else "", "reason": "", "notes": ""}


ROWS = [row("1001", "hw01", GRADED, "9.5"), row("1002", "hw01", FAILED, ""), row("1003", "hw01", FLAGGED, "4"),
        row("1001", "hw02", GRADED, "7", most="8"), row("1002", "hw02", GRADED, "8", most="8")]


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A course whose outcomes name students 1001 and 1002 by their Canvas file names, and whose rows are ROWS."""
    outcomes = {"hw01/1001": {"assignment": "hw01", "student": "1001", "status": GRADED,
                              "source": "doejo_1001_55_hw01.ipynb"},
                "hw01/1002": {"assignment": "hw01", "student": "1002", "status": FAILED,
                              "source": "roe_LATE_1002_56_hw01.ipynb, roe_LATE_1002_56_notes.txt"},
                "hw01/1003": {"assignment": "hw01", "student": "1003", "status": FLAGGED, "source": "1003.ipynb",
                              "name": ODD_NAME}}
    (tmp_path / "outcomes.json").write_text(json.dumps({"version": 1, "outcomes": outcomes}))
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: [
        r for r in ROWS if assignment in (None, r["assignment"])])
    return SimpleNamespace(autograded=tmp_path, root=tmp_path)


def read(path):
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))


def test_canvas_without_template_has_canvas_columns_points_possible_and_a_row_per_student_with_a_score(
        course, tmp_path, capsys):
    out = tmp_path / "canvas.csv"
    count, unknown = lms.write(course, "canvas", out, assignment="hw01")
    assert read(out) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw01"],
        ["Points Possible", "", "", "", "", "10"],
        ["doejo", "1001", "", "", "", "9.5"],
        [ODD_NAME, "1003", "", "", "", "4"],       # flagged: scored
    ]                                              # 1002 could not be graded: no row, so Canvas keeps its grade
    assert (count, unknown) == (2, [])
    assert "could not be graded" in capsys.readouterr().out
    lms.write(course, "canvas", out, assignment="hw02")
    assert read(out)[2:] == [["doejo", "1001", "", "", "", "7"], ["roe", "1002", "", "", "", "8"]]


def test_canvas_without_template_refuses_a_row_that_would_need_an_empty_cell(course, tmp_path):
    """Canvas's import takes an empty cell against a grade it holds as a change (no_change_to_value? is true
    only when both are blank), and no other cell leaves a grade alone."""
    out = tmp_path / "canvas.csv"
    with pytest.raises(ValueError, match=r"1002 \(hw01\), 1003 \(hw02\)\. Export one assignment at a time"):
        lms.write(course, "canvas", out)
    assert not out.exists()


def test_canvas_column_names_are_given_on_the_command_line(course, tmp_path):
    out = tmp_path / "canvas.csv"
    lms.write(course, "canvas", out, assignment="hw01", columns=["hw01=Homework 1, contact (4321)"])
    assert read(out)[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework 1, contact (4321)"]
    assert [r[5] for r in read(out)[1:]] == ["10", "9.5", "4"]


def test_a_column_for_an_assignment_without_grades_is_refused(course, tmp_path):
    out = tmp_path / "canvas.csv"
    with pytest.raises(ValueError, match=r"--column names hw03, which has no grades to export \(grades of: hw01\)"):
        lms.write(course, "canvas", out, assignment="hw01", columns=["hw03=Homework 3 (4323)"])
    with pytest.raises(ValueError, match="--column names hw02"):
        lms.write(course, "moodle", out, assignment="hw01", columns=["hw02=Homework 2"])
    assert not out.exists()


def test_a_student_id_that_is_not_a_canvas_id_goes_to_sis_login_id(course, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: [row("jo_doe", "hw01", GRADED, "3")])
    out = tmp_path / "canvas.csv"
    lms.write(course, "canvas", out)
    assert read(out)[2] == ["jo_doe", "", "", "jo_doe", "", "3"]


TEMPLATE = [
    ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework 1 (4321)", "Quiz, hw01 recap (4400)",
     "Homework 2 (4322)", "Current Score", "Final Grade"],
    ["    Points Possible", "", "", "", "", "10", "5", "8", "(read only)", "(read only)"],
    [ODD_NAME, "1003", "S-3", "odd", "Sec \"A\"", "", "5", "1", "80", "B"],
    ["Doe, Jo", "1001", "S-1", "doejo", "Sec A", "2", "4", "", "70", "C"],
    ["Lee, Roe", "1002", "S-2", "roe", "Sec A", "7.00", "5", "", "75", "C"],
    ["Student, Test", "9999", "", "", "Sec A", "", "", "", "", ""],
    ["Zed, Al", "1004", "S-4", "zed", "Sec B", "6", "3", "8", "90", "A"],
]
FIXED = slice(0, 5)


def write_template(path, table, bom=True):
    text = io.StringIO(newline="")
    csv.writer(text).writerows(table)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.getvalue().encode())
    return path


def test_canvas_template_leaves_out_every_student_without_a_score_so_canvas_keeps_their_grade(
        course, tmp_path, capsys):
    """Lee's 7.00, entered in Canvas by hand, is not in the file: Canvas's importer reads only the rows there
    are, so it keeps it. Doe and the flagged 1003 get their scores; nothing else of the export is written."""
    template = write_template(tmp_path / "export.csv", TEMPLATE)
    out = tmp_path / "canvas.csv"
    count, unknown = lms.write(course, "canvas", out, assignment="hw01", template=template,
                               columns=["hw01=Homework 1 (4321)"])
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")      # Canvas's byte-order mark is kept
    assert read(out) == [
        TEMPLATE[0][FIXED] + ["Homework 1 (4321)"],
        TEMPLATE[1][FIXED] + ["10"],
        TEMPLATE[2][FIXED] + ["4"],       # 1003, flagged: its score
        TEMPLATE[3][FIXED] + ["9.5"],     # 1001
    ]
    assert (count, unknown) == (2, [])
    said = capsys.readouterr().out
    assert "could not be graded" in said and "hw01: 1002" in said


def test_canvas_template_keeps_the_held_value_in_a_row_written_for_another_column(course, tmp_path):
    """Exporting both homeworks: Lee (1002) could not be graded in hw01 but has 8 in hw02; the row is written for
    hw02, and its hw01 cell keeps the export's 7.00, which Canvas takes as no change."""
    template = write_template(tmp_path / "export.csv", [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw01: Lagrange (4321)", "Notes", "hw02 (4322)"],
        ["Roe", "1002", "", "", "", "7.00", "mailed a PDF", "7"]], bom=False)
    out = tmp_path / "canvas.csv"
    assert lms.write(course, "canvas", out, template=template, report=lambda line: None) == (1, ["1001", "1003"])
    assert read(out) == [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw01: Lagrange (4321)",
                          "hw02 (4322)"],
                         ["Roe", "1002", "", "", "", "7.00", "8"]]
    with pytest.raises(ValueError, match="cannot tell which template column is hw01"):
        ambiguous = [["hw01 (4321)" if c == "Homework 1 (4321)" else c for c in TEMPLATE[0]]] + TEMPLATE[1:]
        lms.write(course, "canvas", out, assignment="hw01", template=write_template(tmp_path / "e2.csv", ambiguous))
    with pytest.raises(ValueError, match="no column 'Homework 9'"):
        lms.write(course, "canvas", out, assignment="hw01", template=template, columns=["hw01=Homework 9"])


def test_canvas_template_names_the_students_it_lacks(course, tmp_path, capsys):
    template = write_template(tmp_path / "export.csv", TEMPLATE[:4])
    out = tmp_path / "canvas.csv"
    assert lms.write(course, "canvas", out, assignment="hw02", template=template,
                     columns=["hw02=Homework 2 (4322)"]) == (1, ["1002"])
    assert [r[5] for r in read(out)] == ["Homework 2 (4322)", "8", "7"]
    assert "1 student(s) with a score but not in" in capsys.readouterr().out


def test_canvas_template_matches_students_by_sis_ids_too(course, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: [row("zed", "hw02", GRADED, "5"),
                                                                        row("S-1", "hw02", GRADED, "6")])
    template = write_template(tmp_path / "export.csv", TEMPLATE)
    out = tmp_path / "canvas.csv"
    assert lms.write(course, "canvas", out, template=template, columns=["hw02=Homework 2 (4322)"])[1] == []
    assert [r[1:6] for r in read(out)] == [["ID", "SIS User ID", "SIS Login ID", "Section", "Homework 2 (4322)"],
                                           ["", "", "", "", "8"],
                                           ["1001", "S-1", "doejo", "Sec A", "6"],
                                           ["1004", "S-4", "zed", "Sec B", "5"]]


def test_template_that_is_not_a_canvas_export_is_refused(course, tmp_path):
    for table in ([["name", "hw01"], ["jo", "3"]], [["Student", "ID", "hw01"], ["jo", "3", "3"]]):
        template = write_template(tmp_path / "other.csv", table)
        with pytest.raises(ValueError, match="not a Canvas gradebook export"):
            lms.write(course, "canvas", tmp_path / "out.csv", template=template)


PROVISIONAL = [row("1001", "hw01", GRADED, "16", most="19", provisional=True), row("1003", "hw01", GRADED, "19",
                                                                                     most="19")]


@pytest.mark.parametrize("fmt", ["canvas", "moodle"])
def test_provisional_scores_are_held_back_until_asked_for(course, tmp_path, monkeypatch, fmt):
    """1001's written answers are still to grade: the autograded 16 of 19 is not written, and the message names
    1001 and the flag; --include-provisional writes it with a warning."""
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: PROVISIONAL)
    said, out = [], tmp_path / f"{fmt}.csv"
    assert lms.write(course, fmt, out, report=said.append) == (1, [])
    assert [r[-1] for r in read(out)] == (["hw01", "19", "19"] if fmt == "canvas" else ["hw01", "19"])
    assert [r for r in read(out) if "1001" in r] == []
    assert any(line.startswith("held back: 1 submission(s) whose written answers are still to grade by hand")
               and "hw01: 1001" in line and "--include-provisional" in line for line in said), said
    said.clear()
    assert lms.write(course, fmt, out, report=said.append, include_provisional=True) == (2, [])
    assert [r for r in read(out) if "1001" in r][0][-1] == "16"
    assert any("autograded part only" in line and "hw01: 1001" in line for line in said), said


def test_nothing_to_write_is_an_error_and_no_file(course, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: PROVISIONAL[:1])
    out, said = tmp_path / "canvas.csv", []
    with pytest.raises(ValueError, match="no score to write"):
        lms.write(course, "canvas", out, report=said.append)
    assert not out.exists() and "held back" in said[0]


def test_moodle_has_an_identifier_column_and_one_column_per_grade_item(course, tmp_path, capsys):
    out = tmp_path / "moodle.csv"
    lms.write(course, "moodle", out, assignment="hw02", columns=["hw02=Homework 2"])
    assert read(out) == [["username", "Homework 2"],
                         ["1001", "7"],
                         ["1002", "8"]]
    assert "abandons the whole import at the first user it does not know" in capsys.readouterr().out
    lms.write(course, "moodle", out, assignment="hw01")
    assert read(out) == [["username", "hw01"], ["1001", "9.5"], ["1003", "4"]]   # 1002: no row, never ""


def test_moodle_never_writes_an_empty_cell(course, tmp_path):
    """Moodle imports an empty cell as "no grade" over the grade it holds (update_grade_item)."""
    out = tmp_path / "moodle.csv"
    with pytest.raises(ValueError, match=r"Moodle's import would remove .* 1002 \(hw01\), 1003 \(hw02\)"):
        lms.write(course, "moodle", out)
    assert not out.exists()


def test_moodle_roster_keeps_out_users_moodle_does_not_know(course, tmp_path, capsys):
    """A Moodle grade export as roster: its ID number column holds the ids; 1003 is not a user of the course."""
    roster = write_template(tmp_path / "moodle_export.csv", [
        ["First name", "Last name", "ID number", "Institution", "Department", "Email address", "Assignment: hw01"],
        ["Jo", "Doe", "1001", "", "", "jo@example.org", "-"],
        ["Roe", "Lee", "1002", "", "", "roe@example.org", "7.00"]], bom=False)
    out = tmp_path / "moodle.csv"
    assert lms.write(course, "moodle", out, assignment="hw01", template=roster) == (1, ["1003"])
    assert read(out) == [["ID number", "hw01"], ["1001", "9.5"]]
    said = capsys.readouterr().out
    assert "1 student(s) with a score but not in" in said and "1003" in said
    with pytest.raises(ValueError, match="no username, ID number or email address column"):
        lms.write(course, "moodle", out, assignment="hw01",
                  template=write_template(tmp_path / "r.csv", [["name"], ["1001"]]))


def test_moodle_roster_of_usernames(course, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: [
        row("jo doe", "hw01", GRADED, "3"), row("ωmega", "hw01", GRADED, "5")])
    roster = write_template(tmp_path / "users.csv", [["Username", "email"], ["ωmega", "o@example.org"],
                                                     ["jo doe", "j@example.org"]])
    out = tmp_path / "moodle.csv"
    assert lms.write(course, "moodle", out, template=roster) == (2, [])
    assert read(out) == [["Username", "hw01"], ["jo doe", "3"], ["ωmega", "5"]]


def test_gradescope_is_refused_with_the_reason(course, tmp_path):
    with pytest.raises(ValueError, match="Gradescope has no CSV import of scores"):
        lms.write(course, "gradescope", tmp_path / "gs.csv")
    assert not (tmp_path / "gs.csv").exists()


def test_rows_format_is_the_plain_export(course, tmp_path):
    out = tmp_path / "grades.csv"
    assert lms.write(course, "rows", out) == (len(ROWS), [])
    assert read(out)[0] == export.COLUMNS and len(read(out)) == len(ROWS) + 1


def test_bad_column_option_and_template_with_rows_are_refused(course, tmp_path):
    with pytest.raises(ValueError, match="ASSIGNMENT=COLUMN"):
        lms.write(course, "canvas", tmp_path / "o.csv", columns=["hw01"])
    with pytest.raises(ValueError, match="for --format canvas or moodle"):
        lms.write(course, "rows", tmp_path / "o.csv", template=tmp_path / "t.csv")
    assert not (tmp_path / "o.csv").exists()


def test_command_line(course, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "Course", lambda root: course)
    out = tmp_path / "canvas.csv"
    assert cli.main(["export", "--format", "canvas", "--out", str(out), "--assignment", "hw01",
                     "--column", "hw01=Homework 1 (4321)"]) == 0
    assert read(out)[0][5:] == ["Homework 1 (4321)"]
    assert "wrote 2 student(s)" in capsys.readouterr().out
    assert cli.main(["export", "--format", "canvas", "--out", str(tmp_path / "all.csv")]) == 1
    assert "Export one assignment at a time" in capsys.readouterr().err and not (tmp_path / "all.csv").exists()
    assert cli.main(["export", "--format", "gradescope", "--out", str(tmp_path / "g.csv")]) == 1
    assert "Gradescope has no CSV import" in capsys.readouterr().err


def readme_examples():
    """The CSV examples of autograder/README.md's "For the LMS" section, in order."""
    text = (Path(__file__).resolve().parent.parent / "autograder" / "README.md").read_text()
    section = text[text.index("### For the LMS"):text.index("**Gradescope**")]
    return [list(csv.reader(io.StringIO(block.strip() + "\n"))) for block in section.split("```text")[1:]
            for block in [block.split("```")[0]]]


def test_the_readmes_examples_are_what_export_writes(course, tmp_path, monkeypatch):
    """Doe graded 9.5, Lee's hand-in could not be graded: the README's export, Canvas file, minimal Canvas file
    and Moodle file (Moodle's roster names Doe by login)."""
    export_before, canvas, minimal, moodle = readme_examples()
    rows = [row("1001", "hw01", GRADED, "9.5"), row("1002", "hw01", FAILED, "")]
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: rows)
    out = tmp_path / "out.csv"
    template = write_template(tmp_path / "canvas_export.csv", export_before)
    lms.write(course, "canvas", out, "hw01", template, ["hw01=Homework 1 (4321)"])
    assert read(out) == canvas
    lms.write(course, "canvas", out, "hw01", columns=["hw01=Homework 1 (4321)"])
    assert read(out) == minimal
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: [dict(r, student_id={"1001": "doejo"}.get(
        r["student_id"], r["student_id"])) for r in rows])
    lms.write(course, "moodle", out, "hw01", write_template(tmp_path / "users.csv", [["Username"], ["doejo"]]))
    assert read(out) == moodle
