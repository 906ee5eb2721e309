"""Tests for lib.box: a box dropped, slid and tumbled onto the ground, eight corner contacts."""

import numpy as np
import pytest

from lib.box import Box, simulate_box


G = 9.81


def test_box_drop_settles_flat_and_holds_its_weight():
    """Dropped flat, the box comes to rest at height c/2 and the four corners carry m g h in total per step."""
    box = Box(m=2.0, size=(0.4, 0.2, 0.1))
    traj = simulate_box(box, [0.0, 0.0, 0.12], np.eye(3), [0, 0, 0], [0, 0, 0], h=0.01, steps=25)
    assert traj.p[-1, 2] == pytest.approx(0.05, abs=1e-12)
    assert traj.lam_n[-1].sum() == pytest.approx(2.0 * G * 0.01)
    assert traj.lam_n.min() >= -1e-12 and np.abs(traj.lam_n[:, 4:]).max() <= 1e-12   # top corners carry nothing
    corners = box.corners(traj.p[-1], traj.R[-1])
    np.testing.assert_allclose(corners[:4, 2], 0.0, atol=1e-12)


def test_box_slides_to_a_stop_at_mu_g():
    """Sliding flat along x on four corner contacts: v_x(n) = max(v0 − μ g h n, 0) exactly, and it does not turn."""
    box, h, mu = Box(m=1.0, size=(0.4, 0.2, 0.1)), 0.01, 0.3
    traj = simulate_box(box, [0.0, 0.0, 0.05], np.eye(3), [1.0, 0, 0], [0, 0, 0], h=h, steps=40, mu=mu)
    np.testing.assert_allclose(traj.v[:, 0], np.maximum(1.0 - mu * G * h * np.arange(41), 0.0), atol=1e-9)
    np.testing.assert_allclose(traj.omega, 0.0, atol=1e-9)
    np.testing.assert_allclose(traj.p[:, 2], 0.05, atol=1e-12)


def test_box_tumbles_without_penetrating():
    """Thrown spinning onto the ground: the LCP never lets a corner sink more than round-off, and it settles."""
    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    c, s = np.cos(0.5), np.sin(0.5)
    R0 = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    traj = simulate_box(box, [0.0, 0.0, 0.25], R0, [0.5, 0.0, 0.0], [0.0, 2.0, 1.0], h=0.01, steps=120, mu=0.6)
    lowest = np.array([box.corners(p, R)[:, 2].min() for p, R in zip(traj.p, traj.R)])
    assert lowest.min() > -1e-9
    assert np.abs(traj.v[-1]).max() < 1e-9 and np.abs(traj.omega[-1]).max() < 1e-9


def test_bad_input_raises_value_error_naming_it():
    """Not a rotation, a negative side, no steps: ValueErrors that name the argument."""
    with pytest.raises(ValueError, match="R0"):
        simulate_box(Box(), [0, 0, 1], 2 * np.eye(3), [0, 0, 0], [0, 0, 0], h=0.01, steps=5)
    with pytest.raises(ValueError, match="size"):
        Box(size=(0.1, -0.2, 0.1))
    with pytest.raises(ValueError, match="steps"):
        simulate_box(Box(), [0, 0, 1], np.eye(3), [0, 0, 0], [0, 0, 0], h=0.01, steps=0)
    with pytest.raises(ValueError, match="method"):
        simulate_box(Box(), [0, 0, 1], np.eye(3), [0, 0, 0], [0, 0, 0], h=0.01, steps=5, method="euler")
