"""Grade a notebook without letting the student's code near the tests.

:class:`Judge` takes the place of nbgrader's ``Execute`` in ``nbgrader
autograde`` (nbgrader_config.py). For one notebook:

1. The student's cells (setup, answers, anything they added; not the test
   cells) run in a sandboxed process of their own (autograder/sandbox/student_process.py).
2. Here, in the grader's process, the instructor's setup cells and test cells
   (visible and hidden, taken from the source notebook in exercises/, never
   from the submission) run in a fresh namespace (autograder/grading/examiner.py,
   which the mutation check shares). Where a test names one of the student's
   answers, it gets the answer's plain value, or, for a function, a stand-in
   that calls the student's function in the sandbox with plain arguments and
   brings back its plain result (autograder/sandbox/wire.py).
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
import functools
import importlib.util
import json
import re
import time
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Unicode

from ..course.cells import grade_id, read_notebook, role
from ..sandbox.sandbox import available, mode
from ..sandbox.student_process import StudentDied, StudentProcess, prepare_spare
from .examiner import Examiner, setup_imports


@functools.lru_cache(maxsize=4)
def _course(root):
    from ..course.course import Course
    return Course(root)


# --- evidence: what in the student's cells looks like an attempt on the grader ----------
INTERNALS = "uses lib's internals (lib._..., _compiled_...)"
SUSPICIOUS = [
    (r"\bget_ipython\b|\binput_transformers\b|\bset_custom_exc\b|\brun_cell\b|\bexcepthook\b",
     "changes how IPython runs cells"),
    (r"\bimport\s+builtins\b|__builtins__|\bsys\.modules\b", "reaches into builtins or the module table"),
    (r"exercises|gradebook|autograded|\.git\b|hidden|BEGIN SOLUTION", "looks for the reference or the grades"),
    (r"\bctypes\b|\bos\.fork\b|\bsubprocess\b|\bos\.system\b|\bos\.kill\b", "starts processes or raw code"),
    (r"\bautograder\b", "reaches into the grader's own side of its process"),
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
    for path in Path(spec.origin).parent.rglob("*.py") if spec and spec.origin else []:
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


class Judge(Preprocessor):
    """nbgrader preprocessor: run the student's cells sandboxed and the tests here (see the module's doc).

    The folders (the source notebooks, autograded/) and the limits (a cell's
    time, the student's memory...) are the course's (autograder/course/course.py).
    """

    enabled = Bool(True, help="nbconvert runs only enabled preprocessors; a disabled judge would grade nothing")
    course_root = Unicode("", help="the course folder (holding nbgrader_config.py)").tag(config=True)
    start_ahead = Bool(False, help="when done, start the sandboxed process for the next submission "
                                   "(set by the grading worker, which grades one student after another)"
                       ).tag(config=True)

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        assignment, notebook, student = info.get("assignment"), info.get("notebook"), info.get("student")
        course = _course(str(Path(self.course_root).resolve()))
        source_nb = read_notebook(course.source_notebooks(assignment)[notebook])
        started = time.monotonic()
        student_cells = [(i, c.source) for i, c in enumerate(nb.cells)
                         if c.cell_type == "code" and role(c) != "test"]
        how = mode()  # fails closed: SandboxMissing unless unconfined grading was asked for
        report = {"student": student, "assignment": assignment, "notebook": notebook,
                  "sandbox": "ok" if how == "sandbox" else f"off, as asked (--no-sandbox): {available()}",
                  "evidence": [], "problems": []}
        report["evidence"] = [{"cell": i, "line": n, "text": t, "why": w} for i, n, t, w in evidence(
            [(i, s) for i, s in student_cells if role(nb.cells[i]) in ("answer", "free")])]
        preload = setup_imports(source_nb)
        process = StudentProcess(student_cells, course.limits.cell_s, str(course.root), preload, course.limits)
        try:
            try:
                results = process.start()
            except StudentDied as died:
                raise RuntimeError(f"the submission's cells could not be run: {died}") from None
            for index, result in results.items():
                nb.cells[index].outputs = self._outputs(result["stdout"], result["error"])
                nb.cells[index].execution_count = None
            for index, what in sorted(process.incidents.items()):
                label = grade_id(nb.cells[index]) or f"#{index}"
                report["problems"].append(f"cell {label}: {what}")
            self._run_tests(nb, source_nb, process, report)
        finally:
            process.stop()
            if self.start_ahead:
                prepare_spare(str(course.root), preload, course.limits)
        report["seconds"] = round(time.monotonic() - started, 3)
        path = course.work(assignment, student).judge_report(notebook)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=1))
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
        """The source's setup and test cells, on the student's answers (autograder/grading/examiner.py)."""
        examiner = Examiner(source_nb, process)
        by_id = {grade_id(c): i for i, c in enumerate(nb.cells)}
        for cell in source_nb.cells:
            ran = examiner.run_cell(cell)
            target = by_id.get(grade_id(cell))
            if ran is not None and target is not None:
                nb.cells[target].outputs = self._outputs(*ran)
                nb.cells[target].execution_count = None
        report["problems"] += examiner.problems
