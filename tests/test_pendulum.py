"""lib.pendulum against the closed forms of notes 000/003 and an independent derivation."""

import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

from lib import ActuatedPendulum, DoublePendulum, SimplePendulum

RNG = np.random.default_rng(0)
PARAMS = dict(m1=1.3, m2=0.7, l1=1.1, l2=0.8, g=9.81)


def notes_closed_form(q, v, m1, m2, l1, l2, g):
    """M, C v and tau_g of the simple double pendulum, typed from notes 000 ('Manipulator Equation form')."""
    s1, s2, c2, s12 = np.sin(q[0]), np.sin(q[1]), np.cos(q[1]), np.sin(q[0] + q[1])
    M = np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, m2 * l2**2 + m2 * l1 * l2 * c2],
                  [m2 * l2**2 + m2 * l1 * l2 * c2, m2 * l2**2]])
    # From the equations of motion written out in the notes' 'Simple Double Pendulum' example.
    Cv = np.array([-m2 * l1 * l2 * (2 * v[0] + v[1]) * v[1] * s2, m2 * l1 * l2 * v[0] ** 2 * s2])
    tau_g = -g * np.array([(m1 + m2) * l1 * s1 + m2 * l2 * s12, m2 * l2 * s12])
    return M, Cv, tau_g


def lagranges_method_double_pendulum():
    """An independent derivation with sympy.physics.mechanics.LagrangesMethod."""
    q1, q2 = dynamicsymbols("q1 q2")
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    t = dynamicsymbols._t
    x1, y1 = l1 * sp.sin(q1), -l1 * sp.cos(q1)
    x2, y2 = x1 + l2 * sp.sin(q1 + q2), y1 - l2 * sp.cos(q1 + q2)
    T = (m1 * (x1.diff(t) ** 2 + y1.diff(t) ** 2) + m2 * (x2.diff(t) ** 2 + y2.diff(t) ** 2)) / 2
    U = m1 * g * y1 + m2 * g * y2
    lm = LagrangesMethod(T - U, [q1, q2])
    lm.form_lagranges_equations()
    # lm: mass_matrix * qdd = forcing, forcing = tau_g - C v
    qd1, qd2 = sp.symbols("qd1 qd2")
    subs = {q1.diff(t): qd1, q2.diff(t): qd2}
    symbols = [q1, q2, qd1, qd2, m1, m2, l1, l2, g]
    M = sp.lambdify(symbols, lm.mass_matrix.subs(subs))
    forcing = sp.lambdify(symbols, lm.forcing.subs(subs))
    return M, forcing


@pytest.fixture(scope="module")
def lm_double():
    return lagranges_method_double_pendulum()


def test_double_pendulum_matches_notes_closed_form_at_random_states():
    dp = DoublePendulum(**PARAMS)
    for _ in range(20):
        q, v = RNG.uniform(-np.pi, np.pi, 2), RNG.uniform(-3, 3, 2)
        M, Cv, tau_g = notes_closed_form(q, v, **PARAMS)
        np.testing.assert_allclose(dp.mass_matrix(q), M, atol=1e-12)
        np.testing.assert_allclose(dp.bias(q, v), Cv, atol=1e-12)
        np.testing.assert_allclose(dp.gravity_vector(q), tau_g, atol=1e-12)


def test_double_pendulum_matches_lagranges_method(lm_double):
    M_lm, forcing_lm = lm_double
    dp = DoublePendulum(**PARAMS)
    args = [PARAMS[k] for k in ("m1", "m2", "l1", "l2", "g")]
    for _ in range(20):
        q, v = RNG.uniform(-np.pi, np.pi, 2), RNG.uniform(-3, 3, 2)
        np.testing.assert_allclose(dp.mass_matrix(q), np.array(M_lm(*q, *v, *args), float), atol=1e-12)
        expected = np.array(forcing_lm(*q, *v, *args), float).ravel()
        np.testing.assert_allclose(dp.gravity_vector(q) - dp.bias(q, v), expected, atol=1e-10)


def test_mass_matrix_symmetric_positive_definite():
    dp = DoublePendulum(**PARAMS)
    for _ in range(50):
        M = dp.mass_matrix(RNG.uniform(-np.pi, np.pi, 2))
        np.testing.assert_allclose(M, M.T)
        assert np.all(np.linalg.eigvalsh(M) > 0)


def test_kinetic_energy_is_half_vMv():
    dp = DoublePendulum(**PARAMS)
    q, v = np.array([0.4, -1.2]), np.array([1.5, -0.3])
    assert dp.kinetic_energy(q, v) == pytest.approx(0.5 * v @ dp.mass_matrix(q) @ v, rel=1e-12)


