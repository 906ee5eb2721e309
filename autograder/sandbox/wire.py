"""The grader's wire format: plain data across every boundary between its processes.

Every message between the judge and a student's process (and between the
grader and its grading workers) is one line of JSON holding one object:
:func:`pack` writes it, :func:`unpack` reads it back and says clearly what is
wrong with a line that is truncated, garbled, not an object, or larger than
:data:`MAX_BYTES`, raising :class:`WireError` (never a traceback from deep in
a parser). The student's side is not trusted: its messages are only data.

Values inside the messages (an answer, the arguments and result of a call)
are JSON made of numbers, strings, lists and tagged objects; :func:`decode`
rebuilds numpy arrays and sympy expressions from it without ever evaluating
text. Whatever a student's code returns (an object whose ``==`` always says
True, an ndarray subclass that lies about its values, a patched
``np.isclose``) arrives at the judge as its plain value, and the judge's own,
untouched numpy and sympy compare it.

A sympy expression travels as its tree: ``["Add", [...args]]`` with leaves
``["Symbol", name]``, ``["Integer", "3"]``, ``["Rational", "1", "2"]``,
``["Float", "0.5"]``. Only the classes in :data:`SYMPY_NODES` are rebuilt.

>>> unpack(pack({"op": "get", "name": "M"}))
{'op': 'get', 'name': 'M'}
>>> decode(encode((1, 2.5, "q", [True, None])))
(1, 2.5, 'q', [True, None])
"""

import json
import math

import numpy as np
import sympy as sp

from .limits import MESSAGE_MB

MAX_DEPTH = 64
MAX_BYTES = MESSAGE_MB * 1024 * 1024  # one message

# sympy classes rebuilt by name (functions, constants, operators); nothing else is.
SYMPY_NODES = {name: getattr(sp, name) for name in (
    "Add", "Mul", "Pow", "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "exp", "log", "sqrt", "Abs", "sign", "Min", "Max", "Heaviside",
    "Eq", "Equality", "Unequality", "StrictLessThan", "LessThan", "StrictGreaterThan", "GreaterThan",
    "Derivative", "Tuple", "Piecewise", "re", "im", "conjugate", "floor", "ceiling")}
SYMPY_NODES["ExprCondPair"] = sp.functions.elementary.piecewise.ExprCondPair   # a Piecewise's (expression, condition)
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
        kind = plain.dtype.kind if plain.dtype.kind in "biufc" else "object"
        # plain numbers all at once (a long double would come out of tolist() as a numpy scalar)
        if kind in "biu" or (kind == "f" and plain.dtype.itemsize <= 8 and np.isfinite(plain).all()):
            if depth + plain.ndim < MAX_DEPTH:
                return {"__ndarray__": plain.tolist(), "dtype": kind, "shape": list(plain.shape)}
        return {"__ndarray__": encode(plain.tolist(), depth + 1), "dtype": kind, "shape": list(plain.shape)}
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
        raise WireError(f"not plain data: expected a string, got {type(x).__name__}")
    return x


def _list(x, what):
    if not isinstance(x, list):
        raise WireError(f"not plain data: {what} must be a list, got {type(x).__name__}")
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


def decode(data, symbols=None):
    """Rebuild plain values from :func:`encode`'s form; ``symbols`` maps names to the judge's sympy symbols.

    Anything not of that form raises :class:`WireError` saying what, whatever it is.

    >>> import sympy as sp
    >>> decode(encode(sp.Rational(1, 2) * sp.Symbol("m")))
    m/2
    >>> decode({"__complex__": [1.0]})
    Traceback (most recent call last):
    ...
    autograder.sandbox.wire.WireError: not plain data: a complex number needs two parts, got 1
    """
    try:
        return _decode(data, symbols or {}, 0)
    except WireError:
        raise
    except RecursionError:
        raise WireError("not plain data: nested too deeply") from None
    except Exception as error:  # noqa: BLE001 (whatever a malformed value trips in numpy or sympy)
        raise WireError(f"not plain data: {type(error).__name__}: {error}"[:300]) from None


def _numbers(items, dtype, depth):
    """``items`` as an array of ``dtype`` when they are nested lists of numbers only (parsed JSON), no deeper
    than element by element decoding allows, else None.

    >>> _numbers([[1, 2.5], [3, 4]], np.float64, 0).tolist(), _numbers(["1"], np.float64, 0)
    ([[1.0, 2.5], [3.0, 4.0]], None)
    >>> _numbers([1, [2]], np.int64, 0), _numbers([[1.0]], np.float64, MAX_DEPTH - 1)
    (None, None)
    """
    if dtype is object or not isinstance(items, list):
        return None
    try:
        raw = np.array(items)
    except (ValueError, TypeError):
        return None
    if raw.dtype.kind not in "biuf" or depth + raw.ndim > MAX_DEPTH:
        return None
    return raw.astype(dtype)


