"""Grades in the layouts learning-management systems import: Canvas's gradebook CSV and Moodle's CSV.

The rows of :func:`autograder.handback.export.rows` (one per student and assignment)
become one row per student with one column per assignment. What the LMS's
import does with each cell decides what is written, for neither import has a
cell that means "leave this grade alone":

- **Canvas** (``GradebookImporter`` in instructure/canvas-lms,
  ``app/models/gradebook_importer.rb``) compares every cell with the score it
  holds. ``no_change_to_value?`` is true when the two are equal, or when
  *both* are blank (or ``-``); a blank cell against a held score is a change,
  and the import removes that score. A student whose row is not in the file
  (``process_student`` only reads the rows there are) and an assignment whose
  column is not in it (``parse_assignments`` only reads the headers there are)
  are not touched.
- **Moodle** (``gradeimport_csv_load_data`` in moodle/moodle,
  ``grade/import/csv/classes/load_data.php``): ``update_grade_item`` reads an
  empty cell or ``-`` as "no grade" and imports it over the grade held, and
  ``prepare_import_grade_data`` abandons the whole import at the first user
  ``check_user_exists`` cannot find.

So a cell is written only with a score this course gave. A student without
one (could not be graded, no hand-in, held back) has no row; a row that needs
a cell for such a student (another column of the same row has a score) takes
the value the LMS's own export holds (Canvas's ``--template``, equal to the
held score, is "no change"), and without an export the command refuses with
the students named. A score whose written answers are still to grade by hand
is the autograded part only: it is held back, as ``feedback`` holds such
students back, unless ``include_provisional``.

Canvas matches a row by its ``ID`` (the Canvas user id, which is the student
id of a graded Canvas bulk download) or its SIS ids, and a column by its
header, ``<assignment name> (<Canvas assignment id>)``. With the instructor's
own gradebook export as ``template``, the file keeps its identifying columns,
its ``Points Possible`` row and the assignments' columns, and only the rows of
students with a score to write. Moodle's file can be filtered by a roster (any
CSV with a username, ID number or email column, Moodle's own grade export
among them): a student it does not list is left out and named.

Gradescope imports rosters from CSV but not scores, so there is no
Gradescope layout to write (see :data:`GRADESCOPE`).
"""

import csv
import re

from . import export as export_rows
from ..course.outcomes import Outcomes, SCORED
from ..grading.canvas import canvas_file

FORMATS = ("rows", "canvas", "moodle", "gradescope")
CANVAS_FIXED = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_KEYS = ("ID", "SIS User ID", "SIS Login ID")
POINTS_POSSIBLE = "Points Possible"
MOODLE_KEYS = ("username", "idnumber", "id number", "email", "email address")   # a roster's user-id headers
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


def by_student(rows, include_provisional=False):
    """From export rows: the scores an LMS may take, ``{student: {assignment: score}}``; every assignment's
    max score; and ``{"failed", "provisional", "partial", "flagged"}``, lists of the (assignment, student)
    pairs that could not be graded, that are held back, that are written as the autograded part only, and
    that are written though a grader flagged them in the formgrader.

    A submission that could not be graded has no score to write; one whose written answers wait for a
    grader has only its autograded part, held back unless ``include_provisional``.
    """
    scores, most, held = {}, {}, {"failed": [], "provisional": [], "partial": [], "flagged": []}
    for row in rows:
        most[row["assignment"]] = row["max_score"]
        pair = (row["assignment"], row["student_id"])
        provisional = row.get("needs_manual_grading") == "yes"
        if row["status"] not in SCORED:
            held["failed"].append(pair)
        elif provisional and not include_provisional:
            held["provisional"].append(pair)
        else:
            scores.setdefault(row["student_id"], {})[row["assignment"]] = row["score"]
            if provisional:
                held["partial"].append(pair)
            if row.get("formgrader_flag") == "yes":
                held["flagged"].append(pair)
    return scores, most, held


