"""Argument checks shared by every module: bad input fails early, by name.

Every public function in :mod:`lib` validates what it is given with these
helpers, so a negative mass or a state of the wrong shape raises a
``ValueError`` that names the parameter instead of a traceback from deep
inside numpy or scipy.
"""

import numpy as np


def positive(name, value):
    """Return ``value`` as a float, or raise ``ValueError`` unless it is finite and > 0.

    >>> positive("m", 2)
    2.0
    >>> positive("m", -1.0)
    Traceback (most recent call last):
    ...
    ValueError: m must be a finite number > 0, got -1.0
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}") from None
    if not np.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return x


def nonnegative(name, value):
    """Return ``value`` as a float, or raise ``ValueError`` unless it is finite and >= 0.

    >>> nonnegative("b", 0)
    0.0
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}") from None
    if not np.isfinite(x) or x < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return x


def finite(name, value):
    """Return ``value`` as a float, or raise ``ValueError`` unless it is a finite number.

    >>> finite("g", 9.81)
    9.81
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not np.isfinite(x):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return x


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
    if not np.isfinite(x).all():
        raise ValueError(f"{name} must contain only finite numbers, got {x}")
    return x
