"""lib.lagrange, chapter 3 and 10 additions: Christoffel symbols, factorizations of C, skew-symmetry, energy balance,
the Hamiltonian form, virtual work, d'Alembert and the stationary action."""

import numpy as np
import pytest
import sympy as sp

from lib.lagrange import (action, asada_coriolis, christoffel_coriolis, christoffel_symbols, energy_balance,
                          energy_balance_residual, hamiltonian, hamiltonian_dynamics, hamiltonian_form,
                          inertia_force, lagrange_equations, manipulator_form, manipulator_form_fast,
                          mass_matrix_derivative, mass_matrix_rate, momentum, skew_symmetry_check,
                          skew_symmetry_residual, static_equilibrium)
from lib.manipulators import PlanarChain, PRRobot
from lib.pendulum import DoublePendulum, SimplePendulum

RNG = np.random.default_rng(11)
q1, q2, qd1, qd2, qdd1, qdd2 = sp.symbols("q1 q2 qd1 qd2 qdd1 qdd2")
m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
Q, QD = [q1, q2], [qd1, qd2]


@pytest.fixture(scope="module")
def double_pendulum():
    """T, U (typed from notes 000) and the Christoffel manipulator form of the simple double pendulum."""
    c2 = sp.cos(q2)
    T = ((m1 + m2) * l1**2 * qd1**2 / 2 + m2 * l2**2 * (qd1 + qd2) ** 2 / 2
         + m2 * l1 * l2 * qd1 * (qd1 + qd2) * c2)
    U = -(m1 + m2) * g * l1 * sp.cos(q1) - m2 * g * l2 * sp.cos(q1 + q2)
    return T, U, manipulator_form(T, U, Q, QD)


def vanishes(expr, symbols, trials=5):
    """True if a scalar expression is ≈ 0 at random values of its symbols (a fast stand-in for simplify)."""
    f = sp.lambdify(symbols, expr)
    rng = np.random.default_rng(5)
    return all(abs(f(*rng.uniform(0.3, 2.0, len(symbols)))) < 1e-9 for _ in range(trials))


def notes_C():
    """The C matrix printed in notes 000 ('Manipulator Equation form of the Simple Double Pendulum')."""
    k = m2 * l1 * l2 * sp.sin(q2)
    return sp.Matrix([[0, -k * (2 * qd1 + qd2)], [k * (2 * qd1 + qd2) / 2, -k * qd1 / 2]])


# --- Christoffel symbols and the fast form --------------------------------------------
def test_christoffel_symbols_are_symmetric_and_rebuild_c(double_pendulum):
    T, U, form = double_pendulum
    c = christoffel_symbols(form.M, Q)
    for k in range(2):
        for i in range(2):
            for j in range(2):
                assert sp.simplify(c[k][i][j] - c[k][j][i]) == 0
    # notes 003: c_k = Σ_ij c_kij q̇_i q̇_j equals the k-th entry of C q̇
    Cv = form.C * sp.Matrix(QD)
    for k in range(2):
        ck = sum(c[k][i][j] * QD[i] * QD[j] for i in range(2) for j in range(2))
        assert sp.simplify(ck - Cv[k]) == 0
    # the centrifugal coefficient of a joint on itself vanishes: c_iii = 0
    assert all(sp.simplify(c[i][i][i]) == 0 for i in range(2))


def test_fast_form_equals_the_simplified_form(double_pendulum):
    T, U, form = double_pendulum
    fast = manipulator_form_fast(T, U, Q, QD)
    for a, b in ((fast.M, form.M), (fast.C, form.C), (fast.tau_g, form.tau_g)):
        assert sp.simplify(a - b) == sp.zeros(*a.shape)


def test_manipulator_form_reproduces_lagranges_equations(double_pendulum):
    T, U, form = double_pendulum
    eqs = lagrange_equations(T - U, Q, QD, [qdd1, qdd2])
    lhs = form.M * sp.Matrix([qdd1, qdd2]) + form.C * sp.Matrix(QD) - form.tau_g
    assert sp.simplify(eqs - lhs) == sp.zeros(2, 1)


# --- several valid C, one skew-symmetric ------------------------------------------------
def test_three_valid_factorizations_of_the_double_pendulum(double_pendulum):
    """Christoffel, the notes' printed C and Asada's C all give the same C q̇."""
    T, U, form = double_pendulum
    v = sp.Matrix(QD)
    for C in (notes_C(), asada_coriolis(form.M, Q, QD)):
        assert sp.simplify(C * v - form.C * v) == sp.zeros(2, 1)
        assert sp.simplify(C - form.C) != sp.zeros(2, 2)


