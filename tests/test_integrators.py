"""lib.integrators: convergence orders, exact energy behaviour on the harmonic oscillator, area preservation."""

import numpy as np
import pytest

from lib.integrators import (METHODS, energy_error, explicit_euler, integrate_fixed_step, kinetic_energy_gradient, rk4,
                             simulate_fixed_step, simulate_variational, stormer_verlet, symplectic_euler, variational)
from lib.manipulators import FreeRigidBody
from lib.particle import PointMass
from lib.pendulum import DoublePendulum, SimplePendulum

# the harmonic oscillator H = ½ (p² + q²): q(t) = cos t, p(t) = −sin t from (1, 0)
FORCE, VELOCITY = (lambda q: -q), (lambda p: p)
OSC = lambda t, x: np.array([x[1], -x[0]])  # noqa: E731
FORCE_QV, VELOCITY_QV = (lambda q, v: -q), (lambda q, v: v)  # the oscillator's ∂L/∂q and ∂L/∂v


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
    (lambda: variational(FORCE_QV, VELOCITY_QV, [1.0], [0.0], 0.1, 5, rule="simpson"), "rule"),
    (lambda: variational(FORCE_QV, VELOCITY_QV, [1.0, 2.0], [0.0], 0.1, 5), "p0"),
    (lambda: variational(FORCE_QV, VELOCITY_QV, [1.0], [0.0], 0.0, 5), "h"),
    (lambda: simulate_variational(SimplePendulum(), [0.0], [0.0], h=0.1, steps=5, rule="simpson"), "rule"),
    (lambda: simulate_variational(SimplePendulum(), [0.0], [0.0, 1.0], h=0.1, steps=5), "v"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"(^|\W){name}(\W|$)"):
        call()


# --- variational integrators: symplectic for a configuration-dependent M ---------------------------------
# The double pendulum of chapter 10 written out here, independently of lib.pendulum, in numpy that carries
# complex numbers (for complex-step derivatives): L = ½ vᵀ M(q) v − U(q).
DP = dict(m1=1.0, m2=0.5, l1=1.0, l2=0.7, g=9.81)


def dp_mass(q, m1=DP["m1"], m2=DP["m2"], l1=DP["l1"], l2=DP["l2"]):
    c2 = np.cos(q[1])
    off = m2 * l2**2 + m2 * l1 * l2 * c2
    return np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, off], [off, m2 * l2**2]])


def dp_dL_dv(q, v):
    return dp_mass(q) @ v


def dp_dL_dq(q, v, m1=DP["m1"], m2=DP["m2"], l1=DP["l1"], l2=DP["l2"], g=DP["g"]):
    """∂T/∂q (only q2 enters T) plus tau_g = −∂U/∂q."""
    s1, s12 = np.sin(q[0]), np.sin(q[0] + q[1])
    dT = np.array([0.0 * v[0], -m2 * l1 * l2 * v[0] * (v[0] + v[1]) * np.sin(q[1])])
    return dT - g * np.array([(m1 + m2) * l1 * s1 + m2 * l2 * s12, m2 * l2 * s12])


def dp_energy(Q, P):
    return np.array([0.5 * p @ np.linalg.solve(dp_mass(q), p) - DP["g"] * ((DP["m1"] + DP["m2"]) * DP["l1"] * np.cos(q[0])
                     + DP["m2"] * DP["l2"] * np.cos(q[0] + q[1])) for q, p in zip(Q, P)])


J4 = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.eye(2), np.zeros((2, 2))]])
STATES = (np.array([1.0, 0.5, 0.0, 0.0]), np.array([0.3, -2.0, 1.5, -0.7]))


def symplecticity_defect(D):
    return np.abs(D.T @ J4 @ D - J4).max()


