"""The wire format between the grader's processes (autograder/sandbox/wire.py), on its own.

Every message kind the judge, the student's process and the grading workers
exchange goes through :func:`wire.pack` and back; every kind of value a test
may take from an answer is encoded and rebuilt. Whatever arrives truncated,
garbled, too large or of the wrong form is a :class:`wire.WireError` with a
sentence saying what, never a traceback from deep inside json, numpy or sympy
(the student's process is not trusted, so its messages may be anything).
"""

import doctest
import json
import os

import numpy as np
import pytest
import sympy as sp

from autograder.sandbox import limits, student_process, wire


def through_the_wire(value, symbols=None):
    """``value`` as the judge receives it: encoded, in a reply message, packed, unpacked, decoded."""
    message = wire.unpack(wire.pack({"ok": wire.encode(value)}))
    return wire.decode(message["ok"], symbols)


# --- values ------------------------------------------------------------------------------------
t, m, l = sp.symbols("t m l", positive=True)
q = sp.Function("q")(t)
PLAIN = {
    "None": None, "True": True, "False": False, "int": 7, "negative int": -3, "big int": 2**80,
    "float": 0.1, "negative zero": -0.0, "str": "M[0,1] = 1.25", "empty str": "", "unicode": "θ̈ = −g/l sin θ",
    "list": [1, 2.5, "x"], "nested": [[1, [2, [3]]], {"k": (4, 5)}], "tuple": (1, "two", 3.0),
    "empty containers": ([], (), {}), "dict": {"m1": 1.0, "l1": 2.0}, "int and tuple keys": {1: "a", (2, 3): "b"},
}


@pytest.mark.parametrize("name", list(PLAIN))
def test_plain_values_round_trip(name):
    value = PLAIN[name]
    back = through_the_wire(value)
    assert back == value and type(back) is type(value), (value, back)


def test_numpy_scalars_arrive_as_python_numbers():
    back = through_the_wire([np.int64(3), np.float32(0.5), np.bool_(True), np.complex128(1 - 2j)])
    assert back == [3, 0.5, True, 1 - 2j]
    assert [type(x) for x in back] == [int, float, bool, complex]


def test_floats_that_json_cannot_hold_round_trip():
    back = through_the_wire([float("inf"), -float("inf"), float("nan"), complex(float("inf"), 1)])
    assert back[0] == float("inf") and back[1] == -float("inf") and np.isnan(back[2])
    assert back[3].real == float("inf") and back[3].imag == 1


@pytest.mark.parametrize("array", [
    np.array([True, False]), np.arange(6, dtype=np.int32).reshape(2, 3), np.array([1, 2], dtype=np.uint8),
    np.array([[0.1, -2.5], [1e300, 5e-324]]), np.array([1 + 2j, -0.5j]), np.zeros((0, 3)),
    np.array([[1.0, np.inf], [np.nan, -np.inf]]), np.linspace(0.0, 1.0, 6, dtype=np.float32),
    np.array([1.5, 1e-300], dtype=np.longdouble), np.arange(2 * 3 * 4, dtype=float).reshape(2, 3, 4),
], ids=["bool", "int", "uint", "float", "complex", "empty", "non-finite", "float32", "long-double", "3-d"])
def test_arrays_round_trip_with_their_kind_and_shape(array):
    back = through_the_wire(array)
    assert isinstance(back, np.ndarray) and type(back) is np.ndarray
    assert back.shape == array.shape and back.dtype.kind == array.dtype.kind
    np.testing.assert_array_equal(back, array)


def test_an_array_subclass_arrives_as_a_plain_array_of_its_values():
    class Liar(np.ndarray):
        def __eq__(self, other):
            return np.ones(self.shape, dtype=bool)

    lying = np.array([1.0, 2.0]).view(Liar)
    back = through_the_wire(lying)
    assert type(back) is np.ndarray and list(back == np.array([5.0, 6.0])) == [False, False]


@pytest.mark.parametrize("expr", [
    m * l**2 / 3, sp.Rational(-7, 2) * t, sp.Float("0.25") + sp.pi, sp.sin(q) * sp.cos(2 * t) - sp.exp(-t),
    sp.sqrt(m / l), sp.atan2(l, m), sp.Abs(t - 1), sp.Derivative(q, t, 2), sp.Eq(q.diff(t), -q),
    sp.Piecewise((t, t < 1), (1, True)), sp.I * sp.E + sp.oo, sp.Max(t, l), sp.S.Half, sp.Integer(0),
], ids=lambda e: sp.srepr(e)[:40])
def test_sympy_expressions_round_trip_as_their_tree(expr):
    back = through_the_wire(expr, {s.name: s for s in (t, m, l)})
    assert back == expr, (expr, back)