def test_only_the_christoffel_c_makes_mdot_minus_2c_skew(double_pendulum):
    T, U, form = double_pendulum
    assert skew_symmetry_check(form.M, form.C, Q, QD)
    assert skew_symmetry_check(form.M, christoffel_coriolis(form.M, Q, QD), Q, QD)
    assert not skew_symmetry_check(form.M, notes_C(), Q, QD)
    assert not skew_symmetry_check(form.M, asada_coriolis(form.M, Q, QD), Q, QD)
    # the explicit defect of the notes' C: Ṁ − 2C has a nonzero diagonal
    N = mass_matrix_derivative(form.M, Q, QD) - 2 * notes_C()
    assert sp.simplify(N[0, 0] + 2 * m2 * l1 * l2 * sp.sin(q2) * qd2) == 0


def test_energy_balance_holds_for_every_valid_factorization(double_pendulum):
    """Ė = q̇ᵀ τ needs only q̇ᵀ (Ṁ − 2C) q̇ = 0, which all valid C share."""
    T, U, form = double_pendulum
    assert energy_balance_residual(form, U) == 0
    for C in (notes_C(), asada_coriolis(form.M, Q, QD)):
        other = type(form)(form.M, C, form.tau_g, form.q, form.qd)
        assert energy_balance_residual(other, U) == 0
    # and it fails for a C that is not a factorization at all
    wrong = type(form)(form.M, form.C / 2, form.tau_g, form.q, form.qd)
    assert energy_balance_residual(wrong, U) != 0


def test_numeric_skew_residual_on_the_lib_systems():
    """lib.pendulum.DoublePendulum uses the notes' C: valid but not skew; the Christoffel chain is skew."""
    dp = DoublePendulum(m1=1.3, m2=0.7, l1=1.1, l2=0.8)
    chain = PlanarChain(m=[1.3, 0.7], l=[1.1, 0.8], lc=[1.1, 0.8], I=[0.0, 0.0])
    for _ in range(5):
        q, v = RNG.uniform(-2, 2, 2), RNG.uniform(-2, 2, 2)
        q[1] = RNG.choice([-1, 1]) * RNG.uniform(0.3, 2.8)  # keep sin q2 away from 0
        np.testing.assert_allclose(dp.bias(q, v), chain.bias(q, v), atol=1e-12)
        assert skew_symmetry_residual(dp, q, v) > 1e-2
        assert skew_symmetry_residual(chain, q, v) < 1e-7
        N = mass_matrix_rate(dp, q, v) - 2 * dp.coriolis_matrix(q, v)
        assert v @ N @ v == pytest.approx(0.0, abs=1e-8)


def test_mass_matrix_rate_against_the_closed_form():
    dp = DoublePendulum(m1=1.0, m2=2.0, l1=1.5, l2=0.5)
    q, v = np.array([0.3, 0.8]), np.array([-1.0, 0.6])
    k = -2.0 * 1.5 * 0.5 * np.sin(q[1]) * v[1]  # d/dt (m2 l1 l2 c2)
    np.testing.assert_allclose(mass_matrix_rate(dp, q, v), k * np.array([[2.0, 1.0], [1.0, 0.0]]), atol=1e-8)


def test_energy_balance_along_a_forced_damped_simulation():
    """E(t) − E(0) equals the work of the input and the friction."""
    p = SimplePendulum(m=1.2, l=0.7, b=0.4)
    u = lambda t, q, v: np.array([np.sin(3 * t)])  # noqa: E731
    traj = p.simulate([0.5], [0.0], 3.0, u=u, num=3001)
    assert np.max(np.abs(energy_balance(p, traj, u))) < 1e-5
    # ignoring the input's work leaves a visible mismatch: the check can fail
    assert np.max(np.abs(energy_balance(p, traj, None))) > 1e-2


def test_energy_balance_catches_a_wrong_coriolis_matrix():
    class HalfC(DoublePendulum):
        def coriolis_matrix(self, q, v):
            return 0.5 * super().coriolis_matrix(q, v)

    bad = HalfC()
    traj = bad.simulate([1.0, 0.5], [0.0, 2.0], 2.0, num=201)
    assert np.max(np.abs(energy_balance(bad, traj))) > 1e-2


# --- Hamiltonian form ---------------------------------------------------------------------
def test_hamiltonian_form_gives_hamiltons_equations(double_pendulum):
    T, U, form = double_pendulum
    hf = hamiltonian_form(form, U)
    symbols = [q1, q2, *hf.p, m1, m2, l1, l2, g]
    for i in range(2):
        assert vanishes(hf.qdot[i] - sp.diff(hf.H, hf.p[i]), symbols)
        assert vanishes(hf.pdot[i] + sp.diff(hf.H, Q[i]), symbols)
    # H is T + U with q̇ = M⁻¹ p, and M q̇ = p
    at_p = dict(zip(QD, hf.qdot))
    assert vanishes(hf.H - (T + U).subs(at_p), symbols)
    for i in range(2):
        assert vanishes((form.M * hf.qdot)[i] - hf.p[i], symbols)
    # the check can fail: the sign of c_H matters
    assert not vanishes(hf.pdot[1] - 2 * hf.c_H[1] + sp.diff(hf.H, q2), symbols)


