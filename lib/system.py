"""The common protocol every mechanical system in the course speaks.

The manipulator equations (notes 000, "The Manipulator Equations")

    M(q) v̇ + C(q, v) v = tau_g(q) + B u

are all a simulator, a controller or a contact solver needs to know about a
robot. A system subclasses :class:`ManipulatorSystem` and provides

* ``n``: the number of generalized coordinates,
* ``mass_matrix(q)``, ``coriolis_matrix(q, v)``, ``gravity_vector(q)``,
  ``input_matrix()``,
* ``kinetic_energy(q, v)`` and ``potential_energy(q)``,
* optionally ``external_force(q, v)``: friction and applied loads, tau_ext,

and inherits the rest: the bias ``C v``, forward and inverse dynamics, the
total energy and simulation. Constraint, impact and time-stepping code takes
any such system.

Introduced in: chapter 1.
"""

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from . import checks


@dataclass(frozen=True)
class Trajectory:
    """A simulated motion: times ``t`` (shape (N,)), positions ``q`` and velocities ``v`` (shape (N, n)).

    A simulator of lib returns one (``ManipulatorSystem.simulate``,
    :func:`lib.integrators.simulate_fixed_step`) or a record that extends it
    with what its method adds: multipliers and the constraint residual
    (:class:`lib.constraints.ConstrainedTrajectory`), contact impulses
    (:class:`lib.timestepping.ContactTrajectory`), the wall force
    (:class:`lib.cart_wall.CartWallTrajectory`), the solver's work
    (:class:`lib.contact.IvpTrajectory`). Simulators are named
    ``simulate_<what>(system, q0, v0, *, t_final or steps, h, …)``, ``h``
    always the time step. Three take another form, and their docstrings say
    why: :func:`lib.box.simulate_box` (a pose with a rotation matrix),
    :func:`lib.cart_wall.simulate_cart_wall` (a mass on a line) and
    :func:`lib.hybrid.simulate_hybrid` (a state in a mode). The box's and
    the hybrid run's records (:class:`lib.box.BoxTrajectory`,
    :class:`lib.hybrid.HybridTrajectory`) do not extend this one, and say why.

    >>> traj = Trajectory(np.array([0.0, 0.1]), np.zeros((2, 1)), np.ones((2, 1)))
    >>> traj.q.shape
    (2, 1)
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray


class ManipulatorSystem(checks.Checked):
    """Base class: a system described by M(q), C(q, v), tau_g(q) and B.

    Subclasses set ``n`` and implement the four matrices and the two energies.
    A dataclass subclass annotates its parameters ``checks.Positive``,
    ``checks.Nonnegative`` or ``checks.Finite`` and they are checked when it
    is made.

    >>> from lib.pendulum import SimplePendulum
    >>> isinstance(SimplePendulum(), ManipulatorSystem), SimplePendulum().n
    (True, 1)
    """

    n = 0

    # --- what a subclass provides -------------------------------------
    def mass_matrix(self, q):
        raise NotImplementedError

    def coriolis_matrix(self, q, v):
        raise NotImplementedError

    def gravity_vector(self, q):
        raise NotImplementedError

    def input_matrix(self):
        raise NotImplementedError

    def external_force(self, q, v):
        """Generalized forces besides gravity and inputs (friction, applied loads); zero by default."""
        return np.zeros(self.n)

    def kinetic_energy(self, q, v):
        """T = ½ vᵀ M(q) v (override when a closed form reads better)."""
        q, v = self.check_state(q, v)
        return 0.5 * v @ self.mass_matrix(q) @ v

    def potential_energy(self, q):
        raise NotImplementedError

    # --- what every system inherits -------------------------------------
    def check_state(self, q, v):
        """(q, v) as float arrays of shapes (nq,) and (n,), or ``ValueError`` naming the bad one.

        >>> from lib.pendulum import DoublePendulum
        >>> DoublePendulum().check_state([0.1, 0.2], [0.0, 0.0])
        (array([0.1, 0.2]), array([0., 0.]))
        >>> DoublePendulum().check_state([0.1, 0.2], [0.0])
        Traceback (most recent call last):
        ...
        ValueError: v must have shape (2,), got shape (1,)
        """
        return checks.vector("q", q, self.n), checks.vector("v", v, self.n)

    def check_input(self, u):
        """u as a float array of shape (m,), m = B's columns; ``None`` is no input (zeros).

        >>> from lib.pendulum import SimplePendulum
        >>> SimplePendulum().check_input(None), SimplePendulum().check_input(2.0)
        (array([0.]), array([2.]))
        """
        m = self.input_matrix().shape[1]
        if u is None:
            return np.zeros(m)
        return checks.vector("u", u, m)

    def input_policy(self, u):
        """The input as a function u(t, q, v): ``u`` itself if callable, else the constant :meth:`check_input` (u).

        >>> from lib.pendulum import SimplePendulum
        >>> SimplePendulum().input_policy(0.5)(0.0, [0.1], [0.0])
        array([0.5])
        """
        if callable(u):
            return u
        u_const = self.check_input(u)
        return lambda t, q, v: u_const

    def qdot(self, q, v):
        """The kinematic map q̇ = v (a system whose positions are not its velocities overrides it).

        >>> from lib.pendulum import SimplePendulum
        >>> SimplePendulum().qdot([0.1], [2.0])
        array([2.])
        """
        return self.check_state(q, v)[1]

    def project(self, q):
        """The nearest valid positions to ``q`` (shape (nq,) or (N, nq)): q itself unless a system says otherwise.

        A body whose q holds a unit quaternion normalizes it; the simulators
        project the integrator's q before every evaluation and on output.

        >>> from lib.pendulum import SimplePendulum
        >>> SimplePendulum().project([0.3])
        array([0.3])
        """
        return np.asarray(q, dtype=float)

    def bias(self, q, v):
        """The Coriolis and centripetal force C(q, v) v, shape (n,).

        >>> from lib.pendulum import DoublePendulum
        >>> DoublePendulum().bias([0.0, np.pi / 2], [1.0, 0.0]).round(6)
        array([0., 1.])
        """
        q, v = self.check_state(q, v)
        return self.coriolis_matrix(q, v) @ v

    def generalized_force(self, q, v, u=None):
        """τ = tau_g(q) + B u + tau_ext(q, v) − C(q, v) v: every force on the right of M v̇ = τ, shape (n,).

        Forward dynamics, the constraint multipliers and the contact steps all
        start from this one sum (a constraint or contact force is added to it).

        >>> from lib.pendulum import SimplePendulum
        >>> SimplePendulum(m=1.0, l=1.0, g=10.0, b=0.5).generalized_force([np.pi / 2], [2.0], [3.0])
        array([-8.])
        """
        q, v = self.check_state(q, v)
        return (self.gravity_vector(q) + self.input_matrix() @ self.check_input(u) + self.external_force(q, v)
                - self.coriolis_matrix(q, v) @ v)

    def forward_dynamics(self, q, v, u=None):
        """Accelerations v̇ = M⁻¹ τ = M⁻¹ (tau_g + B u + tau_ext − C v), shape (n,).

        This is direct dynamics: given the state and the inputs, find the motion.

        >>> from lib.pendulum import SimplePendulum
        >>> SimplePendulum(m=1.0, l=2.0).forward_dynamics([np.pi / 2], [0.0])
        array([-4.905])
        """
        q, v = self.check_state(q, v)
        return np.linalg.solve(self.mass_matrix(q), self.generalized_force(q, v, u))

    def inverse_dynamics(self, q, v, vdot):
        """Input force B u = M v̇ + C v − tau_g − tau_ext needed for a desired motion, shape (n,).

        This is inverse dynamics: given the motion, find the forces. Mapping
        τ to inputs u needs B to be invertible (a fully actuated system).

        >>> from lib.pendulum import SimplePendulum
        >>> SimplePendulum(m=1.0, l=2.0).inverse_dynamics([np.pi / 2], [0.0], [1.0])
        array([23.62])
        """
        q, v = self.check_state(q, v)
        vdot = checks.vector("vdot", vdot, self.n)
        return self.mass_matrix(q) @ vdot - self.generalized_force(q, v)

    def energy(self, q, v):
        """Total mechanical energy E = T + U (joules).

        >>> from lib.pendulum import SimplePendulum
        >>> float(SimplePendulum(m=1.0, l=1.0, g=10.0).energy([0.0], [2.0]))
        -8.0
        """
        q, v = self.check_state(q, v)
        return self.kinetic_energy(q, v) + self.potential_energy(q)

    def simulate(self, q0, v0, t_final, u=None, num=500, rtol=1e-10, atol=1e-10):
        """Integrate the equations of motion from (q0, v0) over [0, t_final].

        ``u`` is ``None`` (no input), a constant input vector, or a function
        ``u(t, q, v)`` returning one. Returns a :class:`Trajectory` sampled at
        ``num`` evenly spaced times. Uses scipy's adaptive Runge–Kutta (DOP853)
        on q̇ = :meth:`qdot` (q, v), v̇ = :meth:`forward_dynamics` (q, v, u),
        with q :meth:`project` -ed in every evaluation and on output.

        >>> from lib.pendulum import SimplePendulum
        >>> traj = SimplePendulum().simulate([0.1], [0.0], 1.0, num=3)
        >>> traj.t, traj.q.shape
        (array([0. , 0.5, 1. ]), (3, 1))
        """
        q0, v0 = self.check_state(q0, v0)
        policy = self.input_policy(u)
        nq = q0.size

        def rhs(t, x):
            q, v = self.project(x[:nq]), x[nq:]
            return np.concatenate([self.qdot(q, v), self.forward_dynamics(q, v, policy(t, q, v))])

        t, x = solve_sampled(rhs, np.concatenate([q0, v0]), t_final, num, rtol=rtol, atol=atol)
        return Trajectory(t, self.project(x[:, :nq]), x[:, nq:])


def solve_sampled(rhs, x0, t_final, num=500, method="DOP853", rtol=1e-10, atol=1e-10):
    """Integrate ẋ = rhs(t, x) from x(0) = x0 with scipy's adaptive ``method``; the states at ``num`` even times.

    Returns (t (num,), x (num, len(x0))); raises ``RuntimeError`` with the
    solver's message if the integration fails. Every ``simulate`` in lib
    integrates through it.

    >>> t, x = solve_sampled(lambda t, x: -x, [1.0], 1.0, num=2)
    >>> t, x.round(6)
    (array([0., 1.]), array([[1.      ],
           [0.367879]]))
    """
    t_final = checks.positive("t_final", t_final)
    t_eval = np.linspace(0.0, t_final, int(num))
    sol = solve_ivp(rhs, (0.0, t_final), np.asarray(x0, dtype=float), method=method, t_eval=t_eval,
                    rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"integration failed: {sol.message}")
    return sol.t, sol.y.T


class PlanarBody(ManipulatorSystem):
    """One rigid body in the vertical plane, q = [x, y, θ] (centre of mass and angle), gravity −g ŷ:

        M = diag(m, m, I),   C = 0,   tau_g = [0, −m g, 0],   U = m g y.

    Subclasses have fields ``m`` and ``g``, say what I is (``I``, or
    :meth:`rotational_inertia` for a formula), and give ``input_matrix``.
    The box, the rimless wheel in floating-base coordinates and the spinning
    ball are all one of these with their own contacts.

    >>> from lib.impulse import SpinningBall
    >>> ball = SpinningBall(m=2.0, r=0.5)
    >>> ball.mass_matrix([0.0, 1.0, 0.0]).diagonal(), ball.gravity_vector([0.0, 1.0, 0.0])
    (array([2.        , 2.        , 0.33333333]), array([  0.  , -19.62,   0.  ]))
    """

    n = 3

    def rotational_inertia(self):
        """I, the moment of inertia about the centre of mass (kg m²)."""
        return self.I

    def mass_matrix(self, q):
        checks.vector("q", q, 3)
        return np.diag([self.m, self.m, self.rotational_inertia()])

    def coriolis_matrix(self, q, v):
        self.check_state(q, v)
        return np.zeros((3, 3))

    def gravity_vector(self, q):
        checks.vector("q", q, 3)
        return np.array([0.0, -self.m * self.g, 0.0])

    def potential_energy(self, q):
        """U = m g y."""
        return self.m * self.g * checks.vector("q", q, 3)[1]
