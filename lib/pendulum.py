"""Pendulums in the common protocol: simple, double, and actuated through a gearbox.

Each class is a :class:`lib.system.ManipulatorSystem`: it gives M(q), C(q, v),
tau_g(q), B and the energies in closed form, and inherits forward and inverse
dynamics, the total energy and simulation.

Introduced in: chapter 1.
"""

from dataclasses import dataclass

import numpy as np

from . import checks
from .system import ManipulatorSystem


@dataclass(frozen=True)
class SimplePendulum(ManipulatorSystem):
    """A point mass m on a massless rod of length l, torque u at the pivot, viscous friction b.

    q = [θ], θ = 0 hanging straight down.

        m l² θ̈ = −m g l sin θ − b θ̇ + u

    >>> p = SimplePendulum(m=1.0, l=2.0)
    >>> p.mass_matrix([0.3])
    array([[4.]])
    >>> round(float(p.forward_dynamics([np.pi / 2], [0.0])[0]), 4)
    -4.905
    """

    n = 1

    m: checks.Positive = 1.0
    l: checks.Positive = 1.0
    g: checks.Finite = 9.81
    b: checks.Nonnegative = 0.0

    def mass_matrix(self, q):
        checks.vector("q", q, 1)
        return np.array([[self.m * self.l**2]])

    def coriolis_matrix(self, q, v):
        self.check_state(q, v)
        return np.zeros((1, 1))

    def gravity_vector(self, q):
        q = checks.vector("q", q, 1)
        return np.array([-self.m * self.g * self.l * np.sin(q[0])])

    def input_matrix(self):
        return np.eye(1)

    def external_force(self, q, v):
        q, v = self.check_state(q, v)
        return -self.b * v

    def potential_energy(self, q):
        q = checks.vector("q", q, 1)
        return -self.m * self.g * self.l * np.cos(q[0])


@dataclass(frozen=True)
class DoublePendulum(ManipulatorSystem):
    """The simple double pendulum of notes 000: point masses m1, m2 on massless links l1, l2.

    q = [θ1, θ2] (θ2 relative to link 1), torques u = [τ1, τ2] at both joints, B = I.
    With s2 = sin θ2, c2 = cos θ2 and s12 = sin(θ1 + θ2):

        M = [[(m1+m2) l1² + m2 l2² + 2 m2 l1 l2 c2,  m2 l2² + m2 l1 l2 c2],
             [m2 l2² + m2 l1 l2 c2,                   m2 l2²            ]]
        C = [[0,                            −m2 l1 l2 (2 θ̇1 + θ̇2) s2],
             [½ m2 l1 l2 (2 θ̇1 + θ̇2) s2,   −½ m2 l1 l2 θ̇1 s2      ]]
        tau_g = −g [(m1+m2) l1 s1 + m2 l2 s12,  m2 l2 s12]

    >>> dp = DoublePendulum(m1=1.0, m2=1.0, l1=1.0, l2=1.0)
    >>> dp.mass_matrix([0.0, 0.0])
    array([[5., 2.],
           [2., 1.]])
    >>> dp.gravity_vector([0.0, 0.0])
    array([-0., -0.])
    """

    n = 2

    m1: checks.Positive = 1.0
    m2: checks.Positive = 1.0
    l1: checks.Positive = 1.0
    l2: checks.Positive = 1.0
    g: checks.Finite = 9.81

    def mass_matrix(self, q):
        q = checks.vector("q", q, 2)
        m1, m2, l1, l2 = self.m1, self.m2, self.l1, self.l2
        c2 = np.cos(q[1])
        off = m2 * l2**2 + m2 * l1 * l2 * c2
        return np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, off],
                         [off, m2 * l2**2]])

    def coriolis_matrix(self, q, v):
        q, v = self.check_state(q, v)
        k = self.m2 * self.l1 * self.l2 * np.sin(q[1])
        return np.array([[0.0, -k * (2 * v[0] + v[1])],
                         [0.5 * k * (2 * v[0] + v[1]), -0.5 * k * v[0]]])

    def gravity_vector(self, q):
        q = checks.vector("q", q, 2)
        s1, s12 = np.sin(q[0]), np.sin(q[0] + q[1])
        return -self.g * np.array([(self.m1 + self.m2) * self.l1 * s1 + self.m2 * self.l2 * s12,
                                   self.m2 * self.l2 * s12])

    def input_matrix(self):
        return np.eye(2)

    def positions(self, q):
        """Cartesian positions p1, p2 of the two masses (x right, y up), shape (2, 2).

        >>> DoublePendulum().positions([0.0, 0.0])
        array([[ 0., -1.],
               [ 0., -2.]])
        """
        q = checks.vector("q", q, 2)
        p1 = self.l1 * np.array([np.sin(q[0]), -np.cos(q[0])])
        p2 = p1 + self.l2 * np.array([np.sin(q[0] + q[1]), -np.cos(q[0] + q[1])])
        return np.array([p1, p2])

    def kinetic_energy(self, q, v):
        """T = ½(m1+m2) l1² θ̇1² + ½ m2 l2² (θ̇1+θ̇2)² + m2 l1 l2 θ̇1 (θ̇1+θ̇2) c2."""
        q, v = self.check_state(q, v)
        m1, m2, l1, l2 = self.m1, self.m2, self.l1, self.l2
        return (0.5 * (m1 + m2) * l1**2 * v[0] ** 2 + 0.5 * m2 * l2**2 * (v[0] + v[1]) ** 2
                + m2 * l1 * l2 * v[0] * (v[0] + v[1]) * np.cos(q[1]))

    def kinetic_energy_gradient(self, q, v):
        """∂T/∂q = [0, −m2 l1 l2 θ̇1 (θ̇1+θ̇2) s2]: only the elbow angle enters T.

        >>> DoublePendulum().kinetic_energy_gradient([0.0, np.pi / 2], [1.0, 1.0])
        array([ 0., -2.])
        """
        q, v = self.check_state(q, v)
        return np.array([0.0, -self.m2 * self.l1 * self.l2 * v[0] * (v[0] + v[1]) * np.sin(q[1])])

    def potential_energy(self, q):
        """U = −(m1+m2) g l1 c1 − m2 g l2 c12."""
        q = checks.vector("q", q, 2)
        return (-(self.m1 + self.m2) * self.g * self.l1 * np.cos(q[0])
                - self.m2 * self.g * self.l2 * np.cos(q[0] + q[1]))


