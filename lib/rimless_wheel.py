"""The rimless wheel: in minimal coordinates with its step-to-step map, and in floating-base coordinates.

The hybrid system of notes 004: a hub on spokes 2α apart rolling down a
ramp of slope γ. :class:`RimlessWheel` pins the stance toe (q = [θ]): the
stance dynamics, the collision reset, the return map in closed form and by
simulation (:func:`lib.hybrid.first_event`), its fixed point and stability.
:class:`FloatingRimlessWheel` is the same wheel as a free body (q = [x, z, θ])
held at the toe by contact forces, the modes of :func:`lib.hybrid.contact_modes`
("Minimal vs floating-base coordinates"). :mod:`lib.trajopt` finds its
limit cycle by collocation.

Introduced in: chapter 6.
"""

from dataclasses import dataclass

import numpy as np

from . import checks
from .constraints import Contact, constrained_dynamics
from .hybrid import Guard, Mode, contact_modes, first_event, fixed_point
from .system import ManipulatorSystem, PlanarBody


@dataclass(frozen=True)
class WheelParameters(checks.Checked):
    """The rimless wheel's parameters, checked: hub mass m, spoke length l, gravity g, half the angle between
    spokes α (0 < α < π/2), ramp slope γ (0 ≤ γ < π/2) and hub inertia I (kg, m, m/s², rad, rad, kg m²).

    :class:`RimlessWheel` and :class:`FloatingRimlessWheel` are the same wheel in two sets of coordinates.

    >>> WheelParameters(alpha=np.pi / 6).alpha == RimlessWheel(alpha=np.pi / 6).alpha
    True

    Introduced in: chapter 6.
    """

    m: checks.Positive = 1.0
    l: checks.Positive = 1.0
    g: checks.Positive = 9.81
    alpha: checks.Positive = np.pi / 8
    gamma: checks.Finite = 0.08
    I: checks.Nonnegative = 0.0

    def __post_init__(self):
        super().__post_init__()
        if self.alpha >= np.pi / 2:
            raise ValueError(f"alpha must be in (0, π/2) (half the angle between spokes), got {self.alpha!r}")
        if not (0.0 <= self.gamma < np.pi / 2):
            raise ValueError(f"gamma must be in [0, π/2) (the ramp slope), got {self.gamma!r}")


