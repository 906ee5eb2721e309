"""The LMS layouts of ``export``: Canvas's gradebook import (minimal, and filled into Canvas's own export) and Moodle's.

The export rows are given directly (``export.rows`` is replaced), so each
layout is checked cell by cell without grading notebooks; the readable names
come from a small ``outcomes.json`` as grading a Canvas download writes it.
"""

import csv
import io
import json
from types import SimpleNamespace

import pytest

from autograder import cli, export, lms
from autograder.outcomes import FAILED, FLAGGED, GRADED

ODD_NAME = 'Doe, "Jo" Ωmega 名前'


def row(student, assignment, status, score, most="10"):
    return {"student_id": student, "assignment": assignment, "status": status, "score": score,
            "max_score": most, "needs_manual_grading": "no" if score else "", "reason": "", "notes": ""}


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


def test_canvas_without_template_has_canvas_columns_points_possible_and_a_row_per_student(course, tmp_path):
    out = tmp_path / "canvas.csv"
    count, unknown = lms.write(course, "canvas", out)
    assert read(out) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw01", "hw02"],
        ["Points Possible", "", "", "", "", "10", "8"],
        ["doejo", "1001", "", "", "", "9.5", "7"],
        ["roe", "1002", "", "", "", "", "8"],          # could not be graded: empty, never 0
        [ODD_NAME, "1003", "", "", "", "4", ""],       # flagged: scored; no hw02 submission: empty
    ]
    assert (count, unknown) == (4, [])


def test_canvas_column_names_are_given_on_the_command_line(course, tmp_path):
    out = tmp_path / "canvas.csv"
    lms.write(course, "canvas", out, assignment="hw01", columns=["hw01=Homework 1, contact (4321)"])
    assert read(out)[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework 1, contact (4321)"]
    assert [r[5] for r in read(out)[1:]] == ["10", "9.5", "", "4"]


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
    ["Student, Test", "9999", "", "", "Sec A", "", "", "", "", ""],
    ["Zed, Al", "1004", "S-4", "zed", "Sec B", "6", "3", "8", "90", "A"],
]


def write_template(path, table, bom=True):
    text = io.StringIO(newline="")
    csv.writer(text).writerows(table)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.getvalue().encode())
    return path


def test_canvas_template_keeps_every_other_cell_and_fills_the_named_column(course, tmp_path, capsys):
    template = write_template(tmp_path / "export.csv", TEMPLATE)
    out = tmp_path / "canvas.csv"
    count, unknown = lms.write(course, "canvas", out, assignment="hw01", template=template,
                               columns=["hw01=Homework 1 (4321)"])
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")      # Canvas's byte-order mark is kept
    expected = [list(r) for r in TEMPLATE]
    expected[2][5] = "4"      # 1003, flagged: its score
    expected[3][5] = "9.5"    # 1001
    assert read(out) == expected
    assert unknown == ["1002"]                               # graded (could not be) but not in Canvas: reported
    assert "1002" in capsys.readouterr().out
    assert count == len(TEMPLATE) - 1


def test_canvas_template_column_found_by_the_assignment_name_and_ambiguity_refused(course, tmp_path):
    template = write_template(tmp_path / "export.csv", [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw01: Lagrange (4321)", "hw02 (4322)"],
        ["Roe", "1002", "", "", "", "7", "7"]], bom=False)
    out = tmp_path / "canvas.csv"
    lms.write(course, "canvas", out, template=template, report=lambda line: None)
    assert read(out)[1] == ["Roe", "1002", "", "", "", "", "8"]   # could not be graded blanks the old 7
    with pytest.raises(ValueError, match="cannot tell which template column is hw01"):
        ambiguous = [["hw01 (4321)" if c == "Homework 1 (4321)" else c for c in TEMPLATE[0]]] + TEMPLATE[1:]
        lms.write(course, "canvas", out, assignment="hw01", template=write_template(tmp_path / "e2.csv", ambiguous))
    with pytest.raises(ValueError, match="no column 'Homework 9'"):
        lms.write(course, "canvas", out, assignment="hw01", template=template, columns=["hw01=Homework 9"])


def test_canvas_template_matches_students_by_sis_ids_too(course, tmp_path, monkeypatch):
    monkeypatch.setattr(export, "rows", lambda course, assignment=None: [row("zed", "hw02", GRADED, "5"),
                                                                        row("S-1", "hw02", GRADED, "6")])
    template = write_template(tmp_path / "export.csv", TEMPLATE)
    out = tmp_path / "canvas.csv"
    assert lms.write(course, "canvas", out, template=template, columns=["hw02=Homework 2 (4322)"])[1] == []
    assert [r[7] for r in read(out)] == ["Homework 2 (4322)", "8", "1", "6", "", "5"]


def test_template_that_is_not_a_canvas_export_is_refused(course, tmp_path):
    template = write_template(tmp_path / "other.csv", [["name", "hw01"], ["jo", "3"]])
    with pytest.raises(ValueError, match="not a Canvas gradebook export"):
        lms.write(course, "canvas", tmp_path / "out.csv", template=template)


def test_moodle_has_an_identifier_column_and_one_column_per_grade_item(course, tmp_path):
    out = tmp_path / "moodle.csv"
    lms.write(course, "moodle", out, columns=["hw02=Homework 2"])
    assert read(out) == [["username", "hw01", "Homework 2"],
                         ["1001", "9.5", "7"],
                         ["1002", "", "8"],
                         ["1003", "4", ""]]


def test_gradescope_is_refused_with_the_reason(course, tmp_path):
    with pytest.raises(ValueError, match="Gradescope has no CSV import of scores"):
        lms.write(course, "gradescope", tmp_path / "gs.csv")
    assert not (tmp_path / "gs.csv").exists()


def test_rows_format_is_the_plain_export(course, tmp_path):
    out = tmp_path / "grades.csv"
    assert lms.write(course, "rows", out) == (len(ROWS), [])
    assert read(out)[0] == export.COLUMNS and len(read(out)) == len(ROWS) + 1


def test_bad_column_option_and_template_with_moodle_are_refused(course, tmp_path):
    with pytest.raises(ValueError, match="ASSIGNMENT=COLUMN"):
        lms.write(course, "canvas", tmp_path / "o.csv", columns=["hw01"])
    with pytest.raises(ValueError, match="with --format canvas"):
        lms.write(course, "moodle", tmp_path / "o.csv", template=tmp_path / "t.csv")


def test_command_line(course, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "Course", lambda root: course)
    out = tmp_path / "canvas.csv"
    assert cli.main(["export", "--format", "canvas", "--out", str(out), "--column", "hw01=Homework 1 (4321)"]) == 0
    assert read(out)[0][5:] == ["Homework 1 (4321)", "hw02"]
    assert cli.main(["export", "--format", "gradescope", "--out", str(tmp_path / "g.csv")]) == 1
    assert "Gradescope has no CSV import" in capsys.readouterr().err
