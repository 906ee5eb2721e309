"""lib.manipulators: the PR robot of notes 003 (M, c, Q1-Q5); chains against LagrangesMethod and Newton-Euler; q vs v."""

import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

from lib.lagrange import manipulator_form, skew_symmetry_residual
from lib.manipulators import (FreeRigidBody, PlanarChain, PRRobot, planar_chain_form, planar_chain_rnea,
                              quaternion_multiply, quaternion_to_rotation)
from lib.pendulum import DoublePendulum
from lib.rigid_body import (box_inertia, homogeneous, mass_matrix_from_jacobians, potential_energy_from_transforms,
                            rotation)

RNG = np.random.default_rng(7)
PR = dict(m1=2.0, m2=1.2, d_c1=0.3, d_c2=0.45, I_c2=0.08)


def random_state(n, scale=2.0):
    return RNG.uniform(-np.pi, np.pi, n), RNG.uniform(-scale, scale, n)


# --- the PR robot -------------------------------------------------------------------
def notes_pr_closed_form(q, v, m1, m2, d_c2, I_c2, **_):
    """M(q) and c(q, q̇) of the PR robot, typed from notes 003."""
    s2, c2 = np.sin(q[1]), np.cos(q[1])
    M = np.array([[m1 + m2, -m2 * d_c2 * s2], [-m2 * d_c2 * s2, I_c2 + m2 * d_c2**2]])
    c = np.array([-m2 * d_c2 * c2 * v[1] ** 2, 0.0])
    return M, c


def test_pr_robot_matches_the_closed_form_of_the_notes():
    robot = PRRobot(**PR)
    for _ in range(10):
        q, v = random_state(2)
        M, c = notes_pr_closed_form(q, v, **PR)
        np.testing.assert_allclose(robot.mass_matrix(q), M, atol=1e-14)
        np.testing.assert_allclose(robot.bias(q, v), c, atol=1e-14)
        np.testing.assert_allclose(robot.gravity_vector(q), 0.0)  # horizontal plane: U constant


def test_pr_robot_matches_lagrange_from_its_kinetic_energy():
    """T = T1 + T2 of notes 003 run through lib.lagrange.manipulator_form: same M and Christoffel C."""
    q1, q2, qd1, qd2 = sp.symbols("q1 q2 qd1 qd2")
    m1, m2, d, I = (PR[k] for k in ("m1", "m2", "d_c2", "I_c2"))
    T = m1 * qd1**2 / 2 + m2 * (qd1**2 + d**2 * qd2**2 - 2 * d * sp.sin(q2) * qd1 * qd2) / 2 + I * qd2**2 / 2
    form = manipulator_form(T, sp.Integer(0), [q1, q2], [qd1, qd2])
    M = sp.lambdify([q1, q2], form.M)
    C = sp.lambdify([q1, q2, qd1, qd2], form.C)
    robot = PRRobot(**PR)
    for _ in range(5):
        q, v = random_state(2)
        np.testing.assert_allclose(robot.mass_matrix(q), M(*q), atol=1e-12)
        np.testing.assert_allclose(robot.coriolis_matrix(q, v), C(*q, *v), atol=1e-12)
        assert robot.kinetic_energy(q, v) == pytest.approx(0.5 * v @ robot.mass_matrix(q) @ v, rel=1e-12)


def test_pr_robot_mass_matrix_from_partial_jacobians():
    """M = Σ m_i J_Liᵀ J_Li + J_Aiᵀ I_ci J_Ai (notes 003), link 2 a flat plate turning about z."""
    robot = PRRobot(**PR)
    I2 = np.diag([PR["I_c2"] / 2, PR["I_c2"] / 2, PR["I_c2"]])
    for _ in range(5):
        q, _ = random_state(2)
        J_L, J_A = robot.com_jacobians(q)
        # check the Jacobians themselves against finite differences of the CoM positions
        eps = 1e-6
        for j in range(2):
            dq = np.eye(2)[j] * eps
            dp = (robot.com_positions(q + dq) - robot.com_positions(q - dq)) / (2 * eps)
            np.testing.assert_allclose(np.stack([J[:, j] for J in J_L]), dp, atol=1e-8)
        M = mass_matrix_from_jacobians([PR["m1"], PR["m2"]], [np.eye(3), I2], J_L, J_A)
        np.testing.assert_allclose(M, robot.mass_matrix(q), atol=1e-12)