def parse_columns(pairs):
    """``["hw01=Homework 1 (4321)"]`` -> ``{"hw01": "Homework 1 (4321)"}``; a clear error for anything else."""
    columns = {}
    for pair in pairs or ():
        assignment, sep, header = pair.partition("=")
        if not sep or not assignment.strip() or not header.strip():
            raise ValueError(f"--column wants ASSIGNMENT=COLUMN HEADER, got {pair!r}")
        columns[assignment.strip()] = header.strip()
    return columns


def holes(scores, assignments):
    """The cells a row needs but that have no score: ``[(assignment, student)]``."""
    return [(a, s) for s in sorted(scores) for a in assignments if a not in scores[s]]


def refuse_holes(missing, lms):
    """No cell can leave a grade alone, so a row that would need an empty one is refused, the students named.

    Canvas's ``no_change_to_value?`` takes a blank (or ``-``) against a held score as a change; Moodle's
    ``update_grade_item`` imports a blank (or ``-``) as "no grade"."""
    if missing:
        listed = ", ".join(f"{student} ({assignment})" for assignment, student in missing)
        raise ValueError(f"{lms}'s import would remove the grade it holds wherever a cell is empty, and these "
                         f"students have a score in one column but none in another: {listed}. Export one "
                         "assignment at a time (--assignment)"
                         + (", or fill Canvas's own gradebook export (--template)" if lms == "Canvas" else ""))


def canvas_minimal(scores, most, readable, columns):
    """The smallest file Canvas's gradebook import takes: fixed columns, Points Possible, one row per student
    with a score."""
    assignments = sorted({a for cells in scores.values() for a in cells})
    refuse_holes(holes(scores, assignments), "Canvas")
    header = CANVAS_FIXED + [columns.get(a, a) for a in assignments]
    table = [header, [POINTS_POSSIBLE, "", "", "", ""] + [most[a] for a in assignments]]
    for student in sorted(scores):
        numeric = student.isdigit()   # a Canvas user id; anything else is the student's login
        table.append([readable.get(student, student), student if numeric else "", "",
                      "" if numeric else student, ""] + [scores[student][a] for a in assignments])
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


def canvas_filled(scores, template, columns):
    """Canvas's own gradebook export cut down to what is to change: its identifying columns (up to
    ``Section``) and the assignments' columns, its rows that are not a student's (``Points Possible``), and
    the rows of students with a score, the scores filled in. A cell of such a row without a score keeps the
    export's value: equal to what Canvas holds, it is no change (``no_change_to_value?``). Returns the table
    and the students with a score that the export lacks."""
    header, body = template[0], [list(row) for row in template[1:]]
    keys = [header.index(c) for c in CANVAS_KEYS if c in header]
    if not keys or "Section" not in header:
        raise ValueError("the template is not a Canvas gradebook export: Canvas's import needs an ID, SIS User "
                         "ID or SIS Login ID column and the Section column after them")
    targets = {a: template_column(header, a, columns) for a in sorted({a for c in scores.values() for a in c})}
    kept = list(range(header.index("Section") + 1)) + sorted(set(targets.values()))
    owner = {}
    for n, row in enumerate(body):
        for k in keys:
            if k < len(row) and row[k].strip():
                owner.setdefault(row[k].strip(), n)
    student_at = {owner[s]: s for s in sorted(scores, reverse=True) if s in owner}
    table = [[header[i] for i in kept]]
    for n, row in enumerate(body):
        row = row + [""] * (len(header) - len(row))
        if any(row[k].strip() for k in keys) and n not in student_at:
            # A student with no score to write has no row. Canvas's GradebookImporter reads only the rows a
            # file has (process_student), whereas a blank cell against the score it holds is a change
            # (no_change_to_value? is true for blanks only when both are blank): the import would remove it.
            continue
        for assignment, cell in scores.get(student_at.get(n), {}).items():
            row[targets[assignment]] = cell
        table.append([row[i] for i in kept])
    return table, sorted(s for s in scores if s not in owner)


def roster_column(roster, students):
    """The index of the roster's column of user ids (username, ID number or email) holding the most students."""
    header = [cell.strip().lower() for cell in roster[0]]
    found = [i for i, cell in enumerate(header) if cell in MOODLE_KEYS]
    if not found:
        raise ValueError("the roster has no username, ID number or email address column (a header cell "
                         "'username', 'ID number' or 'Email address')")
    return max(found, key=lambda i: (sum(r[i].strip() in students for r in roster[1:] if i < len(r)), -i))


