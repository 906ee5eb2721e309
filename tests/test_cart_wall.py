"""Tests for lib.cart_wall: the cart against the wall, by Lemke, in closed form, as a QP and relaxed."""

import numpy as np
import pytest

from lib.cart_wall import (cart_wall_batch, cart_wall_closed_form, cart_wall_gauss_qp, cart_wall_lcp,
                           cart_wall_step, relaxed_cart_wall_step, simulate_cart_wall)
from lib.lcp import complementarity_certificate
from lib.particle import PointMass
from lib.timestepping import simulate_contact


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
    traj = simulate_cart_wall(1.0, 0.25, -1.0, h=0.01, steps=60)
    np.testing.assert_allclose(traj.q, np.maximum(0.25 - traj.t, 0.0), atol=1e-12)
    assert np.abs(traj.v[30:]).max() <= 1e-12             # at rest against the wall
    assert traj.f[25] == pytest.approx(1.0 / 0.01)        # the impulse m|v| = 1 N·s over one step


def test_cart_wall_run_is_simulate_contact_on_a_point_mass_on_a_line():
    """The cart is the protocol's contact step on PointMass(m, g=0, dim=1) with φ = q, J = [[1]]; impulse = h f."""
    m, h, steps = 2.0, 0.05, 20

    def wall(q):
        return np.array([q[0]]), np.array([[[1.0]]])

    for u in (-3.0, lambda t, q, v: -3.0 if t >= 0.4 else 1.0):
        cart = simulate_cart_wall(m, 0.3, -1.0, h=h, steps=steps, u=u)
        force = (lambda t, q, v: np.array([u(t, q[0], v[0])])) if callable(u) else np.array([u])
        run = simulate_contact(PointMass(m=m, g=0.0, dim=1), [0.3], [-1.0], contacts=wall, h=h, steps=steps, u=force)
        assert cart.f.max() > 1.0, "the cart must reach the wall and be pushed back by it"
        np.testing.assert_allclose(run.t, cart.t, rtol=0, atol=1e-15)
        np.testing.assert_allclose(run.q[:, 0], cart.q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(run.v[:, 0], cart.v, rtol=0, atol=1e-12)
        np.testing.assert_allclose(run.lam[:, 0, 0], h * cart.f, rtol=0, atol=1e-9)


def test_relaxed_cart_wall_follows_the_notes_equations():
    """One step, checked line by line against v⁻, v* and the argmin, for nonzero b, ε, κ, u.

    The implicit damping in MuJoCo's form, (m + h b)(v' − v)/h = u + f − b v: b (N·s/m)
    adds the inertia h b, not b.
    """
    m, h, b, eps, kappa, q, v, u = 2.0, 0.02, 5.0, 0.2, 0.08, 0.01, -1.5, 0.7
    v_minus = v + h / (m + h * b) * (u - b * v)
    v_star = v - 2 * h * (1 + eps) / kappa * v - h * (1 + eps) / kappa**2 * q
    grid = np.linspace(0.0, 5.0, 500001)           # brute-force argmin over hf ≥ 0
    f_star = grid[np.argmin(0.5 * grid**2 * (1 + eps) / (m + h * b) + grid * (v_minus - v_star))]
    s = relaxed_cart_wall_step(m, h, q, v, u, b=b, eps=eps, kappa=kappa)
    assert h * float(s.f) == pytest.approx(f_star, abs=1e-5)
    assert float(s.v_next) == pytest.approx(v + h / (m + h * b) * (u + float(s.f) - b * v))
    # the notes' (m + b) would be a different step: b of 5 N·s/m is not 5 kg
    assert float(s.v_next) != pytest.approx(v + h / (m + b) * (u + float(s.f) - b * v), rel=1e-3)
    assert float(s.q_next) == pytest.approx(q + h * float(s.v_next))


def test_relaxed_cart_wall_damping_is_a_damping():
    """Far from the wall, u = 0: b damps the speed, v' = v (m + h b − h b)/(m + h b) = v m/(m + h b)."""
    for m, h, b in [(1.0, 0.01, 0.5), (2.0, 0.005, 40.0)]:
        s = relaxed_cart_wall_step(m, h, 10.0, 1.0, b=b)
        assert float(s.f) == 0.0
        assert float(s.v_next) == pytest.approx(m / (m + h * b))


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
    lcp = simulate_cart_wall(1.0, 0.5, -1.0, h=h, steps=steps)
    errors = []
    for r in (0.1, 0.01, 0.001):
        relaxed = simulate_cart_wall(1.0, 0.5, -1.0, h=h, steps=steps, method="relaxed", b=r, eps=r, kappa=r)
        errors.append(np.abs(relaxed.q - lcp.q).max())
        assert h * np.abs(relaxed.v - lcp.v).sum() < 2 * r
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 2e-3


def test_bad_input_raises_value_error_naming_it():
    """A zero step, a negative κ or b, an infinite position, no steps: ValueErrors that name the argument."""
    with pytest.raises(ValueError, match="h"):
        cart_wall_step(1.0, 0.0, 0.1, 0.0)
    with pytest.raises(ValueError, match="kappa"):
        relaxed_cart_wall_step(1.0, 0.01, 0.0, 0.0, kappa=0.0)
    with pytest.raises(ValueError, match="b "):
        relaxed_cart_wall_step(1.0, 0.01, 0.0, 0.0, b=-1.0)
    with pytest.raises(ValueError, match=r"q must contain only finite numbers; q\[0\] = inf"):
        cart_wall_closed_form(1.0, 0.1, [np.inf], 0.0)
    with pytest.raises(ValueError, match="steps"):
        simulate_cart_wall(1.0, 0.0, 0.0, h=0.1, steps=0)
    with pytest.raises(ValueError, match="method"):
        simulate_cart_wall(1.0, 0.0, 0.0, h=0.1, steps=5, method="euler")
