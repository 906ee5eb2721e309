"""Grades in the layouts learning-management systems import: Canvas's gradebook CSV and Moodle's CSV.

The rows of :func:`autograder.export.rows` (one per student and assignment)
become one row per student with one column per assignment. A submission that
could not be graded leaves its cell empty (never 0: an empty cell changes
nothing on import); one flagged for review carries its score, as in
``grades.csv``, whose status column still says which were flagged.

Canvas matches a row by its ``ID`` (the Canvas user id, which is the student
id of a graded Canvas bulk download) or its SIS ids, and a column by its
header, ``<assignment name> (<Canvas assignment id>)``. The safest file is
the instructor's own gradebook export from Canvas (``template``): its rows and
columns are kept as they are, and only the assignment's column is filled in.

Gradescope imports rosters from CSV but not scores, so there is no
Gradescope layout to write (see :data:`GRADESCOPE`).
"""

import csv
import re

from . import export as export_rows
from .outcomes import Outcomes, SCORED
from .submissions import canvas_file

FORMATS = ("rows", "canvas", "moodle", "gradescope")
CANVAS_FIXED = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "Points Possible"
GRADESCOPE = ("Gradescope has no CSV import of scores (its CSV imports are for the roster): let Gradescope grade with "
              "the course's own tests instead, python -m autograder gradescope ASSIGNMENT writes its autograder")


def names(course):
    """Readable names by student id: the login or name part of a Canvas file name the student handed in."""
    found = {}
    for outcome in Outcomes(course).all():
        name = outcome.get("name") or ""
        if not name:
            parts = canvas_file(str(outcome.get("source", "")).split(", ")[0])
            name = parts.name if parts else ""
        if name:
            found.setdefault(outcome["student"], name)
    return found


def by_student(rows):
    """{student: {assignment: score cell}} and {assignment: max score}, from export rows."""
    scores, most = {}, {}
    for row in rows:
        cell = row["score"] if row["status"] in SCORED else ""
        scores.setdefault(row["student_id"], {})[row["assignment"]] = cell
        most[row["assignment"]] = row["max_score"]
    return scores, most


def parse_columns(pairs):
    """``["hw01=Homework 1 (4321)"]`` -> ``{"hw01": "Homework 1 (4321)"}``; a clear error for anything else."""
    columns = {}
    for pair in pairs or ():
        assignment, sep, header = pair.partition("=")
        if not sep or not assignment.strip() or not header.strip():
            raise ValueError(f"--column wants ASSIGNMENT=COLUMN HEADER, got {pair!r}")
        columns[assignment.strip()] = header.strip()
    return columns


def canvas_minimal(rows, readable, columns):
    """The smallest file Canvas's gradebook import takes: fixed columns, Points Possible, one row per student."""
    scores, most = by_student(rows)
    assignments = sorted(most)
    header = CANVAS_FIXED + [columns.get(a, a) for a in assignments]
    table = [header, [POINTS_POSSIBLE, "", "", "", ""] + [most[a] for a in assignments]]
    for student in sorted(scores):
        numeric = student.isdigit()   # a Canvas user id; anything else is the student's login
        table.append([readable.get(student, student), student if numeric else "", "",
                      "" if numeric else student, ""] + [scores[student].get(a, "") for a in assignments])
    return table, []


def template_column(header, assignment, columns):
    """The index of the template column the assignment's scores go to."""
    if assignment in columns:
        if columns[assignment] not in header:
            raise ValueError(f"the template has no column {columns[assignment]!r} (for {assignment})")
        return header.index(columns[assignment])
    word = re.compile(rf"(?<![A-Za-z0-9]){re.escape(assignment)}(?![A-Za-z0-9])", re.IGNORECASE)
    found = [i for i, name in enumerate(header) if i >= len(CANVAS_FIXED) and word.search(name)]
    if len(found) != 1:
        which = ", ".join(repr(header[i]) for i in found) or "none"
        raise ValueError(f"cannot tell which template column is {assignment} (matches: {which}); "
                         f"name it with --column {assignment}=HEADER")
    return found[0]


def canvas_filled(rows, template, columns):
    """Canvas's own gradebook export with the assignments' columns filled in; and the students it lacks."""
    header, body = template[0], [list(row) for row in template[1:]]
    missing = [c for c in ("ID", "SIS User ID", "SIS Login ID") if c not in header]
    if "ID" in missing and len(missing) == 3:
        raise ValueError("the template is not a Canvas gradebook export: it has no ID, SIS User ID or "
                         "SIS Login ID column")
    keys = [header.index(c) for c in ("ID", "SIS User ID", "SIS Login ID") if c in header]
    scores, most = by_student(rows)
    targets = {a: template_column(header, a, columns) for a in sorted(most)}
    where = {}
    for n, row in enumerate(body):
        for k in keys:
            if k < len(row) and row[k].strip():
                where.setdefault(row[k].strip(), n)
    unknown = []
    for student in sorted(scores):
        if student not in where:
            unknown.append(student)
            continue
        row = body[where[student]]
        for assignment, cell in scores[student].items():
            column = targets[assignment]
            row.extend([""] * (column + 1 - len(row)))
            row[column] = cell
    return [header] + body, unknown


def moodle(rows, columns):
    """Moodle's CSV grade import: the student's id (mapped to username, idnumber or email at import), one column
    per grade item."""
    scores, most = by_student(rows)
    assignments = sorted(most)
    table = [["username"] + [columns.get(a, a) for a in assignments]]
    table += [[student] + [scores[student].get(a, "") for a in assignments] for student in sorted(scores)]
    return table, []


def read_template(path):
    """The template's rows, and whether it began with a byte-order mark (kept when writing back)."""
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text: {err}") from None
    table = list(csv.reader(text.splitlines(keepends=True)))
    if not table:
        raise ValueError(f"{path} is empty")
    return table, raw.startswith(b"\xef\xbb\xbf")


def write(course, fmt, out, assignment=None, template=None, columns=(), report=print):
    """Write the grades in one LMS layout; returns (rows written, student ids the template lacks)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    if fmt == "gradescope":
        raise ValueError(GRADESCOPE)
    if template and fmt != "canvas":
        raise ValueError("--template is a Canvas gradebook export; use it with --format canvas")
    if fmt == "rows":
        return export_rows.export(course, out, assignment), []
    columns = parse_columns(columns)
    rows = export_rows.rows(course, assignment)
    bom = False
    if fmt == "moodle":
        table, unknown = moodle(rows, columns)
    elif template:
        given, bom = read_template(template)
        table, unknown = canvas_filled(rows, given, columns)
    else:
        table, unknown = canvas_minimal(rows, names(course), columns)
    with open(out, "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as f:
        csv.writer(f).writerows(table)
    if unknown:
        report(f"warning: {len(unknown)} student(s) in the grades but not in {template}, so not in {out}: "
               + ", ".join(unknown))
    return len(table) - 1, unknown
