"""``export`` and ``status``: grades as CSV for the learning-management system, and a quick table.

One row per (student, assignment). Scores come fresh from the gradebook, so
hand-graded written answers entered in nbgrader's formgrader are included. A
submission that could not be graded has an empty score, the status
``could not be graded`` and the reason: never a plain 0. A submission whose
code looks like an attempt on the grader is scored as usual (only correct
values earn points) with the status ``flagged for review`` and the evidence.
A submission a grader flagged in nbgrader's formgrader says so in
``formgrader_flag``. A student who handed in only other homework has no row
for this one.
"""

import csv

from ..course import gradebook
from ..course.course import CourseError
from ..course.outcomes import FAILED, FLAGGED, GRADED, SCORED, Outcomes

COLUMNS = ["student_id", "assignment", "status", "score", "max_score", "needs_manual_grading", "formgrader_flag",
           "late", "late_penalty", "timestamp", "name", "reason", "notes"]


def rows(course, assignment=None):
    """The export rows, sorted by assignment and student; a clear error for an assignment there is none of."""
    if assignment is not None:
        course.check_assignment(assignment)
        if not gradebook.knows(course, assignment):
            raise CourseError(f"{assignment} has no grades: it is not in the gradebook yet (release it, "
                              f"python -m autograder release {assignment}, then grade it)")
    book = Outcomes(course)
    outcomes = {(o["assignment"], o["student"]): o for o in book.all(assignment)}
    assignments = sorted({a for a, _ in outcomes} | ({assignment} if assignment else set(course.assignments())))
    result = []
    for name in assignments:
        if not gradebook.knows(course, name):
            continue
        most = gradebook.max_score(course, name)
        students = sorted({s for a, s in outcomes if a == name} | set(gradebook.students(course, name)))
        for student in students:
            outcome = outcomes.get((name, student), {"status": GRADED, "reason": "", "notes": []})
            row = {"student_id": student, "assignment": name, "status": outcome["status"],
                   "score": "", "max_score": f"{most:g}", "needs_manual_grading": "", "formgrader_flag": "",
                   "late": "yes" if outcome.get("marked_late") else "", "late_penalty": "", "timestamp": "",
                   "name": outcome.get("name", ""),
                   "reason": outcome.get("reason", ""), "notes": "; ".join(outcome.get("notes", []))}
            if outcome["status"] in SCORED:
                scores = gradebook.scores(course, name, student)
                if scores is None:
                    row.update(status=FAILED, reason="graded earlier, but the gradebook has no score for it now")
                else:   # the score after nbgrader's late penalty, as nbgrader's own export gives it
                    late = scores["seconds_late"] > 0 or bool(outcome.get("marked_late"))
                    row.update(score=f"{max(0.0, scores['score'] - scores['late_penalty']):g}",
                               max_score=f"{scores['max_score']:g}",
                               needs_manual_grading="yes" if scores["needs_manual_grade"] else "no",
                               formgrader_flag="yes" if scores.get("flagged") else "no",
                               late="yes" if late else "no", late_penalty=f"{scores['late_penalty']:g}",
                               timestamp=scores["timestamp"])
            result.append(row)
    return result


def export(course, out, assignment=None):
    """Write the CSV; returns the number of rows."""
    table = rows(course, assignment)
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(table)
    return len(table)


def status(course, assignment=None, report=print):
    """Print a short table of outcomes."""
    table = rows(course, assignment)
    if not table:
        report("nothing graded yet")
        return table
    width = max(len(r["student_id"]) for r in table)
    report(f"{'assignment':<10}  {'student':<{width}}  {'score':>11}  status")
    for r in table:
        score = f"{r['score']} / {r['max_score']}" if r["score"] != "" else "-"
        detail = r["reason"] or ("written answers to grade by hand" if r["needs_manual_grading"] == "yes" else "")
        flag = "flagged in the formgrader" if r.get("formgrader_flag") == "yes" else ""
        detail = "; ".join(filter(None, [detail, flag, r["notes"]]))
        report(f"{r['assignment']:<10}  {r['student_id']:<{width}}  {score:>11}  {r['status']}"
               + (f": {detail}" if detail else ""))
    failed = sum(r["status"] == FAILED for r in table)
    flagged = sum(r["status"] == FLAGGED for r in table)
    report(f"{len(table) - failed} graded ({flagged} flagged for review), {failed} could not be graded")
    return table
