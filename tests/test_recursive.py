"""lib.recursive: 3D Newton–Euler, the composite-rigid-body and the articulated-body algorithms against the symbolic chain and the Jacobians."""

import numpy as np
import pytest

from lib import manipulators, rigid_body
from lib.recursive import SerialChain


def spatial_arm(n, seed=0):
    """n revolute joints with skewed axes, offsets in 3D, full (rotated-frame) inertias."""
    rng = np.random.default_rng(seed)
    rotations = [rigid_body.rotation(rng.normal(size=3) * 0.8) for _ in range(n)]
    masses = rng.uniform(0.5, 2.0, n)
    inertias = [rigid_body.rotate_inertia(rigid_body.box_inertia(m, *rng.uniform(0.05, 0.4, 3)),
                                          rigid_body.rotation(rng.normal(size=3))) for m in masses]
    return SerialChain(rng.uniform(-0.4, 0.4, (n, 3)), rotations, masses, rng.uniform(-0.2, 0.3, (n, 3)), inertias)


def planar_pair(n, rng):
    """A random n-link planar chain twice: the symbolic Lagrangian PlanarChain and the 3D SerialChain."""
    m, l = rng.uniform(0.5, 2.0, n), rng.uniform(0.3, 1.0, n)
    lc, I = l * rng.uniform(0.3, 0.7, n), rng.uniform(0.01, 0.1, n)
    return manipulators.PlanarChain(m=m, l=l, lc=lc, I=I), SerialChain.planar(m, l, lc, I)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_planar_chain_rnea_and_crba_equal_the_symbolic_lagrangian_model(n):
    rng = np.random.default_rng(n)
    symbolic, chain = planar_pair(n, rng)
    for _ in range(3):
        q, v, a = rng.normal(size=(3, n))
        np.testing.assert_allclose(chain.crba(q), symbolic.mass_matrix(q), atol=1e-12)
        np.testing.assert_allclose(chain.rnea(q, v, a), symbolic.inverse_dynamics(q, v, a), atol=1e-10)
        np.testing.assert_allclose(chain.rnea(q, np.zeros(n), np.zeros(n)), -symbolic.gravity_vector(q), atol=1e-10)


def test_crba_equals_the_jacobian_sum_with_rotated_inertias_on_a_3d_arm():
    """M = Σ m J_Lᵀ J_L + J_Aᵀ (R ⁱI Rᵀ) J_A, the Jacobians by central differences of the CoM positions and frames."""
    arm = spatial_arm(4)
    q, eps = np.array([0.3, -0.7, 1.1, 0.4]), 1e-6
    J_L = [np.empty((3, 4)) for _ in range(4)]
    J_A = [np.empty((3, 4)) for _ in range(4)]
    R0, _ = arm.frames(q)
    for j, e in enumerate(np.eye(4)):
        dcom = (arm.com_positions(q + eps * e) - arm.com_positions(q - eps * e)) / (2 * eps)
        dR = (arm.frames(q + eps * e)[0] - arm.frames(q - eps * e)[0]) / (2 * eps)
        for i in range(4):
            J_L[i][:, j] = dcom[i]
            W = dR[i] @ R0[i].T                             # Ṙ Rᵀ = S(ω) in world coordinates
            J_A[i][:, j] = [W[2, 1], W[0, 2], W[1, 0]]
    M_jac = rigid_body.mass_matrix_from_jacobians(arm.masses, list(arm.world_inertias(q)), J_L, J_A)
    np.testing.assert_allclose(arm.crba(q), M_jac, atol=1e-8)
    # q enters M through the rotated inertia: with the local inertias used unrotated, M is wrong
    M_unrotated = rigid_body.mass_matrix_from_jacobians(arm.masses, list(arm.inertias), J_L, J_A)
    assert np.abs(M_unrotated - M_jac).max() > 1e-3