def test_numeric_hamiltonian_dynamics_agrees_with_the_manipulator_equations():
    """ṗ = d/dt (M v) = M v̇ + Ṁ v along the motion, and q̇ = v."""
    dp = DoublePendulum(m1=1.3, m2=0.7, l1=1.1, l2=0.8)
    for _ in range(5):
        q, v = RNG.uniform(-2, 2, 2), RNG.uniform(-2, 2, 2)
        p = momentum(dp, q, v)
        qdot, pdot = hamiltonian_dynamics(dp, q, p, u=[0.3, -0.1])
        np.testing.assert_allclose(qdot, v, atol=1e-12)
        expected = dp.mass_matrix(q) @ dp.forward_dynamics(q, v, [0.3, -0.1]) + mass_matrix_rate(dp, q, v) @ v
        np.testing.assert_allclose(pdot, expected, atol=1e-7)
        assert hamiltonian(dp, q, p) == pytest.approx(dp.energy(q, v), rel=1e-12)


# --- variational mechanics ---------------------------------------------------------------
def test_static_equilibrium_is_the_minimum_of_the_potential():
    dp = DoublePendulum()
    np.testing.assert_allclose(static_equilibrium(dp, [0.4, -0.3]), [0.0, 0.0], atol=1e-6)
    u = np.array([3.0, 1.0])
    q = static_equilibrium(dp, [0.2, 0.1], u=u)
    np.testing.assert_allclose(dp.gravity_vector(q) + u, 0.0, atol=1e-8)  # zero virtual work
    # closed form: link 2 feels m2 g l2 s12 = u2, link 1 (m1+m2) g l1 s1 + m2 g l2 s12 = u1
    assert np.sin(q[0] + q[1]) == pytest.approx(u[1] / 9.81, rel=1e-8)
    assert np.sin(q[0]) == pytest.approx((u[0] - u[1]) / (2 * 9.81), rel=1e-8)


def test_dalembert_inertia_force_balances_along_a_motion():
    robot = PRRobot(gravity=(0.0, -9.81))
    u = np.array([0.5, 0.2])
    traj = robot.simulate([0.0, 0.4], [0.3, -1.0], 1.0, u=u, num=2001)
    vdot = np.gradient(traj.v, traj.t, axis=0, edge_order=2)  # accelerations measured, not modelled
    for k in range(100, 1900, 300):
        q, v = traj.q[k], traj.v[k]
        total = inertia_force(robot, q, v, vdot[k]) + robot.gravity_vector(q) + u
        np.testing.assert_allclose(total, 0.0, atol=1e-3)  # finite differences: O(h²)


def test_the_action_is_stationary_at_the_true_motion():
    """A(q + ε η) − A(q) = O(ε²) for η(t0) = η(t1) = 0; a path that is not a motion has a first-order change."""
    p = SimplePendulum()
    traj = p.simulate([1.0], [0.0], 1.5, num=3001)
    t = traj.t
    eta = np.sin(np.pi * t / t[-1])[:, None]
    A = lambda path: action(p, t, path)  # noqa: E731
    A0 = A(traj.q)
    dA = {eps: A(traj.q + eps * eta) - A0 for eps in (1e-2, 2e-2)}
    first_order = (A(traj.q + 1e-3 * eta) - A(traj.q - 1e-3 * eta)) / 2e-3
    assert abs(first_order) < 1e-5
    assert dA[2e-2] / dA[1e-2] == pytest.approx(4.0, rel=1e-2)  # quadratic in ε
    # a straight line between the same end points is not a motion
    line = np.linspace(traj.q[0], traj.q[-1], len(t))
    assert abs((A(line + 1e-3 * eta) - A(line - 1e-3 * eta)) / 2e-3) > 1e-1


def test_action_of_a_free_particle_in_closed_form():
    p = SimplePendulum(m=2.0, l=1.0, g=0.0)
    t = np.linspace(0.0, 2.0, 201)
    assert action(p, t, np.c_[3.0 * t]) == pytest.approx(0.5 * 2.0 * 9.0 * 2.0, rel=1e-12)


# --- bad input ------------------------------------------------------------------------------
def test_bad_input_raises_value_error_naming_the_parameter(double_pendulum):
    T, U, form = double_pendulum
    with pytest.raises(ValueError, match=r"\bp\b"):
        hamiltonian_form(form, U, p=sp.symbols("a b c"))
    with pytest.raises(ValueError, match=r"\bt\b"):
        action(SimplePendulum(), [0.0, 1.0, 0.5], [[0.0], [0.1], [0.2]])
    with pytest.raises(ValueError, match=r"\bq0\b"):
        static_equilibrium(DoublePendulum(), [0.0])
    with pytest.raises(ValueError, match=r"\bvdot\b"):
        inertia_force(DoublePendulum(), [0.0, 0.0], [0.0, 0.0], [1.0])
    with pytest.raises(ValueError, match=r"\bqd\b"):
        manipulator_form_fast(T, U, Q, [qd1])
    with pytest.raises(ValueError, match=r"\bv\b"):
        mass_matrix_rate(DoublePendulum(), [0.0, 0.0], [1.0])
