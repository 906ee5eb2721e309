"""Balls that bounce, as hybrid systems: the bouncing ball and the spinning ball.

Two worked examples of chapter 6 for :func:`lib.hybrid.contact_modes` (notes
000, "Putting it all together"; notes 004, "Simulating Hybrid Systems"):

* the bouncing ball, a :class:`lib.particle.PointMass` over a floor, whose
  bounces with restitution e < 1 pile up before a finite time (Zeno) at the
  closed-form :func:`bouncing_ball_rest_time`;
* the :class:`lib.impulse.SpinningBall`, whose touchdown applies the
  infinite-friction impact map, until it rolls.

Introduced in: chapter 6.
"""

import numpy as np

from . import checks
from .constraints import Contact
from .hybrid import contact_modes
from .impulse import restitution
from .particle import PointMass, floor_contact


def bouncing_ball_modes(e, m=1.0, g=9.81):
    """The bouncing ball: a point mass over a floor, modes "free" (flight) and "floor" (resting).

    Touchdown (z = 0) reverses the velocity, ż⁺ = −e ż⁻; the bounces pile up
    (Zeno) and the ball comes to rest on the floor.

    >>> from lib.hybrid import simulate_hybrid
    >>> run = simulate_hybrid(bouncing_ball_modes(e=0.5), "free", [1.0, 0.0], t_final=3.0)
    >>> run.segments[-1].mode, round(run.events[-1].t, 4), round(bouncing_ball_rest_time(1.0, 0.5), 4)
    ('floor', 1.3546, 1.3546)

    Introduced in: chapter 6.
    """
    return contact_modes(PointMass(m=m, g=g, dim=1), [floor_contact(1)], e)


def bouncing_ball_rest_time(h0, e, g=9.81):
    """When a ball dropped from rest at height h0 comes to rest: t∞ = √(2 h0/g) (1 + e)/(1 − e).

    The first fall takes t₀ = √(2 h0/g) and ends at speed v₀ = g t₀; the k-th
    flight after it lasts 2 eᵏ v₀/g, a geometric series summing to
    2 e v₀ / (g (1 − e)).

    >>> round(bouncing_ball_rest_time(1.0, 0.0), 4)
    0.4515

    Introduced in: chapter 6.
    """
    h0 = checks.positive("h0", h0)
    e = restitution(e)
    g = checks.positive("g", g)
    if e == 1.0:
        return np.inf
    return float(np.sqrt(2 * h0 / g) * (1 + e) / (1 - e))


def spinning_ball_modes(ball, e):
    """A :class:`lib.impulse.SpinningBall` bouncing on the ground: modes "free" (flight) and "ground" (rolling).

    Touchdown (φ = z − r = 0) applies the post-impact matrix of the notes
    (infinite friction): after the first bounce the contact point no longer
    slides, and once the bounces pile up the ball rolls, ẋ + r θ̇ = 0.

    >>> from lib.hybrid import simulate_hybrid
    >>> from lib.impulse import SpinningBall
    >>> ball = SpinningBall(r=0.1)
    >>> x0 = [0.0, 0.5, 0.0, 1.0, 0.0, 30.0]          # moving right with backspin
    >>> run = simulate_hybrid(spinning_ball_modes(ball, e=0.6), "free", x0, t_final=2.0)
    >>> round(float(run.events[0].x_plus[3]), 3)       # after the first bounce it moves left
    -0.6

    Introduced in: chapter 6.
    """
    ground = Contact("ground", ball.signed_distance, ball.contact_jacobian, lambda q, v: np.zeros(2))
    return contact_modes(ball, [ground], e)