def test_rnea_is_m_times_acceleration_plus_bias_and_conserves_energy_on_a_3d_arm():
    arm = spatial_arm(3, seed=4)
    rng = np.random.default_rng(5)
    q, v, a = rng.normal(size=(3, 3))
    bias = arm.rnea(q, v, np.zeros(3))
    np.testing.assert_allclose(arm.rnea(q, v, a), arm.crba(q) @ a + bias, atol=1e-10)
    # unforced motion from forward dynamics (CRBA + RNEA) keeps T + U, computed from the link velocities
    from scipy.integrate import solve_ivp
    sol = solve_ivp(lambda t, x: np.concatenate([x[3:], arm.forward_dynamics(x[:3], x[3:])]), (0.0, 2.0),
                    np.concatenate([q, v]), rtol=1e-11, atol=1e-11, t_eval=np.linspace(0.0, 2.0, 21))
    E = np.array([arm.energy(x[:3], x[3:]) for x in sol.y.T])
    assert np.abs(E - E[0]).max() < 1e-7 * max(1.0, abs(E[0]))
    # and a wrong bias (Coriolis left out) does not
    sol_bad = solve_ivp(lambda t, x: np.concatenate([x[3:], np.linalg.solve(arm.crba(x[:3]), -arm.rnea(
        x[:3], np.zeros(3), np.zeros(3)))]), (0.0, 2.0), np.concatenate([q, v]), rtol=1e-11, atol=1e-11,
        t_eval=np.linspace(0.0, 2.0, 21))
    E_bad = np.array([arm.energy(x[:3], x[3:]) for x in sol_bad.y.T])
    assert np.abs(E_bad - E_bad[0]).max() > 1e-3


@pytest.mark.parametrize("n", [2, 3, 5])
def test_aba_equals_the_symbolic_forward_dynamics_of_the_planar_chain(n):
    """ABA, which never forms M, against M⁻¹ (u + tau_g − C v) of the Lagrangian model."""
    rng = np.random.default_rng(10 + n)
    symbolic, chain = planar_pair(n, rng)
    for _ in range(3):
        q, v, u = rng.normal(size=(3, n))
        np.testing.assert_allclose(chain.aba(q, v, u), symbolic.forward_dynamics(q, v, u), atol=1e-10)


def test_aba_inverts_rnea_on_a_3d_arm_and_needs_the_velocity_terms():
    """RNEA(q, v, ABA(q, v, τ)) = τ on an arm with skewed axes; dropping ABA's bias c_i gives a wrong answer."""
    arm = spatial_arm(5, seed=7)
    rng = np.random.default_rng(8)
    q, v, tau = rng.normal(size=(3, 5))
    qdd = arm.aba(q, v, tau)
    np.testing.assert_allclose(arm.rnea(q, v, qdd), tau, atol=1e-10)
    np.testing.assert_allclose(qdd, arm.forward_dynamics(q, v, tau), atol=1e-10)
    np.testing.assert_allclose(arm.aba(q, v, tau, gravity=False),
                               np.linalg.solve(arm.crba(q), tau - arm.rnea(q, v, np.zeros(5), gravity=False)),
                               atol=1e-10)
    assert np.abs(arm.aba(q, np.zeros(5), tau) - qdd).max() > 1e-2     # the velocity terms matter here


@pytest.mark.parametrize("kwargs, name", [
    (dict(offsets=np.zeros((2, 3)), rotations=[np.eye(3)] * 2, masses=[1.0, 1.0], coms=np.zeros((3, 3)),
          inertias=[np.eye(3)] * 2), "coms"),
    (dict(offsets=np.zeros((1, 3)), rotations=[np.eye(3)], masses=[-1.0], coms=np.zeros((1, 3)),
          inertias=[np.eye(3)]), "masses"),
    (dict(offsets=np.zeros((1, 3)), rotations=[np.eye(3)], masses=[1.0], coms=np.zeros((1, 3)),
          inertias=[np.diag([1.0, 1.0, 3.0])]), "inertias"),
])
def test_bad_chain_raises_value_error_naming_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        SerialChain(**kwargs)