@dataclass(frozen=True)
class RimlessWheel(WheelParameters, ManipulatorSystem):
    """The rimless wheel on a ramp, in minimal coordinates: the stance leg pinned at its toe (notes 004).

    A point mass m at the hub (plus an optional hub inertia I) on massless
    spokes of length l, 2α apart, rolling down a ramp of slope γ. q = [θ], the
    stance leg's angle clockwise from the vertical. In stance

        (m l² + I) θ̈ = m g l sin θ        (θ̈ = (g/l) sin θ when I = 0),

    the next toe touches down at θ = γ + α, and the collision (angular
    momentum about the new toe conserved, the old leg leaving the ground)
    resets θ⁺ = θ⁻ − 2α and

        θ̇⁺ = c θ̇⁻,   c = (m l² cos 2α + I)/(m l² + I)   (= cos 2α when I = 0).

    Energy conservation over a step, ½ θ̇_N² = ½ θ̇_0² + 2 (g/l) sin α sin γ,
    with θ̇_0 = c θ̇_N gives the rolling fixed point (just after a collision)

        θ̇* = c √(4 m g l sin α sin γ / ((m l² + I)(1 − c²)))  (= cot 2α √(4 (g/l) sin α sin γ)).

    >>> wheel = RimlessWheel(alpha=np.pi / 8, gamma=0.08)
    >>> round(wheel.rolling_fixed_point(), 6)
    1.095463

    Introduced in: chapter 6.
    """

    n = 1

    # the protocol
    def mass_matrix(self, q):
        checks.vector("q", q, 1)
        return np.array([[self.m * self.l**2 + self.I]])

    def coriolis_matrix(self, q, v):
        self.check_state(q, v)
        return np.zeros((1, 1))

    def gravity_vector(self, q):
        q = checks.vector("q", q, 1)
        return np.array([self.m * self.g * self.l * np.sin(q[0])])

    def input_matrix(self):
        return np.zeros((1, 0))

    def potential_energy(self, q):
        """U = m g l cos θ: the hub's height above the stance toe, times m g."""
        return self.m * self.g * self.l * np.cos(checks.vector("q", q, 1)[0])

    # the collision
    @property
    def impact_factor(self):
        """c = (m l² cos 2α + I)/(m l² + I): θ̇⁺ = c θ̇⁻ at every collision."""
        ml2 = self.m * self.l**2
        return (ml2 * np.cos(2 * self.alpha) + self.I) / (ml2 + self.I)

    def reset(self, x):
        """The collision with the next (downhill) leg: [θ, θ̇] ↦ [θ − 2α, c θ̇].

        >>> RimlessWheel(alpha=np.pi / 8, gamma=0.0).reset([np.pi / 8, 1.0]).round(6)
        array([-0.392699,  0.707107])
        """
        x = checks.vector("x", x, 2)
        return np.array([x[0] - 2 * self.alpha, self.impact_factor * x[1]])

    def reset_back(self, x):
        """Falling back onto the uphill leg: [θ, θ̇] ↦ [θ + 2α, c θ̇]."""
        x = checks.vector("x", x, 2)
        return np.array([x[0] + 2 * self.alpha, self.impact_factor * x[1]])

    # closed forms
    def _step_energy(self):
        """K = θ̇_N² − θ̇_0² over one step: 4 m g l sin α sin γ / (m l² + I)."""
        return 4 * self.m * self.g * self.l * np.sin(self.alpha) * np.sin(self.gamma) / (self.m * self.l**2 + self.I)

    def min_rolling_speed(self):
        """The smallest θ̇ just after a collision that carries the hub over the top of the stance leg (rad/s).

        Zero when γ ≥ α (the stance leg never passes the vertical). From
        ½ (m l² + I) ω² = m g l (1 − cos(γ − α)).

        >>> round(RimlessWheel().min_rolling_speed(), 4)
        0.9754
        """
        top = self.gamma - self.alpha
        if top >= 0:
            return 0.0
        return float(np.sqrt(2 * self.m * self.g * self.l * (1 - np.cos(top)) / (self.m * self.l**2 + self.I)))

    def return_map(self, omega):
        """The step-to-step map of θ̇ just after a collision: ω ↦ c √(ω² + K), K = 4 m g l sin α sin γ/(m l² + I).

        Raises ``ValueError`` if ω is too slow to carry the wheel over the top
        (the wheel then rocks back and takes no step).

        >>> w = RimlessWheel()
        >>> round(w.return_map(w.rolling_fixed_point()) - w.rolling_fixed_point(), 12)
        0.0
        """
        omega = checks.finite("omega", omega)
        if omega <= self.min_rolling_speed():
            raise ValueError(f"omega = {omega:g} rad/s does not carry the wheel over the top of the stance leg "
                             f"(it needs more than {self.min_rolling_speed():.4g} rad/s); no step is taken")
        return float(self.impact_factor * np.sqrt(omega**2 + self._step_energy()))

    def rolling_fixed_point(self):
        """θ̇* just after a collision on the rolling limit cycle (rad/s); ValueError if the wheel cannot roll."""
        c = self.impact_factor
        omega = float(c * np.sqrt(self._step_energy() / (1 - c**2)))
        if self.gamma == 0.0 or omega <= self.min_rolling_speed():
            raise ValueError(f"no rolling limit cycle for alpha = {self.alpha:g}, gamma = {self.gamma:g}: "
                             f"the fixed point would not carry the wheel over the top")
        return omega

    def return_map_derivative(self):
        """dP/dω at the rolling fixed point: c² (< 1, so the limit cycle is stable).

        From P(ω) = c √(ω² + K): dP/dω = c ω / √(ω² + K) = c² ω / P(ω) = c² at ω = P(ω).

        >>> round(RimlessWheel(alpha=np.pi / 8).return_map_derivative(), 6)   # cos²(π/4)
        0.5
        """
        return float(self.impact_factor**2)

    # as a hybrid system
    def modes(self):
        """Modes "stance" and "standing" for :func:`lib.hybrid.simulate_hybrid`, state x = [θ, θ̇].

        Stance has two guards: "collision" (θ = γ + α, rolling forward; reset
        :meth:`reset`) and "back collision" (θ = γ − α, rocking back; reset
        :meth:`reset_back`). When the rocking collisions pile up (Zeno) the
        wheel stands still on two legs, mode "standing".

        >>> from lib.hybrid import simulate_hybrid
        >>> w = RimlessWheel()
        >>> run = simulate_hybrid(w.modes(), "stance", [w.gamma - w.alpha, 1.5], t_final=20.0)
        >>> round(float(run.events[-1].x_plus[1]), 3)      # converging to θ̇* = 1.0955
        1.095
        """
        a, g_ = self.alpha, self.gamma
        k = self.m * self.g * self.l / (self.m * self.l**2 + self.I)

        def stance(t, x):
            # θ̈ = m g l sin θ / (m l² + I): forward_dynamics written out, for speed.
            return np.array([x[1], k * np.sin(x[0])])

        def standing_reset(x):
            return np.array([g_ - a, 0.0])

        front = Guard("collision", lambda t, x: x[0] - (g_ + a), target="stance", reset=self.reset,
                      direction=1.0, zeno_target="standing", zeno_reset=standing_reset)
        back = Guard("back collision", lambda t, x: x[0] - (g_ - a), target="stance", reset=self.reset_back,
                     direction=-1.0, zeno_target="standing", zeno_reset=standing_reset)
        return [Mode("stance", stance, (front, back)),
                Mode("standing", lambda t, x: np.zeros(2))]

    def return_map_by_simulation(self, omega, t_max=10.0):
        """The step-to-step map evaluated by simulating one step with event detection (shooting).

        Raises :class:`lib.hybrid.GuardNotReached` if the wheel rocks back onto its
        uphill leg instead of taking a step, or takes no step before t_max.

        >>> w = RimlessWheel()
        >>> round(w.return_map_by_simulation(1.0), 8) == round(w.return_map(1.0), 8)
        True
        """
        omega = checks.finite("omega", omega)
        ev = first_event(self.modes(), "stance", [self.gamma - self.alpha, omega], "collision", t_max,
                         forbidden="back collision")
        return float(ev.x_plus[1])

    def fixed_point_by_shooting(self, omega0=1.0):
        """θ̇* found by root finding on the simulated return map, P(ω) − ω = 0 (rad/s).

        >>> w = RimlessWheel()
        >>> abs(w.fixed_point_by_shooting() - w.rolling_fixed_point()) < 1e-8
        True
        """
        return float(fixed_point(lambda z: np.array([self.return_map_by_simulation(z[0])]), [omega0])[0])

    def spokes(self, theta, toe=(0.0, 0.0)):
        """Hub position (2,) and the toe positions of all spokes (k, 2), x right and z up, for drawing.

        The stance toe is at ``toe``; spoke j points at angle θ + 2αj from the downward vertical.
        """
        theta = checks.finite("theta", theta)
        toe = checks.vector("toe", toe, 2)
        hub = toe + self.l * np.array([np.sin(theta), np.cos(theta)])
        k = int(round(np.pi / self.alpha))
        angles = theta + 2 * self.alpha * np.arange(k)
        return hub, hub - self.l * np.column_stack([np.sin(angles), np.cos(angles)])


