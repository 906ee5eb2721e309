"""lib.lagrange: Lagrange's equations and the manipulator form, against hand-derived closed forms."""

import numpy as np
import pytest
import sympy as sp

from lib import DoublePendulum, SymbolicSystem, lagrange_equations, manipulator_form

q1, q2, qd1, qd2, qdd1, qdd2 = sp.symbols("q1 q2 qd1 qd2 qdd1 qdd2")
m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)


def double_pendulum_energies():
    p1 = sp.Matrix([l1 * sp.sin(q1), -l1 * sp.cos(q1)])
    p2 = p1 + sp.Matrix([l2 * sp.sin(q1 + q2), -l2 * sp.cos(q1 + q2)])
    J1, J2 = p1.jacobian([q1, q2]), p2.jacobian([q1, q2])
    v = sp.Matrix([qd1, qd2])
    T = sp.simplify((m1 * (J1 * v).dot(J1 * v) + m2 * (J2 * v).dot(J2 * v)) / 2)
    U = m1 * g * p1[1] + m2 * g * p2[1]
    return T, U


def test_particle_gives_newtons_law():
    x, xd, xdd, m, f = sp.symbols("x xd xdd m f")
    L = m * xd**2 / 2 + f * x  # U = -f x for a constant force f
    eq = lagrange_equations(L, [x], [xd], [xdd])
    assert sp.simplify(eq[0] - (m * xdd - f)) == 0


def test_double_pendulum_equations_match_notes():
    T, U = double_pendulum_energies()
    eqs = lagrange_equations(T - U, [q1, q2], [qd1, qd2], [qdd1, qdd2])
    s2, c2, s1, s12 = sp.sin(q2), sp.cos(q2), sp.sin(q1), sp.sin(q1 + q2)
    # The two equations of motion written out in notes 000, 'Simple Double Pendulum'.
    tau1 = ((m1 + m2) * l1**2 * qdd1 + m2 * l2**2 * (qdd1 + qdd2) + m2 * l1 * l2 * (2 * qdd1 + qdd2) * c2
            - m2 * l1 * l2 * (2 * qd1 + qd2) * qd2 * s2 + (m1 + m2) * l1 * g * s1 + m2 * g * l2 * s12)
    tau2 = m2 * l2**2 * (qdd1 + qdd2) + m2 * l1 * l2 * qdd1 * c2 + m2 * l1 * l2 * qd1**2 * s2 + m2 * g * l2 * s12
    assert sp.simplify(eqs[0] - tau1) == 0
    assert sp.simplify(eqs[1] - tau2) == 0


def test_manipulator_form_reassembles_the_equations():
    T, U = double_pendulum_energies()
    form = manipulator_form(T, U, [q1, q2], [qd1, qd2])
    eqs = lagrange_equations(T - U, [q1, q2], [qd1, qd2], [qdd1, qdd2])
    lhs = form.M * sp.Matrix([qdd1, qdd2]) + form.C * sp.Matrix([qd1, qd2]) - form.tau_g
    assert sp.simplify(lhs - eqs) == sp.zeros(2, 1)
    assert sp.simplify(form.M - form.M.T) == sp.zeros(2, 2)


def test_christoffel_C_makes_Mdot_minus_2C_skew():
    T, U = double_pendulum_energies()
    form = manipulator_form(T, U, [q1, q2], [qd1, qd2])
    Mdot = sum((sp.diff(form.M, qi) * qdi for qi, qdi in zip([q1, q2], [qd1, qd2])), sp.zeros(2, 2))
    N = sp.simplify(Mdot - 2 * form.C)
    assert sp.simplify(N + N.T) == sp.zeros(2, 2)


def test_symbolic_system_matches_closed_form_numerically():
    T, U = double_pendulum_energies()
    params = {m1: 1.3, m2: 0.7, l1: 1.1, l2: 0.8, g: 9.81}
    sym = SymbolicSystem(manipulator_form(T, U, [q1, q2], [qd1, qd2]), params, T=T, U=U)
    dp = DoublePendulum(m1=1.3, m2=0.7, l1=1.1, l2=0.8, g=9.81)
    rng = np.random.default_rng(1)
    for _ in range(10):
        q, v, u = rng.uniform(-3, 3, 2), rng.uniform(-2, 2, 2), rng.uniform(-1, 1, 2)
        np.testing.assert_allclose(sym.forward_dynamics(q, v, u), dp.forward_dynamics(q, v, u), atol=1e-10)
        assert sym.energy(q, v) == pytest.approx(dp.energy(q, v), rel=1e-12)


def test_symbolic_system_reports_missing_parameters():
    T, U = double_pendulum_energies()
    with pytest.raises(ValueError, match="l2"):
        SymbolicSystem(manipulator_form(T, U, [q1, q2], [qd1, qd2]), {m1: 1, m2: 1, l1: 1, g: 9.81})


def test_lagrange_equations_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="same length"):
        lagrange_equations(q1 * qd1, [q1, q2], [qd1], [qdd1])
