"""lib.integrators: convergence orders, exact energy behaviour on the harmonic oscillator, area preservation."""

import numpy as np
import pytest

from lib.integrators import (METHODS, energy_error, explicit_euler, integrate_fixed_step, rk4, simulate_fixed_step,
                             stormer_verlet, symplectic_euler)
from lib.manipulators import FreeRigidBody
from lib.particle import PointMass
from lib.pendulum import SimplePendulum

# the harmonic oscillator H = ½ (p² + q²): q(t) = cos t, p(t) = −sin t from (1, 0)
FORCE, VELOCITY = (lambda q: -q), (lambda p: p)
OSC = lambda t, x: np.array([x[1], -x[0]])  # noqa: E731


def final_error(method, h, t_final=2.0):
    steps = int(round(t_final / h))
    if method in ("euler", "rk4"):
        _, X = (explicit_euler if method == "euler" else rk4)(OSC, [1.0, 0.0], h, steps)
        q = X[-1, 0]
    else:
        Q, _ = (symplectic_euler if method == "symplectic_euler" else stormer_verlet)(FORCE, VELOCITY, [1.0], [0.0],
                                                                                     h, steps)
        q = Q[-1, 0]
    return abs(q - np.cos(t_final))


@pytest.mark.parametrize("method, order", [("euler", 1), ("rk4", 4), ("symplectic_euler", 1), ("verlet", 2)])
def test_convergence_order(method, order):
    ratio = final_error(method, 0.02) / final_error(method, 0.01)
    assert np.log2(ratio) == pytest.approx(order, abs=0.15)


def test_explicit_euler_energy_grows_by_one_plus_h_squared_each_step():
    """On the oscillator, x_{k+1} = [[1, h], [−h, 1]] x_k multiplies q² + p² by exactly 1 + h²."""
    h, steps = 0.1, 500
    _, X = explicit_euler(OSC, [1.0, 0.0], h, steps)
    E = 0.5 * np.sum(X**2, axis=1)
    np.testing.assert_allclose(E, 0.5 * (1 + h**2) ** np.arange(steps + 1), rtol=1e-12)


def test_rk4_energy_decays_by_the_stability_function():
    """RK4 multiplies q² + p² by |R(ih)|², R(z) = 1 + z + z²/2 + z³/6 + z⁴/24: a slow, steady drift."""
    h, steps = 0.1, 500
    _, X = rk4(OSC, [1.0, 0.0], h, steps)
    z = 1j * h
    R2 = abs(1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24) ** 2
    assert R2 < 1
    np.testing.assert_allclose(0.5 * np.sum(X**2, axis=1), 0.5 * R2 ** np.arange(steps + 1), rtol=1e-12)


def test_symplectic_euler_conserves_a_modified_energy_exactly():
    """½ (q² + p² − h q p) is an exact invariant of symplectic Euler on the oscillator; E stays within O(h)."""
    h, steps = 0.1, 20000  # about 300 periods
    Q, P = symplectic_euler(FORCE, VELOCITY, [1.0], [0.0], h, steps)
    q, p = Q[:, 0], P[:, 0]
    np.testing.assert_allclose(0.5 * (q**2 + p**2 - h * q * p), 0.5, rtol=1e-10)
    E = 0.5 * (q**2 + p**2)
    assert np.max(np.abs(E - 0.5)) < h
    # no drift: the last period looks like the first
    assert abs(np.max(E[-100:]) - np.max(E[:100])) < 1e-3


def test_verlet_energy_error_is_bounded_and_second_order():
    errs = []
    for h in (0.1, 0.05):
        Q, P = stormer_verlet(FORCE, VELOCITY, [1.0], [0.0], h, int(300 / h))
        errs.append(np.max(np.abs(0.5 * (Q[:, 0] ** 2 + P[:, 0] ** 2) - 0.5)))
    assert errs[0] < 0.01
    assert errs[0] / errs[1] == pytest.approx(4.0, rel=0.05)


def one_step_jacobian(step, x, eps=1e-6):
    cols = []
    for e in np.eye(2):
        cols.append((step(x + eps * e) - step(x - eps * e)) / (2 * eps))
    return np.column_stack(cols)


def test_symplectic_maps_preserve_area_on_the_nonlinear_pendulum():
    """det ∂x_{k+1}/∂x_k = 1 for symplectic Euler and Verlet; 1 + h² g cos q for explicit Euler."""
    h = 0.1
    force, velocity = (lambda q: -9.81 * np.sin(q)), (lambda p: p)
    f = lambda t, x: np.array([x[1], -9.81 * np.sin(x[0])])  # noqa: E731

    def step(method):
        def one(x):
            if method == "euler":
                return explicit_euler(f, x, h, 1)[1][-1]
            integ = symplectic_euler if method == "symplectic_euler" else stormer_verlet
            Q, P = integ(force, velocity, x[:1], x[1:], h, 1)
            return np.array([Q[-1, 0], P[-1, 0]])
        return one

    for x in (np.array([0.4, 0.3]), np.array([2.5, -1.0])):
        for method in ("symplectic_euler", "verlet"):
            assert np.linalg.det(one_step_jacobian(step(method), x)) == pytest.approx(1.0, abs=1e-8)
        assert np.linalg.det(one_step_jacobian(step("euler"), x)) == pytest.approx(1 + h**2 * 9.81 * np.cos(x[0]),
                                                                                  abs=1e-8)


