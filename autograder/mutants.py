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

How a mutant is run, fast enough for a thousand of them:

* the cells run as the judge runs them (autograder/judge.py): the student's
  cells in one namespace, the source's setup and test cells in another, the
  tests taking only plain values from the answers (autograder/wire.py) and
  calling the answer's functions with lib's ready-made versions switched off
  (a :class:`lib.homework.LibSwitch` taken before any answer cell runs, as the
  student's process of grading takes it); but in one process, **without the
  grading sandbox** (bubblewrap, autograder/sandbox.py), and with no
  ``--no-sandbox`` asked for: the code run is the instructor's own reference,
  changed by one operator, not a student's, so there is nothing to confine.
  Each forked child still gets grading's memory cap and dies with the command;
* the reference runs once, cell by cell; before each answer cell the process
  forks, one child per mutant of that cell, so a child runs only the changed
  cell and whatever can see what it defines (later cells and the tests that
  use those names); the cells before it are already done;
* each test cell runs in three steps: the visible part, the hidden part, the
  rest; where it first fails says whether the visible tests catch the mutant.

The verdicts agree with grading by nbgrader (tests/test_homework.py grades a
sample of mutants both ways).

Operators and the mistakes they stand for are listed in :data:`OPERATORS`.
A mutant's id is ``<answer cell>:<line>:<column>:<operator>``, the line
counted in the source notebook's cell; ``python -m autograder mutants hwNN
--show all`` lists them all with the change each makes.
"""

import ast
import builtins
import contextlib
import copy
import importlib
import io
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
import tomllib
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .course import CourseError
from .leaks import MARKERS

OPERATORS = {
    "sign": "a sign flipped: a minus sign dropped, or the first term of a sum negated",
    "negate": "the sign of a whole value flipped",
    "add-sub": "+ for -, or - for +",
    "mul-div": "* for /, or / for *",
    "drop-term": "a term of a sum left out",
    "drop-factor": "a constant factor left out (a missing 1/2 or factor 2)",
    "double": "a constant doubled",
    "power-1": "a power one too low (x for x**2)",
    "power+1": "a power one too high",
    "transpose": "a matrix transposed, or its transpose forgotten",
    "swap-product": "the factors of a matrix product swapped (B @ A for A @ B)",
    "solve": "multiplying by a matrix instead of solving with it",
    "swap-index": "the indices of an entry swapped (M[j, i] for M[i, j])",
    "other-index": "the neighbouring index (q[1] for q[0])",
    "rows-cols": "rows for columns (q[0] for q[:, 0])",
    "sin-cos": "sin for cos, or cos for sin",
    "compare": "a comparison flipped (< for >)",
    "min-max": "min for max, or max for min",
    "drop-call": "abs or sqrt left out",
    "list": "a list returned where the answer is a numpy array",
    "shape": "a column (n, 1) returned where the answer has shape (n,)",
}
# transpose, swap-product, list, shape and negate are made only where the value can change, which a run of
# the reference with probes tells (_Probe): no transpose of a vector, no "list" of what is not an array
SWAPPED = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
FLIPPED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
SIN_COS = {"sin": "cos", "cos": "sin"}
MIN_MAX = {"max": "min", "min": "max", "maximum": "minimum", "minimum": "maximum", "amax": "amin", "amin": "amax",
           "argmax": "argmin", "argmin": "argmax", "nanmax": "nanmin", "nanmin": "nanmax"}
DROPPABLE_CALLS = {"abs", "absolute", "sqrt", "Abs"}
PRODUCTS = {"dot", "outer", "cross", "matmul"}
SHAPE_CALLS = {"zeros", "ones", "empty", "eye", "identity", "full", "reshape", "range", "arange", "linspace"}
SMALLEST_CONSTANT = 1e-6  # smaller constants are tolerances: doubling them is no mistake
DECLARATIONS = "mutants.toml"
TIMEOUT = 60.0  # seconds for one cell or call of a mutant (the grader gives each as much)


@dataclass
class Mutant:
    id: str            # answer cell:line:column:operator
    cell: str          # grade_id of the answer cell
    part: str          # grade_id of the part's test cell
    operator: str
    line: int          # in the source notebook's cell
    change: str        # "`a + b` -> `a - b`"
    source: str = field(repr=False)   # the whole cell as a student would hand it in (no solution markers)


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


# --- the notebook ------------------------------------------------------------------------
def _kind(cell):
    nbg = cell.metadata.get("nbgrader", {})
    if cell.cell_type != "code":
        return "text"
    if nbg.get("grade") and not nbg.get("solution"):
        return "test"
    if nbg.get("solution"):
        return "answer"
    return "locked"


def _names(source):
    """(names a cell binds at top level, every name it mentions)."""
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


def _between(source, begin, end):
    """1-based numbers of the lines strictly between the markers begin and end."""
    inside, within = set(), False
    for number, line in enumerate(source.splitlines(), 1):
        if begin in line:
            within = True
        elif end in line:
            within = False
        elif within:
            inside.add(number)
    return inside


def _segments(source):
    """A test cell as [(where, code)]: the visible part, the hidden part, the visible rest."""
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
    def __init__(self, index, nb_cell):
        self.index = index
        self.kind = _kind(nb_cell)
        self.id = nb_cell.metadata.get("nbgrader", {}).get("grade_id", f"cell-{index}")
        self.source = nb_cell.source
        self.binds, self.mentions = _names(self.source)
        self.solution = _between(self.source, MARKERS[0], MARKERS[1]) if self.kind == "answer" else set()
        self.segments = _segments(self.source) if self.kind == "test" else []

    @property
    def student_side(self):  # the judge runs these in the student's process
        return self.kind in ("answer", "locked")

    @property
    def test_side(self):     # ... and these, from the source, in its own namespace
        return self.kind in ("test", "locked")


class Homework:
    """One assignment's source notebook, read for the mutation check."""

    def __init__(self, path):
        import nbformat

        self.path = Path(path)
        self.name = self.path.stem
        nb = nbformat.read(str(self.path), as_version=4)
        self.nb = nb
        self.cells = [Cell(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
        self.parts = {}
        for cell in self.cells:
            if cell.kind == "answer":
                after = [c for c in self.cells if c.kind == "test" and c.index > cell.index]
                self.parts[cell.id] = after[0].id if after else ""

    def cell(self, cell_id):
        return next(c for c in self.cells if c.id == cell_id)

    def declarations_path(self):
        return self.path.parent / DECLARATIONS

    def declared(self):
        """Mutant id -> why it is equivalent, from mutants.toml beside the notebook."""
        path = self.declarations_path()
        if not path.is_file():
            return {}
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as error:
            raise CourseError(f"{path} is not valid TOML: {error}") from None
        table = data.get("equivalent", {})
        bad = [k for k, v in table.items() if not isinstance(v, str) or not v.strip()]
        if not isinstance(table, dict) or bad:
            raise CourseError(f"{path}: [equivalent] must map each mutant id to a one-line reason; see {bad[:3]}")
        return dict(table)


# --- mutants ------------------------------------------------------------------------------
def _offsets(source):
    """Character offset of the start of each line (1-based line numbers; byte columns converted)."""
    lines = source.splitlines(keepends=True)
    starts, total = [0, 0], 0
    for line in lines:
        total += len(line)
        starts.append(total)
    return lines, starts


def _char(lines, starts, lineno, byte_col):
    text = lines[lineno - 1].encode()[:byte_col].decode(errors="ignore") if lineno - 1 < len(lines) else ""
    return starts[lineno] + len(text)


def _splice(source, node, text):
    lines, starts = _offsets(source)
    begin = _char(lines, starts, node.lineno, node.col_offset)
    end = _char(lines, starts, node.end_lineno, node.end_col_offset)
    return source[:begin] + text + source[end:]


def _func_name(call):
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _number(node):
    return (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool))


def _site(node):
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _negatable(node):
    """The values 'negate' flips: assigned, returned (each item of a returned tuple), dict values."""
    if isinstance(node, ast.Dict):
        return [v for v in node.values if v is not None]
    if isinstance(node, ast.Return) and isinstance(node.value, (ast.Tuple, ast.List)):
        return list(node.value.elts)
    if isinstance(node, (ast.Assign, ast.Return)) and node.value is not None:
        return [node.value]
    return []


def _value_sites(tree, solution):
    """Values whose kind at run time decides some operators: returned and assigned values, operands of @..."""
    sites = []
    for node in ast.walk(tree):
        if not hasattr(node, "lineno") or node.lineno not in solution:
            continue
        sites += _negatable(node)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            sites += [v for v in node.value.values if v is not None]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            sites += [node.left, node.right]
        elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            sites.append(node.value)
        elif isinstance(node, ast.Call) and _func_name(node) in PRODUCTS and len(node.args) >= 2:
            sites += node.args[:2]
    return {_site(s) for s in sites if isinstance(getattr(s, "ctx", ast.Load()), ast.Load)}


class _Probe(ast.NodeTransformer):
    """Wrap each site in __rbd_probe__(site, value) to learn what the value is when the tests run."""

    def __init__(self, cell_id, sites):
        self.cell_id, self.sites = cell_id, sites

    def generic_visit(self, node):
        node = super().generic_visit(node)
        if isinstance(node, ast.expr) and hasattr(node, "lineno") and _site(node) in self.sites:
            key = ast.Constant(json.dumps([self.cell_id, list(_site(node))]))
            wrapped = ast.Call(ast.Name("__rbd_probe__", ast.Load()), [key, node], [])
            return ast.copy_location(wrapped, node)
        return node


def probe(key, value, seen):
    """Record what ``value`` is: 'matrix' (ndim >= 2, not 1x1), 'vector' (a 1-D array), 'scalar'
    (a number, a 0-d or 1x1 array, a sympy expression) or 'other' (a string, a dict, an object)."""
    import numbers

    import numpy as np
    import sympy as sp

    shape = getattr(value, "shape", None)
    if isinstance(value, np.ndarray):
        kind = ("vector" if value.ndim == 1 else "matrix" if value.ndim >= 2 and value.size > 1 else
                "scalar" if value.dtype.kind in "biufc" else "other")
    elif isinstance(value, sp.MatrixBase):
        kind = "matrix" if shape != (1, 1) else "scalar"
    elif isinstance(value, (numbers.Number, sp.Basic)) and not isinstance(value, bool):
        kind = "scalar"
    else:
        kind = "other"
    seen.setdefault(key, set()).add(kind)
    return value


def _kinds(seen, cell_id, node):
    return seen.get(json.dumps([cell_id, list(_site(node))]))  # None: never ran


def _may_be(seen, cell_id, node, *kinds):
    found = _kinds(seen, cell_id, node)
    return found is None or bool(found & set(kinds))


def _flat(seen, cell_id, a, b):
    """Whether both values were never more than vectors when the reference ran."""
    ka, kb = _kinds(seen, cell_id, a), _kinds(seen, cell_id, b)
    return ka is not None and kb is not None and (ka | kb) <= {"vector", "scalar", "other"}


def _parents(tree):
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _excluded(node, parents):
    """Messages, docstrings, assertions: what a student's mistake would not be in."""
    while node in parents:
        parent = parents[node]
        if isinstance(parent, (ast.Raise, ast.Assert, ast.JoinedStr)):
            return True
        if isinstance(parent, ast.Expr) and isinstance(node, ast.Constant) and isinstance(node.value, str):
            return True
        node = parent
    return False


def _in_keyword_or_shape(node, parents):
    while node in parents:
        parent = parents[node]
        if isinstance(parent, ast.keyword):
            return True
        if isinstance(parent, ast.Call) and _func_name(parent) in SHAPE_CALLS:
            return True
        if isinstance(parent, (ast.Subscript, ast.stmt)):
            return False
        node = parent
    return False


def _changes(cell, tree, seen):
    """(node replaced, its replacement as code, operator, node the id points at) for every mutation."""
    parents = _parents(tree)
    unparse = ast.unparse
    copy_ = copy.deepcopy

    def neg(node):
        return ast.UnaryOp(ast.USub(), copy_(node))

    for node in ast.walk(tree):
        if not hasattr(node, "lineno") or not {node.lineno, node.end_lineno} <= cell.solution:
            continue
        if _excluded(node, parents):
            continue
        if isinstance(node, ast.BinOp):
            left, right = node.left, node.right
            if type(node.op) in SWAPPED:
                yield node, unparse(ast.BinOp(copy_(left), SWAPPED[type(node.op)](), copy_(right))), \
                    "add-sub" if isinstance(node.op, (ast.Add, ast.Sub)) else "mul-div", node
            if isinstance(node.op, (ast.Add, ast.Sub)):
                yield node, unparse(left), "drop-term", right
                first = not (isinstance(left, ast.BinOp) and isinstance(left.op, (ast.Add, ast.Sub)))
                if first:
                    yield node, unparse(right if isinstance(node.op, ast.Add) else neg(right)), "drop-term", left
                    if not (isinstance(left, ast.UnaryOp) and isinstance(left.op, ast.USub)):
                        yield node, unparse(ast.BinOp(neg(left), node.op, copy_(right))), "sign", left
            if isinstance(node.op, (ast.Mult, ast.Div)):
                for const, other in ((left, right), (right, left)):
                    if _number(const) and const.value not in (0, 1) and not (
                            isinstance(node.op, ast.Div) and const is left):
                        yield node, unparse(other), "drop-factor", const
            if isinstance(node.op, ast.MatMult):
                if not _flat(seen, cell.id, left, right):  # v @ w of two vectors is w @ v
                    yield node, unparse(ast.BinOp(copy_(right), ast.MatMult(), copy_(left))), "swap-product", node
                for side, operand in (("left", left), ("right", right)):
                    if isinstance(operand, (ast.Name, ast.Subscript, ast.Call, ast.Attribute)) and not (
                            isinstance(operand, ast.Attribute) and operand.attr == "T") \
                            and _may_be(seen, cell.id, operand, "matrix"):
                        transposed = ast.Attribute(copy_(operand), "T", ast.Load())
                        new = ast.BinOp(transposed, ast.MatMult(), copy_(right)) if side == "left" else \
                            ast.BinOp(copy_(left), ast.MatMult(), transposed)
                        yield node, unparse(new), "transpose", operand
            if isinstance(node.op, ast.Pow) and _number(node.right) and isinstance(node.right.value, int):
                for step, name in ((-1, "power-1"), (1, "power+1")):
                    yield node, unparse(ast.BinOp(copy_(left), ast.Pow(), ast.Constant(node.right.value + step))), \
                        name, node.right
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            yield node, unparse(node.operand), "sign", node
        elif _number(node) and abs(node.value) >= SMALLEST_CONSTANT and node.value != 0:
            parent = parents.get(node)
            if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow) and parent.right is node) \
                    and not _in_keyword_or_shape(node, parents) and not _index_part(node, parents):
                yield node, repr(2 * node.value), "double", node
        elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            if _may_be(seen, cell.id, node.value, "matrix"):
                yield node, unparse(node.value), "transpose", node
        elif isinstance(node, ast.Call):
            name, dotted = _func_name(node), _dotted(node.func)
            if name in SIN_COS and len(node.args) == 1:
                yield node.func, unparse(_renamed(node.func, SIN_COS[name])), "sin-cos", node
            if name in MIN_MAX:
                yield node.func, unparse(_renamed(node.func, MIN_MAX[name])), "min-max", node
            if name in DROPPABLE_CALLS and len(node.args) == 1 and not node.keywords:
                yield node, unparse(node.args[0]), "drop-call", node
            if dotted.endswith("linalg.solve") and len(node.args) == 2:
                yield node, unparse(ast.BinOp(copy_(node.args[0]), ast.MatMult(), copy_(node.args[1]))), "solve", node
            if dotted.endswith("linalg.inv") and len(node.args) == 1:
                yield node, unparse(node.args[0]), "solve", node
            if name in PRODUCTS and len(node.args) >= 2 and unparse(node.args[0]) != unparse(node.args[1]):
                if not (name == "dot" and _flat(seen, cell.id, *node.args[:2])):
                    swapped = copy_(node)
                    swapped.args[0], swapped.args[1] = copy_(node.args[1]), copy_(node.args[0])
                    yield node, unparse(swapped), "swap-product", node
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in FLIPPED:
                    flipped = copy_(node)
                    flipped.ops[i] = FLIPPED[type(op)]()
                    yield node, unparse(flipped), "compare", node
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Tuple) and len(index.elts) >= 2:
                reverse = copy_(node)
                reverse.slice.elts = list(reversed(reverse.slice.elts))
                if unparse(reverse) != unparse(node):
                    yield node, unparse(reverse), "swap-index", node
                full = [isinstance(e, ast.Slice) and e.lower is e.upper is e.step is None for e in index.elts]
                if len(index.elts) == 2 and full[0] and not full[1] and not isinstance(index.elts[1], ast.Slice):
                    yield node, unparse(ast.Subscript(copy_(node.value), copy_(index.elts[1]), node.ctx)), \
                        "rows-cols", node
                if len(index.elts) == 2 and full[1] and not full[0] and not isinstance(index.elts[0], ast.Slice):
                    yield node, unparse(ast.Subscript(copy_(node.value), ast.Tuple(
                        [ast.Slice(), copy_(index.elts[0])], ast.Load()), node.ctx)), "rows-cols", node
            for const in _index_constants(index):
                k = const.value
                yield const, repr(k - 1 if k > 0 else k + 1), "other-index", const
        elif isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            items = (value.elts if isinstance(value, (ast.Tuple, ast.List)) else
                     value.values if isinstance(value, ast.Dict) else [value])
            for item in items:
                kinds = _kinds(seen, cell.id, item) or set()
                if kinds & {"vector", "matrix"}:
                    yield item, f"np.asarray({unparse(item)}).tolist()", "list", item
                if "vector" in kinds:
                    yield item, f"np.asarray({unparse(item)}).reshape(-1, 1)", "shape", item
        for value in _negatable(node):
            if (isinstance(value, (ast.BinOp, ast.Name, ast.Subscript)) or _numeric_call(value)) and \
                    _may_be(seen, cell.id, value, "matrix", "vector", "scalar"):
                yield value, unparse(neg(value)), "negate", value