def test_pr_robot_potential_energy_from_homogeneous_transforms():
    """Vertical plane: U from ⁰A_1(q1) ¹A_2(q2) (notes 003) equals the class's U."""
    robot = PRRobot(**PR, gravity=(0.0, -9.81))
    for _ in range(5):
        q, _ = random_state(2)
        A1 = homogeneous(np.eye(3), [q[0], 0.0, 0.0])
        A2 = homogeneous(rotation([0.0, 0.0, 1.0], q[1]), [0.0, 0.0, 0.0])
        U = potential_energy_from_transforms([PR["m1"], PR["m2"]], [A1, A2],
                                             [[-PR["d_c1"], 0.0, 0.0], [PR["d_c2"], 0.0, 0.0]], g=(0.0, -9.81, 0.0))
        assert U == pytest.approx(robot.potential_energy(q), abs=1e-12)


def test_q1_mass_matrix_does_not_depend_on_the_cyclic_coordinate():
    robot = PRRobot(**PR)
    q, v = random_state(2)
    for shift in (-3.0, 0.7, 12.0):
        np.testing.assert_allclose(robot.mass_matrix(q + [shift, 0.0]), robot.mass_matrix(q))
        np.testing.assert_allclose(robot.bias(q + [shift, 0.0], v), robot.bias(q, v))


def test_q2_only_a_centrifugal_term_no_coriolis_term():
    """c is quadratic in q̇ with no q̇1 q̇2 product: c1 = −m2 d_c2 c2 q̇2², c2 = 0."""
    robot = PRRobot(**PR)
    q, _ = random_state(2)
    c = lambda v: robot.bias(q, v)  # noqa: E731
    # the bilinear (Coriolis) part of a quadratic form: c(a+b) − c(a) − c(b)
    e1, e2 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    np.testing.assert_allclose(c(e1 + e2) - c(e1) - c(e2), 0.0, atol=1e-14)
    np.testing.assert_allclose(c(e1), 0.0, atol=1e-14)
    assert c(e2)[0] == pytest.approx(-PR["m2"] * PR["d_c2"] * np.cos(q[1]))


def test_q3_force_on_joint_1_accelerates_joint_2_unless_the_link_is_aligned():
    robot = PRRobot(**PR)
    u = np.array([1.0, 0.0])
    for q2 in (0.3, 1.2, -2.0):
        a = robot.forward_dynamics([0.0, q2], [0.0, 0.0], u)
        M = robot.mass_matrix([0.0, q2])
        assert a[1] == pytest.approx(-M[1, 0] / np.linalg.det(M))  # q̈2 = m2 d s2 u1 / det M
        assert abs(a[1]) > 1e-3
    for q2 in (0.0, np.pi):
        assert robot.forward_dynamics([0.0, q2], [0.0, 0.0], u)[1] == pytest.approx(0.0, abs=1e-14)
    # not always zero at q2 = 0 once joint 2 moves: the centrifugal force pulls joint 1
    assert robot.forward_dynamics([0.0, 0.0], [0.0, 2.0], [0.0, 0.0])[0] > 0


def test_q4_factorizations_are_not_unique_only_christoffel_is_skew():
    robot = PRRobot(**PR)
    q, v = random_state(2)
    for alpha, beta in ((0.7, 0.0), (0.0, -1.3), (2.0, 0.5)):
        S = robot.coriolis_matrix_family(q, v, alpha, beta)
        np.testing.assert_allclose(S @ v, robot.bias(q, v), atol=1e-12)
        assert not np.allclose(S, robot.coriolis_matrix(q, v))
        N = (robot.mass_matrix(q + 1e-6 * v) - robot.mass_matrix(q - 1e-6 * v)) / 2e-6 - 2 * S
        assert np.max(np.abs(N + N.T)) > 1e-3
        assert v @ N @ v == pytest.approx(0.0, abs=1e-8)  # the weaker property holds for all
    assert skew_symmetry_residual(robot, q, v) < 1e-8


