"""Concentrated elasticity at a joint: a link driven through a torsional spring by a geared motor.

Notes 003 model the links as rigid bodies "+ later on, concentrated elasticity
at the joints". With a harmonic drive or a long shaft, the gearbox twists: the
link angle θ and the motor angle seen through the gear, θ_m / n_r, are two
coordinates tied by a spring of stiffness K instead of one. In the reduced
model (the rotor's kinetic energy due to the link's rotation is neglected),
with q = [θ, ψ], ψ = θ_m / n_r:

    T = ½ I_l θ̇² + ½ n_r² I_m ψ̇²,   U = −m g0 d cos θ + ½ K (θ − ψ)²,

and Lagrange's equations give

    I_l θ̈ + m g0 d sin θ + K (θ − ψ) = −b_l θ̇ + l cos θ F_x
    n_r² I_m ψ̈ + K (ψ − θ) = n_r τ_m − b_m n_r² ψ̇

As K → ∞ the two angles become one, and the sum of the two equations is the
rigid geared pendulum :class:`lib.pendulum.ActuatedPendulum` with
I = I_l + n_r² I_m.

Introduced in: chapter 1.
"""

from dataclasses import dataclass

import numpy as np

from . import checks
from .pendulum import ActuatedPendulum
from .system import ManipulatorSystem


@dataclass(frozen=True)
class ElasticJointPendulum(ManipulatorSystem):
    """The geared pendulum of chapter 1 with a torsional spring K between gear and link, q = [θ, θ_m / n_r].

        M = diag(I_l, n_r² I_m),   C = 0,
        tau_g = [−m g0 d sin θ − K (θ − ψ), −K (ψ − θ)],   B = [[0], [n_r]],   u = [τ_m]

    The spring is conservative: its energy ½ K (θ − ψ)² is part of U and its
    torques part of tau_g. Friction (b_l on the link, b_m on the motor shaft)
    and the horizontal force F_x at distance l are external forces.

    >>> joint = ElasticJointPendulum(K=100.0)
    >>> joint.gravity_vector([0.0, 0.01]).round(4)     # the spring pulls the link after the motor
    array([ 1., -1.])
    >>> float(joint.rigid().I) == joint.I_l + joint.n_r**2 * joint.I_m
    True

    Introduced in: chapter 1.
    """

    K: float = 1000.0
    I_l: float = 0.17
    I_m: float = 1e-4
    m: float = 2.0
    d: float = 0.25
    n_r: float = 50.0
    b_l: float = 0.0
    b_m: float = 0.0
    l: float = 0.5
    F_x: float = 0.0
    g0: float = 9.81
    n = 2

    def __post_init__(self):
        for name in ("K", "I_l", "I_m", "m", "d", "n_r", "l"):
            checks.positive(name, getattr(self, name))
        checks.nonnegative("b_l", self.b_l)
        checks.nonnegative("b_m", self.b_m)
        checks.finite("F_x", self.F_x)
        checks.finite("g0", self.g0)

    def rigid(self):
        """The same pendulum with a rigid joint (K → ∞): :class:`ActuatedPendulum` on the link side."""
        return ActuatedPendulum(I=self.I_l + self.n_r**2 * self.I_m, m=self.m, d=self.d, n_r=self.n_r,
                                b_l=self.b_l, b_m=self.b_m, l=self.l, F_x=self.F_x, g0=self.g0)

    def mass_matrix(self, q):
        checks.vector("q", q, 2)
        return np.diag([self.I_l, self.n_r**2 * self.I_m])

    def coriolis_matrix(self, q, v):
        self.check_state(q, v)
        return np.zeros((2, 2))

    def gravity_vector(self, q):
        theta, psi = checks.vector("q", q, 2)
        twist = self.K * (theta - psi)
        return np.array([-self.m * self.g0 * self.d * np.sin(theta) - twist, twist])

    def input_matrix(self):
        return np.array([[0.0], [self.n_r]])

    def external_force(self, q, v):
        q, v = self.check_state(q, v)
        return np.array([-self.b_l * v[0] + self.l * np.cos(q[0]) * self.F_x,
                         -self.b_m * self.n_r**2 * v[1]])

    def potential_energy(self, q):
        """U = −m g0 d cos θ + ½ K (θ − ψ)²."""
        theta, psi = checks.vector("q", q, 2)
        return -self.m * self.g0 * self.d * np.cos(theta) + 0.5 * self.K * (theta - psi) ** 2

    def elastic_frequency(self):
        """ω_e = √(K (I_l + n_r² I_m) / (I_l n_r² I_m)), rad/s: link and rotor swinging against each other.

        >>> round(ElasticJointPendulum(K=100.0, I_l=1.0, I_m=1.0, n_r=1.0).elastic_frequency(), 4)
        14.1421
        """
        B_m = self.n_r**2 * self.I_m
        return float(np.sqrt(self.K * (self.I_l + B_m) / (self.I_l * B_m)))