def _numeric_call(node):
    """A call whose value a sign could change: numpy's, sympy's or math's functions, or float()."""
    if not isinstance(node, ast.Call):
        return False
    dotted = _dotted(node.func)
    if dotted in ("float", "abs") or dotted.split(".")[0] in ("np", "numpy", "sp", "sympy", "math"):
        return _func_name(node) not in ("zeros", "empty", "zeros_like", "asarray") or dotted.endswith("asarray")
    return False


def _renamed(func, name):
    new = copy.deepcopy(func)
    if isinstance(new, ast.Attribute):
        new.attr = name
    else:
        new.id = name
    return new


def _index_part(node, parents):
    """Whether a constant is part of an index (q[0], Y[0::2, 1], x[n - 1]): not mutated as a number."""
    while node in parents:
        parent = parents[node]
        if isinstance(parent, ast.Subscript):
            return node is parent.slice
        if isinstance(parent, ast.stmt):
            return False
        node = parent
    return False


def _index_constants(index):
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    found = []
    for item in items:
        if isinstance(item, ast.Slice):
            item = item.lower
        if _number(item) and isinstance(item.value, int) and item.value >= 0:
            found.append(item)
    return found


def generate(homework, seen=None):
    """Every mutant of the homework's solutions (one change each), in notebook order."""
    seen = seen if seen is not None else {}
    found = []
    for cell in homework.cells:
        if cell.kind != "answer" or not cell.solution:
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError as error:
            raise CourseError(f"{homework.name}: the reference of {cell.id} does not parse: {error}") from None
        original = ast.dump(tree)
        parents = _parents(tree)
        variants, counts = set(), {}
        for target, text, operator, anchor in _changes(cell, tree, seen):
            mutated = _splice(cell.source, target, f"({text})" if _needs_parens(target, text, parents) else text)
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
            found.append(Mutant(ident, cell.id, homework.parts[cell.id], operator, anchor.lineno, change,
                                without_markers(mutated)))
    return found