def test_q5_vertical_plane_adds_gravity_minus_grad_u_and_conserves_energy():
    robot = PRRobot(**PR, gravity=(0.0, -9.81))
    for _ in range(5):
        q, _ = random_state(2)
        eps = 1e-6
        grad = [(robot.potential_energy(q + eps * e) - robot.potential_energy(q - eps * e)) / (2 * eps)
                for e in np.eye(2)]
        np.testing.assert_allclose(robot.gravity_vector(q), -np.array(grad), atol=1e-8)
    # notes: with the slide horizontal, only joint 2 feels gravity, g2 = m2 g0 d_c2 c2
    assert robot.gravity_vector([0.0, 0.0])[1] == pytest.approx(-PR["m2"] * 9.81 * PR["d_c2"])
    traj = robot.simulate([0.0, 0.3], [0.5, 0.0], 3.0, num=100)
    E = [robot.energy(q, v) for q, v in zip(traj.q, traj.v)]
    assert np.ptp(E) < 1e-7


# --- planar chains ---------------------------------------------------------------------
def lagranges_method_chain(m, l, lc, I, g):
    """An independent derivation: CoM positions in dynamicsymbols, T = Σ ½ m |ṗ|² + ½ I ω², sympy's LagrangesMethod."""
    n = len(m)
    q = dynamicsymbols(f"q1:{n + 1}")
    t = dynamicsymbols._t
    T, U, x, y, phi = 0, 0, 0, 0, 0
    for i in range(n):
        phi = phi + q[i]
        xc, yc = x + lc[i] * sp.sin(phi), y - lc[i] * sp.cos(phi)
        T += m[i] * (xc.diff(t) ** 2 + yc.diff(t) ** 2) / 2 + I[i] * phi.diff(t) ** 2 / 2
        U += m[i] * g * yc
        x, y = x + l[i] * sp.sin(phi), y - l[i] * sp.cos(phi)
    lm = LagrangesMethod(T - U, q)
    lm.form_lagranges_equations()
    qd = sp.symbols(f"qd1:{n + 1}")
    subs = {qi.diff(t): qdi for qi, qdi in zip(q, qd)}
    return (sp.lambdify([q, qd], lm.mass_matrix.subs(subs)), sp.lambdify([q, qd], lm.forcing.subs(subs)))


def test_three_link_chain_matches_lagranges_method():
    m, l, lc, I = [1.0, 1.5, 0.8], [0.9, 0.7, 0.5], [0.4, 0.3, 0.25], [0.05, 0.08, 0.02]
    chain = PlanarChain(m, l, lc, I, g=9.81)
    M_lm, forcing_lm = lagranges_method_chain(m, l, lc, I, 9.81)
    for _ in range(10):
        q, v = random_state(3)
        np.testing.assert_allclose(chain.mass_matrix(q), M_lm(q, v), atol=1e-10)
        # LagrangesMethod: M q̈ = forcing = tau_g − C q̇
        np.testing.assert_allclose(chain.gravity_vector(q) - chain.bias(q, v),
                                   np.ravel(forcing_lm(q, v)), atol=1e-10)


def test_two_link_chain_of_point_masses_is_the_double_pendulum():
    chain = PlanarChain(m=[1.3, 0.7], l=[1.1, 0.8], lc=[1.1, 0.8], I=[0.0, 0.0])
    dp = DoublePendulum(m1=1.3, m2=0.7, l1=1.1, l2=0.8)
    for _ in range(5):
        q, v = random_state(2)
        np.testing.assert_allclose(chain.mass_matrix(q), dp.mass_matrix(q), atol=1e-12)
        np.testing.assert_allclose(chain.bias(q, v), dp.bias(q, v), atol=1e-12)
        np.testing.assert_allclose(chain.gravity_vector(q), dp.gravity_vector(q), atol=1e-12)
        assert chain.energy(q, v) == pytest.approx(dp.energy(q, v), rel=1e-12)


