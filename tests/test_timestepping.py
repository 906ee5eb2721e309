"""Tests for lib.timestepping: the general contact steps against closed forms, convex relaxations against the LCP."""

import numpy as np
import pytest

from lib.box import Box
from lib.brick import brick_friction_closed_form
from lib.cart_wall import relaxed_cart_wall_step
from lib.particle import PointMass
from lib.pendulum import SimplePendulum
from lib.rigid_body import rotation
from lib.timestepping import (anitescu_rows, anitescu_step, dynamics_terms, friction_directions, lcp_contact_step,
                              simulate_contact, stewart_trinkle_lcp, todorov_step)


G = 9.81


def resting_box(v=None):
    """A box flat on the ground: M, tau, v and the four bottom corners (φ = 0) — the four-legged table."""
    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    R = np.eye(3)
    phi, J = box.ground_contacts([0.0, 0.0, 0.05], R)
    v = np.zeros(6) if v is None else np.asarray(v, dtype=float)
    return box.mass_matrix(R), box.forces(R, v[3:]), v, phi[:4], J[:4]


def test_dynamics_terms_are_the_mass_matrix_and_the_generalized_force():
    """The pendulum with friction and a torque: M = m l², tau = tau_g + B u − b θ̇, and M⁻¹ tau is θ̈."""
    p = SimplePendulum(m=1.0, l=2.0, b=0.3)
    q, v = np.array([0.4]), np.array([0.7])
    M, tau = dynamics_terms(p, q, v, u=[0.2])
    assert M[0, 0] == pytest.approx(4.0), f"M = m l² = 4, got {M[0, 0]}"
    assert tau[0] == pytest.approx(-G * 2.0 * np.sin(0.4) - 0.3 * 0.7 + 0.2)
    np.testing.assert_allclose(np.linalg.solve(M, tau), p.forward_dynamics(q, v, [0.2]))


def test_stewart_trinkle_reduces_to_the_brick():
    """A planar point mass on the ground with the Stewart–Trinkle LCP: v_x as the brick's, λ_n = m g h."""
    body, h, mu = PointMass(m=1.5, dim=2), 0.02, 0.3
    for vx in (-1.0, 0.0, 0.03, 0.8):
        for ux in (0.0, 3.0, -6.0):
            M, tau = dynamics_terms(body, [0.0, 0.0], [vx, 0.0], [ux, 0.0])
            s = lcp_contact_step(M, tau, [vx, 0.0], h, [0.0], body.ground_contact([0.0, 0.0])[1], mu=mu)
            v_ref, f_ref = brick_friction_closed_form(1.5, h, vx, ux, mu)
            assert s.v_next[0] == pytest.approx(float(v_ref), abs=1e-9)
            assert s.v_next[1] == pytest.approx(0.0, abs=1e-12)
            assert s.lam[0, 0] == pytest.approx(1.5 * G * h)
            assert s.lam[0, 1] == pytest.approx(h * float(f_ref), abs=1e-9)


def test_stewart_trinkle_lcp_rows():
    """The LCP's blocks: N M⁻¹ Nᵀ top-left, E and −Eᵀ coupling β with γ, μ on the bottom-left diagonal."""
    M, tau, v, phi, J = resting_box()
    A, b, D, dirs = stewart_trinkle_lcp(M, tau, v, 0.01, phi, J, 0.7)
    k, m = 4, 4
    N = J[:, 0, :]
    np.testing.assert_allclose(A[:k, :k], N @ np.linalg.solve(M, N.T))
    np.testing.assert_allclose(A[k + k * m:, :k], 0.7 * np.eye(k))
    np.testing.assert_allclose(A[k:k + k * m, k + k * m:], np.kron(np.eye(k), np.ones((m, 1))))
    np.testing.assert_allclose(A[k + k * m:, k:k + k * m], -np.kron(np.eye(k), np.ones((1, m))))
    assert D.shape == (k * m, 6) and dirs.shape == (m, 2)