def _needs_parens(target, text, parents):
    """Whether the replacement of ``target`` must be parenthesized to keep its meaning where it stands."""
    if not isinstance(target, ast.expr) or (_number(target) and not text.startswith("-")):
        return False
    parent = parents.get(target)
    alone = (isinstance(parent, (ast.Return, ast.Assign, ast.AugAssign, ast.Expr, ast.keyword))
             or (isinstance(parent, ast.Call) and target in parent.args)
             or isinstance(parent, (ast.List, ast.Tuple, ast.Dict)) and not isinstance(parents.get(parent), ast.Subscript))
    return not alone or isinstance(target, ast.Lambda)


def sample(path, count):
    """``count`` mutant ids spread evenly over a notebook's mutants, for spot checks (nothing is run).

    The ids come from the mutants that need no run of the reference to be
    made; the declared equivalent ones come first, so a sample always holds
    survivors when there are any.
    """
    homework = Homework(path)
    declared = list(homework.declared())
    found = [m.id for m in generate(homework) if m.id not in declared]
    step = max(1, len(found) // max(1, count))
    return (declared[:1] + found[::step])[:count]


def _short(text, limit=90):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --- running cells as the judge does, in one process -------------------------------------------
class _Local:
    """The judge's view of the student's process (autograder/sandbox.py), answered in this process."""

    def __init__(self, namespace, timeout, switch):
        from types import SimpleNamespace

        self.shell = SimpleNamespace(user_ns=namespace)
        self.timeout = timeout
        self.switch = switch  # lib.homework.LibSwitch, taken before any answer cell ran

    def ask(self, request):
        from .student import _answer

        reply = _answer(self.shell, json.loads(json.dumps(request)), self.timeout, self.switch)
        try:
            return json.loads(json.dumps(reply, allow_nan=False))
        except ValueError as failure:
            return {"error": f"the result could not be sent: {failure}"}


class Runner:
    """Runs a homework's cells: the student's side in ``student``, the tests in ``tests``."""

    def __init__(self, homework, timeout=TIMEOUT):
        from .judge import Judge, answer_names, setup_imports

        self.homework, self.timeout = homework, timeout
        self.student = {"__name__": "__main__", "__builtins__": builtins}
        self.tests = {"__name__": "__main__", "__builtins__": builtins}
        from lib.homework import LibSwitch

        self.process = _Local(self.student, timeout, LibSwitch())  # as the student's process: before any answer
        self.judge = Judge()
        self.report = {"problems": []}
        self.answer_names = answer_names(homework.nb)  # what the tests take from the student
        # what every child would otherwise import again: the student's side, and the setup's modules
        import lib.homework  # noqa: F401

        from . import student, wire  # noqa: F401
        for module in setup_imports(homework.nb):
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
        """A locked cell, or a test cell segment by segment; returns None or (where it failed, message)."""
        if cell.kind == "locked":
            _, error = self.judge._exec(cell.source, self.tests, cell.id)
            return ("visible", error[:2000]) if error else None
        symbols = self.judge._symbols(self.tests)
        from lib import homework as lib_homework

        from . import wire

        for name in sorted(cell.mentions & self.answer_names):
            self.tests.pop(name, None)
            reply = self.process.ask({"op": "get", "name": name})
            if reply.get("callable"):
                self.tests[name] = self.judge._stand_in(name, self.process, symbols, lib_homework, self.report)
            elif "ok" in reply:
                try:
                    self.tests[name] = wire.decode(reply["ok"], symbols)
                except wire.WireError:
                    pass
        for where, code in cell.segments:
            if visible_only and where == "hidden":
                continue
            _, error = self.judge._exec(code, self.tests, cell.id)
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


def _plans(homework, mutant_cell, binds):
    """(student cells after the changed one, test-side cells) that a change of ``mutant_cell`` can reach."""
    student = [c for c in homework.cells if c.student_side and c.index > mutant_cell.index]
    tests = [c for c in homework.cells if c.test_side]
    needed = set()
    while True:
        first = _plan(student, mutant_cell.index + 1, binds, needed)
        changed = set(binds).union(*(c.binds for c in first))
        second = _plan(tests, mutant_cell.index, changed)
        wanted = set().union(*(c.mentions for c in second if c.kind == "test"))  # answers the tests fetch
        if wanted <= needed:
            return first, second
        needed |= wanted


def _run_mutant(runner, mutant_cell, source, complete=False):
    """In a forked child: the changed cell and what depends on it, then the tests that can see it.

    Unless ``complete``, it stops at the first failure of a visible test, which
    settles the verdict; after a hidden failure only visible parts still run.
    """
    verdict = Verdict()
    error = runner.run_student(mutant_cell, source)
    if error:
        verdict.errors[mutant_cell.id] = error
    student, tests = _plans(runner.homework, mutant_cell, mutant_cell.binds | _names(source)[0])
    for cell in student:
        error = runner.run_student(cell)
        if error:
            verdict.errors[cell.id] = error
    for cell in tests:
        failure = runner.run_test(cell, visible_only=not complete and bool(verdict.failed))
        if failure and cell.kind == "test":
            verdict.failed[cell.id] = list(failure)
            if failure[0] == "visible" and not complete:
                break
    return verdict


# --- the check: fork per mutant -------------------------------------------------------------
def _limit_child(memory_mb=4096):
    from .sandbox import die_with_parent

    die_with_parent()
    cap = memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ValueError, OSError):
        pass
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class _Pool:
    """At most ``jobs`` forked children at once; each writes its verdict to a file and exits."""

    def __init__(self, jobs, timeout, folder):
        self.jobs, self.timeout, self.folder = max(1, jobs), timeout, Path(folder)
        self.running = {}   # pid -> (key, started, file)
        self.results = {}   # key -> (outcome: "ran", "timeout" or "died"; what work() returned, or None)
        self.seconds = {}   # key -> how long its child ran
        self.count = 0

    def start(self, key, work):
        while len(self.running) >= self.jobs:
            self._reap(block=True)
        self.count += 1
        path = self.folder / f"{self.count}.json"
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child
            code = 0
            try:
                _limit_child()
                data = work()
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps(data))
                tmp.rename(path)
            except BaseException:  # noqa: BLE001 (whatever happened, the parent reads "died")
                code = 1
            finally:
                os._exit(code)
        self.running[pid] = (key, time.monotonic(), path)

    def _reap(self, block):
        while True:
            for pid, (key, started, path) in list(self.running.items()):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done == 0 and time.monotonic() - started > self.timeout:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    self._finish(pid, key, path, "timeout")
                elif done:
                    self._finish(pid, key, path, "ran" if path.is_file() else "died")
            if not block or len(self.running) < self.jobs:
                return
            time.sleep(0.005)

    def _finish(self, pid, key, path, outcome):
        self.seconds[key] = round(time.monotonic() - self.running.pop(pid)[1], 3)
        if outcome == "ran":
            self.results[key] = (outcome, json.loads(path.read_text()))
            path.unlink()
        else:
            self.results[key] = (outcome, None)

    def wait(self):
        while self.running:
            self._reap(block=False)
            time.sleep(0.005)


