"""``mutants``: which typical mistakes do a homework's tests let through?

The reference solution of every autograded part is changed in one small way
at a time, the way students get things wrong (a sign, a missing factor 2, a
transposed matrix, rows for columns, sin for cos, a term left out, a list
returned for an array...), and the part's tests are run on each such
*mutant*. A mutant the tests catch is a mistake that costs points; one they
let through either computes the same thing as the reference (it is
*equivalent*: the transpose of a symmetric mass matrix) or shows a hole in
the tests. Equivalent mutants are declared, one line each with the reason,
in ``exercises/<assignment>/mutants.toml``; any other survivor fails the
check. Each mutant is also run against the visible tests alone, so the
report says how many mistakes a student finds before handing in.

The pieces, each in its own module:

* the homework's folder and its cells as the judge sees them: autograder/course/assignment.py;
* the operators, one small function each: autograder/mutation/operators.py;
* the run of the reference with probes that steers some of them: autograder/mutation/probes.py;
* running the cells as grading does, in one process, with grading's own
  tests' side (autograder/grading/examiner.py): autograder/mutation/replay.py;
* forking, limits and killing: autograder/sandbox/processes.py.

How a mutant is run, fast enough for a thousand of them: the reference runs
once, cell by cell; before each answer cell the process forks, one child per
mutant of that cell, so a child runs only the changed cell and whatever can
see what it defines, in notebook order, up to the first visible test that
fails; the cells before it are already done. There is **no
grading sandbox** (bubblewrap, autograder/sandbox/sandbox.py) and no ``--no-sandbox``
to ask for: the code run is the instructor's own reference, changed by one
operator, not a student's. Each child still gets a grading worker's memory
cap (autograder/sandbox/limits.py) and dies with the command. A mutant's cell or call
is stopped after ten times the reference's slowest cell (at least 5 s, at
most grading's limit: :func:`quick_limit`), which counts as caught; the
typical mistakes and the sample graded by nbgrader too keep grading's limit.

The verdicts agree with grading by nbgrader (tests/test_homework.py grades a
sample of mutants both ways). A mutant's id is
``<answer cell>:<line>:<column>:<operator>``, the line counted in the source
notebook's cell; ``python -m autograder mutants hwNN --show all`` lists them
all with the change each makes.
"""

import ast
import json
import os
import shutil
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..course.assignment import DECLARATIONS, Assignment, without_markers
from ..course.course import CourseError
from ..sandbox.limits import GRACE_S, Limits
from ..sandbox.processes import ForkPool, one_thread_per_library, run_forked
from .operators import mutations
from .probes import kinds_seen, observe
from .replay import Runner, Verdict, run_variant
from .syntax import needs_parens, splice


@dataclass
class Mutant:
    id: str            # answer cell:line:column:operator
    cell: str          # grade_id of the answer cell
    part: str          # grade_id of the part's test cell
    operator: str
    line: int          # in the source notebook's cell
    change: str        # "`a + b` -> `a - b`"
    source: str = field(repr=False)   # the whole cell as a student would hand it in (no solution markers)


def _short(text, limit=90):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def generate(assignment, seen=None):
    """Every mutant of the assignment's solutions (one change each), in notebook order."""
    seen = seen if seen is not None else {}
    found = []
    for cell in assignment.cells:
        if cell.role != "answer" or not cell.solution:
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError as error:
            raise CourseError(f"{assignment.name}: the reference of {cell.id} does not parse: {error}") from None
        original = ast.dump(tree)
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        variants, counts = set(), {}
        for target, text, operator, anchor in mutations(tree, cell.id, cell.solution, seen):
            mutated = splice(cell.source, target, f"({text})" if needs_parens(target, text, parents) else text)
            try:
                dump = ast.dump(ast.parse(mutated))
            except SyntaxError:
                continue
            if dump == original or dump in variants:
                continue
            variants.add(dump)
            base = f"{cell.id}:{anchor.lineno}:{anchor.col_offset + 1}:{operator}"
            counts[base] = counts.get(base, 0) + 1
            ident = base if counts[base] == 1 else f"{base}#{counts[base]}"
            before = ast.get_source_segment(cell.source, target) or ""
            change = f"`{_short(before)}` -> `{_short(text)}`"
            found.append(Mutant(ident, cell.id, assignment.parts[cell.id], operator, anchor.lineno, change,
                                without_markers(mutated)))
    return found