def test_polyhedral_cone_in_3d():
    """A 3D point mass sliding diagonally: friction on the square cone's edge, |f_x| + |f_y| = μ λ_n, against v."""
    body, h, mu = PointMass(m=1.0, dim=3), 0.01, 0.5
    v = np.array([1.0, 1.0, 0.0])
    M, tau = dynamics_terms(body, [0.0, 0.0, 0.0], v)
    J = body.ground_contact([0.0, 0.0, 0.0])[1]
    s = lcp_contact_step(M, tau, v, h, [0.0], J, mu=mu, num_directions=4)
    f_n, f_t = s.lam[0, 0], s.lam[0, 1:]
    assert f_n == pytest.approx(G * h)
    assert np.abs(f_t).sum() == pytest.approx(mu * f_n)
    assert f_t @ s.v_next[:2] < 0
    # Along x the square cone is exact: v_x drops by μ g h.
    s = lcp_contact_step(M, tau, [1.0, 0.0, 0.0], h, [0.0], J, mu=mu)
    np.testing.assert_allclose(s.v_next, [1.0 - mu * G * h, 0.0, 0.0], atol=1e-12)


def test_friction_directions_are_symmetric():
    """For every direction d its opposite −d is in the set (needed by Anitescu); planar contacts get ±t."""
    J = np.random.default_rng(0).normal(size=(2, 3, 5))
    for m in (4, 6, 8):
        D, E = friction_directions(J, m)
        assert D.shape == (2, m, 5)
        np.testing.assert_allclose(D[:, m // 2:], -D[:, :m // 2], atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0)
    D, _ = friction_directions(J[:, :2], 4)
    np.testing.assert_allclose(D[:, 1], -D[:, 0])


def test_simulate_contact_point_mass_matches_brick():
    """simulate_contact on a protocol system: a pushed point mass follows the brick's closed form step by step."""
    body, h, mu = PointMass(m=1.0, dim=2), 0.05, 0.2
    traj = simulate_contact(body, [0.0, 0.0], [0.5, 0.0], h=h, steps=20, contacts=body.ground_contact, mu=mu,
                            u=lambda t, q, v: np.array([3.0 * np.sin(5 * t), 0.0]))
    v = 0.5
    for i in range(20):
        v = float(brick_friction_closed_form(1.0, h, v, 3.0 * np.sin(5 * traj.t[i]), mu)[0])
        assert traj.v[i + 1, 0] == pytest.approx(v, abs=1e-9)
    np.testing.assert_allclose(traj.q[:, 1], 0.0, atol=1e-12)


def test_anitescu_equals_lcp_without_friction():
    """Frictionless contact: Anitescu's QP (all three forms) gives the LCP's v' for random box states near ground."""
    rng = np.random.default_rng(1)
    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    for _ in range(6):
        R = rotation(rng.normal(scale=0.2, size=3))
        p = np.array([0.0, 0.0, -box.corners([0, 0, 0], R)[:, 2].min() + rng.uniform(0, 0.01)])
        v = np.concatenate([rng.normal(scale=0.5, size=3), rng.normal(size=3)])
        phi, J = box.ground_contacts(p, R)
        near = phi < 0.05
        args = (box.mass_matrix(R), box.forces(R, v[3:]), v, 0.01, phi[near], J[near])
        ref = lcp_contact_step(*args, mu=0.0)
        for form in ("primal", "dual", "lemke"):
            s = anitescu_step(*args, mu=0.0, form=form)
            assert s.solved, s.reason
            np.testing.assert_allclose(s.v_next, ref.v_next, atol=1e-6)
            np.testing.assert_allclose(s.impulse, ref.impulse, atol=1e-6)


def test_anitescu_forms_agree_with_friction_and_duality_holds():
    """With friction, primal, dual and Lemke give one v'; the dual optimum is minus the primal one (no gap)."""
    M, tau, v, phi, J = resting_box([0.8, -0.3, -0.2, 0.5, 1.0, -2.0])
    h, mu = 0.01, 0.5
    results = {form: anitescu_step(M, tau, v, h, phi, J, mu=mu, form=form) for form in ("primal", "dual", "lemke")}
    for s in results.values():
        assert s.solved, s.reason
        np.testing.assert_allclose(s.v_next, results["lemke"].v_next, atol=1e-6)
    Jb, owner, _ = anitescu_rows(J, mu)
    beta = results["lemke"].multipliers
    v_minus = v + h * np.linalg.solve(M, tau)
    dv = results["lemke"].v_next - v_minus
    primal = 0.5 * dv @ M @ dv
    c = phi[owner] / h + Jb @ v_minus
    dual = 0.5 * beta @ Jb @ np.linalg.solve(M, Jb.T) @ beta + beta @ c
    assert primal == pytest.approx(-dual, rel=1e-9)


def test_anitescu_table_unique_velocity_many_impulses():
    """The four-legged table at rest: v' = 0 is unique, yet two different leg impulses β produce it."""
    M, tau, v, phi, J = resting_box()
    a = anitescu_step(M, tau, v, 0.01, phi, J, mu=0.0, form="lemke")
    b = anitescu_step(M, tau, v, 0.01, phi, J, mu=0.0, form="dual")
    np.testing.assert_allclose(a.v_next, 0.0, atol=1e-12)
    np.testing.assert_allclose(b.v_next, 0.0, atol=1e-7)
    assert a.lam[:, 0].sum() == pytest.approx(G * 0.01) == b.lam[:, 0].sum()
    assert np.abs(a.lam[:, 0] - b.lam[:, 0]).max() > 1e-3, "the two solvers should pick different leg loads"


def test_todorov_cart_equals_relaxed_cart_wall():
    """The 1-DOF cart with B = 2(1+ε)/κ, K = (1+ε)/κ², ε and b: Clarabel's dual = the notes' closed form."""
    m, h, b, eps, kappa = 1.0, 0.01, 20.0, 0.1, 0.05             # b = 20 N·s/m adds h b = 0.2 kg
    B, K = 2 * (1 + eps) / kappa, (1 + eps) / kappa**2
    for q in (-0.01, 0.0, 0.02, 0.3):
        for v in (-2.0, -0.5, 0.0, 0.4):
            ref = relaxed_cart_wall_step(m, h, q, v, u=1.0, b=b, eps=eps, kappa=kappa)
            s = todorov_step([[m]], [1.0], [v], h, [q], [[[1.0]]], B=B, K=K, eps=eps, b=b)
            assert s.solved, s.reason
            assert s.v_next[0] == pytest.approx(float(ref.v_next), abs=1e-7)
            assert s.lam[0, 0] == pytest.approx(h * float(ref.f), abs=1e-7)


def test_todorov_soc_friction_cone():
    """A sliding 3D contact: the conic dual keeps ‖f_t‖ ≤ μ f_n, on the boundary, and opposes the slip."""
    body, h, mu = PointMass(m=1.0, dim=3), 0.01, 0.4
    v = np.array([1.0, 0.5, 0.0])
    M, tau = dynamics_terms(body, [0.0, 0.0, 0.0], v)
    J = body.ground_contact([0.0, 0.0, 0.0])[1]
    s = todorov_step(M, tau, v, h, [0.0], J, mu=mu, B=10.0, K=25.0, eps=1e-6)
    f_n, f_t = s.lam[0, 0], s.lam[0, 1:]
    assert f_n > 0
    assert np.linalg.norm(f_t) == pytest.approx(mu * f_n, rel=1e-5)
    assert f_t @ v[:2] < 0
    cos = -f_t @ v[:2] / (np.linalg.norm(f_t) * np.linalg.norm(v[:2]))
    assert cos == pytest.approx(1.0, abs=1e-4), "the circular cone pushes straight against the slip"


def test_todorov_polyhedral_approaches_soc():
    """Refining the polyhedral cone (4 → 16 → 256 directions) brings its answer to the second-order cone's."""
    body, h, mu = PointMass(m=1.0, dim=3), 0.01, 0.4
    v = np.array([1.0, 0.5, 0.0])
    M, tau = dynamics_terms(body, [0.0, 0.0, 0.0], v)
    J = body.ground_contact([0.0, 0.0, 0.0])[1]
    soc = todorov_step(M, tau, v, h, [0.0], J, mu=mu, B=10.0, K=25.0, eps=1e-6)
    errors = [np.abs(todorov_step(M, tau, v, h, [0.0], J, mu=mu, B=10.0, K=25.0, eps=1e-6, cone="polyhedral",
                                  num_directions=m).v_next - soc.v_next).max() for m in (4, 16, 256)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 5e-4


def test_todorov_regularization_shares_the_table_load():
    """The table's W is singular; ε diag(W) makes it strictly convex, and the symmetric legs share the load equally."""
    M, tau, v, phi, J = resting_box()
    W = J[:, 0, :] @ np.linalg.solve(M, J[:, 0, :].T)
    assert np.linalg.eigvalsh(W).min() < 1e-12
    assert np.linalg.eigvalsh(W + 1e-3 * np.diag(np.diag(W))).min() > 0
    s = todorov_step(M, tau, v, 0.01, phi, J, mu=0.5, B=10.0, K=25.0, eps=1e-3)
    np.testing.assert_allclose(s.lam[:, 0], s.lam[0, 0], rtol=1e-6)
    # Equal loads λ cancel every torque, so (W + R) 1 λ = g 1: λ = g / (Σ_j W_ij + ε W_ii), a force.
    assert s.lam[0, 0] / 0.01 == pytest.approx(G / (W[0].sum() + 1e-3 * W[0, 0]), rel=1e-6)


def test_bad_input_raises_value_error_naming_it():
    """Negative μ or step size, mismatched shapes, NaN, a non-symmetric M: ValueErrors that name the argument."""
    M, tau, v, phi, J = resting_box()
    with pytest.raises(ValueError, match="mu"):
        lcp_contact_step(M, tau, v, 0.01, phi, J, mu=-0.1)
    with pytest.raises(ValueError, match="h"):
        anitescu_step(M, tau, v, -0.01, phi, J)
    with pytest.raises(ValueError, match="phi"):
        lcp_contact_step(M, tau, v, 0.01, phi[:3], J)
    with pytest.raises(ValueError, match="phi"):
        todorov_step(M, tau, v, 0.01, [np.nan, 0, 0, 0], J)
    with pytest.raises(ValueError, match="J"):
        lcp_contact_step(M, tau, v, 0.01, phi, J[:, :, :5])
    with pytest.raises(ValueError, match="M must be symmetric"):
        lcp_contact_step(M + np.triu(np.ones((6, 6)), 1), tau, v, 0.01, phi, J)
    with pytest.raises(ValueError, match="M must be positive definite"):
        anitescu_step(-M, tau, v, 0.01, phi, J)
    with pytest.raises(ValueError, match="tau"):
        lcp_contact_step(M, tau[:5], v, 0.01, phi, J)
    with pytest.raises(ValueError, match="num_directions"):
        lcp_contact_step(M, tau, v, 0.01, phi, J, mu=0.5, num_directions=5)
    with pytest.raises(ValueError, match="form"):
        anitescu_step(M, tau, v, 0.01, phi, J, form="fast")
    with pytest.raises(ValueError, match="cone"):
        todorov_step(M, tau, v, 0.01, phi, J, cone="round")
    with pytest.raises(ValueError, match="eps"):
        todorov_step(M, tau, v, 0.01, phi, J, eps=-1.0)
    with pytest.raises(ValueError, match="method"):
        simulate_contact(PointMass(), [0, 0], [0, 0], h=0.01, steps=5, contacts=PointMass().ground_contact, method="euler")
    broken = J.copy()
    broken[1, 2, 3] = np.nan
    with pytest.raises(ValueError, match=r"J must contain only finite numbers; J\[1,2,3\] = nan"):
        lcp_contact_step(M, tau, v, 0.01, phi, broken)
