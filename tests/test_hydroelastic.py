"""lib.hydroelastic: the pressure-field wrench against brute-force quadrature and closed forms."""

import numpy as np
import pytest

from lib import hydroelastic as hy
from lib.rigid_body import rotation

RNG = np.random.default_rng(5)
E, H, WIDTH = 2e5, 0.03, 0.25


def box(center, angle, a=0.4, b=0.1):
    R = rotation([0.0, 0.0, 1.0], angle)[:2, :2]
    corners = np.array([[-a / 2, -b / 2], [a / 2, -b / 2], [a / 2, b / 2], [-a / 2, b / 2]])
    return np.asarray(center) + corners @ R.T


def brute_force(vertices, samples=20000):
    """Sample every edge densely and sum p n dA and (r x n) p dA (midpoint rule)."""
    force, moment = np.zeros(2), 0.0
    for a, b in zip(vertices, np.roll(vertices, -1, axis=0)):
        edge = b - a
        L = np.hypot(*edge)
        inward = np.array([-edge[1], edge[0]]) / L
        s = (np.arange(samples) + 0.5) / samples
        pts = a + s[:, None] * edge
        p = hy.layer_pressure(-pts[:, 1], E, H) * WIDTH * L / samples
        force += p.sum() * inward
        moment += np.sum(p * (pts[:, 0] * inward[1] - pts[:, 1] * inward[0]))
    return force, moment


def test_wrench_matches_brute_force_for_random_poses():
    for _ in range(10):
        verts = box([RNG.uniform(-0.1, 0.1), RNG.uniform(0.02, 0.06)], RNG.uniform(-0.6, 0.6))
        w = hy.polygon_on_layer(verts, E, H, WIDTH)
        f, m = brute_force(verts)
        scale = np.abs(f).max()          # the midpoint rule is least accurate where an edge leaves the layer
        assert np.allclose(w.force, f, rtol=1e-5, atol=1e-6 * scale), f"force {w.force} vs quadrature {f}"
        assert np.isclose(w.moment, m, rtol=1e-5, atol=1e-6 * scale), f"moment {w.moment} vs quadrature {m}"


def test_flat_box_sinks_evenly():
    depth = 0.004
    w = hy.polygon_on_layer(box([0.1, 0.05 - depth], 0.0), E, H, WIDTH, about=(0.1, 0.0))
    assert np.allclose(w.force, [0.0, E * depth / H * 0.4 * WIDTH])
    assert abs(w.moment) < 1e-9 and np.isclose(w.center_of_pressure, 0.1)


def test_small_tilt_gives_the_winkler_rotational_stiffness():
    """A face of length a pressed evenly and tilted by a small angle resists with E w a^3 / (12 H) per radian."""
    angle = 1e-4
    face_centre = rotation([0.0, 0.0, 1.0], angle)[:2, :2] @ [0.0, -0.05] + [0.0, 0.05 - 0.004]
    w = hy.polygon_on_layer(box([0.0, 0.05 - 0.004], angle), E, H, WIDTH, about=face_centre)
    assert np.isclose(-w.moment / angle, E * WIDTH * 0.4**3 / (12 * H), rtol=1e-3)


def test_no_contact_above_the_layer():
    w = hy.polygon_on_layer(box([0.0, 0.2], 0.3), E, H, WIDTH)
    assert np.allclose(w.force, 0.0) and w.contact_length == 0.0 and np.isnan(w.center_of_pressure)


def test_radius_integral_against_a_grid():
    a, b = 0.3, 0.12
    n = 1500
    x = (np.arange(n) + 0.5) / n * a - a / 2
    y = (np.arange(n) + 0.5) / n * b - b / 2
    grid = np.hypot(*np.meshgrid(x, y)).sum() * (a / n) * (b / n)
    assert np.isclose(hy.rectangle_radius_integral(a, b), grid, rtol=1e-6)


def test_torsional_friction_models_order():
    values = [hy.torsional_friction_moment(0.3, 0.2, 0.6, 20.0, m) for m in ("center", "pressure", "corners")]
    assert values[0] == 0.0 < values[1] < values[2]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="counter-clockwise"):
        hy.polygon_on_layer(box([0, 0], 0.0)[::-1], E, H)
    with pytest.raises(ValueError, match="shape"):
        hy.polygon_on_layer([[0, 0], [1, 0]], E, H)
    with pytest.raises(ValueError, match="E must"):
        hy.layer_pressure(0.1, -1.0, H)
    with pytest.raises(ValueError, match="model"):
        hy.torsional_friction_moment(1, 1, 0.5, 1.0, "edges")
