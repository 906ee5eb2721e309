"""The point mass: the simplest system, its contacts, and the pendulum as a particle on a rod.

A point mass m in one, two or three dimensions (gravity along the last
axis) is the body the chapters reach for whenever the point is the
constraint or the contact, not the body:

* chapter 4 writes the simple pendulum as a free particle held by a rod, a
  :class:`DistanceConstraint` (notes 000, "Bilateral Position Constraints");
* chapter 6 drops it on a floor and slides it over a hump, frictionless
  contacts of :mod:`lib.hybrid` (:func:`floor_contact`, :func:`circle_contact`);
* chapters 7 and 8 slide it on the ground with friction, as the notes' brick
  (:meth:`PointMass.ground_contact` for :mod:`lib.timestepping`).

Introduced in: chapter 4.
"""

from dataclasses import dataclass

import numpy as np

from . import checks
from .constraints import Contact, PositionConstraint
from .system import ManipulatorSystem


@dataclass(frozen=True)
class PointMass(ManipulatorSystem):
    """A free point mass m in ``dim`` dimensions, gravity −g along the last axis.

        M = m I,  C = 0,  tau_g = [0, …, 0, −m g],  B = I (a force on the particle).

    ``dim`` 1 is a height, 2 the vertical plane (q = [x, z]), 3 space
    (q = [x, y, z]). The ground z = 0 is :meth:`ground_contact`.

    >>> PointMass(m=2.0).gravity_vector([0.0, 1.0])
    array([  0.  , -19.62])

    Introduced in: chapter 4.
    """

    m: checks.Positive = 1.0
    g: checks.Finite = 9.81
    dim: int = 2

    def __post_init__(self):
        super().__post_init__()
        if int(self.dim) not in (1, 2, 3):
            raise ValueError(f"dim must be 1, 2 or 3, got {self.dim!r}")

    @property
    def n(self):
        return int(self.dim)

    def mass_matrix(self, q):
        checks.vector("q", q, self.n)
        return self.m * np.eye(self.n)

    def coriolis_matrix(self, q, v):
        self.check_state(q, v)
        return np.zeros((self.n, self.n))

    def gravity_vector(self, q):
        checks.vector("q", q, self.n)
        tau_g = np.zeros(self.n)
        tau_g[-1] = -self.m * self.g
        return tau_g

    def input_matrix(self):
        return np.eye(self.n)

    def potential_energy(self, q):
        return self.m * self.g * checks.vector("q", q, self.n)[-1]

    def ground_contact(self, q):
        """The ground z = 0 for time stepping: φ = [z] and J = [[e_z, e_x(, e_y)]], shape (1, dim, dim).

        The rows are :func:`floor_contact`'s normal followed by the tangents
        friction acts along (:func:`lib.timestepping.simulate_contact` takes
        this method as its ``contacts``).

        >>> PointMass().ground_contact([0.3, 0.2])
        (array([0.2]), array([[[0., 1.],
                [1., 0.]]]))
        """
        q = checks.vector("q", q, self.n)
        floor = floor_contact(self.n, tangents=True)
        return np.array([floor.phi(q)]), floor.rows(q)[None]


class DistanceConstraint(PositionConstraint):
    """Keep a point mass at distance l from an anchor: h = ½ (‖p − a‖² − l²) = 0.

        H = (p − a)ᵀ,   Ḣ q̇ = ‖ṗ‖².

    The force on the particle is Hᵀ λ = λ (p − a): the rod tension, pulling
    toward the anchor, is T = −λ l.

    >>> rod = DistanceConstraint(l=2.0)
    >>> rod.h([0.0, -2.0]), rod.H([0.0, -2.0]), rod.Hdot_v([0.0, -2.0], [1.0, 0.0])
    (array([0.]), array([[ 0., -2.]]), array([1.]))

    Introduced in: chapter 4.
    """

    def __init__(self, l, anchor=(0.0, 0.0)):
        self.l = checks.positive("l", l)
        self.anchor = np.asarray(anchor, dtype=float)
        if self.anchor.ndim != 1 or self.anchor.size not in (2, 3):
            raise ValueError(f"anchor must be a point in 2 or 3 dimensions, got {anchor!r}")
        self.n, self.m = self.anchor.size, 1

    def h(self, q):
        d = np.asarray(q, dtype=float) - self.anchor
        return np.array([0.5 * (d @ d - self.l**2)])

    def H(self, q):
        return (np.asarray(q, dtype=float) - self.anchor).reshape(1, self.n)

    def Hdot_v(self, q, v):
        v = np.asarray(v, dtype=float)
        return np.array([v @ v])

    def tension(self, lam):
        """The rod tension T = −λ l (newtons, positive when the rod pulls)."""
        return -np.asarray(lam, dtype=float)[..., 0] * self.l


