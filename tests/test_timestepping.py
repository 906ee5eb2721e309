"""Tests for lib.timestepping: LCP steps against closed forms, convex relaxations against the LCP."""

import numpy as np
import pytest

from lib.lcp import complementarity_certificate, complementary_solutions
from lib.pendulum import SimplePendulum
from lib.timestepping import (Box, PointMass, anitescu_rows, anitescu_step, brick_friction_batch,
                              brick_friction_closed_form, brick_friction_lcp, brick_friction_step, cart_wall_batch, cart_wall_closed_form,
                              cart_wall_gauss_qp, cart_wall_lcp, cart_wall_simulate, cart_wall_step,
                              dynamics_terms, friction_directions, hydroplaning, hydroplaning_first_step,
                              hydroplaning_sweep,
                              lcp_contact_step, relaxed_cart_wall_step, semi_implicit_euler,
                              semi_implicit_euler_step, simulate_box, simulate_contact, stewart_trinkle_lcp,
                              todorov_step)

G = 9.81


def resting_box(v=None):
    """A box flat on the ground: M, tau, v and the four bottom corners (φ = 0) — the four-legged table."""
    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    R = np.eye(3)
    phi, J = box.ground_contacts([0.0, 0.0, 0.05], R)
    v = np.zeros(6) if v is None else np.asarray(v, dtype=float)
    return box.mass_matrix(R), box.forces(R, v[3:]), v, phi[:4], J[:4]


# --- semi-implicit Euler --------------------------------------------------------------------------

def test_semi_implicit_euler_free_fall_closed_form():
    """Free fall: v_N = v0 − N g h and z_N = z0 + N h v0 − g h² N (N + 1)/2 (the new velocity moves the mass)."""
    ball, h, N = PointMass(m=2.0, dim=2), 0.01, 50
    traj = semi_implicit_euler(ball, [0.0, 1.0], [0.5, 2.0], h, N)
    assert traj.v[-1, 1] == pytest.approx(2.0 - N * G * h)
    assert traj.q[-1, 1] == pytest.approx(1.0 + N * h * 2.0 - G * h**2 * N * (N + 1) / 2)
    assert traj.q[-1, 0] == pytest.approx(0.5 * N * h)


def test_semi_implicit_euler_pendulum_step_and_dynamics_terms():
    """One step of the pendulum: v' = v + h θ̈(θ, v), θ' = θ + h v'; tau = tau_g + B u − C v."""
    p = SimplePendulum(m=1.0, l=2.0, b=0.3)
    q, v, h = np.array([0.4]), np.array([0.7]), 0.05
    M, tau = dynamics_terms(p, q, v, u=[0.2])
    assert tau[0] == pytest.approx(-G * 2.0 * np.sin(0.4) - 0.3 * 0.7 + 0.2)
    q1, v1 = semi_implicit_euler_step(p, q, v, h, u=[0.2])
    acc = p.forward_dynamics(q, v, [0.2])
    np.testing.assert_allclose(v1, v + h * acc)
    np.testing.assert_allclose(q1, q + h * v1)


# --- the cart against the wall ----------------------------------------------------------------------

def test_cart_wall_lcp_matches_closed_form_and_gauss_qp():
    """m = 1, h = 0.1: Lemke, the closed form and the Gauss-principle QP give the same q[n+1], v[n+1], f[n]."""
    m, h = 1.0, 0.1
    for q in (0.0, 0.03, 0.2, 0.5):
        for v in (-2.0, -0.5, 0.0, 1.0):
            for u in (0.0, -3.0):
                lcp = cart_wall_step(m, h, q, v, u)
                ref = cart_wall_closed_form(m, h, q, v, u)
                qp = cart_wall_gauss_qp(m, h, q, v, u)
                assert lcp.q_next == pytest.approx(float(ref.q_next), abs=1e-12)
                assert lcp.v_next == pytest.approx(float(ref.v_next), abs=1e-12)
                assert lcp.f == pytest.approx(float(ref.f), abs=1e-9)
                # An interior-point solver: accurate to its tolerance, less where the constraint is
                # weakly active (q + h v + h² u/m = 0, multiplier and slack both zero).
                assert qp.q_next == pytest.approx(float(ref.q_next), abs=2e-6)
                assert qp.v_next == pytest.approx(float(ref.v_next), abs=2e-5)
                assert qp.f == pytest.approx(float(ref.f), abs=2e-4)
                M, b = cart_wall_lcp(m, h, q, v, u)
                assert complementarity_certificate(M, b, [lcp.f]).holds()
                assert lcp.q_next * lcp.f == pytest.approx(0.0, abs=1e-12)


