"""The tests' side of grading: the source's setup and test cells, run in the grader on plain values.

The judge (autograder/grading/judge.py) grades a submission with it, and the
mutation check (autograder/mutation/mutants.py) runs the reference's variants with
it, so both run the tests the same way. An :class:`Examiner` holds the
namespace the instructor's cells run in, fresh for each notebook. Before a
test cell runs, it takes from the student's process each answer the cell
names: a plain value (autograder/sandbox/wire.py), or, for a function, a stand-in
that calls the student's function over there with plain arguments and
brings back its plain result, with lib's ready-made answers switched off
(:func:`lib.homework.switched_off`). Nothing else crosses, so nothing the
student's code does reaches the tests.

The student's process is anything with ``ask(request) -> reply`` as
autograder/sandbox/student.py answers: a :class:`~autograder.sandbox.student_process.StudentProcess`
when grading, the check's own namespace when mutating the reference.

>>> import nbformat.v4 as v4
>>> answer = v4.new_code_cell("def f(x):\\n    return 2 * x\\nk = 3",
...                           metadata={"nbgrader": {"solution": True, "grade_id": "answer-f"}})
>>> sorted(answer_names(v4.new_notebook(cells=[answer])))
['f', 'k']
"""

import ast
import builtins
import contextlib
import io
import warnings

from ..course.cells import role
from ..sandbox import wire
from ..sandbox.student_process import StudentDied


def _top_level(source_nb, kind):
    """The top-level statements of the notebook's code cells of this kind (cells that do not parse are skipped)."""
    for cell in source_nb.cells:
        if cell.cell_type != "code" or role(cell) != kind:
            continue
        try:
            yield from ast.parse(cell.source).body
        except SyntaxError:
            continue


def answer_names(source_nb):
    """Names the reference solution's answer cells define at top level: what tests may take from the student."""
    names = set()
    for node in _top_level(source_nb, "answer"):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def setup_imports(source_nb):
    """Modules the instructor's setup cells (locked code cells that are not tests) import, in order."""
    found = []
    for node in _top_level(source_nb, "locked"):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
    return list(dict.fromkeys(found))


def names_used(source):
    """Every name a cell's code mentions (none if it does not parse).

    >>> sorted(names_used("assert np.allclose(f(1), k)"))
    ['f', 'k', 'np']
    """
    try:
        return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    except SyntaxError:
        return set()


class StudentFailure(RuntimeError):
    """An error the student's function raised, carried back by name and message."""


def raise_like(text):
    """Re-raise the student's error as the same built-in exception type when it is one.

    >>> raise_like("ValueError: M is singular")
    Traceback (most recent call last):
    ...
    ValueError: M is singular
    """
    name, _, message = text.partition(": ")
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception) and kind not in (StopIteration,):
        try:
            error = kind(message)
        except Exception:  # noqa: BLE001 (exotic constructors)
            error = StudentFailure(text)
    else:
        error = StudentFailure(text)
    raise error


def symbols(namespace):
    """The sympy symbols a namespace holds (alone or in a list or tuple), by name: what wire.decode rebuilds."""
    import sympy as sp
    found = {}
    for value in namespace.values():
        for item in (value if isinstance(value, (list, tuple)) else [value]):
            if isinstance(item, sp.Symbol):
                found[item.name] = item
    return found


class Examiner:
    """Runs a source notebook's setup and test cells against one student's process (see the module's doc).

    ``problems`` collects what went wrong on the way (an answer that could
    not be read, a process that died), in words, for the judge's report.
    """

    def __init__(self, source_nb, process):
        self.process = process
        self.answers = answer_names(source_nb)   # what the tests may take from the student
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
        self.problems = []

    def take_answers(self, source):
        """Before a test cell: fetch from the student's process each answer the cell names."""
        found = symbols(self.namespace)
        for name in sorted(names_used(source) & self.answers):
            self.namespace.pop(name, None)
            try:
                reply = self.process.ask({"op": "get", "name": name})
            except StudentDied as died:
                self.problems.append(f"{name}: {died}")
                continue
            if reply.get("callable"):
                self.namespace[name] = self._stand_in(name, found)
            elif "ok" in reply:
                try:
                    self.namespace[name] = wire.decode(reply["ok"], found)
                except wire.WireError as error:
                    self.problems.append(f"{name}: {error}")
                if isinstance(self.namespace.get(name), wire.Unsendable):
                    self.problems.append(f"{name} is {self.namespace[name]!r}")

    def _stand_in(self, name, found):
        from lib import homework

        def call(*args, **kwargs):
            request = {"op": "call", "name": name, "args": wire.encode(list(args)), "kwargs": wire.encode(kwargs),
                       "without_lib": list(homework.switched_off())}
            try:
                reply = self.process.ask(request)
            except StudentDied as died:
                self.problems.append(f"{name}(...): {died}")
                raise RuntimeError(f"calling your {name}(...) failed: {died}") from None
            if "error" in reply:
                raise_like(str(reply["error"]))
            try:
                value = wire.decode(reply.get("ok"), found)
            except wire.WireError as error:
                raise TypeError(f"{name}(...) returned something the grader cannot read: {error}") from None
            if isinstance(value, wire.Unsendable):
                self.problems.append(f"{name}(...) returned {value!r}")
            return value
        call.__name__ = name
        return call

    def run(self, source, label):
        """Run instructor code in the tests' namespace; returns (its output, its error or '').

        Warnings never turn into output, so noise costs no points.
        """
        out = io.StringIO()
        error = ""
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(source, f"<{label}>", "exec"), self.namespace)  # noqa: S102 (the instructor's code)
            except Exception as failure:  # noqa: BLE001 (a failing test is an outcome, not a crash)
                error = f"{type(failure).__name__}: {failure}"
        return out.getvalue(), error

    def run_cell(self, cell):
        """One source cell: a test cell takes the answers it names first. Returns (output, error), or None
        for a cell that is neither a test nor a setup cell (the tests' side does not run it)."""
        kind = role(cell)
        if cell.cell_type != "code" or kind not in ("test", "locked"):
            return None
        if kind == "test":
            self.take_answers(cell.source)
        return self.run(cell.source, cell.metadata.get("nbgrader", {}).get("grade_id"))
