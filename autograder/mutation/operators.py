"""The mutation operators: small changes of a solution, each a mistake students make.

Each operator is one function in :data:`OPERATORS`, registered with the
mistake it stands for; given a node of a solution's syntax tree, it yields
``(node replaced, replacement as code, node the mutant's id points at)``.
:func:`mutations` applies every operator to every line between the solution
markers of an answer cell, except messages, docstrings and assertions, and
:func:`variants` shows what one operator makes of a line of code (the
examples below). Operators are tried on a node in the order they are
registered here, so the first of two identical mutants keeps its name.

Some operators apply only where the value can change, which a run of the
reference with probes tells (autograder/mutation/probes.py): ``kinds`` says what a
value held, "matrix", "vector", "scalar" or "other"; a value never probed
may be anything, except for ``list`` and ``shape``, which need to know.
"""

import ast
import copy
from dataclasses import dataclass

from .syntax import (PRODUCTS, Where, dotted, func_name, needs_parens, neg, negatable, number, renamed, site_key,
                     splice)

SMALLEST_CONSTANT = 1e-6  # smaller constants are tolerances: doubling them is no mistake
SWAPPED = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
FLIPPED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
SIN_COS = {"sin": "cos", "cos": "sin"}
MIN_MAX = {"max": "min", "min": "max", "maximum": "minimum", "minimum": "maximum", "amax": "amin", "amin": "amax",
           "argmax": "argmin", "argmin": "argmax", "nanmax": "nanmin", "nanmin": "nanmax"}
DROPPABLE_CALLS = {"abs", "absolute", "sqrt", "Abs"}


@dataclass(frozen=True)
class Operator:
    name: str
    what: str        # the mistake, in words
    function: object


OPERATORS = {}   # name -> Operator, in the order they are tried


def operator(name, what):
    def register(function):
        OPERATORS[name] = Operator(name, what, function)
        return function
    return register



# --- the operators, in the order they are tried on a node ------------------------------------
@operator("add-sub", "+ for -, or - for +")
def add_sub(node, where):
    """For example:

    >>> variants("y = a + b", "add-sub")
    ['y = a - b']
    """
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        yield node, ast.unparse(ast.BinOp(node.left, SWAPPED[type(node.op)](), node.right)), node


@operator("mul-div", "* for /, or / for *")
def mul_div(node, where):
    """For example:

    >>> variants("y = a / b", "mul-div")
    ['y = a * b']
    """
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        yield node, ast.unparse(ast.BinOp(node.left, SWAPPED[type(node.op)](), node.right)), node


def _first_term(node):
    return not (isinstance(node.left, ast.BinOp) and isinstance(node.left.op, (ast.Add, ast.Sub)))


@operator("drop-term", "a term of a sum left out")
def drop_term(node, where):
    """For example:

    >>> variants("y = a - b + c", "drop-term")
    ['y = a - b', 'y = a + c', 'y = -b + c']
    """
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        yield node, ast.unparse(node.left), node.right
        if _first_term(node):
            yield node, ast.unparse(node.right if isinstance(node.op, ast.Add) else neg(node.right)), node.left


@operator("sign", "a sign flipped: a minus sign dropped, or the first term of a sum negated")
def sign(node, where):
    """For example:

    >>> variants("y = -a + b", "sign"), variants("y = a + b", "sign")
    (['y = a + b'], ['y = -a + b'])
    """
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and _first_term(node):
        if not (isinstance(node.left, ast.UnaryOp) and isinstance(node.left.op, ast.USub)):
            yield node, ast.unparse(ast.BinOp(neg(node.left), node.op, node.right)), node.left
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield node, ast.unparse(node.operand), node


@operator("drop-factor", "a constant factor left out (a missing 1/2 or factor 2)")
def drop_factor(node, where):
    """For example:

    >>> variants("T = 0.5 * m * v**2", "drop-factor"), variants("y = x / 2", "drop-factor")
    (['T = m * v ** 2'], ['y = x'])
    """
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        for const, other in ((node.left, node.right), (node.right, node.left)):
            if number(const) and const.value not in (0, 1) and not (
                    isinstance(node.op, ast.Div) and const is node.left):
                yield node, ast.unparse(other), const


def _callrenamed(node, table):
    if isinstance(node, ast.Call) and func_name(node) in table:
        yield node.func, ast.unparse(renamed(node.func, table[func_name(node)])), node


@operator("sin-cos", "sin for cos, or cos for sin")
def sin_cos(node, where):
    """For example:

    >>> variants("x = l * np.sin(q)", "sin-cos")
    ['x = l * np.cos(q)']
    """
    if isinstance(node, ast.Call) and len(node.args) == 1:
        yield from _callrenamed(node, SIN_COS)


@operator("min-max", "min for max, or max for min")
def min_max(node, where):
    """For example:

    >>> variants("y = np.maximum(0, x)", "min-max")
    ['y = np.minimum(0, x)']
    """
    yield from _callrenamed(node, MIN_MAX)