def test_cart_wall_figure_grid():
    """The notes' figure on a 120×150 (q, v) grid: batched LCP = closed form; f > 0 exactly where q + h v < 0."""
    q, v = np.meshgrid(np.linspace(-0.5, 1.0, 120), np.linspace(-5.0, 5.0, 150))
    batch = cart_wall_batch(1.0, 0.1, q, v)
    ref = cart_wall_closed_form(1.0, 0.1, q, v)
    np.testing.assert_allclose(batch.q_next, ref.q_next, atol=1e-12)
    np.testing.assert_allclose(batch.f, ref.f, atol=1e-9)
    assert ((ref.f > 0) == (q + 0.1 * v < 0)).all()
    assert (ref.q_next >= 0).all()


def test_cart_wall_simulation_is_inelastic():
    """Coming in at −1 m/s from 0.25 m: the cart reaches the wall and stops there (no bounce, no penetration)."""
    traj = cart_wall_simulate(1.0, 0.01, 0.25, -1.0, 60)
    np.testing.assert_allclose(traj.q, np.maximum(0.25 - traj.t, 0.0), atol=1e-12)
    assert np.abs(traj.v[30:]).max() <= 1e-12             # at rest against the wall
    assert traj.f[25] == pytest.approx(1.0 / 0.01)        # the impulse m|v| = 1 N·s over one step


# --- the brick with Coulomb friction ------------------------------------------------------------------

def test_brick_lcp_matches_closed_form_sticking_and_sliding():
    """Over a grid of velocities and pushes, Lemke's friction force and new velocity match the closed form."""
    m, h, mu = 2.0, 0.05, 0.4
    regimes = set()
    for v in np.linspace(-1.0, 1.0, 9):
        for u in np.linspace(-15.0, 15.0, 7):
            s = brick_friction_step(m, h, v, u, mu)
            v_ref, f_ref = brick_friction_closed_form(m, h, v, u, mu)
            assert s.v_next == pytest.approx(float(v_ref), abs=1e-9)
            assert s.f == pytest.approx(float(f_ref), abs=1e-8)
            assert abs(s.f) <= mu * m * G + 1e-9
            M, b = brick_friction_lcp(m, h, v, u, mu)
            assert complementarity_certificate(M, b, s.lcp.z).holds()
            regimes.add(s.regime)
    assert regimes == {"sticking", "sliding"}


def test_brick_batch_maps_the_sticking_region():
    """The batched LCP over a (v, u) grid equals the closed form; it sticks exactly where |v + h u/m| ≤ h μ g."""
    m, h, mu = 1.0, 0.1, 0.5
    v, u = np.meshgrid(np.linspace(-1.0, 1.0, 41), np.linspace(-10.0, 10.0, 31))
    v_next, f = brick_friction_batch(m, h, v, u, mu)
    v_ref, f_ref = brick_friction_closed_form(m, h, v, u, mu)
    np.testing.assert_allclose(v_next, v_ref, atol=1e-9)
    np.testing.assert_allclose(f, f_ref, atol=1e-8)
    sticks = np.abs(v + h * u / m) <= h * mu * G
    assert sticks.any() and (~sticks).any()
    assert (np.abs(v_next[sticks]) < 1e-9).all() and (np.abs(v_next[~sticks]) > 0).all()


def test_brick_sliding_has_maximal_friction_and_sticking_is_not_unique():
    """Sliding: v_abs = |v'|, friction μ m g against the motion. Sticking: many (f⁺, f⁻), one f = f⁺ − f⁻."""
    m, h, mu = 1.0, 0.1, 0.5
    s = brick_friction_step(m, h, 2.0, 0.0, mu)
    f_plus, f_minus, v_abs = s.lcp.z
    assert s.regime == "sliding" and v_abs == pytest.approx(s.v_next) and f_minus == pytest.approx(mu * m * G)
    M, b = brick_friction_lcp(m, h, 0.1, 1.0, mu)
    sols = complementary_solutions(M, b)
    assert len(sols) >= 2
    nets = {round(z[0] - z[1], 9) for z in sols}
    assert nets == {round(-(0.1 * m / h + 1.0), 9)}, "the net friction force stops the brick exactly"


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


# --- multi-contact simulation: the box --------------------------------------------------------------

def test_box_drop_settles_flat_and_holds_its_weight():
    """Dropped flat, the box comes to rest at height c/2 and the four corners carry m g h in total per step."""
    box = Box(m=2.0, size=(0.4, 0.2, 0.1))
    traj = simulate_box(box, [0.0, 0.0, 0.12], np.eye(3), [0, 0, 0], [0, 0, 0], 0.01, 25)
    assert traj.p[-1, 2] == pytest.approx(0.05, abs=1e-12)
    assert traj.lam_n[-1].sum() == pytest.approx(2.0 * G * 0.01)
    assert traj.lam_n.min() >= -1e-12 and np.abs(traj.lam_n[:, 4:]).max() <= 1e-12   # top corners carry nothing
    corners = box.corners(traj.p[-1], traj.R[-1])
    np.testing.assert_allclose(corners[:4, 2], 0.0, atol=1e-12)