@pytest.mark.parametrize("rule", ["midpoint", "trapezoid"])
def test_variational_step_is_symplectic_on_the_double_pendulum(rule):
    """DΦᵀ J DΦ = J to round-off, DΦ by the complex step (x + 1e-30 i e_j, exact to rounding)."""
    for x in STATES:
        D = np.empty((4, 4))
        for j in range(4):
            xc = x.astype(complex)
            xc[j] += 1e-30j
            Q, P = variational(dp_dL_dq, dp_dL_dv, xc[:2], xc[2:], 0.01, 1, rule)
            D[:, j] = np.concatenate([Q[-1], P[-1]]).imag / 1e-30
        assert symplecticity_defect(D) < 1e-13, f"{rule} at {x}: defect {symplecticity_defect(D):.2e}"
        assert np.abs(D - np.eye(4)).max() > 1e-3  # a real step, not the identity


def test_velocity_form_methods_are_not_symplectic_for_a_configuration_dependent_mass_matrix():
    """simulate_fixed_step's "symplectic_euler" and "verlet", as maps of (q, p = M v), miss DΦᵀJDΦ = J by 1e-4..1e-2.

    DΦ by central differences (ε = 1e-6, accurate to about 1e-9): far below the defect measured.
    """
    dp = DoublePendulum(**DP)

    def step(method):
        def f(x):
            v = np.linalg.solve(dp.mass_matrix(x[:2]), x[2:])
            tr = simulate_fixed_step(dp, x[:2], v, h=0.01, steps=1, method=method)
            return np.concatenate([tr.q[-1], dp.mass_matrix(tr.q[-1]) @ tr.v[-1]])
        return f

    for method in ("symplectic_euler", "verlet"):
        f = step(method)
        x = STATES[1]
        D = np.column_stack([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(4)])
        assert 1e-4 < symplecticity_defect(D) < 1e-2, f"{method}: defect {symplecticity_defect(D):.2e}"


def test_trapezoidal_discrete_lagrangian_is_stormer_verlet_for_a_constant_mass_matrix():
    """L = ½ vᵀ M v − U(q), M constant and not diagonal: the trapezoidal DEL takes Störmer–Verlet's steps."""
    M = np.array([[2.0, 0.6], [0.6, 1.0]])

    def force(q):
        return -np.array([3.0 * np.sin(q[0]) + 0.5 * (q[0] - q[1]), 2.0 * q[1] ** 3 - 0.5 * (q[0] - q[1])])

    q0, p0 = np.array([0.8, -0.4]), np.array([0.3, 1.1])
    Qv, Pv = stormer_verlet(force, lambda p: np.linalg.solve(M, p), q0, p0, 0.05, 400)
    Qd, Pd = variational(lambda q, v: force(q), lambda q, v: M @ v, q0, p0, 0.05, 400, rule="trapezoid")
    np.testing.assert_allclose(Qd, Qv, rtol=0, atol=1e-12)
    np.testing.assert_allclose(Pd, Pv, rtol=0, atol=1e-12)
    # the midpoint rule is another method: it differs at O(h³) per step
    Qm, _ = variational(lambda q, v: force(q), lambda q, v: M @ v, q0, p0, 0.05, 400, rule="midpoint")
    assert np.abs(Qm - Qv).max() > 1e-5


def test_variational_energy_stays_bounded_on_the_double_pendulum_over_60_s():
    """h = 20 ms for 3000 steps (60 s, about 30 swings) from (1, 0.5) at rest: the midpoint DEL's largest energy error
    is 1.4e-3 J in the first quarter and in the last (no drift); the velocity forms, not symplectic since M depends
    on q2, drift: velocity Verlet's grows from 0.78 J to 4.7 J, symplectic Euler's from 2.1 J to 16.8 J."""
    h, steps = 0.02, 3000
    Q, P = variational(dp_dL_dq, dp_dL_dv, [1.0, 0.5], [0.0, 0.0], h, steps)
    dE = dp_energy(Q, P) - dp_energy(Q[:1], P[:1])[0]
    quarter = steps // 4
    first, last = np.abs(dE[:quarter]).max(), np.abs(dE[-quarter:]).max()
    assert 1.2e-3 < first < 1.6e-3 and 1.2e-3 < last < 1.6e-3, (first, last)
    assert abs(last - first) < 0.01 * first, f"the energy error drifts: {first:.3e} J, then {last:.3e} J"
    dp = DoublePendulum(**DP)
    bands = {}
    for method in ("verlet", "symplectic_euler"):
        dE_v = energy_error(dp, simulate_fixed_step(dp, [1.0, 0.5], [0.0, 0.0], h=h, steps=steps, method=method))
        bands[method] = np.abs(dE_v[:quarter]).max(), np.abs(dE_v[-quarter:]).max()
    assert 0.7 < bands["verlet"][0] < 0.9 and 4.2 < bands["verlet"][1] < 5.2, bands
    assert 1.8 < bands["symplectic_euler"][0] < 2.4 and 15 < bands["symplectic_euler"][1] < 19, bands