def test_energy_conserved_without_input():
    dp = DoublePendulum(**PARAMS)
    traj = dp.simulate([1.2, -0.5], [0.0, 0.8], t_final=10.0, num=400)
    E = np.array([dp.energy(q, v) for q, v in zip(traj.q, traj.v)])
    assert np.max(np.abs(E - E[0])) < 1e-6, "energy must be conserved to the integrator's tolerance"


def test_energy_rate_equals_input_power():
    """dE/dt = q̇ᵀ u for a torque-driven, frictionless pendulum (energy balance)."""
    dp = DoublePendulum(**PARAMS)
    u = np.array([0.5, -0.2])
    q, v = np.array([0.3, 0.9]), np.array([-0.4, 1.1])
    h = 1e-6
    vdot = dp.forward_dynamics(q, v, u)
    dE = (dp.energy(q + h * v, v + h * vdot) - dp.energy(q - h * v, v - h * vdot)) / (2 * h)
    assert dE == pytest.approx(v @ u, rel=1e-5)


def test_inverse_dynamics_inverts_forward_dynamics():
    dp = DoublePendulum(**PARAMS)
    q, v, u = np.array([0.1, 2.0]), np.array([0.7, -0.1]), np.array([1.0, 3.0])
    np.testing.assert_allclose(dp.inverse_dynamics(q, v, dp.forward_dynamics(q, v, u)), u, atol=1e-12)


def test_simple_pendulum_small_angle_period():
    p = SimplePendulum(m=2.0, l=0.5)
    traj = p.simulate([1e-3], [0.0], t_final=2 * np.pi * np.sqrt(0.5 / 9.81), num=50)
    assert traj.q[-1, 0] == pytest.approx(1e-3, rel=1e-5)


def test_simple_pendulum_friction_dissipates():
    p = SimplePendulum(b=0.3)
    traj = p.simulate([1.0], [0.0], t_final=5.0, num=200)
    E = np.array([p.energy(q, v) for q, v in zip(traj.q, traj.v)])
    assert np.all(np.diff(E) <= 1e-9)
    assert E[-1] < E[0] - 0.5


def test_actuated_pendulum_link_side_matches_notes():
    """I θ̈ + m g0 d sin θ = n_r τ_m − (b_l + b_m n_r²) θ̇ + l cos θ F_x (notes 003)."""
    P = dict(I=0.8, m=2.0, d=0.3, n_r=50.0, b_l=0.2, b_m=1e-4, l=0.6, F_x=1.5, g0=9.81)
    link = ActuatedPendulum(**P)
    th, thd, tau_m = 0.7, -1.3, 0.02
    expected = (P["n_r"] * tau_m - (P["b_l"] + P["b_m"] * P["n_r"] ** 2) * thd + P["l"] * np.cos(th) * P["F_x"]
                - P["m"] * P["g0"] * P["d"] * np.sin(th)) / P["I"]
    assert link.forward_dynamics([th], [thd], [tau_m])[0] == pytest.approx(expected, rel=1e-12)


def test_actuated_pendulum_motor_side_is_the_same_motion():
    link = ActuatedPendulum(I=0.8, m=2.0, d=0.3, n_r=50.0, b_l=0.2, b_m=1e-4, l=0.6, F_x=1.5)
    motor = link.motor_side()
    th, thd, tau_m = 0.7, -1.3, 0.02
    # θ_m = n_r θ, so θ̈_m must be n_r θ̈
    link_acc = link.forward_dynamics([th], [thd], [tau_m])[0]
    motor_acc = motor.forward_dynamics([50.0 * th], [50.0 * thd], [tau_m])[0]
    assert motor_acc == pytest.approx(50.0 * link_acc, rel=1e-12)
    assert motor.mass_matrix([0.0])[0, 0] == pytest.approx(0.8 / 50.0**2)
    assert motor.energy([50 * th], [50 * thd]) == pytest.approx(link.energy([th], [thd]))


@pytest.mark.parametrize("kwargs, name", [
    (dict(m1=-1.0), "m1"), (dict(l2=0.0), "l2"), (dict(m2=float("nan")), "m2"), (dict(l1="long"), "l1"),
])
def test_bad_parameters_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        DoublePendulum(**kwargs)


def test_bad_friction_and_side():
    with pytest.raises(ValueError, match="b_l"):
        ActuatedPendulum(b_l=-0.1)
    with pytest.raises(ValueError, match="side"):
        ActuatedPendulum(side="gearbox")


def test_bad_state_shape_names_the_argument():
    dp = DoublePendulum()
    with pytest.raises(ValueError, match=r"q must have shape \(2,\)"):
        dp.mass_matrix([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="v must"):
        dp.forward_dynamics([0.1, 0.2], [np.inf, 0.0])
    with pytest.raises(ValueError, match="u must"):
        dp.forward_dynamics([0.1, 0.2], [0.0, 0.0], [1.0])