def test_box_slides_to_a_stop_at_mu_g():
    """Sliding flat along x on four corner contacts: v_x(n) = max(v0 − μ g h n, 0) exactly, and it does not turn."""
    box, h, mu = Box(m=1.0, size=(0.4, 0.2, 0.1)), 0.01, 0.3
    traj = simulate_box(box, [0.0, 0.0, 0.05], np.eye(3), [1.0, 0, 0], [0, 0, 0], h, 40, mu=mu)
    np.testing.assert_allclose(traj.v[:, 0], np.maximum(1.0 - mu * G * h * np.arange(41), 0.0), atol=1e-9)
    np.testing.assert_allclose(traj.omega, 0.0, atol=1e-9)
    np.testing.assert_allclose(traj.p[:, 2], 0.05, atol=1e-12)


def test_box_tumbles_without_penetrating():
    """Thrown spinning onto the ground: the LCP never lets a corner sink more than round-off, and it settles."""
    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    c, s = np.cos(0.5), np.sin(0.5)
    R0 = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    traj = simulate_box(box, [0.0, 0.0, 0.25], R0, [0.5, 0.0, 0.0], [0.0, 2.0, 1.0], 0.01, 120, mu=0.6)
    lowest = np.array([box.corners(p, R)[:, 2].min() for p, R in zip(traj.p, traj.R)])
    assert lowest.min() > -1e-9
    assert np.abs(traj.v[-1]).max() < 1e-9 and np.abs(traj.omega[-1]).max() < 1e-9


def test_simulate_contact_point_mass_matches_brick():
    """simulate_contact on a protocol system: a pushed point mass follows the brick's closed form step by step."""
    body, h, mu = PointMass(m=1.0, dim=2), 0.05, 0.2
    traj = simulate_contact(body, [0.0, 0.0], [0.5, 0.0], h, 20, body.ground_contact, mu=mu,
                            u=lambda t, q, v: np.array([3.0 * np.sin(5 * t), 0.0]))
    v = 0.5
    for i in range(20):
        v = float(brick_friction_closed_form(1.0, h, v, 3.0 * np.sin(5 * traj.t[i]), mu)[0])
        assert traj.v[i + 1, 0] == pytest.approx(v, abs=1e-9)
    np.testing.assert_allclose(traj.q[:, 1], 0.0, atol=1e-12)


# --- Anitescu's relaxation ------------------------------------------------------------------------

def test_anitescu_equals_lcp_without_friction():
    """Frictionless contact: Anitescu's QP (all three forms) gives the LCP's v' for random box states near ground."""
    rng = np.random.default_rng(1)
    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    for _ in range(6):
        w = rng.normal(scale=0.2, size=3)
        angle = np.linalg.norm(w)
        K = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]) / angle
        R = np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K
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


def test_hydroplaning_first_step_closed_form():
    """From φ = 0 and sliding speed v_t, Anitescu lifts the mass h μ (v_t − μ g h)/(1 + μ²); the LCP does not."""
    for h in (0.02, 0.01, 0.005):
        for mu in (0.2, 0.5, 1.0):
            run = hydroplaning(h, mu, 2.0, duration=h)
            assert run.z[1] == pytest.approx(hydroplaning_first_step(h, mu, 2.0), rel=1e-9)
            assert run.v_x[1] == pytest.approx((2.0 - mu * G * h) / (1 + mu**2), rel=1e-9)
            assert abs(hydroplaning(h, mu, 2.0, duration=h, method="lcp").z[1]) <= 1e-12


def test_hydroplaning_shrinks_with_h_and_grows_with_mu():
    """The spurious separation over a whole slide falls with the step size and rises with friction (μ ≤ 1)."""
    heights_h = [hydroplaning(h, 0.5, 2.0).max_height for h in (0.02, 0.01, 0.005)]
    assert heights_h[0] > heights_h[1] > heights_h[2] > 0
    heights_mu = hydroplaning_sweep([0.01], [0.2, 0.5, 0.9], 2.0)[0]
    assert heights_mu[0] < heights_mu[1] < heights_mu[2]
    assert hydroplaning(0.01, 0.5, 2.0, method="lcp").max_height <= 1e-12


# --- Todorov's regularized dual ------------------------------------------------------------------

