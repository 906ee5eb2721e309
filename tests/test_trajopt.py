"""lib.trajopt: collocation defects, the rimless wheel limit cycle against simulation, a two-mode hopper."""

import numpy as np
import pytest

from lib.hybrid import first_event, simulate_hybrid
from lib.rimless_wheel import RimlessWheel
from lib.trajopt import (Phase, VerticalHopper, _defect_jacobian, collocation_violations, hermite_simpson_defects,
                         hopper_collocation, hybrid_collocation, rimless_wheel_collocation, rimless_wheel_phase)

WHEEL = RimlessWheel(alpha=np.pi / 8, gamma=0.08)


@pytest.fixture(scope="module")
def cycle():
    return rimless_wheel_collocation(WHEEL, N=20)


# --- collocation defects --------------------------------------------------------------
def test_defects_vanish_on_a_cubic():
    """The Hermite spline is exact for cubics: x = [t³, 3t², 6t], ẋ = [x₂, x₃, 6]."""
    f = lambda X: np.column_stack([X[:, 1], X[:, 2], np.full(len(X), 6.0)])  # noqa: E731
    t = np.linspace(0.0, 2.0, 9)
    X = np.column_stack([t**3, 3 * t**2, 6 * t])
    np.testing.assert_allclose(hermite_simpson_defects(f, X, t[1] - t[0]), 0.0, atol=1e-12)


def test_defects_shrink_like_h_to_the_fourth_on_an_exponential():
    f = lambda X: -X  # noqa: E731
    worst = []
    for N in (8, 16):
        t = np.linspace(0.0, 1.0, N + 1)
        worst.append(np.max(np.abs(hermite_simpson_defects(f, np.exp(-t)[:, None], 1.0 / N))))
    assert worst[0] / worst[1] == pytest.approx(16.0, rel=0.1)


def test_defect_jacobian_matches_finite_differences():
    rng = np.random.default_rng(3)
    f = lambda X: np.column_stack([X[:, 1], 9.81 * np.sin(X[:, 0]) - 0.3 * X[:, 1] ** 2])  # noqa: E731
    X, h = rng.normal(size=(6, 2)), 0.07
    dX, dh = _defect_jacobian(f, X, h)
    D = lambda X, h: hermite_simpson_defects(f, X, h).ravel()  # noqa: E731
    eps = 1e-6
    fd_h = (D(X, h + eps) - D(X, h - eps)) / (2 * eps)
    fd_X = np.column_stack([(D(X + eps * E, h) - D(X - eps * E, h)) / (2 * eps)
                            for E in np.eye(X.size).reshape(X.size, *X.shape)])
    np.testing.assert_allclose(dh, fd_h, atol=1e-5)
    np.testing.assert_allclose(dX, fd_X, atol=1e-6)


# --- the rimless wheel limit cycle ----------------------------------------------------------
def test_collocation_satisfies_the_notes_constraints(cycle):
    assert cycle.success and cycle.status == "solved"
    X, h = cycle.x[0], cycle.h[0]
    theta, thetadot = X[:, 0], X[:, 1]
    a, g = WHEEL.alpha, WHEEL.gamma
    assert theta[0] == pytest.approx(g - a, abs=1e-8)
    assert theta[-1] == pytest.approx(g + a, abs=1e-8)
    assert thetadot[0] == pytest.approx(thetadot[-1] * np.cos(2 * a), abs=1e-8)
    assert np.all(theta >= g - a - 1e-8) and np.all(theta <= g + a + 1e-8)
    assert 0.01 <= h <= 0.1
    stance = lambda X: np.column_stack([X[:, 1], 9.81 / WHEEL.l * np.sin(X[:, 0])])  # noqa: E731
    assert np.max(np.abs(hermite_simpson_defects(stance, X, h))) < 1e-7
    assert cycle.max_violation < 1e-6


def test_collocation_and_simulation_find_the_same_fixed_point(cycle):
    omega_collocation = cycle.x[0][0, 1]
    assert omega_collocation == pytest.approx(WHEEL.fixed_point_by_shooting(1.5), abs=1e-5)
    assert omega_collocation == pytest.approx(WHEEL.rolling_fixed_point(), abs=1e-5)


def test_collocation_period_matches_the_simulated_step(cycle):
    ev = first_event(WHEEL.modes(), "stance", [WHEEL.gamma - WHEEL.alpha, WHEEL.rolling_fixed_point()],
                     "collision", 5.0)
    assert cycle.period == pytest.approx(ev.t, abs=1e-5)
    # and the collocated states lie on the simulated trajectory
    run = simulate_hybrid(WHEEL.modes(), "stance", [WHEEL.gamma - WHEEL.alpha, cycle.x[0][0, 1]],
                          t_final=0.99 * ev.t)
    inside = cycle.t[0] < 0.99 * ev.t
    np.testing.assert_allclose(run.sample(cycle.t[0][inside]), cycle.x[0][inside], atol=1e-5)


def test_violations_of_a_given_trajectory_point_at_the_broken_constraint(cycle):
    """Each family of constraints notices its own kind of mistake, and only that one."""
    phase = rimless_wheel_phase(WHEEL, N=20)
    X, h = cycle.x[0], cycle.h[0]
    ok = collocation_violations([phase], [X], [h])
    assert max(ok.values()) < 1e-6
    wrong_impact = X.copy()
    wrong_impact[0, 1] = X[-1, 1]                         # forgot the collision: θ̇[0] = θ̇[N]
    assert collocation_violations([phase], [wrong_impact], [h])["periodicity"] > 0.1
    wrong_dynamics = X.copy()
    wrong_dynamics[10, 1] += 0.05
    v = collocation_violations([phase], [wrong_dynamics], [h])
    assert v["dynamics"] > 1e-3 and v["periodicity"] < 1e-6
    v = collocation_violations([phase], [X], [0.5])
    assert v["h"] == pytest.approx(0.4) and v["dynamics"] > 1e-3
    outside = X.copy()
    outside[5, 0] = WHEEL.gamma + WHEEL.alpha + 0.1
    assert collocation_violations([phase], [outside], [h])["inside"] == pytest.approx(0.1)


