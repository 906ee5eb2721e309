"""lib.convex: the one set-up of Clarabel, checked against closed forms; the one rule for solved; its callers."""

from pathlib import Path

import clarabel
import numpy as np
import pytest

from lib import convex
from lib.constraints import gauss_primal

ROOT = Path(__file__).resolve().parent.parent


def test_qp_returns_the_multiplier_of_an_active_constraint():
    """min ½ x² − x subject to x ≤ 0.25: x = 0.25 and the multiplier is the gradient's pull, 1 − 0.25."""
    sol = convex.qp([[1.0]], [-1.0], G=[[1.0]], g=[0.25])
    assert sol.found and sol.status == "Solved"
    assert sol.x[0] == pytest.approx(0.25, abs=1e-8) and sol.z[0] == pytest.approx(0.75, abs=1e-8)
    free = convex.qp([[1.0]], [-1.0], G=[[1.0]], g=[2.0])
    assert free.x[0] == pytest.approx(1.0, abs=1e-8) and free.z[0] == pytest.approx(0.0, abs=1e-8)


def test_equality_qp_is_its_kkt_system():
    """min ½ xᵀPx + cᵀx s.t. A x = b solves [[P, Aᵀ], [A, 0]] [x; z] = [−c; b], multipliers with Clarabel's sign."""
    rng = np.random.default_rng(7)
    for n, m in ((3, 1), (5, 2)):
        L = rng.normal(size=(n, n))
        P, c = L @ L.T + np.eye(n), rng.normal(size=n)
        A, b = rng.normal(size=(m, n)), rng.normal(size=m)
        want = np.linalg.solve(np.block([[P, A.T], [A, np.zeros((m, m))]]), np.concatenate([-c, b]))
        sol = convex.qp(P, c, A=A, b=b)
        np.testing.assert_allclose(sol.x, want[:n], atol=1e-7)
        np.testing.assert_allclose(sol.z, want[n:], atol=1e-7)


def test_bounds_hold_and_their_multipliers_come_last():
    """min ½‖x − (1, −2)‖² with x ≥ 0: x = (1, 0); the bound on x₂ pushes with 2 (P x + c − z_lb = 0)."""
    sol = convex.qp(np.eye(2), [-1.0, 2.0], G=[[1.0, 1.0]], g=[5.0], lb=0.0)
    np.testing.assert_allclose(sol.x, [1.0, 0.0], atol=1e-8)
    np.testing.assert_allclose(sol.z, [0.0, 0.0, 2.0], atol=1e-7)


def cone_projection(t, y):
    """The nearest point of {(t, y): ‖y‖ ≤ t} to (t, y), in closed form."""
    r = np.linalg.norm(y)
    if r <= t:
        return np.concatenate([[t], y])
    if r <= -t:
        return np.zeros(1 + y.size)
    return (t + r) / 2 * np.concatenate([[1.0], y / r])


@pytest.mark.parametrize("point", [[2.0, 0.5, -0.3], [1.0, 3.0, 4.0], [-5.0, 1.0, 1.0], [0.0, 0.0, 2.0]])
def test_the_second_order_cone_projects_as_in_closed_form(point):
    """min ½‖x − p‖² with x in the cone ‖x[1:]‖ ≤ x[0]: the projection, inside, onto the surface or to the apex."""
    p = np.array(point)
    sol = convex.solve(np.eye(3), -p, -np.eye(3), np.zeros(3), [("soc", 3)])
    assert sol.found, sol.status
    np.testing.assert_allclose(sol.x, cone_projection(p[0], p[1:]), atol=1e-7)


def test_an_infeasible_problem_is_not_found_and_require_names_it():
    """x ≤ −1 and x ≥ 1: found is False, the status says why, require raises naming the problem and the status."""
    sol = convex.qp([[1.0]], [0.0], G=[[1.0], [-1.0]], g=[-1.0, -1.0])
    assert not sol.found and sol.status == "PrimalInfeasible"
    with pytest.raises(RuntimeError, match="Clarabel did not solve the test problem: status PrimalInfeasible"):
        sol.require("the test problem")


def test_almost_solved_is_not_solved(monkeypatch):
    """Clarabel's AlmostSolved (its reduced accuracy) counts as not found, like any status but Solved."""
    class Stopped:
        def __init__(self, *args):
            pass

        def solve(self):
            class Result:
                status, x, z = clarabel.SolverStatus.AlmostSolved, [0.5], [0.0]
            return Result()

    monkeypatch.setattr(clarabel, "DefaultSolver", Stopped)
    sol = convex.qp([[1.0]], [-1.0])
    assert sol.status == "AlmostSolved" and not sol.found


def test_bad_cones_are_named():
    """Rows, right-hand side and cone sizes must agree; a cone kind must be known."""
    with pytest.raises(ValueError, match="must agree"):
        convex.solve(np.eye(2), [0.0, 0.0], np.eye(2), [0.0, 0.0], [("nonnegative", 1)])
    with pytest.raises(ValueError, match="cone kinds are"):
        convex.solve(np.eye(2), [0.0, 0.0], np.eye(2), [0.0, 0.0], [("box", 2)])


def test_a_caller_without_a_status_raises_on_failure():
    """Gauss's principle with inconsistent constraints (ÿ = 0 and ÿ = −1): a RuntimeError with Clarabel's status."""
    with pytest.raises(RuntimeError, match=r"Clarabel did not solve Gauss's principle .*status \w*Infeasible"):
        gauss_primal(np.eye(2), [0.0, -9.81], [[0.0, 1.0], [0.0, 1.0]], [0.0, 1.0])


def test_lib_sets_up_the_solver_in_one_module():
    """Only lib/convex.py imports clarabel; no lib module goes through qpsolvers."""
    for path in sorted((ROOT / "lib").rglob("*.py")):
        text = path.read_text()
        if path.name != "convex.py":
            assert "import clarabel" not in text, f"{path.name} sets up Clarabel itself; use lib.convex"
        assert "qpsolvers" not in text, f"{path.name} solves through qpsolvers; use lib.convex"
