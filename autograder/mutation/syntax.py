"""Reading and editing a solution's syntax tree, for the mutation operators (autograder/mutation/operators.py).

Where a node stands (:func:`site`, and the key its probed value is stored
under, autograder/mutation/probes.py), what surrounds it and what the probes saw it
hold (:class:`Where`), and how a replacement goes back into the source
(:func:`splice`, :func:`needs_parens`).

>>> import ast
>>> tree = ast.parse("y = a + b")
>>> splice("y = a + b", tree.body[0].value.right, "2 * b")
'y = a + 2 * b'
"""

import ast
import copy
import json

PRODUCTS = {"dot", "outer", "cross", "matmul"}
SHAPE_CALLS = {"zeros", "ones", "empty", "eye", "identity", "full", "reshape", "range", "arange", "linspace"}


def site(node):
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def site_key(cell_id, node):
    """How a probed value is named: its cell and its place in the cell's source."""
    return json.dumps([cell_id, list(site(node))])


def func_name(call):
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def number(node):
    return (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool))


def neg(node):
    return ast.UnaryOp(ast.USub(), copy.deepcopy(node))


def renamed(func, name):
    new = copy.deepcopy(func)
    if isinstance(new, ast.Attribute):
        new.attr = name
    else:
        new.id = name
    return new


def negatable(node):
    """The values 'negate' flips: assigned, returned (each item of a returned tuple), dict values."""
    if isinstance(node, ast.Dict):
        return [v for v in node.values if v is not None]
    if isinstance(node, ast.Return) and isinstance(node.value, (ast.Tuple, ast.List)):
        return list(node.value.elts)
    if isinstance(node, (ast.Assign, ast.Return)) and node.value is not None:
        return [node.value]
    return []


def value_sites(tree, solution):
    """Values whose kind at run time decides some operators: returned and assigned values, operands of @..."""
    sites = []
    for node in ast.walk(tree):
        if not hasattr(node, "lineno") or node.lineno not in solution:
            continue
        sites += negatable(node)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            sites += [v for v in node.value.values if v is not None]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            sites += [node.left, node.right]
        elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            sites.append(node.value)
        elif isinstance(node, ast.Call) and func_name(node) in PRODUCTS and len(node.args) >= 2:
            sites += node.args[:2]
    return {site(s) for s in sites if isinstance(getattr(s, "ctx", ast.Load()), ast.Load)}


class Where:
    """What an operator may ask about a node: its parents, and what the probes saw it hold."""

    def __init__(self, tree, cell_id, seen):
        self.parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        self.cell_id, self.seen = cell_id, seen

    def kinds(self, node):
        return self.seen.get(site_key(self.cell_id, node))  # None: never ran

    def may_be(self, node, *kinds):
        found = self.kinds(node)
        return found is None or bool(found & set(kinds))

    def flat(self, a, b):
        """Whether both values were never more than vectors when the reference ran."""
        ka, kb = self.kinds(a), self.kinds(b)
        return ka is not None and kb is not None and (ka | kb) <= {"vector", "scalar", "other"}

    def excluded(self, node):
        """Messages, docstrings, assertions: what a student's mistake would not be in."""
        while node in self.parents:
            parent = self.parents[node]
            if isinstance(parent, (ast.Raise, ast.Assert, ast.JoinedStr)):
                return True
            if isinstance(parent, ast.Expr) and isinstance(node, ast.Constant) and isinstance(node.value, str):
                return True
            node = parent
        return False

    def in_keyword_or_shape(self, node):
        while node in self.parents:
            parent = self.parents[node]
            if isinstance(parent, ast.keyword):
                return True
            if isinstance(parent, ast.Call) and func_name(parent) in SHAPE_CALLS:
                return True
            if isinstance(parent, (ast.Subscript, ast.stmt)):
                return False
            node = parent
        return False

    def in_index(self, node):
        """Whether a constant is part of an index (q[0], Y[0::2, 1], x[n - 1])."""
        while node in self.parents:
            parent = self.parents[node]
            if isinstance(parent, ast.Subscript):
                return node is parent.slice
            if isinstance(parent, ast.stmt):
                return False
            node = parent
        return False


def splice(source, node, text):
    """``source`` with the code of ``node`` replaced by ``text``."""
    lines = source.splitlines(keepends=True)
    starts, total = [0, 0], 0
    for line in lines:
        total += len(line)
        starts.append(total)

    def char(lineno, byte_col):   # ast counts columns in bytes of UTF-8
        text = lines[lineno - 1].encode()[:byte_col].decode(errors="ignore") if lineno - 1 < len(lines) else ""
        return starts[lineno] + len(text)
    return source[:char(node.lineno, node.col_offset)] + text + source[char(node.end_lineno, node.end_col_offset):]


def needs_parens(target, text, parents):
    """Whether the replacement of ``target`` must be parenthesized to keep its meaning where it stands."""
    if not isinstance(target, ast.expr) or (number(target) and not text.startswith("-")):
        return False
    parent = parents.get(target)
    alone = (isinstance(parent, (ast.Return, ast.Assign, ast.AugAssign, ast.Expr, ast.keyword))
             or (isinstance(parent, ast.Call) and target in parent.args)
             or isinstance(parent, (ast.List, ast.Tuple, ast.Dict))
             and not isinstance(parents.get(parent), ast.Subscript))
    return not alone or isinstance(target, ast.Lambda)