def test_collocation_is_deterministic(cycle):
    again = rimless_wheel_collocation(WHEEL, N=20)
    np.testing.assert_array_equal(again.x[0], cycle.x[0])
    assert again.h[0] == cycle.h[0]


def test_trust_constr_agrees_with_slsqp(cycle):
    other = rimless_wheel_collocation(WHEEL, N=20, method="trust-constr")
    assert other.success
    assert other.x[0][0, 1] == pytest.approx(cycle.x[0][0, 1], abs=1e-6)


def test_hub_inertia_enters_through_the_impact_factor():
    wheel = RimlessWheel(I=0.1)
    res = rimless_wheel_collocation(wheel, N=20)
    assert res.x[0][0, 1] == pytest.approx(wheel.rolling_fixed_point(), abs=1e-5)
    assert res.x[0][0, 1] == pytest.approx(wheel.impact_factor * res.x[0][-1, 1], abs=1e-8)


def test_too_short_a_time_step_is_reported_with_the_solvers_stop():
    """h ≤ 0.02 with N = 20 allows at most 0.4 s per step; the cycle needs about 1.03 s.

    SLSQP runs out of iterations: the result says so, not "infeasible", which a
    local solver cannot know."""
    res = rimless_wheel_collocation(WHEEL, N=20, h_min=0.005, h_max=0.02, maxiter=25)
    assert not res.success and res.status == "iteration limit" and res.nit == 25
    assert f"solver status {res.solver_status}" in res.message and res.max_violation > 1e-3


def test_a_ramp_too_shallow_to_roll_is_reported_infeasible():
    wheel = RimlessWheel(gamma=0.01)
    with pytest.raises(ValueError):
        wheel.rolling_fixed_point()
    res = rimless_wheel_collocation(wheel, N=20, maxiter=25)
    assert not res.success and res.status == "iteration limit"


def test_a_failure_is_labelled_by_how_the_solver_stopped(monkeypatch):
    """Only the solver's own "constraints incompatible" is called infeasible; any other stop is "failed"."""
    from scipy.optimize import OptimizeResult
    import lib.trajopt as to

    def stop(status, message):
        def fake_minimize(fun, z0, **kwargs):
            return OptimizeResult(x=np.asarray(z0, dtype=float), status=status, message=message, nit=3)
        return fake_minimize

    for status, message, label in [(4, "Inequality constraints incompatible", "infeasible"),
                                   (8, "Positive directional derivative for linesearch", "failed")]:
        monkeypatch.setattr(to, "minimize", stop(status, message))
        res = rimless_wheel_collocation(WHEEL, N=10, maxiter=25)
        assert not res.success and res.status == label and res.solver_status == status
        assert message in res.message


# --- a second system: the hopper, two modes ----------------------------------------------
def test_hopper_phase_durations_match_closed_forms():
    hop = VerticalHopper()
    res = hopper_collocation(hop, H=1.2)
    assert res.success
    fall, stance, rise = res.durations
    assert fall == pytest.approx(hop.flight_time(1.2) / 2, abs=1e-6)
    assert rise == pytest.approx(hop.flight_time(1.2) / 2, abs=1e-6)
    assert stance == pytest.approx(hop.stance_time(1.2), abs=1e-5)
    np.testing.assert_allclose(res.x[2][-1], [1.2, 0.0], atol=1e-5)      # back at the apex: periodic
    assert np.all(res.x[1][:, 0] <= hop.l0 + 1e-8)


def test_hopper_stance_time_agrees_with_event_simulation():
    hop = VerticalHopper(k=800.0)
    run = simulate_hybrid(hop.modes(), "flight", [1.3, 0.0], t_final=3.0)
    touchdown, liftoff = run.event_times("touchdown"), run.event_times("liftoff")
    assert liftoff[0] - touchdown[0] == pytest.approx(hop.stance_time(1.3), abs=1e-8)


# --- bad input ----------------------------------------------------------------------
def test_bad_input_is_rejected_by_name():
    f = lambda X: -X  # noqa: E731
    with pytest.raises(ValueError, match="N must be"):
        Phase("p", f, 0, 0.1, 0.2)
    with pytest.raises(ValueError, match="h_min must be <= h_max"):
        rimless_wheel_collocation(WHEEL, h_min=0.2, h_max=0.1)
    with pytest.raises(ValueError, match="x_guess"):
        hybrid_collocation([Phase("p", f, 4, 0.1, 0.2)], [np.zeros((3, 1))], [0.1])
    with pytest.raises(ValueError, match="h_guess"):
        hybrid_collocation([Phase("p", f, 4, 0.1, 0.2)], [np.zeros((5, 1))], [0.1, 0.2])
    with pytest.raises(ValueError, match="method"):
        rimless_wheel_collocation(WHEEL, method="ipopt")
    with pytest.raises(ValueError, match="wheel"):
        rimless_wheel_collocation("wheel")
    with pytest.raises(ValueError, match="^H "):
        hopper_collocation(H=0.5)