def sample(path, count):
    """``count`` mutant ids spread evenly over a notebook's mutants, for spot checks (nothing is run).

    The ids come from the mutants that need no run of the reference to be
    made; the declared equivalent ones come first, so a sample always holds
    survivors when there are any.
    """
    assignment = Assignment(path)
    declared = list(assignment.declared())
    found = [m.id for m in generate(assignment) if m.id not in declared]
    step = max(1, len(found) // max(1, count))
    return (declared[:1] + found[::step])[:count]


# --- the check: fork per mutant -------------------------------------------------------------
QUICK_FACTOR, QUICK_FLOOR_S = 10.0, 5.0


def quick_limit(slowest_s, timeout):
    """The time limit of a mutant that is not run ``complete``: ten times the reference's slowest cell, at
    least 5 s, at most grading's ``timeout``.

    A mutant stopped at this limit counts as caught: it has changed what the
    reference does (an endless loop, a step that never ends). One that is only
    slower, which grading's limit would let finish, is counted caught too: the
    check errs on the lenient side there. The typical mistakes and the
    spot-check sample, whose verdicts are compared with nbgrader's grading,
    keep grading's own limit.

    >>> quick_limit(0.2, 60.0), quick_limit(1.5, 60.0), quick_limit(30.0, 60.0)
    (5.0, 15.0, 60.0)
    """
    return min(timeout, max(QUICK_FLOOR_S, QUICK_FACTOR * slowest_s))


def _check(assignment, jobs, timeout, only, extra, complete=False):
    """The work of one assignment, in a process of its own: returns a JSON-ready dict."""
    one_thread_per_library()
    memory_mb = Limits.from_environment().worker_mb
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="rbd-mutants-")
    try:
        pool = ForkPool(1, max(4 * timeout, 120.0), folder, memory_mb)
        pool.start("observe", lambda: observe(assignment, timeout))
        pool.wait()
        outcome, observed = pool.results["observe"]
        if outcome != "ran":
            raise CourseError(f"{assignment.name}: the reference solution could not be run ({outcome})")
        if observed["problems"]:
            raise CourseError(f"{assignment.name}: the reference solution does not pass its own tests:\n  "
                              + "\n  ".join(observed["problems"]))
        mutants = generate(assignment, kinds_seen(observed))
        if only is not None:
            mutants = [m for m in mutants if m.id in only]
        mutants += [Mutant(m["id"], m["cell"], assignment.parts[m["cell"]], "given", 0, m.get("what", ""),
                           m["source"]) for m in extra]
        by_cell = {}
        for m in mutants:
            by_cell.setdefault(m.cell, []).append(m)
        pool = ForkPool(jobs, 2 * timeout + GRACE_S, folder, memory_mb)
        runner = Runner(assignment, timeout)
        short = quick_limit(observed["slowest_cell_s"], timeout)
        for cell in assignment.cells:
            for m in by_cell.get(cell.id, []):
                whole = complete is True or m.id in (complete or ())
                limit = None if whole else short
                pool.start(m.id, lambda m=m, whole=whole, limit=limit:
                           asdict(run_variant(runner, cell, m.source, whole, limit)))
            if cell.student_side:
                runner.run_student(cell)
            if cell.test_side:
                runner.run_test(cell)
        pool.wait()
        verdicts = {key: Verdict(**data) if outcome == "ran" else Verdict(outcome=outcome)
                    for key, (outcome, data) in pool.results.items()}
        for key, verdict in verdicts.items():
            verdict.seconds = pool.seconds[key]
        return {"assignment": assignment.name, "seconds": round(time.monotonic() - started, 1),
                "mutants": [dict(asdict(m), verdict=asdict(verdicts[m.id])) for m in mutants]}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(path, jobs=None, timeout=None, only=None, extra=(), complete=False):
    """Mutate and test one source notebook; returns the JSON-ready result (see :func:`_check`).

    The work happens in a forked process, so that nothing the reference or a
    mutant does to numpy, sympy or lib stays behind. ``timeout``: seconds for
    one cell or call (default: a cell's limit in grading, autograder/sandbox/limits.py);
    ``only``: run just these mutant ids; ``extra``: more variants to run, dicts
    with ``id``, ``cell`` (an answer cell's grade_id) and ``source`` (that
    cell's whole new source); ``complete``: run every test a mutant can reach,
    not only until one fails (True: every mutant; a set of ids: those).
    """
    assignment = Assignment(path)
    jobs = jobs or os.cpu_count() or 1
    timeout = timeout or Limits.from_environment().cell_s
    extra = list(extra)

    def work():
        try:
            return _check(assignment, jobs, timeout, only, extra, complete)
        except CourseError as error:
            return {"error": str(error)}
        except BaseException as error:  # noqa: BLE001
            return {"error": f"{type(error).__name__}: {error}\n{traceback.format_exc()[-2000:]}"}
    try:
        result = run_forked(work)
    except RuntimeError:
        raise CourseError(f"{assignment.name}: the mutation check died") from None
    if "error" in result:
        raise CourseError(result["error"])
    return result


