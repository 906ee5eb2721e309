"""Plain data across the boundary between a student's process and the judge.

Everything the judge takes from a student's process is JSON made of numbers,
strings, lists and tagged objects; :func:`decode` rebuilds numpy arrays and
sympy expressions from it without ever evaluating text. Whatever a student's
code returns (an object whose ``==`` always says True, an ndarray subclass
that lies about its values, a patched ``np.isclose``) arrives at the judge as
its plain value, and the judge's own, untouched numpy and sympy compare it.

A sympy expression travels as its tree: ``["Add", [...args]]`` with leaves
``["Symbol", name]``, ``["Integer", "3"]``, ``["Rational", "1", "2"]``,
``["Float", "0.5"]``. Only the classes in :data:`SYMPY_NODES` are rebuilt.
"""

import json
import math

import numpy as np
import sympy as sp

MAX_DEPTH = 64
MAX_BYTES = 64 * 1024 * 1024  # one message

# sympy classes rebuilt by name (functions, constants, operators); nothing else is.
SYMPY_NODES = {name: getattr(sp, name) for name in (
    "Add", "Mul", "Pow", "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "exp", "log", "sqrt", "Abs", "sign", "Min", "Max", "Heaviside",
    "Eq", "Derivative", "Tuple", "Piecewise", "re", "im", "conjugate", "floor", "ceiling")}
SYMPY_CONSTANTS = {"Pi": sp.pi, "Exp1": sp.E, "ImaginaryUnit": sp.I, "Infinity": sp.oo,
                   "NegativeInfinity": -sp.oo, "NaN": sp.nan, "Zero": sp.S.Zero, "One": sp.S.One,
                   "NegativeOne": sp.S.NegativeOne, "Half": sp.S.Half, "BooleanTrue": sp.true,
                   "BooleanFalse": sp.false}


class WireError(ValueError):
    """A message that is not plain data of the agreed form."""


class Unsendable:
    """Stands in for a value that cannot cross the boundary (a class, a generator, a lib object...).

    Every comparison with it is False and arithmetic with it fails, so a test
    that uses it fails with a message naming what it was.
    """

    def __init__(self, kind, text=""):
        self.kind, self.text = kind, text

    def __repr__(self):
        return f"<{self.kind} that the grader cannot compare: {self.text[:80]}>"

    def __eq__(self, other):
        return False

    def __bool__(self):
        raise TypeError(f"{self!r} has no truth value here: return plain numbers, arrays, dicts or sympy expressions")

    __hash__ = object.__hash__


# --- encoding: runs in the student's process (and in the judge for arguments) ---
def _float(x):
    x = float.__float__(float(x))
    return x if math.isfinite(x) else {"__float__": repr(x)}


def _sympy_tree(expr, depth):
    if depth > MAX_DEPTH:
        raise WireError("expression nested too deeply")
    name = type(expr).__name__
    if isinstance(expr, sp.Symbol):
        return ["Symbol", str(expr.name)]
    if isinstance(expr, sp.Integer):
        return ["Integer", str(int(expr))]
    if isinstance(expr, sp.Rational):
        return ["Rational", str(expr.p), str(expr.q)]
    if isinstance(expr, sp.Float):
        return ["Float", str(expr)]
    if name in SYMPY_CONSTANTS:
        return [name]
    if isinstance(expr, sp.core.function.AppliedUndef):
        return ["Function", str(type(expr).__name__), [_sympy_tree(a, depth + 1) for a in expr.args]]
    if isinstance(expr, sp.Derivative):
        variables = [[_sympy_tree(v, depth + 1), int(n)] for v, n in expr.variable_count]
        return ["Derivative", _sympy_tree(expr.expr, depth + 1), variables]
    return [name, [_sympy_tree(a, depth + 1) for a in expr.args]]


