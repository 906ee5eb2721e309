"""Argument checks shared by every module: bad input fails early, by name, showing what was wrong.

Every public function in :mod:`lib` validates what it is given with these
helpers, so a negative mass or a state of the wrong shape raises a
``ValueError`` that names the parameter and shows the offending entry
(``M[0,1] = 1.25 but M[1,0] = 0.75``) instead of a traceback from deep inside
numpy or scipy. Checks that belong to one topic (a physical inertia matrix,
an LCP) live in that topic's module and are built from these.

Introduced in: chapter 1.
"""

import dataclasses
import math
from typing import Annotated

import numpy as np


def _number(name, value, ok, wanted):
    """``value`` as a float, or ``ValueError`` unless it is finite and ``ok(value)``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {wanted}, got {value!r}") from None
    if not math.isfinite(x) or not ok(x):
        raise ValueError(f"{name} must be {wanted}, got {value!r}")
    return x


def positive(name, value):
    """Return ``value`` as a float, or raise ``ValueError`` unless it is finite and > 0.

    >>> positive("m", 2)
    2.0
    >>> positive("m", -1.0)
    Traceback (most recent call last):
    ...
    ValueError: m must be a finite number > 0, got -1.0
    """
    return _number(name, value, lambda x: x > 0, "a finite number > 0")


def nonnegative(name, value):
    """Return ``value`` as a float, or raise ``ValueError`` unless it is finite and >= 0.

    >>> nonnegative("b", 0)
    0.0
    """
    return _number(name, value, lambda x: x >= 0, "a finite number >= 0")


def finite(name, value):
    """Return ``value`` as a float, or raise ``ValueError`` unless it is a finite number.

    >>> finite("g", 9.81)
    9.81
    """
    return _number(name, value, lambda x: True, "a finite number")


def between(name, value, low, high, meaning=""):
    """Return ``value`` as a float, or raise ``ValueError`` unless low <= value <= high.

    ``meaning`` says what the number is, for the message.

    >>> between("e", 0.5, 0.0, 1.0)
    0.5
    >>> between("e", 1.5, 0.0, 1.0, "the coefficient of restitution")
    Traceback (most recent call last):
    ...
    ValueError: e must be a number in [0, 1] (the coefficient of restitution), got 1.5
    """
    wanted = f"a number in [{low:g}, {high:g}]" + (f" ({meaning})" if meaning else "")
    return _number(name, value, lambda x: low <= x <= high, wanted)


def count(name, value, minimum=1):
    """Return ``value`` as an int, or raise ``ValueError`` unless it is a whole number >= minimum.

    For numbers of steps, frames or samples; ``True`` is not a count.

    >>> count("steps", 10)
    10
    >>> count("steps", 2.5)
    Traceback (most recent call last):
    ...
    ValueError: steps must be an integer >= 1, got 2.5
    """
    ok = not isinstance(value, bool)
    try:
        ok = ok and int(value) == value and value >= minimum
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _finite_entries(name, x):
    """Raise ``ValueError`` naming the first entry of ``x`` that is NaN or infinite.

    The entries are searched only when one is not finite: the checks run
    inside every simulation step, so the common case must be cheap.
    """
    if np.logical_and.reduce(np.isfinite(x), axis=None):
        return x
    bad = np.argwhere(~np.isfinite(x))
    if len(bad):
        where = ",".join(str(i) for i in bad[0])
        raise ValueError(f"{name} must contain only finite numbers; {name}[{where}] = {x[tuple(bad[0])]}")
    return x


def array(name, value, shape=None):
    """Return ``value`` as a float array of only finite numbers, of ``shape`` if given.

    ``shape`` is a tuple whose entries may be ``None`` (any size). The
    message names the first entry that is NaN or infinite.

    >>> array("J", [[0.0, 1.0]], (None, 2)).shape
    (1, 2)
    >>> array("J", [[0.0, np.nan]], (None, 2))
    Traceback (most recent call last):
    ...
    ValueError: J must contain only finite numbers; J[0,1] = nan
    """
    try:
        x = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {value!r}") from None
    if shape is not None and (x.ndim != len(shape) or any(w is not None and s != w for s, w in zip(x.shape, shape))):
        want = "(" + ", ".join("k" if w is None else str(w) for w in shape) + ("," if len(shape) == 1 else "") + ")"
        raise ValueError(f"{name} must have shape {want}, got shape {x.shape}")
    return _finite_entries(name, x)


def vector(name, value, n):
    """Return ``value`` as a float array of shape ``(n,)``; scalars are accepted when n == 1.

    >>> vector("q", [0.1, 0.2], 2)
    array([0.1, 0.2])
    >>> vector("q", [0.1, 0.2, 0.3], 2)
    Traceback (most recent call last):
    ...
    ValueError: q must have shape (2,), got shape (3,)
    """
    try:
        x = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of {n} numbers, got {value!r}") from None
    if x.ndim == 0 and n == 1:
        x = x.reshape(1)
    if x.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got shape {x.shape}")
    return _finite_entries(name, x)


def square(name, value, symmetric=False, positive_definite=False, rtol=1e-10):
    """Return ``value`` as a square float array, or raise ``ValueError`` showing what is wrong.

    With ``symmetric`` the largest asymmetry is shown (``M[0,1] = 1.25 but
    M[1,0] = 0.75``); with ``positive_definite`` the eigenvalues are shown.
    A number is a 1 × 1 matrix. ``rtol`` is relative to the largest entry.

    >>> square("M", 2.0)
    array([[2.]])
    >>> square("M", [[1.0, 1.25], [0.75, 1.0]], symmetric=True)
    Traceback (most recent call last):
    ...
    ValueError: M must be symmetric; M[0,1] = 1.25 but M[1,0] = 0.75
    >>> square("M", [[1.0, 0.0], [0.0, -1.0]], positive_definite=True)
    Traceback (most recent call last):
    ...
    ValueError: M must be positive definite; its eigenvalues are [-1.  1.]
    """
    x = array(name, value)
    if x.ndim == 0:
        x = x.reshape(1, 1)
    if x.ndim != 2 or x.shape[0] != x.shape[1] or x.shape[0] == 0:
        raise ValueError(f"{name} must be a square matrix, got shape {x.shape}")
    scale = max(float(np.abs(x).max()), np.finfo(float).tiny)
    if (symmetric or positive_definite) and not np.allclose(x, x.T, rtol=0.0, atol=rtol * scale):
        i, j = np.unravel_index(np.argmax(np.abs(x - x.T)), x.shape)
        raise ValueError(f"{name} must be symmetric; {name}[{i},{j}] = {x[i, j]:.6g} "
                         f"but {name}[{j},{i}] = {x[j, i]:.6g}")
    if positive_definite:
        eig = np.linalg.eigvalsh(0.5 * (x + x.T))
        if eig[0] <= rtol * scale:
            raise ValueError(f"{name} must be positive definite; its eigenvalues are {eig}")
    return x


# --- parameters of a system, checked by their annotation ---------------------
Positive = Annotated[float, positive]
"""A parameter that must be a finite number > 0 (a mass, a length): ``m: Positive = 1.0``."""
Nonnegative = Annotated[float, nonnegative]
"""A parameter that must be a finite number >= 0 (a friction coefficient, a damping)."""
Finite = Annotated[float, finite]
"""A parameter that must be a finite number (gravity, an offset)."""


def fields(obj):
    """Check every field of the dataclass ``obj`` annotated :data:`Positive`, :data:`Nonnegative` or :data:`Finite`.

    Raises ``ValueError`` naming the first bad one; other fields are left alone.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Rod:
    ...     l: Positive = 1.0
    ...     g: Finite = 9.81
    >>> fields(Rod(l=2.0))
    >>> fields(Rod(l=-2.0))
    Traceback (most recent call last):
    ...
    ValueError: l must be a finite number > 0, got -2.0
    """
    for f in dataclasses.fields(obj):
        for check in getattr(f.type, "__metadata__", ()):
            check(f.name, getattr(obj, f.name))


class Checked:
    """Base class of a dataclass whose annotated parameters are checked when it is made (:func:`fields`).

    A subclass with further checks calls ``super().__post_init__()`` first.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Spring(Checked):
    ...     k: Positive = 100.0
    >>> Spring(k=0.0)
    Traceback (most recent call last):
    ...
    ValueError: k must be a finite number > 0, got 0.0
    """

    def __post_init__(self):
        fields(self)