@operator("drop-call", "abs or sqrt left out")
def drop_call(node, where):
    """For example:

    >>> variants("r = np.sqrt(x**2 + y**2)", "drop-call")
    ['r = x ** 2 + y ** 2']
    """
    if isinstance(node, ast.Call) and func_name(node) in DROPPABLE_CALLS and len(node.args) == 1 \
            and not node.keywords:
        yield node, ast.unparse(node.args[0]), node


@operator("solve", "multiplying by a matrix instead of solving with it")
def solve(node, where):
    """For example:

    >>> variants("a = np.linalg.solve(M, f)", "solve")
    ['a = M @ f']
    """
    if isinstance(node, ast.Call):
        path = dotted(node.func)
        if path.endswith("linalg.solve") and len(node.args) == 2:
            yield node, ast.unparse(ast.BinOp(node.args[0], ast.MatMult(), node.args[1])), node
        if path.endswith("linalg.inv") and len(node.args) == 1:
            yield node, ast.unparse(node.args[0]), node


@operator("swap-product", "the factors of a matrix product swapped (B @ A for A @ B)")
def swap_product(node, where):
    """Not for two vectors, whose product does not depend on the order.

    >>> variants("y = A @ B", "swap-product"), variants("y = v @ w", "swap-product", {"v": "vector", "w": "vector"})
    (['y = B @ A'], [])
    """
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        if not where.flat(node.left, node.right):
            yield node, ast.unparse(ast.BinOp(node.right, ast.MatMult(), node.left)), node
    elif isinstance(node, ast.Call) and func_name(node) in PRODUCTS and len(node.args) >= 2 \
            and ast.unparse(node.args[0]) != ast.unparse(node.args[1]):
        if not (func_name(node) == "dot" and where.flat(*node.args[:2])):
            swapped = copy.deepcopy(node)
            swapped.args[0], swapped.args[1] = copy.deepcopy(node.args[1]), copy.deepcopy(node.args[0])
            yield node, ast.unparse(swapped), node


@operator("transpose", "a matrix transposed, or its transpose forgotten")
def transpose(node, where):
    """Only of what may be a matrix.

    >>> variants("y = J.T @ f", "transpose", {"J": "matrix", "f": "vector"})
    ['y = J @ f']
    """
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        for side, operand in (("left", node.left), ("right", node.right)):
            if isinstance(operand, (ast.Name, ast.Subscript, ast.Call, ast.Attribute)) and not (
                    isinstance(operand, ast.Attribute) and operand.attr == "T") and where.may_be(operand, "matrix"):
                transposed = ast.Attribute(operand, "T", ast.Load())
                new = ast.BinOp(transposed, ast.MatMult(), node.right) if side == "left" else \
                    ast.BinOp(node.left, ast.MatMult(), transposed)
                yield node, ast.unparse(new), operand
    elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
        if where.may_be(node.value, "matrix"):
            yield node, ast.unparse(node.value), node


def _power(node, step):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and number(node.right) \
            and isinstance(node.right.value, int):
        yield node, ast.unparse(ast.BinOp(node.left, ast.Pow(), ast.Constant(node.right.value + step))), node.right


@operator("power-1", "a power one too low (x for x**2)")
def power_down(node, where):
    """For example:

    >>> variants("U = k * x**2 / 2", "power-1")
    ['U = k * x ** 1 / 2']
    """
    yield from _power(node, -1)


@operator("power+1", "a power one too high")
def power_up(node, where):
    """For example:

    >>> variants("U = k * x**2 / 2", "power+1")
    ['U = k * x ** 3 / 2']
    """
    yield from _power(node, 1)


@operator("double", "a constant doubled")
def double(node, where):
    """Not tolerances (below 10⁻⁶), exponents, indices, keyword arguments or shapes.

    >>> variants("y = 9.81 * np.zeros(3)[0] ** 2 + solve(x, tol=0.5) + 1e-9", "double")
    ['y = 19.62 * np.zeros(3)[0] ** 2 + solve(x, tol=0.5) + 1e-09']
    """
    if number(node) and abs(node.value) >= SMALLEST_CONSTANT and node.value != 0:
        parent = where.parents.get(node)
        if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow) and parent.right is node) \
                and not where.in_keyword_or_shape(node) and not where.in_index(node):
            yield node, repr(2 * node.value), node


@operator("compare", "a comparison flipped (< for >)")
def compare(node, where):
    """For example:

    >>> variants("touching = phi <= 0", "compare")
    ['touching = phi >= 0']
    """
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in FLIPPED:
                flipped = copy.deepcopy(node)
                flipped.ops[i] = FLIPPED[type(op)]()
                yield node, ast.unparse(flipped), node


@operator("swap-index", "the indices of an entry swapped (M[j, i] for M[i, j])")
def swap_index(node, where):
    """For example:

    >>> variants("c = M[0, 1]", "swap-index")
    ['c = M[1, 0]']
    """
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) >= 2:
        reverse = copy.deepcopy(node)
        reverse.slice.elts = list(reversed(reverse.slice.elts))
        if ast.unparse(reverse) != ast.unparse(node):
            yield node, ast.unparse(reverse), node