@dataclass(frozen=True)
class FloatingRimlessWheel(WheelParameters, PlanarBody):
    """The rimless wheel in floating-base coordinates q = [x, z, θ] (notes 004).

    (x, z) is the hub (x right, z up), θ the orientation measured like the
    minimal model's stance angle. Without contact the wheel is a free body:

        M = diag(m, m, I),   tau_g = [0, −m g, 0].

    Spoke j has its toe at p_j = [x − l sin ψ_j, z − l cos ψ_j], ψ_j = θ + 2αj
    (j = 0 the stance leg, j = −1 the next one downhill). The ramp passes
    through the origin with normal n̂ = [sin γ, cos γ] and downhill tangent
    t̂ = [cos γ, −sin γ]; the toe's signed distance is φ_j = n̂ · p_j and its
    contact rows J_j = [n̂ᵀ; t̂ᵀ] ∂p_j/∂q. A sticking toe is held by the
    contact force Jᵀλ, and the motion is then the minimal model's rotation
    about the toe (I > 0 is needed here: with I = 0 M would be singular).

    >>> fw = FloatingRimlessWheel(I=0.01)
    >>> q, v = fw.from_minimal(0.1, 1.0)
    >>> fw.to_minimal(q, v)
    (0.1, 1.0)

    Introduced in: chapter 6.
    """

    n = 3

    I: checks.Positive = 0.01

    def minimal(self):
        """The same wheel in minimal coordinates (:class:`RimlessWheel`)."""
        return RimlessWheel(self.m, self.l, self.g, self.alpha, self.gamma, self.I)

    def input_matrix(self):
        return np.zeros((3, 0))

    def _frame(self):
        s, c = np.sin(self.gamma), np.cos(self.gamma)
        return np.array([s, c]), np.array([c, -s])

    def toe(self, q, j=0):
        """Position of the toe of spoke j, shape (2,).

        >>> FloatingRimlessWheel().toe([0.0, 1.0, 0.0])
        array([0., 0.])
        """
        q = checks.vector("q", q, 3)
        psi = q[2] + 2 * self.alpha * j
        return np.array([q[0] - self.l * np.sin(psi), q[1] - self.l * np.cos(psi)])

    def signed_distance(self, q, j=0):
        """φ_j = n̂ · p_j: the height of toe j above the ramp (m)."""
        return float(self._frame()[0] @ self.toe(q, j))

    def contact_jacobian(self, q, j=0):
        """J_j = [n̂ᵀ; t̂ᵀ] ∂p_j/∂q, shape (2, 3): normal and tangential velocity of toe j.

        >>> FloatingRimlessWheel(gamma=0.0).contact_jacobian([0.0, 1.0, 0.0])
        array([[ 0.,  1.,  0.],
               [ 1.,  0., -1.]])
        """
        q = checks.vector("q", q, 3)
        psi = q[2] + 2 * self.alpha * j
        dp = np.array([[1.0, 0.0, -self.l * np.cos(psi)], [0.0, 1.0, self.l * np.sin(psi)]])
        nh, th = self._frame()
        return np.array([nh @ dp, th @ dp])

    def contact_jdot_v(self, q, v, j=0):
        """J̇_j q̇ = [n̂ᵀ; t̂ᵀ] l θ̇² [sin ψ_j, cos ψ_j], shape (2,)."""
        q, v = self.check_state(q, v)
        psi = q[2] + 2 * self.alpha * j
        acc = self.l * v[2] ** 2 * np.array([np.sin(psi), np.cos(psi)])
        nh, th = self._frame()
        return np.array([nh @ acc, th @ acc])

    def contact(self, j=0):
        """Toe j as a sticking :class:`Contact` (normal and tangent rows) for :func:`lib.hybrid.contact_modes`."""
        return Contact(f"toe {j}", lambda q: self.signed_distance(q, j), lambda q: self.contact_jacobian(q, j),
                       lambda q, v: self.contact_jdot_v(q, v, j))

    def from_minimal(self, theta, thetadot, toe=(0.0, 0.0)):
        """(q, v) of the floating base for the minimal state (θ, θ̇) with the stance toe at ``toe``."""
        theta, thetadot = checks.finite("theta", theta), checks.finite("thetadot", thetadot)
        toe = checks.vector("toe", toe, 2)
        s, c = np.sin(theta), np.cos(theta)
        q = np.array([toe[0] + self.l * s, toe[1] + self.l * c, theta])
        v = np.array([self.l * c * thetadot, -self.l * s * thetadot, thetadot])
        return q, v

    def to_minimal(self, q, v, j=0):
        """(θ, θ̇) of the minimal model standing on spoke j: θ = ψ_j = q[2] + 2αj, θ̇ = v[2]."""
        q, v = self.check_state(q, v)
        return float(q[2] + 2 * self.alpha * j), float(v[2])

    def modes(self, spokes=(0, -1), e=0.0):
        """:func:`lib.hybrid.contact_modes` with the toes of the given spokes as sticking contacts (default: stance and next)."""
        return contact_modes(self, [self.contact(j) for j in spokes], e)

    def stance_force(self, q, v, j=0):
        """The contact force λ = [λ_n, λ_t] holding toe j still (N); the toe sticks while |λ_t| ≤ μ λ_n.

        >>> fw = FloatingRimlessWheel(gamma=0.0)
        >>> fw.stance_force(*fw.from_minimal(0.0, 0.0)).round(6) + 0.0     # upright, at rest: the weight
        array([9.81, 0.  ])
        """
        _, lam = constrained_dynamics(self, [self.contact(j)], q, v)
        return lam