def test_simulate_variational_uses_the_system_and_matches_the_written_out_pendulum():
    dp = DoublePendulum(**DP)
    traj = simulate_variational(dp, [1.0, 0.5], [0.3, -0.2], h=0.01, steps=300)
    Q, P = variational(dp_dL_dq, dp_dL_dv, [1.0, 0.5], dp_mass([1.0, 0.5]) @ [0.3, -0.2], 0.01, 300)
    np.testing.assert_allclose(traj.q, Q, rtol=0, atol=1e-11)
    np.testing.assert_allclose(traj.v[-1], np.linalg.solve(dp_mass(Q[-1]), P[-1]), rtol=0, atol=1e-10)
    assert traj.t[-1] == pytest.approx(3.0)
    # the exact ∂T/∂q of DoublePendulum agrees with central differences of its M
    for q, v in ((np.array([0.3, 0.4]), np.array([1.0, -2.0])), (np.array([-1.0, 2.5]), np.array([0.5, 0.7]))):
        np.testing.assert_allclose(kinetic_energy_gradient(dp, q, v), kinetic_energy_gradient(dp.mass_matrix, q, v),
                                   atol=1e-8)


@pytest.mark.parametrize("rule", ["midpoint", "trapezoid"])
def test_forced_del_is_second_order_against_the_adaptive_solver(rule):
    """A driven, damped pendulum: the discrete Lagrange–d'Alembert steps converge to the ODE's motion at order 2."""
    p = SimplePendulum(m=1.0, l=1.0, b=0.3)
    torque = lambda t, q, v: np.array([1.5 * np.sin(3.0 * t)])  # noqa: E731
    ref = p.simulate([0.3], [0.0], 2.0, u=torque, num=3)
    err = []
    for h in (0.02, 0.01):
        traj = simulate_variational(p, [0.3], [0.0], h=h, steps=int(round(2.0 / h)), rule=rule, u=torque)
        err.append(abs(traj.q[-1, 0] - ref.q[-1, 0]))
    assert np.log2(err[0] / err[1]) == pytest.approx(2.0, abs=0.2), err


def test_discrete_noether_angular_momentum_of_a_central_force_is_conserved_exactly():
    """L = ½|v|² − U(|q|) is invariant under rotations, and so is L_d: the DEL conserves q × p to round-off."""
    grad_U = lambda q: q / np.linalg.norm(q) ** 3  # noqa: E731  (U = −1/|q|, a Kepler orbit)
    for rule in ("midpoint", "trapezoid"):
        Q, P = variational(lambda q, v: -grad_U(q), lambda q, v: v, [1.0, 0.0], [0.0, 1.2], 0.05, 2000, rule)
        ang = Q[:, 0] * P[:, 1] - Q[:, 1] * P[:, 0]
        assert np.abs(ang - 1.2).max() < 1e-12, rule
        E = 0.5 * np.sum(P**2, axis=1) - 1.0 / np.linalg.norm(Q, axis=1)
        assert np.abs(E - E[0]).max() > 1e-6  # the energy is not conserved exactly, only kept in a band
