"""Grade a notebook without letting the student's code near the tests.

:class:`Judge` takes the place of nbgrader's ``Execute`` in ``nbgrader
autograde`` (nbgrader_config.py). For one notebook:

1. The student's cells (setup, answers, anything they added; not the test
   cells) run in a sandboxed process of their own (autograder/sandbox.py).
2. Here, in the grader's process, the instructor's setup cells and test cells
   (visible and hidden, taken from the source notebook in exercises/, never
   from the submission) run in a fresh namespace. Where a test names one of
   the student's answers, it gets the answer's plain value, or, for a
   function, a stand-in that calls the student's function in the sandbox with
   plain arguments and brings back its plain result (autograder/wire.py).
3. The outputs go back into the notebook: the student's own output under
   their cells, the tests' output and teaching messages under the test cells,
   so nbgrader's SaveAutoGrades scores it as usual (an error = no points).
   Warnings never turn into stderr, so noise costs no points.

Nothing the student's code does (patching numpy or lib, objects whose ``==``
lies, IPython input transformers, custom exception handlers, a patched
``run_cell``, redefining the tests' helpers) reaches the tests: only values
cross. What looks like an attempt is listed as evidence in
``autograded/<student>/<assignment>/<notebook>.judge.json`` (see THREATS.md).
"""

import ast
import builtins
import contextlib
import functools
import importlib.util
import io
import json
import re
import time
import warnings
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Float, Unicode

from . import wire
from .sandbox import StudentDied, StudentProcess, available, mode, prepare_spare


def _kind(cell):
    """'test', 'answer', 'written', 'locked' or 'free' (a cell without nbgrader metadata)."""
    nbg = cell.metadata.get("nbgrader", {})
    if not nbg:
        return "free"
    if nbg.get("grade") and not nbg.get("solution"):
        return "test" if cell.cell_type == "code" else "locked"
    if nbg.get("solution"):
        return "answer" if cell.cell_type == "code" else "written"
    return "locked"


def _top_level(source_nb, kind):
    """The top-level statements of the notebook's code cells of this kind (cells that do not parse are skipped)."""
    for cell in source_nb.cells:
        if cell.cell_type != "code" or _kind(cell) != kind:
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
    try:
        return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    except SyntaxError:
        return set()


# --- evidence: what in the student's cells looks like an attempt on the grader ----------
INTERNALS = "uses lib's internals (lib._..., _compiled_...)"
SUSPICIOUS = [
    (r"\bget_ipython\b|\binput_transformers\b|\bset_custom_exc\b|\brun_cell\b|\bexcepthook\b",
     "changes how IPython runs cells"),
    (r"\bimport\s+builtins\b|__builtins__|\bsys\.modules\b", "reaches into builtins or the module table"),
    (r"exercises|gradebook|autograded|\.git\b|hidden|BEGIN SOLUTION", "looks for the reference or the grades"),
    (r"\bctypes\b|\bos\.fork\b|\bsubprocess\b|\bos\.system\b|\bos\.kill\b", "starts processes or raw code"),
    (r"\bgc\.get_referrers\b|\binspect\.stack\b|\bsys\._getframe\b", "inspects the caller"),
    (r"\blib(?:\.\w+)*\._\w|\b_compiled_\w*", INTERNALS),
    (r"__code__|__wrapped__|__closure__|__globals__|\bgetsource\b|\bgc\.get_objects\b",
     "reaches into functions' code or source (to copy lib's)"),
]
MODULES = {"np", "numpy", "sp", "sympy", "lib", "math", "builtins", "scipy"}


@functools.lru_cache(maxsize=1)
def lib_internals():
    """The private names lib defines (``_compiled_chain``, ``_CHAINS``, ``self._f``, ...): no business of an answer.

    >>> {"_compiled_chain", "_CHAINS"} <= lib_internals()
    True
    """
    spec = importlib.util.find_spec("lib")
    names = set()
    for path in Path(spec.origin).parent.glob("*.py") if spec and spec.origin else []:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return frozenset(n for n in names if n.startswith("_") and not n.endswith("__") and len(n) > 1)