def test_todorov_cart_equals_relaxed_cart_wall():
    """The 1-DOF cart with B = 2(1+ε)/κ, K = (1+ε)/κ², ε and b: Clarabel's dual = the notes' closed form."""
    m, h, b, eps, kappa = 1.0, 0.01, 0.2, 0.1, 0.05
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


# --- the relaxed cart against the wall ------------------------------------------------------------

def test_relaxed_cart_wall_follows_the_notes_equations():
    """One step, checked line by line against the notes' v⁻, v* and the argmin, for nonzero b, ε, κ, u."""
    m, h, b, eps, kappa, q, v, u = 2.0, 0.02, 0.5, 0.2, 0.08, 0.01, -1.5, 0.7
    v_minus = v + h / (m + b) * (u - b * v)
    v_star = v - 2 * h * (1 + eps) / kappa * v - h * (1 + eps) / kappa**2 * q
    grid = np.linspace(0.0, 5.0, 500001)           # brute-force argmin over f ≥ 0
    f_star = grid[np.argmin(0.5 * grid**2 * (1 + eps) / (m + b) + grid * (v_minus - v_star))]
    s = relaxed_cart_wall_step(m, h, q, v, u, b=b, eps=eps, kappa=kappa)
    assert h * float(s.f) == pytest.approx(f_star, abs=1e-5)
    assert float(s.v_next) == pytest.approx(v + h / (m + b) * (u + float(s.f) - b * v))
    assert float(s.q_next) == pytest.approx(q + h * float(s.v_next))


def test_relaxed_cart_wall_force_at_a_distance():
    """b = ε = 0: coming in at v < 0, the relaxed wall pushes already at q < 2κ|v|, where the LCP does not."""
    h, kappa, v = 0.01, 0.05, -1.0
    q = np.array([0.09, 0.11])                       # 2κ|v| = 0.1
    s = relaxed_cart_wall_step(1.0, h, q, v, kappa=kappa)
    assert s.f[0] > 1e-6 and abs(s.f[1]) <= 1e-12
    assert np.abs(cart_wall_closed_form(1.0, h, q, v).f).max() <= 1e-12


def test_relaxed_cart_wall_converges_to_the_lcp():
    """Shrinking b, ε, κ together, the relaxed trajectory approaches the LCP's (error about proportional to κ)."""
    h, steps = 1e-3, 800
    lcp = cart_wall_simulate(1.0, h, 0.5, -1.0, steps)
    errors = []
    for r in (0.1, 0.01, 0.001):
        relaxed = cart_wall_simulate(1.0, h, 0.5, -1.0, steps, method="relaxed", b=r, eps=r, kappa=r)
        errors.append(np.abs(relaxed.q - lcp.q).max())
        assert h * np.abs(relaxed.v - lcp.v).sum() < 2 * r
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 2e-3


# --- bad input ---------------------------------------------------------------------------------------

def test_bad_input_raises_value_error_naming_it():
    """Negative μ or step size, mismatched shapes, NaN, a non-symmetric M: ValueErrors that name the argument."""
    M, tau, v, phi, J = resting_box()
    with pytest.raises(ValueError, match="mu"):
        lcp_contact_step(M, tau, v, 0.01, phi, J, mu=-0.1)
    with pytest.raises(ValueError, match="h"):
        anitescu_step(M, tau, v, -0.01, phi, J)
    with pytest.raises(ValueError, match="h"):
        cart_wall_step(1.0, 0.0, 0.1, 0.0)
    with pytest.raises(ValueError, match="mu"):
        brick_friction_lcp(1.0, 0.1, 0.0, 0.0, -0.5)
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
    with pytest.raises(ValueError, match="kappa"):
        relaxed_cart_wall_step(1.0, 0.01, 0.0, 0.0, kappa=0.0)
    with pytest.raises(ValueError, match="b "):
        relaxed_cart_wall_step(1.0, 0.01, 0.0, 0.0, b=-1.0)
    with pytest.raises(ValueError, match="q must"):
        cart_wall_closed_form(1.0, 0.1, [np.inf], 0.0)
    with pytest.raises(ValueError, match="method"):
        simulate_contact(PointMass(), [0, 0], [0, 0], 0.01, 5, PointMass().ground_contact, method="euler")
    with pytest.raises(ValueError, match="steps"):
        cart_wall_simulate(1.0, 0.1, 0.0, 0.0, 0)
    with pytest.raises(ValueError, match="R0"):
        simulate_box(Box(), [0, 0, 1], 2 * np.eye(3), [0, 0, 0], [0, 0, 0], 0.01, 5)
    with pytest.raises(ValueError, match="size"):
        Box(size=(0.1, -0.2, 0.1))
    with pytest.raises(ValueError, match="dim"):
        PointMass(dim=4)