@operator("rows-cols", "rows for columns (q[0] for q[:, 0])")
def rows_cols(node, where):
    """For example:

    >>> variants("x = Y[:, 0]", "rows-cols"), variants("x = Y[0, :]", "rows-cols")
    (['x = Y[0]'], ['x = Y[:, 0]'])
    """
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2):
        return
    first, second = node.slice.elts
    full = [isinstance(e, ast.Slice) and e.lower is e.upper is e.step is None for e in (first, second)]
    if full[0] and not full[1] and not isinstance(second, ast.Slice):
        yield node, ast.unparse(ast.Subscript(node.value, second, node.ctx)), node
    if full[1] and not full[0] and not isinstance(first, ast.Slice):
        yield node, ast.unparse(ast.Subscript(node.value, ast.Tuple([ast.Slice(), first], ast.Load()), node.ctx)), node


@operator("other-index", "the neighbouring index (q[1] for q[0])")
def other_index(node, where):
    """For example:

    >>> variants("x = q[0] + Y[2:, 1]", "other-index")
    ['x = q[1] + Y[2:, 1]', 'x = q[0] + Y[1:, 1]', 'x = q[0] + Y[2:, 0]']
    """
    if isinstance(node, ast.Subscript):
        for item in node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]:
            if isinstance(item, ast.Slice):
                item = item.lower
            if number(item) and isinstance(item.value, int) and item.value >= 0:
                yield item, repr(item.value - 1 if item.value > 0 else item.value + 1), item


def _returned(node):
    if not isinstance(node, ast.Return) or node.value is None:
        return []
    value = node.value
    return value.elts if isinstance(value, (ast.Tuple, ast.List)) else \
        value.values if isinstance(value, ast.Dict) else [value]


@operator("list", "a list returned where the answer is a numpy array")
def as_list(node, where):
    """Only where the reference returned an array.

    >>> variants("def f(v): return 2 * v, 1", "list", {"2 * v": "vector", "1": "scalar"})
    ['def f(v):\\n    return (np.asarray(2 * v).tolist(), 1)']
    """
    for item in _returned(node):
        if (where.kinds(item) or set()) & {"vector", "matrix"}:
            yield item, f"np.asarray({ast.unparse(item)}).tolist()", item


@operator("shape", "a column (n, 1) returned where the answer has shape (n,)")
def as_column(node, where):
    """Only where the reference returned a vector.

    >>> variants("def f(v): return 2 * v", "shape", {"2 * v": "vector"})
    ['def f(v):\\n    return np.asarray(2 * v).reshape(-1, 1)']
    """
    for item in _returned(node):
        if "vector" in (where.kinds(item) or set()):
            yield item, f"np.asarray({ast.unparse(item)}).reshape(-1, 1)", item


def _numeric_call(node):
    """A call whose value a sign could change: numpy's, sympy's or math's functions, or float()."""
    if not isinstance(node, ast.Call):
        return False
    path = dotted(node.func)
    if path in ("float", "abs") or path.split(".")[0] in ("np", "numpy", "sp", "sympy", "math"):
        return func_name(node) not in ("zeros", "empty", "zeros_like", "asarray") or path.endswith("asarray")
    return False


@operator("negate", "the sign of a whole value flipped")
def negate(node, where):
    """Of values assigned, returned, or put in a dict, unless they cannot be numbers.

    >>> variants("F = {'n': k * x, 'name': 'spring'}", "negate", {"'spring'": "other"})
    ["F = {'n': -(k * x), 'name': 'spring'}"]
    """
    for value in negatable(node):
        if (isinstance(value, (ast.BinOp, ast.Name, ast.Subscript)) or _numeric_call(value)) and \
                where.may_be(value, "matrix", "vector", "scalar"):
            yield value, ast.unparse(neg(value)), value


# --- applying them ---------------------------------------------------------------------------
def mutations(tree, cell_id, solution, seen, only=None):
    """(node replaced, replacement, operator, node the id points at) for every mutation of the solution lines."""
    where = Where(tree, cell_id, seen)
    chosen = [OPERATORS[only]] if only else list(OPERATORS.values())
    for node in ast.walk(tree):
        if not hasattr(node, "lineno") or not {node.lineno, node.end_lineno} <= solution or where.excluded(node):
            continue
        for op in chosen:
            for target, text, anchor in op.function(node, where):
                yield target, text, op.name, anchor


def variants(source, name, kinds=None):
    """What operator ``name`` makes of ``source`` (every line taken as solution), one mutated source each.

    ``kinds`` tells what a value held when the reference ran, by its code
    (``{"M": "matrix"}``), as the probes would.
    """
    tree = ast.parse(source)
    seen = {site_key("example", node): {kind} for node in ast.walk(tree) if isinstance(node, ast.expr)
            for code, kind in (kinds or {}).items() if ast.get_source_segment(source, node) == code}
    parents = Where(tree, "example", seen).parents
    found = []
    for target, text, _, _ in mutations(tree, "example", set(range(1, len(source.splitlines()) + 1)), seen, name):
        mutated = splice(source, target, f"({text})" if needs_parens(target, text, parents) else text)
        found.append(ast.unparse(ast.parse(mutated)))
    return found