def _names_internals(node, internal):
    """Whether an AST node names one of lib's private names (other than on ``self`` or ``cls``)."""
    if isinstance(node, ast.Attribute):
        return node.attr in internal and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] == "lib" and any(a.name in internal for a in node.names)
    return False


def evidence(cells):
    """(cell index, line number, line, why) for each suspicious line of the student's cells."""
    found = []
    internal = lib_internals()
    for index, source in cells:
        for number, line in enumerate(source.splitlines(), 1):
            for pattern, why in SUSPICIOUS:
                if re.search(pattern, line):
                    found.append((index, number, line.strip()[:160], why))
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Attribute):
                        root = target
                        while isinstance(root, ast.Attribute):
                            root = root.value
                        if isinstance(root, ast.Name) and root.id in MODULES:
                            line = source.splitlines()[node.lineno - 1].strip()[:160]
                            found.append((index, node.lineno, line, "replaces part of a library the tests use"))
            elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr" and node.args:
                if isinstance(node.args[0], ast.Name) and node.args[0].id in MODULES:
                    line = source.splitlines()[node.lineno - 1].strip()[:160]
                    found.append((index, node.lineno, line, "replaces part of a library the tests use"))
            elif isinstance(node, ast.FunctionDef) and node.name in {"__eq__", "__ne__", "__bool__", "__array__",
                                                                      "__array_ufunc__", "__float__"}:
                line = source.splitlines()[node.lineno - 1].strip()[:160]
                found.append((index, node.lineno, line, "defines how its objects compare or convert"))
            if _names_internals(node, internal):
                line = source.splitlines()[node.lineno - 1].strip()[:160]
                found.append((index, node.lineno, line, INTERNALS))
    return list(dict.fromkeys(found))


class StudentFailure(RuntimeError):
    """An error the student's function raised, carried back by name and message."""


def _raise_like(text):
    """Re-raise the student's error as the same built-in exception type when it is one."""
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