def test_symbols_become_the_judges_own():
    """A symbol arrives as the judge's symbol of that name (with its assumptions), so the tests can simplify."""
    plain_m = sp.Symbol("m")
    back = through_the_wire(plain_m * 2, {"m": m})
    assert back == 2 * m and back.free_symbols == {m} and back.free_symbols.pop().is_positive


def test_sympy_matrices_round_trip():
    M = sp.Matrix([[m * l**2, 0], [sp.cos(q), sp.Rational(1, 3)]])
    back = through_the_wire(M, {"m": m, "l": l, "t": t})
    assert isinstance(back, sp.MatrixBase) and back.shape == (2, 2) and (back - M).is_zero_matrix


def test_text_is_never_evaluated():
    """A symbol's name or a function's name is only a name: nothing runs when it is rebuilt."""
    name = "__import__('os').system('touch /tmp/wire-pwned')"
    back = wire.decode({"__sympy__": ["Add", [["Symbol", name], ["Function", name, [["Integer", "1"]]]]]})
    assert str(back).count("__import__") == 2 and not os.path.exists("/tmp/wire-pwned")


def test_what_cannot_cross_arrives_unsendable_and_equals_nothing():
    class Always:
        def __eq__(self, other):
            return True

        def __repr__(self):
            return "Always()"

    back = through_the_wire({"answer": Always(), "gen": (x for x in [])})
    assert isinstance(back["answer"], wire.Unsendable) and isinstance(back["gen"], wire.Unsendable)
    assert back["answer"] != Always() and not (back["answer"] == 1)
    assert "Always" in repr(back["answer"]) and "generator" in repr(back["gen"])
    with pytest.raises(TypeError, match="no truth value"):
        bool(back["answer"])


# --- messages -----------------------------------------------------------------------------------
MESSAGES = {   # every message kind the grader's processes exchange (autograder/sandbox/student.py, worker.py)
    "job": {"cells": [[0, "import numpy as np"], [3, "x = 1\nprint(x)"]], "cell_timeout": 60.0,
            "output_chars": 200_000, "workdir": "/tmp/work"},
    "cell": {"cell": 3},
    "done": {"done": 3, "stdout": "1\n", "error": ""},
    "done with an error": {"done": 4, "stdout": "", "error": "ZeroDivisionError: division by zero"},
    "ready": {"ready": True},
    "get": {"op": "get", "name": "mass_matrix"},
    "call": {"op": "call", "name": "energy", "args": wire.encode([[0.1, 0.2], {"m1": 1.0}]),
             "kwargs": wire.encode({"g": 9.81}), "without_lib": ["DoublePendulum.mass_matrix"]},
    "value": {"ok": wire.encode(np.eye(2))},
    "callable": {"callable": True},
    "error": {"error": "NameError: name 'M' is not defined (run the cell that defines it)"},
    "grade a student": {"assignment": "hw01", "student": "ada", "log": "/course/autograded/_logs/hw01.ada.log"},
    "graded": {"ok": True},
    "not graded": {"ok": False, "error": "SandboxMissing: the grading sandbox cannot be set up"},
}


