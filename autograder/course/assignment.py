"""One homework's folder, ``exercises/<assignment>/``, read for checking its tests.

The folder holds everything about one assignment (exercises/README.md):

* ``<assignment>.ipynb``: the source notebook, with solutions and hidden tests;
* ``mistakes.toml``: its typical mistakes, each a whole answer cell written
  wrong, with the test cell that must catch it (:meth:`Assignment.mistakes`);
* ``mutants.toml``: the mutants of its solutions declared equivalent, with
  the reason (:meth:`Assignment.declared`; autograder/mutation/mutants.py).

An :class:`Assignment` reads the notebook's code cells as the judge sees
them (through autograder/course/cells.py): which run in the student's process,
which on the tests' side, what each binds and mentions, where a test cell's
hidden part is, and which lines of an answer are the solution.

>>> [sorted(names) for names in binds_and_mentions("x = f(y)\\ndef g(): pass")]
[['g', 'x'], ['f', 'g', 'x', 'y']]
"""

import ast
import tomllib
from pathlib import Path

from .cells import grade_id, read_notebook, role
from .course import CourseError
from .leaks import MARKERS

DECLARATIONS = "mutants.toml"
MISTAKES = "mistakes.toml"
MISTAKE_FIELDS = {"name": str, "cell": str, "fails": str, "what": str, "source": str,   # required
                  "message": str, "visible": bool}                                       # optional


def binds_and_mentions(source):
    """(names a cell binds at top level, every name it mentions); two empty sets if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), set()
    binds = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            binds.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            binds.update((a.asname or a.name).split(".")[0] for a in node.names)
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    binds.add(sub.id)
    mentions = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return binds, mentions | binds


def solution_lines(source):
    """1-based numbers of the lines between ``### BEGIN SOLUTION`` and ``### END SOLUTION``.

    >>> sorted(solution_lines("def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION"))
    [3]
    """
    inside, within = set(), False
    for number, line in enumerate(source.splitlines(), 1):
        if MARKERS[0] in line:
            within = True
        elif MARKERS[1] in line:
            within = False
        elif within:
            inside.add(number)
    return inside


def segments(source):
    """A test cell as [(where, code)]: the visible part, the hidden part, the visible rest.

    >>> segments("a()\\n### BEGIN HIDDEN TESTS\\nb()\\n### END HIDDEN TESTS")
    [('visible', 'a()'), ('hidden', 'b()')]
    """
    parts, where, lines = [], "visible", []
    for line in source.splitlines():
        if MARKERS[2] in line or MARKERS[3] in line:
            parts.append((where, "\n".join(lines)))
            where, lines = ("hidden" if MARKERS[2] in line else "visible"), []
        else:
            lines.append(line)
    parts.append((where, "\n".join(lines)))
    return [(w, code) for w, code in parts if code.strip()]


def without_markers(source):
    """The cell as a student hands it in: the solution markers' lines taken out."""
    return "\n".join(line for line in source.splitlines() if MARKERS[0] not in line and MARKERS[1] not in line)


class Cell:
    """A code cell of the source notebook, as the check runs it."""

    def __init__(self, index, nb_cell):
        self.index = index
        self.role = role(nb_cell)            # test, answer, locked (or free)
        self.id = grade_id(nb_cell) or f"cell-{index}"
        self.source = nb_cell.source
        self.binds, self.mentions = binds_and_mentions(self.source)
        self.solution = solution_lines(self.source) if self.role == "answer" else set()
        self.segments = segments(self.source) if self.role == "test" else []

    @property
    def student_side(self):  # the judge runs these in the student's process: all but the tests
        return self.role != "test"

    @property
    def test_side(self):     # ... and these, from the source, in the tests' namespace (autograder/grading/examiner.py)
        return self.role in ("test", "locked")


class Assignment:
    """One assignment's folder, from the path of its source notebook (see the module's doc)."""

    def __init__(self, path):
        self.path = Path(path)
        self.folder = self.path.parent
        self.name = self.path.stem
        self.nb = read_notebook(self.path)
        self.cells = [Cell(i, c) for i, c in enumerate(self.nb.cells) if c.cell_type == "code"]
        self.parts = {}   # answer cell -> the test cell after it, which grades it
        for cell in self.cells:
            if cell.role == "answer":
                after = [c for c in self.cells if c.role == "test" and c.index > cell.index]
                self.parts[cell.id] = after[0].id if after else ""

    def cell(self, cell_id):
        return next(c for c in self.cells if c.id == cell_id)

    def declarations_path(self):
        return self.folder / DECLARATIONS

    def _toml(self, path):
        try:
            return tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as error:
            raise CourseError(f"{path} is not valid TOML: {error}") from None

    def declared(self):
        """Mutant id -> why it is equivalent, from mutants.toml beside the notebook."""
        path = self.declarations_path()
        if not path.is_file():
            return {}
        table = self._toml(path).get("equivalent", {})
        bad = [k for k, v in table.items() if not isinstance(v, str) or not v.strip()]
        if not isinstance(table, dict) or bad:
            raise CourseError(f"{path}: [equivalent] must map each mutant id to a one-line reason; see {bad[:3]}")
        return dict(table)

    def mistakes(self):
        """The typical mistakes of mistakes.toml beside the notebook: a list of dicts (exercises/README.md).

        Each names an answer cell of this notebook (``cell``) and the test cell
        that must catch it (``fails``); anything else is a clear error.
        """
        path = self.folder / MISTAKES
        if not path.is_file():
            return []
        found = self._toml(path).get("mistake", [])
        tests = {c.id for c in self.cells if c.role == "test"}
        for k, entry in enumerate(found, 1):
            where = f"{path}, mistake {k} ({entry.get('name', 'no name')})"
            missing = [f for f in ("name", "cell", "fails", "what", "source") if f not in entry]
            wrong = [f for f, v in entry.items() if not isinstance(v, MISTAKE_FIELDS.get(f, ()))]
            if missing or wrong:
                raise CourseError(f"{where}: missing {missing or 'nothing'}, unknown or mistyped {wrong or 'nothing'}")
            if entry["cell"] not in self.parts or entry["fails"] not in tests:
                raise CourseError(f"{where}: {entry['cell']!r} is no answer cell or {entry['fails']!r} "
                                  f"no test cell of {self.path.name}")
        return found
