"""Tests for lib.brick: the brick's friction LCP against its closed form, and Anitescu's hydroplaning."""

import numpy as np
import pytest

from lib.brick import (brick_friction_batch, brick_friction_closed_form, brick_friction_lcp, brick_friction_step,
                       hydroplaning, hydroplaning_first_step, hydroplaning_sweep)
from lib.lcp import complementarity_certificate, complementary_solutions


G = 9.81


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


def test_bad_input_raises_value_error_naming_it():
    """A negative μ or step, a zero slide duration: ValueErrors that name the argument."""
    with pytest.raises(ValueError, match="mu"):
        brick_friction_lcp(1.0, 0.1, 0.0, 0.0, -0.5)
    with pytest.raises(ValueError, match="h"):
        brick_friction_step(1.0, -0.1, 0.0, 0.0, 0.5)
    with pytest.raises(ValueError, match="duration"):
        hydroplaning(0.01, 0.5, 2.0, duration=0.0)
