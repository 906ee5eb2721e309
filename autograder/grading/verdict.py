"""Stage 4 of grading, *judge*: what one run of nbgrader's autograde comes to for the instructor.

:func:`verdict` reads the score nbgrader filed in the gradebook and adds the
notes (edited or deleted test cells, cells stopped at their limit, what the
judge reported, a late hand-in) and the evidence that flags a submission for
review; or, when the run failed, says why it could not be graded
(:func:`diagnose`). autograder/grading/grade.py runs the stages in order.
"""

import json
import re

from nbgrader.utils import is_grade

from ..course import gradebook
from ..course.cells import grade_id, read_notebook, restored
from ..course.outcomes import failed, scored


def verdict(work, ran, notes, limits, **source):
    """The outcome of one run: scored, with its notes and evidence; or why it could not be graded."""
    log = str(work.log.relative_to(work.course.root))
    scores = gradebook.scores(work.course, work.assignment, work.student)
    if ran.timed_out or ran.returncode != 0 or scores is None or not all(
            work.autograded(name).is_file() for name in work.names):
        return failed(work.assignment, work.student, diagnose(ran, limits.notebook_s), log=log, **source)
    notes, flags = list(notes), []
    for name in work.names:
        if work.released(name).is_file():
            notes += tampered_cells(work.copy(name), work.released(name))
        notes += timed_out_cells(work.autograded(name), limits.cell_s)
        said, evidence = judge_report(work.judge_report(name), name)
        notes += said
        flags += evidence
    if scores["seconds_late"] > 0:
        notes.append(f"handed in {late_by(scores['seconds_late'])} after the due date"
                     + (f"; late penalty {scores['late_penalty']:g}" if scores["late_penalty"] else ""))
    return scored(work.assignment, work.student, scores, notes, flags, log, **source)


def late_by(seconds):
    """A lateness in words: '3 h 20 min', '2 d 1 h', '45 s'."""
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    parts = [f"{days} d"] * bool(days) + [f"{hours} h"] * bool(hours) + [f"{minutes} min"] * bool(minutes)
    return " ".join(parts[:2]) or f"{secs} s"


def diagnose(run, time_limit):
    """Why autograding a student did not produce a grade, in one sentence.

    A cell that crashes or hangs is the judge's business (that part scores 0);
    what reaches here is the whole submission past its time limit, the grading
    worker killed, or nbgrader failing.
    """
    log = run.log
    if run.timed_out:
        return (f"grading took longer than {time_limit} s and was stopped "
                "(an endless loop that ignores interrupts, or a very slow notebook)")
    if run.returncode < 0:
        return f"the grading worker was killed by signal {-run.returncode} (out of memory?)"
    missing = re.findall(r"SandboxMissing: (.*)$", log, flags=re.M)
    if missing:
        return missing[-1].strip()[:400]
    errors = re.findall(r"^(?:\w+\.)*\w*(?:Error|Exception)\b:? ?.*$", log, flags=re.M)
    if errors:
        return f"nbgrader failed: {errors[-1].strip()[:300]}"
    return f"nbgrader autograde failed (exit code {run.returncode})"


def tampered_cells(submitted, released):
    """Cells nbgrader restores (tests, setup) that the student edited or deleted: the instructor is told."""
    found = []
    theirs = {grade_id(c): c for c in read_notebook(submitted).cells}
    for cell in read_notebook(released).cells:
        if not restored(cell):
            continue
        name = grade_id(cell)
        if name not in theirs:
            found.append(f"{'test' if is_grade(cell) else 'locked'} cell {name} had been deleted"
                         + ("; it was put back" if is_grade(cell) else ""))
        elif theirs[name].source.strip() != cell.source.strip():
            found.append(f"locked cell {name} had been edited; the original was used")
    return found


def timed_out_cells(graded_notebook, cell_timeout):
    """Cells that were interrupted at the per-cell time limit."""
    found = []
    for index, cell in enumerate(read_notebook(graded_notebook).cells):
        if any(o.get("ename") in ("CellTimeoutError", "CellTimeout") for o in cell.get("outputs", [])):
            found.append(f"cell {grade_id(cell) or f'#{index}'} ran past the {cell_timeout:g} s limit "
                         "and was interrupted")
    return found


def judge_report(path, notebook):
    """Notes and evidence from the judge's report on one notebook (autograder/grading/judge.py)."""
    if not path.is_file():
        return [f"{notebook}: the judge left no report"], []
    report = json.loads(path.read_text())
    notes = [f"{notebook}: {p}" for p in dict.fromkeys(report.get("problems", []))]
    if report.get("sandbox", "ok") != "ok":
        notes.append(f"{notebook}: graded without the sandbox ({report['sandbox']})")
    evidence = [f"{notebook} cell {e['cell']} line {e['line']}: `{e['text']}` ({e['why']})"
                for e in report.get("evidence", [])]
    return notes, evidence
