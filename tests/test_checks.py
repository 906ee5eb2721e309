"""lib.checks: every check accepts what it should, and its message names the parameter and shows the bad entry."""

from dataclasses import dataclass

import numpy as np
import pytest

from lib import checks


@pytest.mark.parametrize("check, good, bad", [
    (checks.positive, [1e-300, 2, "3.5"], [0.0, -1.0, np.nan, np.inf, "x", None]),
    (checks.nonnegative, [0, 0.0, 4.0], [-1e-300, np.nan, np.inf, [1, 2]]),
    (checks.finite, [-5, 0.0, 1e300], [np.nan, -np.inf, "nan", object()]),
])
def test_scalar_checks(check, good, bad):
    """Good values come back as floats; each bad one is a ValueError that names the parameter and shows it."""
    for value in good:
        assert check("x", value) == float(value)
    for value in bad:
        with pytest.raises(ValueError, match=r"^x must be a"):
            check("x", value)


def test_between_and_count():
    """between keeps the bounds; count refuses fractions, booleans and numbers below the minimum."""
    assert checks.between("e", 0.0, 0.0, 1.0) == 0.0 and checks.between("e", 1.0, 0.0, 1.0) == 1.0
    with pytest.raises(ValueError, match=r"e must be a number in \[0, 1\], got 1.01"):
        checks.between("e", 1.01, 0.0, 1.0)
    assert checks.count("frames", 0, minimum=0) == 0
    for bad in (True, 2.5, -1, "3", None):
        with pytest.raises(ValueError, match="steps must be an integer >= 1"):
            checks.count("steps", bad)


def test_vector_and_array_show_the_offending_entry():
    """The first NaN or infinity is named with its index; a wrong shape shows the shape it got."""
    with pytest.raises(ValueError, match=r"q must contain only finite numbers; q\[2\] = inf"):
        checks.vector("q", [0.0, 1.0, np.inf], 3)
    with pytest.raises(ValueError, match=r"J must contain only finite numbers; J\[1,0\] = nan"):
        checks.array("J", [[0.0, 1.0], [np.nan, 0.0]], (None, 2))
    with pytest.raises(ValueError, match=r"J must have shape \(k, 3\), got shape \(2, 2\)"):
        checks.array("J", np.zeros((2, 2)), (None, 3))
    assert checks.vector("u", 2.0, 1).tolist() == [2.0], "a number is a vector of one"


def test_square_shows_the_asymmetry_and_the_eigenvalues():
    """The largest asymmetric pair is shown; a matrix that is not positive definite shows its eigenvalues."""
    M = np.array([[2.0, 0.1, 0.0], [0.1, 2.0, 0.7], [0.0, 0.2, 1.0]])
    with pytest.raises(ValueError, match=r"M must be symmetric; M\[1,2\] = 0.7 but M\[2,1\] = 0.2"):
        checks.square("M", M, symmetric=True)
    with pytest.raises(ValueError, match=r"positive definite; its eigenvalues are \[-1\.  3\.\]"):
        checks.square("M", [[1.0, 2.0], [2.0, 1.0]], positive_definite=True)
    with pytest.raises(ValueError, match=r"M must be a square matrix, got shape \(2, 3\)"):
        checks.square("M", np.ones((2, 3)))
    np.testing.assert_array_equal(checks.square("M", 3.0), [[3.0]])


def test_annotated_fields_are_checked_in_order_and_others_left_alone():
    """Checked dataclasses check Positive, Nonnegative and Finite fields; a plain field is not touched."""
    @dataclass(frozen=True)
    class Cart(checks.Checked):
        m: checks.Positive = 1.0
        b: checks.Nonnegative = 0.0
        x0: checks.Finite = 0.0
        name: str = "cart"

    assert Cart(m=2.0, b=0.0, x0=-3.0, name="").m == 2.0
    with pytest.raises(ValueError, match="^m must be a finite number > 0"):
        Cart(m=-1.0, b=-1.0)
    with pytest.raises(ValueError, match="^b must be a finite number >= 0"):
        Cart(b=-1.0)
    with pytest.raises(ValueError, match="^x0 must be a finite number"):
        Cart(x0=np.nan)