def _decode(data, symbols, depth):
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    if data is None or isinstance(data, (bool, int, float)):
        return data
    if isinstance(data, list):
        return [_decode(v, symbols, depth + 1) for v in data]
    if not isinstance(data, dict) or not 1 <= len(data) <= (3 if "__ndarray__" in data else 2):
        raise WireError("malformed value")
    if "__float__" in data:
        return float(_str(data["__float__"]))
    if "__complex__" in data:
        parts = _list(data["__complex__"], "a complex number")
        if len(parts) != 2:
            raise WireError(f"not plain data: a complex number needs two parts, got {len(parts)}")
        re_, im_ = (_decode(v, symbols, depth + 1) for v in parts)
        return complex(re_, im_)
    if "__str__" in data:
        return _str(data["__str__"])
    if "__tuple__" in data:
        return tuple(_decode(v, symbols, depth + 1) for v in data["__tuple__"])
    if "__dict__" in data:
        out = {}
        for pair in _list(data["__dict__"], "a dict"):
            if not isinstance(pair, list) or len(pair) != 2:
                raise WireError("not plain data: a dict entry must be a [key, value] pair")
            key, value = (_decode(v, symbols, depth + 1) for v in pair)
            out[key if isinstance(key, (str, int, float, bool, tuple, type(None))) else repr(key)] = value
        return out
    if "__ndarray__" in data:
        dtype = {"b": bool, "i": np.int64, "u": np.uint64, "f": np.float64, "c": np.complex128,
                 "object": object}.get(data.get("dtype"))
        if dtype is None:
            raise WireError("unknown array type")
        array = _numbers(data["__ndarray__"], dtype, depth + 1)
        if array is None:   # not numbers alone: element by element, saying what is wrong
            array = np.array(_decode(data["__ndarray__"], symbols, depth + 1), dtype=dtype)
        return array.reshape(data["shape"]) if "shape" in data else array
    if "__sympy__" in data:
        return _tree(data["__sympy__"], symbols, depth + 1)
    if "__sympy_matrix__" in data:
        return sp.Matrix([[_tree(x, symbols, depth + 1) for x in row] for row in data["__sympy_matrix__"]])
    if "__unsendable__" in data:
        return Unsendable(_str(data["__unsendable__"]), _str(data.get("repr", "")))
    raise WireError("malformed value")


def loads(text, symbols=None):
    """A value from its JSON text (:func:`dumps`); :class:`WireError` when it is not one.

    >>> loads(dumps({"q": [0.5, float("inf")]}))
    {'q': [0.5, inf]}
    """
    return decode(_json(text, "value"), symbols)


# --- messages: one JSON object per line ------------------------------------------------
def pack(message):
    """One message as a line of JSON (bytes, ending in a newline); :class:`WireError` if it cannot be sent.

    >>> pack({"ready": True})
    b'{"ready": true}\\n'
    """
    if not isinstance(message, dict):
        raise WireError(f"a message is a dict, not {type(message).__name__}")
    try:
        data = (json.dumps(message, allow_nan=False) + "\n").encode()
    except (TypeError, ValueError, RecursionError) as error:
        raise WireError(f"the message cannot be sent as plain data: {error}") from None
    if len(data) > MAX_BYTES:
        raise WireError(f"the message is {_size(len(data))}, more than the {MESSAGE_MB} MB one may carry")
    return data


def unpack(line):
    """The message (a dict) in one line of :func:`pack`; :class:`WireError` saying what is wrong with it.

    >>> unpack(b'{"done": 3, "stdout": "')
    Traceback (most recent call last):
    ...
    autograder.sandbox.wire.WireError: the message is cut short (truncated after 23 bytes)
    """
    message = _json(line, "message")
    if not isinstance(message, dict):
        raise WireError(f"the message is a JSON {type(message).__name__}, not an object")
    return message


def _size(count):
    return f"{count / 2**20:.1f} MB" if count >= 2**20 else f"{count} bytes"


def _json(line, what):
    """Parse one line of JSON text or bytes, with errors a person can read."""
    if len(line) > MAX_BYTES:
        raise WireError(f"the {what} is {_size(len(line))}, more than the {MESSAGE_MB} MB one may carry")
    if isinstance(line, (bytes, bytearray)):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise WireError(f"the {what} is not UTF-8 text (byte {error.start})") from None
    if not isinstance(line, str):
        raise WireError(f"the {what} is a {type(line).__name__}, not text")
    text = line.rstrip("\n")
    if not text.strip():
        raise WireError(f"the {what} is empty")
    try:
        return json.loads(text)
    except RecursionError:
        raise WireError(f"the {what} is nested too deeply") from None
    except json.JSONDecodeError as error:
        if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
            raise WireError(f"the {what} is cut short (truncated after {len(text.encode())} bytes)") from None
        raise WireError(f"the {what} is not JSON (column {error.colno}: {error.msg})") from None