@dataclass(frozen=True)
class ActuatedPendulum(ManipulatorSystem):
    """A pendulum driven by a motor through a gear of ratio n_r, with friction and a horizontal force (notes 003).

    On the link side, q = [θ]:

        I θ̈ + m g0 d sin θ = n_r τ_m − (b_l + b_m n_r²) θ̇ + l cos θ · F_x

    where I is the total inertia seen by the link (link plus the motor's rotor
    reflected through the gear), d the distance of the centre of mass from the
    axis, b_l and b_m the viscous friction on the link and motor sides, and F_x a
    constant horizontal force applied at distance l from the axis. The input is
    the motor torque, u = [τ_m].

    With ``side="motor"`` the same system is written in the motor angle
    θ_m = n_r θ (divide by n_r and substitute):

        (I/n_r²) θ̈_m + (m/n_r) g0 d sin(θ_m/n_r) = τ_m − (b_l/n_r² + b_m) θ̇_m + (l/n_r) cos(θ_m/n_r) F_x

    >>> link = ActuatedPendulum(I=2.0, m=1.0, d=0.5, n_r=10.0)
    >>> motor = link.motor_side()
    >>> float(motor.mass_matrix([0.0])[0, 0])
    0.02
    """

    n = 1

    I: checks.Positive = 1.0
    m: checks.Positive = 1.0
    d: checks.Positive = 0.5
    n_r: checks.Positive = 1.0
    b_l: checks.Nonnegative = 0.0
    b_m: checks.Nonnegative = 0.0
    l: checks.Positive = 1.0
    F_x: checks.Finite = 0.0
    g0: checks.Finite = 9.81
    side: str = "link"

    def __post_init__(self):
        super().__post_init__()
        if self.side not in ("link", "motor"):
            raise ValueError(f"side must be 'link' or 'motor', got {self.side!r}")

    def motor_side(self):
        """The same pendulum written in the motor angle θ_m = n_r θ."""
        return ActuatedPendulum(self.I, self.m, self.d, self.n_r, self.b_l, self.b_m, self.l,
                                self.F_x, self.g0, side="motor")

    def _scale(self):
        # k = 1 on the link side; on the motor side every term is divided by n_r
        # and θ = θ_m / n_r, so θ̇ = θ̇_m / n_r and θ̈ = θ̈_m / n_r.
        return 1.0 if self.side == "link" else self.n_r

    def link_angle(self, q):
        """θ from the coordinate q (θ itself, or θ_m / n_r on the motor side)."""
        return checks.vector("q", q, 1)[0] / self._scale()

    def mass_matrix(self, q):
        checks.vector("q", q, 1)
        return np.array([[self.I / self._scale() ** 2]])

    def coriolis_matrix(self, q, v):
        self.check_state(q, v)
        return np.zeros((1, 1))

    def gravity_vector(self, q):
        theta = self.link_angle(q)
        return np.array([-self.m * self.g0 * self.d * np.sin(theta) / self._scale()])

    def input_matrix(self):
        return np.array([[self.n_r / self._scale()]])

    def external_force(self, q, v):
        q, v = self.check_state(q, v)
        k = self._scale()
        friction = -(self.b_l + self.b_m * self.n_r**2) / k**2 * v
        load = self.l * np.cos(self.link_angle(q)) * self.F_x / k
        return friction + load

    def potential_energy(self, q):
        """U = −m g0 d cos θ (zero with the centre of mass at the axis height)."""
        return -self.m * self.g0 * self.d * np.cos(self.link_angle(q))
