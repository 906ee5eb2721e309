"""lib.particle: the point mass, its contacts, and the pendulum written as a particle on a rod."""

import numpy as np
import pytest

from lib.constraints import constrained_dynamics
from lib.particle import (DistanceConstraint, PointMass, circle_contact, floor_contact, particle_state,
                          pendulum_as_particle, pendulum_tension)
from lib.pendulum import SimplePendulum

RNG = np.random.default_rng(6)


def test_tension_at_rest_is_the_weight_component():
    """Hanging at angle θ with no speed, the rod carries m g cos θ and the bob accelerates at g sin θ."""
    pendulum = SimplePendulum(m=2.0, l=1.5, g=9.81)
    particle, rod = pendulum_as_particle(pendulum)
    theta = 0.7
    q, v = particle_state(pendulum.l, theta, 0.0)
    vdot, lam = constrained_dynamics(particle, rod, q, v)
    assert rod.tension(lam) == pytest.approx(2.0 * 9.81 * np.cos(theta), rel=1e-12)
    tangent = np.array([np.cos(theta), np.sin(theta)])
    assert vdot @ tangent == pytest.approx(-9.81 * np.sin(theta), rel=1e-12)


def test_particle_state_and_tension_are_the_pendulums():
    """p = l [sin θ, −cos θ] lies on the rod and ṗ is tangent to it; T = m l θ̇² + m g cos θ at the bottom is m(lω² + g)."""
    p, pd = particle_state(0.8, np.array([0.0, 0.5, 2.0]), np.array([1.0, -2.0, 0.3]))
    rod = DistanceConstraint(l=0.8)
    for pk, pdk in zip(p, pd):
        assert rod.h(pk)[0] == pytest.approx(0.0, abs=1e-15), "the bob must lie on the rod"
        assert rod.H(pk) @ pdk == pytest.approx(0.0, abs=1e-15), "the bob's velocity must be tangent to the rod"
    pend = SimplePendulum(m=2.0, l=0.8, g=10.0)
    assert float(pendulum_tension(pend, [0.0], [3.0])) == pytest.approx(2.0 * (0.8 * 9.0 + 10.0))


def test_distance_constraint_derivatives_match_finite_differences():
    """H = ∂h/∂q and Ḣ q̇ of ½ (‖p − a‖² − l²) equal central differences, in the plane and in space."""
    for anchor in ((0.2, -0.1), (0.0, 1.0, -0.5)):
        rod = DistanceConstraint(l=1.2, anchor=anchor)
        q, v = RNG.normal(size=len(anchor)), RNG.normal(size=len(anchor))
        eps = 1e-6
        H_fd = np.array([(rod.h(q + eps * e) - rod.h(q - eps * e))[0] / (2 * eps) for e in np.eye(len(q))])
        np.testing.assert_allclose(rod.H(q)[0], H_fd, atol=1e-8)
        Hdot = (rod.H(q + eps * v) - rod.H(q - eps * v)) / (2 * eps)
        np.testing.assert_allclose(rod.Hdot_v(q, v), Hdot @ v, atol=1e-7)


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_point_mass_falls_at_g_and_its_ground_is_the_floor_with_tangents(dim):
    """q̈ = −g e_z for any dim; ground_contact is floor_contact(dim, tangents=True) as (φ, J) arrays."""
    pm = PointMass(m=3.0, g=9.0, dim=dim)
    q = RNG.normal(size=dim)
    np.testing.assert_allclose(pm.forward_dynamics(q, np.zeros(dim)), np.eye(dim)[-1] * -9.0)
    phi, J = pm.ground_contact(q)
    floor = floor_contact(dim, tangents=True)
    assert phi.tolist() == [q[-1]] and J.shape == (1, dim, dim)
    np.testing.assert_array_equal(J[0], floor.rows(q))
    np.testing.assert_array_equal(J[0, 0], np.eye(dim)[-1])


def test_circle_contact_normal_is_the_gradient_of_its_distance():
    """n = ∂φ/∂q by central differences, and J̇ q̇ = d/dt (n) q̇ along a motion."""
    hump = circle_contact([0.3, -0.2], 0.7)
    q, v = np.array([0.9, 0.6]), np.array([-0.4, 1.1])
    eps = 1e-6
    grad = np.array([(hump.phi(q + eps * e) - hump.phi(q - eps * e)) / (2 * eps) for e in np.eye(2)])
    np.testing.assert_allclose(hump.rows(q)[0], grad, atol=1e-8)
    ndot = (hump.rows(q + eps * v) - hump.rows(q - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hump.rows_dot_v(q, v), ndot @ v, atol=1e-7)


def test_bad_parameters_are_rejected_by_name():
    """A fourth dimension, a zero mass or radius, an anchor in 4D: named."""
    with pytest.raises(ValueError, match="dim"):
        PointMass(dim=4)
    with pytest.raises(ValueError, match="m must"):
        PointMass(m=0.0)
    with pytest.raises(ValueError, match="R must"):
        circle_contact([0.0, 0.0], 0.0)
    with pytest.raises(ValueError, match="anchor"):
        DistanceConstraint(l=1.0, anchor=(0.0, 0.0, 0.0, 0.0))