def test_newton_euler_matches_the_lagrangian_chain():
    chain = PlanarChain(m=[1.0, 2.0, 1.5], l=[0.5, 0.8, 0.6], lc=[0.2, 0.5, 0.1], I=[0.03, 0.1, 0.0])
    for _ in range(10):
        q, v = random_state(3)
        vdot = RNG.normal(size=3)
        np.testing.assert_allclose(chain.rnea(q, v, vdot), chain.inverse_dynamics(q, v, vdot), atol=1e-10)
        np.testing.assert_allclose(chain.rnea_mass_matrix(q), chain.mass_matrix(q), atol=1e-12)


def test_newton_euler_one_link_closed_form():
    """One rigid link about its joint: τ = (I + m lc²) θ̈ + m g lc sin θ."""
    m, l, lc, I, g = 1.7, 0.9, 0.35, 0.04, 9.81
    for th, a in ((0.4, 1.2), (-2.0, -0.3)):
        tau = planar_chain_rnea([th], [3.0], [a], [m], [l], [lc], [I], g)
        assert tau[0] == pytest.approx((I + m * lc**2) * a + m * g * lc * np.sin(th), rel=1e-12)


def test_chain_mass_matrix_symmetric_positive_definite_and_christoffel_skew():
    chain = PlanarChain(m=[1.0, 2.0, 0.5], l=[0.5, 0.8, 0.3])
    for _ in range(10):
        q, v = random_state(3)
        M = chain.mass_matrix(q)
        np.testing.assert_allclose(M, M.T, atol=1e-14)
        assert np.linalg.eigvalsh(M)[0] > 0
        assert skew_symmetry_residual(chain, q, v) < 1e-7
    # notes 003: the last diagonal element is constant: I_n + m_n lc_n²
    assert M[2, 2] == pytest.approx(chain.I[2] + chain.m[2] * chain.lc[2] ** 2)


def test_chain_conserves_energy_without_input():
    chain = PlanarChain(m=[1.0, 0.6, 0.4], l=[0.5, 0.4, 0.3])
    traj = chain.simulate([1.0, -0.5, 0.8], [0.0, 1.0, 0.0], 2.0, num=50)
    E = [chain.energy(q, v) for q, v in zip(traj.q, traj.v)]
    assert np.ptp(E) < 1e-7


def test_chain_symbolic_form_is_cached_and_sized():
    form, T, U, s = planar_chain_form(3)
    assert planar_chain_form(3)[0] is form
    assert form.M.shape == (3, 3) and form.C.shape == (3, 3) and form.tau_g.shape == (3, 1)
    assert set(form.M.free_symbols) <= set(s.q) | set(s.m) | set(s.l) | set(s.lc) | set(s.I)


def test_chain_positions():
    chain = PlanarChain(m=[1.0, 1.0], l=[1.0, 2.0])
    np.testing.assert_allclose(chain.positions([np.pi / 2, -np.pi / 2]), [[0, 0], [1, 0], [1, -2]], atol=1e-12)
    assert chain.positions(np.zeros((7, 2))).shape == (7, 3, 2)
    # unequal lengths and angles that are not a right angle apart: each link scaled by its own length
    three = PlanarChain(m=[1.0, 1.0, 1.0], l=[1.0, 0.5, 0.25])
    q = np.array([0.3, -0.7, 1.1])
    phi = np.cumsum(q)
    tips = np.cumsum(three.l[:, None] * np.c_[np.sin(phi), -np.cos(phi)], axis=0)
    np.testing.assert_allclose(three.positions(q), np.vstack([[0.0, 0.0], tips]), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(np.diff(three.positions(q), axis=0), axis=1), three.l)
    np.testing.assert_allclose(three.positions(np.tile(q, (4, 1)))[2], three.positions(q))


# --- q vs v: a free rigid body with a quaternion --------------------------------------
def test_free_body_has_four_positions_and_three_velocities():
    body = FreeRigidBody(box_inertia(1.0, 0.1, 0.2, 0.3))
    assert body.n == 3 and body.nq == 4
    traj = body.simulate([1.0, 0.0, 0.0, 0.0], [0.1, 2.0, 0.1], 1.0, num=20)
    assert traj.q.shape == (20, 4) and traj.v.shape == (20, 3)
    np.testing.assert_allclose(np.linalg.norm(traj.q, axis=1), 1.0, atol=1e-12)