class Judge(Preprocessor):
    """nbgrader preprocessor: run the student's cells sandboxed and the tests here (see the module's doc)."""

    enabled = Bool(True, help="nbconvert runs only enabled preprocessors; a disabled judge would grade nothing")
    course_root = Unicode("", help="the course folder (exercises/ is read from it)").tag(config=True)
    timeout = Float(60, help="seconds one cell, or one call of a student's function, may run").tag(config=True)
    start_ahead = Bool(False, help="when done, start the sandboxed process for the next submission "
                                   "(set by the grading worker, which grades one student after another)"
                       ).tag(config=True)

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        assignment, notebook, student = info.get("assignment"), info.get("notebook"), info.get("student")
        root = Path(self.course_root)
        source_nb = nbformat.read(str(root / "exercises" / assignment / f"{notebook}.ipynb"), as_version=4)
        started = time.monotonic()
        student_cells = [(i, c.source) for i, c in enumerate(nb.cells)
                         if c.cell_type == "code" and _kind(c) != "test"]
        how = mode()  # fails closed: SandboxMissing unless unconfined grading was asked for
        report = {"student": student, "assignment": assignment, "notebook": notebook,
                  "sandbox": "ok" if how == "sandbox" else f"off, as asked (--no-sandbox): {available()}",
                  "evidence": [], "problems": []}
        report["evidence"] = [{"cell": i, "line": n, "text": t, "why": w} for i, n, t, w in evidence(
            [(i, s) for i, s in student_cells if _kind(nb.cells[i]) in ("answer", "free")])]
        preload = setup_imports(source_nb)
        process = StudentProcess(student_cells, self.timeout, str(root), preload)
        try:
            try:
                results = process.start()
            except StudentDied as died:
                raise RuntimeError(f"the submission's cells could not be run: {died}") from None
            for index, result in results.items():
                nb.cells[index].outputs = self._outputs(result["stdout"], result["error"])
                nb.cells[index].execution_count = None
            for index, what in sorted(process.incidents.items()):
                label = nb.cells[index].metadata.get("nbgrader", {}).get("grade_id") or f"#{index}"
                report["problems"].append(f"cell {label}: {what}")
            self._run_tests(nb, source_nb, process, report)
        finally:
            process.stop()
            if self.start_ahead:
                prepare_spare(str(root), preload)
        report["seconds"] = round(time.monotonic() - started, 3)
        folder = root / "autograded" / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{notebook}.judge.json").write_text(json.dumps(report, indent=1))
        return nb, resources

    @staticmethod
    def _outputs(stdout, error, ename=None):
        outputs = []
        if stdout:
            outputs.append(new_output("stream", name="stdout", text=stdout))
        if error:
            name, _, message = error.partition(": ")
            name = ename or name or "Error"
            outputs.append(new_output("error", ename=name, evalue=message, traceback=[f"{name}: {message}"]))
        return outputs

    def _run_tests(self, nb, source_nb, process, report):
        students = answer_names(source_nb)
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)}
        from lib import homework

        for cell in source_nb.cells:
            kind = _kind(cell)
            if cell.cell_type != "code" or kind not in ("test", "locked"):
                continue
            symbols = self._symbols(namespace)
            if kind == "test":
                for name in sorted(names_used(cell.source) & students):
                    namespace.pop(name, None)
                    try:
                        reply = process.ask({"op": "get", "name": name})
                    except StudentDied as died:
                        report["problems"].append(f"{name}: {died}")
                        continue
                    if reply.get("callable"):
                        namespace[name] = self._stand_in(name, process, symbols, homework, report)
                    elif "ok" in reply:
                        try:
                            namespace[name] = wire.decode(reply["ok"], symbols)
                        except wire.WireError as error:
                            report["problems"].append(f"{name}: {error}")
                        if isinstance(namespace.get(name), wire.Unsendable):
                            report["problems"].append(f"{name} is {namespace[name]!r}")
            stdout, error = self._exec(cell.source, namespace, cell.metadata["nbgrader"]["grade_id"])
            target = by_id.get(cell.metadata["nbgrader"]["grade_id"])
            if target is not None:
                nb.cells[target].outputs = self._outputs(stdout, error)
                nb.cells[target].execution_count = None

    @staticmethod
    def _symbols(namespace):
        import sympy as sp
        found = {}
        for value in namespace.values():
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(item, sp.Symbol):
                    found[item.name] = item
        return found

    def _stand_in(self, name, process, symbols, homework, report):
        def call(*args, **kwargs):
            request = {"op": "call", "name": name, "args": wire.encode(list(args)), "kwargs": wire.encode(kwargs),
                       "without_lib": list(homework.switched_off())}
            try:
                reply = process.ask(request)
            except StudentDied as died:
                report["problems"].append(f"{name}(...): {died}")
                raise RuntimeError(f"calling your {name}(...) failed: {died}") from None
            if "error" in reply:
                _raise_like(str(reply["error"]))
            try:
                value = wire.decode(reply.get("ok"), symbols)
            except wire.WireError as error:
                raise TypeError(f"{name}(...) returned something the grader cannot read: {error}") from None
            if isinstance(value, wire.Unsendable):
                report["problems"].append(f"{name}(...) returned {value!r}")
            return value
        call.__name__ = name
        return call

    @staticmethod
    def _exec(source, namespace, label):
        out = io.StringIO()
        error = ""
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(source, f"<{label}>", "exec"), namespace)  # noqa: S102 (the instructor's test code)
            except Exception as failure:  # noqa: BLE001 (a failing test is an outcome, not a crash)
                error = f"{type(failure).__name__}: {failure}"
        return out.getvalue(), error