# --- the report ------------------------------------------------------------------------------
@dataclass
class Summary:
    assignment: str
    rows: dict            # answer cell -> counts
    survivors: list       # mutants caught by no test and not declared
    stale: list           # (id, why): declarations that match no surviving mutant
    mutants: list         # every mutant with its verdict and status
    seconds: float

    @property
    def ok(self):
        return not self.survivors and not self.stale


def summarize(assignment, result, partial=False):
    """Counts per answer cell, survivors and stale declarations (none when ``partial``: only some mutants ran)."""
    declared = assignment.declared()
    rows, survivors, mutants = {}, [], []
    surviving = set()
    for m in result["mutants"]:
        verdict = Verdict(**m["verdict"])
        row = rows.setdefault(m["cell"], {"part": m["part"], "mutants": 0, "visible": 0, "graded": 0,
                                          "equivalent": 0, "survivors": 0})
        row["mutants"] += 1
        row["visible"] += verdict.caught_visible
        row["graded"] += verdict.caught
        if verdict.caught:
            status = "caught by the visible tests" if verdict.caught_visible else "caught when graded"
            if verdict.outcome != "ran":
                status += f" ({verdict.outcome})"
        elif m["id"] in declared:
            status = "equivalent"
            row["equivalent"] += 1
            surviving.add(m["id"])
        else:
            status = "survives"
            row["survivors"] += 1
            survivors.append(m)
        mutants.append(dict(m, status=status))
    ids = {m["id"] for m in result["mutants"]}
    stale = [] if partial else [(k, "no such mutant (the solution changed?)") for k in declared if k not in ids]
    stale += [(k, "the tests catch it now") for k in declared if k in ids and k not in surviving]
    return Summary(result["assignment"], rows, survivors, stale, mutants, result["seconds"])


COLUMNS = ("mutants", "visible", "graded", "equivalent", "survivors")


def print_summary(summary, show="survivors", out=print):
    out(f"{summary.assignment}: {sum(r['mutants'] for r in summary.rows.values())} mutants "
        f"({summary.seconds:.0f} s)")
    width = max([len("answer cell")] + [len(k) for k in summary.rows]) + 2
    out("  " + "answer cell".ljust(width) + "".join(c.rjust(12) for c in COLUMNS))
    for cell, row in summary.rows.items():
        out("  " + cell.ljust(width) + "".join(str(row[c]).rjust(12) for c in COLUMNS))
    total = {c: sum(r[c] for r in summary.rows.values()) for c in COLUMNS}
    out("  " + "total".ljust(width) + "".join(str(total[c]).rjust(12) for c in COLUMNS))
    listed = {"survivors": lambda m: m["status"] == "survives",
              "visible": lambda m: not m["status"].startswith("caught by the visible"),
              "all": lambda m: True}[show]
    for m in summary.mutants:
        if listed(m):
            out(f"    {m['id']}  line {m['line']}: {m['change']}  [{m['status']}]")
    for ident, why in summary.stale:
        out(f"    declared equivalent in {summary.assignment}/{DECLARATIONS}, but {why}: {ident}")
    if summary.survivors:
        out(f"  {len(summary.survivors)} mutant(s) pass every test: make the tests catch them, or, if a mutant "
            f"computes the same as the reference, add its id with the reason to "
            f"exercises/{summary.assignment}/{DECLARATIONS} under [equivalent]")


def check(course, assignments=(), jobs=None, timeout=None, show="survivors", json_out=None, only=None,
          complete=False, out=print):
    """The ``mutants`` command: returns True when no assignment has an unexplained survivor.

    ``only``: run just these mutant ids (then declarations that match none are
    not reported as stale); ``complete``: run every test each mutant reaches.
    """
    assignments = [course.check_assignment(a) for a in assignments] or course.assignments()
    ok, everything = True, []
    for name in assignments:
        for path in course.source_notebooks(name).values():
            result = run(path, jobs=jobs, timeout=timeout, only=set(only) if only else None, complete=complete)
            summary = summarize(Assignment(path), result, partial=bool(only))
            print_summary(summary, show, out)
            ok &= summary.ok
            everything.append({"assignment": name, "notebook": path.name, "seconds": summary.seconds,
                               "parts": summary.rows, "stale": summary.stale, "mutants": summary.mutants})
    if json_out:
        Path(json_out).write_text(json.dumps(everything, indent=1))
    out("legend: visible = caught by the visible tests; graded = caught when graded (visible and hidden tests); "
        f"equivalent = declared in {DECLARATIONS}; survivors = caught by nothing and not declared")
    return ok