def pendulum_as_particle(pendulum):
    """The simple pendulum rewritten as a free point mass on a rod: (PointMass, DistanceConstraint).

    >>> from lib.pendulum import SimplePendulum
    >>> particle, rod = pendulum_as_particle(SimplePendulum(m=2.0, l=0.5))
    >>> particle.m, rod.l
    (2.0, 0.5)

    Introduced in: chapter 4.
    """
    return PointMass(m=pendulum.m, g=pendulum.g, dim=2), DistanceConstraint(l=pendulum.l)


def particle_state(l, theta, theta_dot):
    """Cartesian state of a pendulum bob from its angle (θ = 0 hanging down):

        p = l [sin θ, −cos θ],   ṗ = l θ̇ [cos θ, sin θ].

    Works on arrays of angles (the last axis of the result holds x, y).

    >>> p, pd = particle_state(1.0, np.pi / 2, 2.0)
    >>> np.round(p, 12) + 0.0, np.round(pd, 12) + 0.0
    (array([1., 0.]), array([0., 2.]))

    Introduced in: chapter 4.
    """
    l = checks.positive("l", l)
    theta, theta_dot = np.asarray(theta, dtype=float), np.asarray(theta_dot, dtype=float)
    p = l * np.stack([np.sin(theta), -np.cos(theta)], axis=-1)
    pd = l * theta_dot[..., None] * np.stack([np.cos(theta), np.sin(theta)], axis=-1)
    return p, pd


def pendulum_tension(pendulum, q, v):
    """Rod tension of a simple pendulum from the radial balance of the bob:

        T = m l θ̇² + m g cos θ.

    >>> from lib.pendulum import SimplePendulum
    >>> float(pendulum_tension(SimplePendulum(m=1.0, l=1.0, g=10.0), [0.0], [1.0]))
    11.0

    Introduced in: chapter 4.
    """
    theta, theta_dot = np.asarray(q, dtype=float)[..., 0], np.asarray(v, dtype=float)[..., 0]
    return pendulum.m * pendulum.l * theta_dot**2 + pendulum.m * pendulum.g * np.cos(theta)


# --- frictionless contacts of a point mass (lib.hybrid) ---------------------------------
def floor_contact(dim, height=0.0, name="floor", tangents=False):
    """A horizontal floor for a :class:`PointMass`: φ(q) = z − height, normal n = e_z.

    Frictionless (the normal row only) by default; with ``tangents`` the
    rows e_x (, e_y) follow, along which a held contact sticks and friction acts.

    >>> floor_contact(2).phi(np.array([0.3, 1.5]))
    1.5
    >>> floor_contact(2, tangents=True).rows(np.array([0.3, 1.5]))
    array([[0., 1.],
           [1., 0.]])

    Introduced in: chapter 6.
    """
    height = checks.finite("height", height)
    rows = np.roll(np.eye(int(dim)), 1, axis=0)          # e_z, e_x (, e_y)
    rows = rows if tangents else rows[:1]
    return Contact(name, lambda q: float(q[-1] - height), lambda q: rows, lambda q, v: np.zeros(len(rows)))


def circle_contact(center, R, name="hump"):
    """A frictionless circle (sphere) of radius R for a :class:`PointMass` outside it.

        φ(q) = ‖q − c‖ − R,   n = (q − c)ᵀ / ‖q − c‖,   J̇ q̇ = (‖q̇‖² − (n q̇)²) / ‖q − c‖

    >>> hump = circle_contact([0.0, 0.0], 1.0)
    >>> hump.phi(np.array([0.0, 1.5])), hump.jacobian(np.array([0.0, 1.5]))
    (0.5, array([[0., 1.]]))

    Introduced in: chapter 6.
    """
    c = np.asarray(center, dtype=float)
    R = checks.positive("R", R)

    def phi(q):
        return float(np.linalg.norm(q - c) - R)

    def jacobian(q):
        d = q - c
        return (d / np.linalg.norm(d)).reshape(1, -1)

    def jdot_v(q, v):
        d = q - c
        r = np.linalg.norm(d)
        return np.array([(v @ v - (d @ v / r) ** 2) / r])

    return Contact(name, phi, jacobian, jdot_v)