def moodle(scores, columns, roster=None):
    """Moodle's CSV grade import: the user id (the student id, mapped to username, ID number or email at
    import), one column per grade item, one row per student with a score (and in the roster, if given).
    Returns the table and the students with a score that the roster lacks."""
    head, unknown = "username", []
    if roster is not None:
        column = roster_column(roster, set(scores))
        head = roster[0][column].strip()
        listed = {r[column].strip() for r in roster[1:] if column < len(r)}
        unknown = sorted(s for s in scores if s not in listed)
        scores = {s: cells for s, cells in scores.items() if s in listed}
    assignments = sorted({a for cells in scores.values() for a in cells})
    refuse_holes(holes(scores, assignments), "Moodle")
    table = [[head] + [columns.get(a, a) for a in assignments]]
    table += [[student] + [scores[student][a] for a in assignments] for student in sorted(scores)]
    return table, unknown


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


def held_back(held, in_export, report):
    """Say which submissions the file leaves to the LMS, and why; and which it gives as the autograded part."""
    def listed(pairs):
        return "; ".join(f"{a}: {', '.join(s for b, s in pairs if b == a)}" for a in sorted({a for a, _ in pairs}))
    left = ("are left out (in a row written for another column, their cell keeps the export's value)"
            if in_export else "are left out")
    if held["failed"]:
        report(f"{len(held['failed'])} submission(s) could not be graded and {left}, so the LMS keeps what it "
               f"holds for them (settle them by hand; grades.csv says why): {listed(held['failed'])}")
    if held["provisional"]:
        report(f"held back: {len(held['provisional'])} submission(s) whose written answers are still to grade by "
               f"hand {left} (their score would be the autograded part only): {listed(held['provisional'])}. "
               "Grade them in the formgrader, or pass --include-provisional to export that part now")
    if held["partial"]:
        report(f"warning: {len(held['partial'])} score(s) written as the autograded part only, their written "
               f"answers still to grade by hand (--include-provisional): {listed(held['partial'])}")
    if held["flagged"]:
        report(f"note: {len(held['flagged'])} score(s) written that a grader flagged in the formgrader; look at "
               f"them before importing: {listed(held['flagged'])}")


def write(course, fmt, out, assignment=None, template=None, columns=(), report=print, include_provisional=False):
    """Write the grades in one LMS layout; returns (students written, student ids the template lacks).

    ``template`` is Canvas's gradebook export (``canvas``) or a roster of the course's users (``moodle``).
    Nothing is written when a check fails (a ValueError says why).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    if fmt == "gradescope":
        raise ValueError(GRADESCOPE)
    if fmt == "rows":
        if template or columns:
            raise ValueError("--template and --column are for --format canvas or moodle")
        return export_rows.export(course, out, assignment), []
    columns = parse_columns(columns)
    scores, most, held = by_student(export_rows.rows(course, assignment), include_provisional)
    stray = sorted(set(columns) - set(most))
    if stray:
        raise ValueError(f"--column names {', '.join(stray)}, which has no grades to export "
                         f"(grades of: {', '.join(sorted(most)) or 'none'})")
    given, bom = read_template(template) if template else (None, False)
    if fmt == "moodle":
        table, unknown = moodle(scores, columns, given)
    elif given:
        table, unknown = canvas_filled(scores, given, columns)
    else:
        table, unknown = canvas_minimal(scores, most, names(course), columns)
    held_back(held, bool(given) and fmt == "canvas", report)
    if unknown:
        report(f"warning: {len(unknown)} student(s) with a score but not in {template}, so not in {out}: "
               + ", ".join(unknown))
    written = len(scores) - len(unknown)
    if not written:
        raise ValueError(f"no score to write{' for ' + assignment if assignment else ''}, so no {out} was written")
    with open(out, "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as f:
        csv.writer(f).writerows(table)
    if fmt == "moodle" and not given:
        report("note: Moodle abandons the whole import at the first user it does not know; --roster FILE "
               "(a CSV with a username, ID number or email address column) keeps the file to the course's users")
    return written, unknown