@pytest.mark.parametrize("kind", list(MESSAGES))
def test_every_message_kind_round_trips_as_one_line(kind):
    message = MESSAGES[kind]
    line = wire.pack(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1, "one message, one line"
    assert wire.unpack(line) == message == wire.unpack(line.decode())


def test_a_call_carries_its_arguments_exactly():
    back = wire.unpack(wire.pack(MESSAGES["call"]))
    assert wire.decode(back["args"]) == [[0.1, 0.2], {"m1": 1.0}] and wire.decode(back["kwargs"]) == {"g": 9.81}


def test_what_is_not_a_message_is_refused_when_packed():
    for bad, says in [([1, 2], "a message is a dict"), ({"x": {1, 2}}, "cannot be sent as plain data"),
                      ({"x": float("nan")}, "cannot be sent as plain data")]:
        with pytest.raises(wire.WireError, match=says):
            wire.pack(bad)


# --- truncated, garbled, oversized -----------------------------------------------------------
def test_every_truncation_of_a_message_is_a_clear_error():
    line = wire.pack(MESSAGES["job"]).rstrip(b"\n")
    for cut in range(0, len(line)):
        with pytest.raises(wire.WireError) as error:
            wire.unpack(line[:cut])
        said = str(error.value)
        assert said.startswith("the message is ") and ("cut short" in said or "empty" in said
                                                       or "not JSON" in said), (cut, said)


def test_a_message_cut_in_a_string_says_so():
    with pytest.raises(wire.WireError, match=r"cut short \(truncated after 23 bytes\)"):
        wire.unpack(b'{"done": 3, "stdout": "')


@pytest.mark.parametrize("line, says", [
    (b'{"done" 3}', "not JSON"), (b"\xff\xfe{}", "not UTF-8"), (b"[1, 2, 3]", "a JSON list, not an object"),
    (b'"ready"', "a JSON str, not an object"), (b"   \n", "empty"), (b"{}}", "not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"), (b"NaN-garbage", "not JSON"),
], ids=["syntax", "bytes", "list", "string", "blank", "trailing", "deep", "garbage"])
def test_a_garbled_message_is_a_clear_error(line, says):
    with pytest.raises(wire.WireError, match=says):
        wire.unpack(line)


def test_an_oversized_message_is_refused_both_ways():
    assert wire.MAX_BYTES == limits.MESSAGE_MB * 2**20
    huge = b'{"ok": "' + b"x" * wire.MAX_BYTES + b'"}'
    with pytest.raises(wire.WireError, match=f"more than the {limits.MESSAGE_MB} MB one may carry"):
        wire.unpack(huge)
    with pytest.raises(wire.WireError, match=f"more than the {limits.MESSAGE_MB} MB one may carry"):
        wire.pack({"ok": "x" * wire.MAX_BYTES})


@pytest.mark.parametrize("data, says", [
    ({"__complex__": [1.0]}, "two parts"), ({"__float__": "fast"}, "not plain data"),
    ({"__float__": 1}, "expected a string"), ({"__str__": 3}, "expected a string"),
    ({"__ndarray__": [[1], [1, 2]], "dtype": "f"}, "not plain data"), ({"__ndarray__": [1], "dtype": "x"},
                                                                       "unknown array type"),
    ({"__dict__": [[1]]}, "a \\[key, value\\] pair"), ({"__dict__": 5}, "must be a list"),
    ({"__sympy__": ["Symbol"]}, "not plain data"), ({"__sympy__": ["eval", [["Integer", "1"]]]},
                                                    "does not rebuild sympy 'eval'"),
    ({"__sympy__": ["Integer", "9" * 10_000]}, "not plain data"), ({"__sympy__": "x"}, "malformed expression"),
    ({"__tuple__": [1], "extra": 2, "more": 3}, "malformed value"), ({"__nothing__": 1}, "malformed value"),
    ("a bare string", "malformed value"), ({"__sympy__": ["Derivative", ["Symbol", "q"], [["t", 1]]]},
                                           "malformed expression"),
    ({"__ndarray__": [1, 2, 3], "dtype": "f", "shape": [2, 2]}, "not plain data"),
    # numbers are read all at once; anything else among them is still refused, never converted
    ({"__ndarray__": ["1.5", 2.0], "dtype": "f"}, "malformed value"),
    ({"__ndarray__": [[1.0, ["2"]]], "dtype": "f"}, "malformed value"),
])
def test_a_malformed_value_is_a_clear_error(data, says):
    with pytest.raises(wire.WireError, match=says):
        wire.decode(data)


def test_a_value_nested_too_deeply_is_refused_both_ways():
    deep = []
    for _ in range(wire.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(wire.WireError, match="nested too deeply"):
        wire.encode(deep)
    with pytest.raises(wire.WireError, match="nested too deeply"):
        wire.decode(json.loads(json.dumps(deep)))
    # an array of numbers, read all at once, has the same limit as one read element by element
    array = 1.0
    for _ in range(wire.MAX_DEPTH - 1):
        array = [array]
    assert wire.decode({"__ndarray__": array, "dtype": "f"}).ndim == wire.MAX_DEPTH - 1
    with pytest.raises(wire.WireError, match="nested too deeply"):
        wire.decode({"__ndarray__": [array], "dtype": "f"})


def test_a_garbled_reply_from_the_students_process_is_its_death_not_the_graders():
    """What the judge reads from the sandbox: a garbled line ends that student's process with a sentence."""
    process = object.__new__(student_process.StudentProcess)   # only the reading end: no sandbox is started
    read, write = os.pipe()
    try:
        process.reader, process.buffer = read, b""
        os.write(write, wire.pack({"cell": 1}) + b'{"done": 1, "stdout": [unclosed\n')
        assert process._receive(5) == {"cell": 1}
        with pytest.raises(student_process.StudentDied, match="sent something the grader cannot read: the message is"):
            process._receive(5)
    finally:
        os.close(read)
        os.close(write)


def test_the_examples_in_the_docstrings_run():
    assert doctest.testmod(wire).failed == 0
    assert doctest.testmod(limits).failed == 0