def test_integrate_a_protocol_system_rk4_matches_the_adaptive_solver():
    p = SimplePendulum(m=1.0, l=1.0, b=0.2)
    ref = p.simulate([1.0], [0.0], 2.0, u=[0.3], num=201)
    traj = simulate_fixed_step(p, [1.0], [0.0], h=0.005, steps=400, method="rk4", u=[0.3])
    np.testing.assert_allclose(traj.t[::2], ref.t, atol=1e-12)
    np.testing.assert_allclose(traj.q[::2], ref.q, atol=1e-8)
    np.testing.assert_allclose(traj.v[::2], ref.v, atol=1e-8)


def test_integrate_a_pendulum_long_horizon_energy_errors():
    """Explicit Euler gains energy steadily; symplectic Euler and Verlet stay bounded around E(0)."""
    p = SimplePendulum()
    h, steps = 0.05, 1200  # about 30 swings
    drift = {m: energy_error(p, simulate_fixed_step(p, [1.0], [0.0], h=h, steps=steps, method=m)) for m in METHODS}
    assert drift["euler"][-1] > 10.0
    for m in ("symplectic_euler", "verlet"):
        assert np.max(np.abs(drift[m])) < 0.5
        assert abs(drift[m][-steps // 10:].mean()) < 0.2  # oscillates about zero, does not grow
    assert np.max(np.abs(drift["verlet"])) < np.max(np.abs(drift["symplectic_euler"]))
    assert np.max(np.abs(drift["rk4"])) < 1e-2


# --- fixed steps of an acceleration: the constrained simulator's integrator -----------------------
def test_fixed_step_integrators_orders():
    """On q̈ = −q, halving h cuts the error 2× (Euler, symplectic Euler), 4× (Verlet), 16× (RK4)."""
    def error(method, h):
        t, q, v = integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], 1.0, h, method)
        return abs(q[-1, 0] - np.cos(1.0))
    assert error("euler", 0.01) / error("euler", 0.005) == pytest.approx(2.0, rel=0.05)
    assert error("symplectic_euler", 0.01) / error("symplectic_euler", 0.005) == pytest.approx(2.0, rel=0.1)
    assert error("verlet", 0.01) / error("verlet", 0.005) == pytest.approx(4.0, rel=0.1)
    assert error("rk4", 0.05) / error("rk4", 0.025) == pytest.approx(16.0, rel=0.1)


def test_fixed_step_lands_on_t_final_and_matches_integrate():
    """t_final = 1.05 with h = 0.1: ten full steps and a last one of 0.05; on a grid, the steps of integrate."""
    t, q, v = integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], 1.05, 0.1, "rk4")
    assert len(t) == 12 and t[-1] == 1.05 and t[-2] == pytest.approx(1.0), f"times {t}"
    assert q[-1, 0] == pytest.approx(np.cos(1.05), abs=1e-6)
    pend = SimplePendulum()
    traj = simulate_fixed_step(pend, [0.3], [0.0], h=0.01, steps=50, method="verlet")
    t, q, v = integrate_fixed_step(lambda t, q, v: pend.forward_dynamics(q, v), [0.3], [0.0], 0.5, 0.01, "verlet")
    np.testing.assert_allclose(q, traj.q, rtol=0, atol=1e-13)


def test_symplectic_euler_free_fall_closed_form():
    """Free fall: v_N = v0 − N g h and z_N = z0 + N h v0 − g h² N (N + 1)/2 (the new velocity moves the mass)."""
    ball, h, N, G = PointMass(m=2.0, dim=2), 0.01, 50, 9.81
    traj = simulate_fixed_step(ball, [0.0, 1.0], [0.5, 2.0], h=h, steps=N, method="symplectic_euler")
    assert traj.v[-1, 1] == pytest.approx(2.0 - N * G * h)
    assert traj.q[-1, 1] == pytest.approx(1.0 + N * h * 2.0 - G * h**2 * N * (N + 1) / 2)
    assert traj.q[-1, 0] == pytest.approx(0.5 * N * h)


# --- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda: explicit_euler(OSC, [1.0, 0.0], -0.1, 10), "h"),
    (lambda: rk4(OSC, [1.0, 0.0], 0.1, 2.5), "steps"),
    (lambda: symplectic_euler(FORCE, VELOCITY, [1.0, 2.0], [0.0], 0.1, 5), "p0"),
    (lambda: stormer_verlet(FORCE, VELOCITY, [1.0], [0.0], 0.0, 5), "h"),
    (lambda: simulate_fixed_step(SimplePendulum(), [0.0], [0.0], h=0.1, steps=5, method="leapfrog"), "method"),
    (lambda: simulate_fixed_step(SimplePendulum(), [0.0, 1.0], [0.0], h=0.1, steps=5), "q"),
    (lambda: simulate_fixed_step(FreeRigidBody(np.eye(3)), [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0], h=0.1, steps=5), "system"),
    (lambda: integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], 1.0, -0.1), "h"),
    (lambda: integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], 1.0, 0.1, "leapfrog"), "method"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"(^|\W){name}(\W|$)"):
        call()