def encode(value, depth=0):
    """A JSON-ready form of ``value``; what cannot be sent becomes an ``__unsendable__`` note."""
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    if value is None or isinstance(value, bool):
        return bool(value) if value is not None else None
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _float(value)
    if isinstance(value, (complex, np.complexfloating)):
        return {"__complex__": [_float(value.real), _float(value.imag)]}
    if isinstance(value, str):
        return {"__str__": str.__str__(value)}
    if isinstance(value, np.ndarray):
        plain = np.array(value, copy=True, subok=False)
        if plain.dtype.kind not in "biufc":
            return {"__ndarray__": encode(plain.tolist(), depth + 1), "dtype": "object"}
        return {"__ndarray__": encode(plain.tolist(), depth + 1), "dtype": plain.dtype.kind}
    if isinstance(value, (list, tuple)):
        items = [encode(v, depth + 1) for v in list(value)]
        return items if isinstance(value, list) else {"__tuple__": items}
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in dict.items(value)]}
    if isinstance(value, sp.MatrixBase):
        return {"__sympy_matrix__": [[_sympy_tree(sp.sympify(value[i, j]), depth + 1) for j in range(value.cols)]
                                     for i in range(value.rows)]}
    if isinstance(value, sp.Basic):
        return {"__sympy__": _sympy_tree(value, depth + 1)}
    try:
        text = repr(value)
    except Exception:  # a repr that raises is the student's problem, not the grader's
        text = "?"
    return {"__unsendable__": type(value).__name__, "repr": str(text)[:200]}


def dumps(value):
    return json.dumps(encode(value), allow_nan=False)


# --- decoding: runs in the judge ---------------------------------------------------
def _str(x):
    if not isinstance(x, str):
        raise WireError("expected a string")
    return x


def _tree(node, symbols, depth):
    if depth > MAX_DEPTH:
        raise WireError("expression nested too deeply")
    if not isinstance(node, list) or not node or not isinstance(node[0], str):
        raise WireError("malformed expression")
    head = node[0]
    if head == "Symbol":
        name = _str(node[1])
        return symbols.get(name) or sp.Symbol(name)
    if head == "Integer":
        return sp.Integer(int(_str(node[1])))
    if head == "Rational":
        return sp.Rational(int(_str(node[1])), int(_str(node[2])))
    if head == "Float":
        return sp.Float(float(_str(node[1])))
    if head in SYMPY_CONSTANTS:
        return SYMPY_CONSTANTS[head]
    if head == "Function":
        return sp.Function(_str(node[1]))(*[_tree(a, symbols, depth + 1) for a in node[2]])
    if head == "Derivative":
        variables = [(_tree(v, symbols, depth + 1), int(n)) for v, n in node[2]]
        return sp.Derivative(_tree(node[1], symbols, depth + 1), *variables)
    if head in SYMPY_NODES and len(node) == 2 and isinstance(node[1], list):
        return SYMPY_NODES[head](*[_tree(a, symbols, depth + 1) for a in node[1]])
    raise WireError(f"the grader does not rebuild sympy '{head}'")


def decode(data, symbols=None, depth=0):
    """Rebuild plain values from :func:`encode`'s form; ``symbols`` maps names to the judge's sympy symbols."""
    symbols = symbols or {}
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    if data is None or isinstance(data, (bool, int, float)):
        return data
    if isinstance(data, list):
        return [decode(v, symbols, depth + 1) for v in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise WireError("malformed value")
    if "__float__" in data:
        return float(_str(data["__float__"]))
    if "__complex__" in data:
        re_, im_ = (decode(v, symbols, depth + 1) for v in data["__complex__"])
        return complex(re_, im_)
    if "__str__" in data:
        return _str(data["__str__"])
    if "__tuple__" in data:
        return tuple(decode(v, symbols, depth + 1) for v in data["__tuple__"])
    if "__dict__" in data:
        out = {}
        for pair in data["__dict__"]:
            key, value = (decode(v, symbols, depth + 1) for v in pair)
            out[key if isinstance(key, (str, int, float, bool, tuple, type(None))) else repr(key)] = value
        return out
    if "__ndarray__" in data:
        dtype = {"b": bool, "i": np.int64, "u": np.uint64, "f": np.float64, "c": np.complex128,
                 "object": object}.get(data.get("dtype"))
        if dtype is None:
            raise WireError("unknown array type")
        return np.array(decode(data["__ndarray__"], symbols, depth + 1), dtype=dtype)
    if "__sympy__" in data:
        return _tree(data["__sympy__"], symbols, depth + 1)
    if "__sympy_matrix__" in data:
        return sp.Matrix([[_tree(x, symbols, depth + 1) for x in row] for row in data["__sympy_matrix__"]])
    if "__unsendable__" in data:
        return Unsendable(_str(data["__unsendable__"]), _str(data.get("repr", "")))
    raise WireError("malformed value")


def loads(text, symbols=None):
    if len(text) > MAX_BYTES:
        raise WireError(f"a message larger than {MAX_BYTES // 2**20} MB")
    try:
        return decode(json.loads(text), symbols)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError) as error:
        raise WireError(f"not plain data: {error}") from None