def test_free_body_conserves_energy_and_world_angular_momentum():
    """Near the intermediate axis the body tumbles, yet E and R I ω stay constant."""
    body = FreeRigidBody(np.diag([1.0, 2.0, 3.0]))
    traj = body.simulate([1.0, 0.0, 0.0, 0.0], [0.01, 1.0, 0.01], 20.0, num=200)
    assert np.ptp(traj.v[:, 1]) > 1.0  # the spin about axis 2 flips
    E = [body.energy(q, v) for q, v in zip(traj.q, traj.v)]
    L = np.array([body.angular_momentum(q, v) for q, v in zip(traj.q, traj.v)])
    assert np.ptp(E) < 1e-8
    assert np.max(np.ptp(L, axis=0)) < 1e-7


def test_free_symmetric_body_precesses_at_the_closed_form_rate():
    """I1 = I2: ω3 is constant and (ω1, ω2) turns at Ω = (I3 − I1) ω3 / I1 (Euler's equations)."""
    I1, I3, w3 = 2.0, 3.0, 1.5
    body = FreeRigidBody(np.diag([I1, I1, I3]))
    t_f = 4.0
    traj = body.simulate([1.0, 0.0, 0.0, 0.0], [0.2, 0.0, w3], t_f, num=50)
    Omega = (I3 - I1) * w3 / I1
    np.testing.assert_allclose(traj.v[:, 2], w3, atol=1e-9)
    np.testing.assert_allclose(traj.v[:, 0], 0.2 * np.cos(Omega * traj.t), atol=1e-8)
    np.testing.assert_allclose(traj.v[:, 1], 0.2 * np.sin(Omega * traj.t), atol=1e-8)


def test_quaternion_kinematics_spin_about_a_fixed_axis():
    """With ω constant along z, q(t) = (cos(ωt/2), 0, 0, sin(ωt/2)) and R(q) = Rot_z(ωt)."""
    body = FreeRigidBody(np.diag([1.0, 1.0, 2.0]))
    traj = body.simulate([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.8], 2.0, num=5)
    for t, q in zip(traj.t, traj.q):
        np.testing.assert_allclose(q, [np.cos(0.4 * t), 0.0, 0.0, np.sin(0.4 * t)], atol=1e-9)
        np.testing.assert_allclose(quaternion_to_rotation(q), rotation([0, 0, 1], 0.8 * t), atol=1e-9)
    a, b = RNG.normal(size=4), RNG.normal(size=4)
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    np.testing.assert_allclose(quaternion_to_rotation(quaternion_multiply(a, b)),
                               quaternion_to_rotation(a) @ quaternion_to_rotation(b), atol=1e-12)


# --- bad input ---------------------------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda: PRRobot(m1=0.0), "m1"),
    (lambda: PRRobot(I_c2=-0.1), "I_c2"),
    (lambda: PRRobot(d_c2=0.0), "d_c2"),
    (lambda: PRRobot(gravity=(0.0, -9.81, 0.0)), "gravity"),
    (lambda: PRRobot().mass_matrix([0.0]), "q"),
    (lambda: PRRobot().bias([0.0, 0.0], [1.0, 2.0, 3.0]), "v"),
    (lambda: PlanarChain(m=[1.0, -1.0], l=[1.0, 1.0]), r"m\[1\]"),
    (lambda: PlanarChain(m=[1.0, 1.0], l=[1.0]), "l"),
    (lambda: PlanarChain(m=[1.0], l=[0.0]), r"l\[0\]"),
    (lambda: PlanarChain(m=[1.0], l=[1.0], lc=[-0.5]), r"lc\[0\]"),
    (lambda: PlanarChain(m=[1.0], l=[1.0], I=[-0.5]), r"I\[0\]"),
    (lambda: planar_chain_rnea([0.0, 0.0], [0.0], [0.0], [1.0, 1.0], [1.0, 1.0]), "v"),
    (lambda: FreeRigidBody(np.diag([1.0, 1.0, 5.0])), "I_c"),
    (lambda: FreeRigidBody(np.eye(3)).bias([1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0]), "q"),
    (lambda: FreeRigidBody(np.eye(3)).bias([1.0, 0.0, 0.0], [0.0, 0.0, 1.0]), "q"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"(^|\W){name}(\W|$)"):
        call()
