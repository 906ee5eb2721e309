"""Run an assignment's cells as grading does, but in this process: the mutation check's runner.

The student's side (answers and setup) runs in one namespace, as in the
student's process of grading; the tests' side is grading's own
:class:`~autograder.grading.examiner.Examiner`, which takes only plain values from
the answers and calls their functions with lib's ready-made versions
switched off, through :class:`LocalProcess` (autograder/sandbox/student.py's
answers, given here). No sandbox: the code run is the instructor's
reference, or one change of it, not a student's.

A changed answer cell needs only what can see the names it binds to run
again (:func:`plans`): the later cells that use them, and the tests that
fetch them. Each test cell runs in three steps, the visible part, the hidden
part, the rest, so where it first fails tells the visible from the hidden
tests (:class:`Verdict`).
"""

import builtins
import contextlib
import importlib
import io
import json
import signal
import warnings
from dataclasses import dataclass, field
from types import SimpleNamespace

from ..course.assignment import binds_and_mentions
from ..grading.examiner import Examiner, setup_imports


@dataclass
class Verdict:
    failed: dict = field(default_factory=dict)      # test cell -> ["visible" or "hidden", message]
    errors: dict = field(default_factory=dict)      # student cell -> error it raised
    outcome: str = "ran"                              # ran, timeout, died
    seconds: float = 0.0

    @property
    def caught(self):
        return bool(self.failed) or self.outcome != "ran"

    @property
    def caught_visible(self):
        return any(where == "visible" for where, _ in self.failed.values())


class LocalProcess:
    """The student's process as the examiner sees it, answered from a namespace of this process."""

    def __init__(self, namespace, timeout, switch):
        self.shell = SimpleNamespace(user_ns=namespace)
        self.timeout = timeout
        self.switch = switch  # lib.homework.LibSwitch, taken before any answer cell ran

    def ask(self, request):
        from ..sandbox.student import answer

        reply = answer(self.shell, json.loads(json.dumps(request)), self.timeout, self.switch)
        try:
            return json.loads(json.dumps(reply, allow_nan=False))
        except ValueError as failure:
            return {"error": f"the result could not be sent: {failure}"}


class Runner:
    """Runs an :class:`~autograder.course.assignment.Assignment`'s cells: the student's side in ``student``,
    the tests in an :class:`~autograder.grading.examiner.Examiner`."""

    def __init__(self, assignment, timeout):
        from lib.homework import LibSwitch

        self.assignment, self.timeout = assignment, timeout
        self.student = {"__name__": "__main__", "__builtins__": builtins}
        self.process = LocalProcess(self.student, timeout, LibSwitch())  # as the student's process: before any answer
        self.examiner = Examiner(assignment.nb, self.process)
        # what every forked child would otherwise import again: the student's side, and the setup's modules
        from ..sandbox import student, wire  # noqa: F401
        for module in setup_imports(assignment.nb):
            with contextlib.suppress(Exception):
                importlib.import_module(module)

    def run_student(self, cell, source=None, code=None):
        """One cell in the student's namespace (stopped after the time limit); returns its error, or ''."""
        def expire(signum, frame):
            raise TimeoutError(f"the cell ran past its {self.timeout:g} s limit")

        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            signal.signal(signal.SIGALRM, expire)
            signal.setitimer(signal.ITIMER_REAL, self.timeout)
            try:
                if code is None:
                    code = compile(source if source is not None else cell.source, f"<{cell.id}>", "exec")
                exec(code, self.student)  # noqa: S102 (the instructor's code, or one change of it)
            except Exception as failure:  # noqa: BLE001 (a failing cell is an outcome)
                return f"{type(failure).__name__}: {failure}"[:300]
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        return ""

    def run_test(self, cell, visible_only=False):
        """A setup cell, or a test cell part by part; returns None or (where it failed, message)."""
        if cell.role != "test":
            _, error = self.examiner.run(cell.source, cell.id)
            return ("visible", error[:2000]) if error else None
        self.examiner.take_answers(cell.source)
        for where, code in cell.segments:
            if visible_only and where == "hidden":
                continue
            _, error = self.examiner.run(code, cell.id)
            if error:
                return where, error[:2000]
        return None


def _plan(cells, start, changed, needed=()):
    """The cells from ``start`` on that must run again when ``changed`` names may hold other values.

    A cell runs when it mentions a changed name (what it binds is then changed
    too), or when a cell that runs, or the caller (``needed``), needs a name
    it binds. Returns the cells in notebook order.
    """
    later = [c for c in cells if c.index >= start]
    run, changed = set(), set(changed)
    for c in later:
        if c.mentions & changed:
            run.add(c.index)
            changed |= c.binds
    needed = set(needed)
    for c in reversed(later):
        if c.index in run:
            needed |= c.mentions
        elif c.binds & needed:
            run.add(c.index)
            needed |= c.mentions
    return [c for c in later if c.index in run]


def plans(assignment, changed_cell, binds):
    """(student cells after the changed one, test-side cells) that a change of ``changed_cell`` can reach."""
    student = [c for c in assignment.cells if c.student_side and c.index > changed_cell.index]
    tests = [c for c in assignment.cells if c.test_side]
    needed = set()
    while True:
        first = _plan(student, changed_cell.index + 1, binds, needed)
        changed = set(binds).union(*(c.binds for c in first))
        second = _plan(tests, changed_cell.index, changed)
        wanted = set().union(*(c.mentions for c in second if c.role == "test"))  # answers the tests fetch
        if wanted <= needed:
            return first, second
        needed |= wanted


def run_variant(runner, changed_cell, source, complete=False, timeout=None):
    """In a forked child: the changed cell, then, in notebook order, the cells that depend on it and the
    tests that can see it.

    Unless ``complete``, it stops at the first failure of a visible test, which
    settles the verdict; after a hidden failure only visible parts still run.
    ``timeout``: this child's limit for a cell or a call, instead of the runner's.
    """
    if timeout is not None:
        runner.timeout = runner.process.timeout = timeout   # the child's own copy of the runner
    verdict = Verdict()
    error = runner.run_student(changed_cell, source)
    if error:
        verdict.errors[changed_cell.id] = error
    student, tests = plans(runner.assignment, changed_cell, changed_cell.binds | binds_and_mentions(source)[0])
    # in notebook order, as grading runs them: a mistake caught by its own part's visible test never pays
    # for the later cells that use it (a simulation on the student's model, say)
    for cell, side in sorted([(c, "student") for c in student] + [(c, "test") for c in tests],
                             key=lambda pair: (pair[0].index, pair[1] == "test")):
        if side == "student":
            error = runner.run_student(cell)
            if error:
                verdict.errors[cell.id] = error
            continue
        failure = runner.run_test(cell, visible_only=not complete and bool(verdict.failed))
        if failure and cell.role == "test":
            verdict.failed[cell.id] = list(failure)
            if failure[0] == "visible" and not complete:
                break
    return verdict