def _env_for_forks():
    # one thread per numerical library: forked children share nothing, and 2 cores are all we may have
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    os.environ.setdefault("MPLBACKEND", "Agg")


def _observe(homework, timeout):
    """Run the reference once with its value sites wrapped in probes; returns what each site held."""
    seen = {}
    runner = Runner(homework, timeout)
    runner.student["__rbd_probe__"] = lambda key, value: probe(key, value, seen)
    trees = {}
    for cell in homework.cells:
        if cell.kind == "answer":
            tree = ast.parse(cell.source)
            trees[cell.id] = ast.fix_missing_locations(_Probe(cell.id, _value_sites(tree, cell.solution)).visit(tree))
    problems = []
    for cell in homework.cells:
        if cell.student_side:
            code = compile(trees[cell.id], f"<{cell.id}>", "exec") if cell.id in trees else None
            error = runner.run_student(cell, code=code)
            if error:
                problems.append(f"{cell.id} raises {error}")
        if cell.test_side:
            failure = runner.run_test(cell)
            if failure:
                problems.append(f"the reference fails {cell.id}: {failure[1]}")
    return {"seen": {k: sorted(v) for k, v in seen.items()}, "problems": problems}


def _check_homework(homework, jobs, timeout, only, extra, complete=False):
    """The work of one homework, in a process of its own: returns a JSON-ready dict."""
    _env_for_forks()
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="rbd-mutants-")
    try:
        pool = _Pool(1, max(4 * timeout, 120.0), folder)
        pool.start("observe", lambda: _observe(homework, timeout))
        pool.wait()
        outcome, observed = pool.results["observe"]
        if outcome != "ran":
            raise CourseError(f"{homework.name}: the reference solution could not be run ({outcome})")
        seen = {k: set(v) for k, v in observed["seen"].items()}
        problems = observed["problems"]
        if problems:
            raise CourseError(f"{homework.name}: the reference solution does not pass its own tests:\n  "
                              + "\n  ".join(problems))
        mutants = generate(homework, seen)
        if only is not None:
            mutants = [m for m in mutants if m.id in only]
        mutants += [Mutant(m["id"], m["cell"], homework.parts[m["cell"]], "given", 0, m.get("what", ""),
                           m["source"]) for m in extra]
        by_cell = {}
        for m in mutants:
            by_cell.setdefault(m.cell, []).append(m)
        pool = _Pool(jobs, 2 * timeout + 10, folder)
        runner = Runner(homework, timeout)
        for cell in homework.cells:
            for m in by_cell.get(cell.id, []):
                pool.start(m.id, lambda m=m: asdict(_run_mutant(runner, cell, m.source, complete)))
            if cell.student_side:
                runner.run_student(cell)
            if cell.test_side:
                runner.run_test(cell)
        pool.wait()
        verdicts = {key: Verdict(**data) if outcome == "ran" else Verdict(outcome=outcome)
                    for key, (outcome, data) in pool.results.items()}
        for key, verdict in verdicts.items():
            verdict.seconds = pool.seconds[key]
        return {"assignment": homework.name, "seconds": round(time.monotonic() - started, 1),
                "mutants": [dict(asdict(m), verdict=asdict(verdicts[m.id])) for m in mutants]}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(path, jobs=None, timeout=TIMEOUT, only=None, extra=(), complete=False):
    """Mutate and test one source notebook; returns the JSON-ready result (see :func:`_check_homework`).

    The work happens in a forked process, so that nothing the reference or a
    mutant does to numpy, sympy or lib stays behind. ``only``: run just these
    mutant ids; ``extra``: more variants to run, dicts with ``id``, ``cell``
    (an answer cell's grade_id) and ``source`` (that cell's whole new source);
    ``complete``: run every test a mutant can reach, not only until one fails.
    """
    homework = Homework(path)
    jobs = jobs or os.cpu_count() or 1
    out = Path(tempfile.mkstemp(prefix="rbd-mutants-", suffix=".json")[1])
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                from .sandbox import die_with_parent
                die_with_parent()
                result = _check_homework(homework, jobs, timeout, only, list(extra), complete)
            except CourseError as error:
                result = {"error": str(error)}
            except BaseException as error:  # noqa: BLE001
                import traceback
                result = {"error": f"{type(error).__name__}: {error}\n{traceback.format_exc()[-2000:]}"}
                code = 1
            try:
                out.write_text(json.dumps(result))
            finally:
                os._exit(code)
        os.waitpid(pid, 0)
        text = out.read_text()
        if not text:
            raise CourseError(f"{homework.name}: the mutation check died")
        result = json.loads(text)
    finally:
        out.unlink(missing_ok=True)
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


def summarize(homework, result, partial=False):
    """Counts per answer cell, survivors and stale declarations (none when ``partial``: only some mutants ran)."""
    declared = homework.declared()
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


def check(course, assignments=(), jobs=None, timeout=TIMEOUT, show="survivors", json_out=None, only=None,
          complete=False, out=print):
    """The ``mutants`` command: returns True when no assignment has an unexplained survivor.

    ``only``: run just these mutant ids (then declarations that match none are
    not reported as stale); ``complete``: run every test each mutant reaches.
    """
    assignments = [course.check_assignment(a) for a in assignments] or course.assignments()
    ok, everything = True, []
    for assignment in assignments:
        for path in course.source_notebooks(assignment).values():
            homework = Homework(path)
            result = run(path, jobs=jobs, timeout=timeout, only=set(only) if only else None, complete=complete)
            summary = summarize(homework, result, partial=bool(only))
            print_summary(summary, show, out)
            ok &= summary.ok
            everything.append({"assignment": assignment, "notebook": path.name, "seconds": summary.seconds,
                               "parts": summary.rows, "stale": summary.stale, "mutants": summary.mutants})
    if json_out:
        Path(json_out).write_text(json.dumps(everything, indent=1))
    out("legend: visible = caught by the visible tests; graded = caught when graded (visible and hidden tests); "
        f"equivalent = declared in {DECLARATIONS}; survivors = caught by nothing and not declared")
    return ok
