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

from . import _checks


@dataclass(frozen=True)
class Trajectory:
    """A simulated motion: times ``t`` (shape (N,)), positions ``q`` and velocities ``v`` (shape (N, n))."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray


class ManipulatorSystem:
    """Base class: a system described by M(q), C(q, v), tau_g(q) and B.

    Subclasses set ``n`` and implement the four matrices and the two energies.
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
        q, v = self._state(q, v)
        return 0.5 * v @ self.mass_matrix(q) @ v

    def potential_energy(self, q):
        raise NotImplementedError

    # --- what every system inherits -------------------------------------
    def _state(self, q, v):
        return _checks.vector("q", q, self.n), _checks.vector("v", v, self.n)

    def _input(self, u):
        m = self.input_matrix().shape[1]
        if u is None:
            return np.zeros(m)
        return _checks.vector("u", u, m)

    def bias(self, q, v):
        """The Coriolis and centripetal force C(q, v) v, shape (n,)."""
        q, v = self._state(q, v)
        return self.coriolis_matrix(q, v) @ v

    def forward_dynamics(self, q, v, u=None):
        """Accelerations v̇ = M⁻¹ (tau_g + B u + tau_ext − C v), shape (n,).

        This is direct dynamics: given the state and the inputs, find the motion.
        """
        q, v = self._state(q, v)
        u = self._input(u)
        rhs = (self.gravity_vector(q) + self.input_matrix() @ u + self.external_force(q, v)
               - self.coriolis_matrix(q, v) @ v)
        return np.linalg.solve(self.mass_matrix(q), rhs)

    def inverse_dynamics(self, q, v, vdot):
        """Input force B u = M v̇ + C v − tau_g − tau_ext needed for a desired motion, shape (n,).

        This is inverse dynamics: given the motion, find the forces. Mapping
        τ to inputs u needs B to be invertible (a fully actuated system).
        """
        q, v = self._state(q, v)
        vdot = _checks.vector("vdot", vdot, self.n)
        return (self.mass_matrix(q) @ vdot + self.coriolis_matrix(q, v) @ v
                - self.gravity_vector(q) - self.external_force(q, v))

    def energy(self, q, v):
        """Total mechanical energy E = T + U (joules)."""
        q, v = self._state(q, v)
        return self.kinetic_energy(q, v) + self.potential_energy(q)

    def simulate(self, q0, v0, t_final, u=None, num=500, rtol=1e-10, atol=1e-10):
        """Integrate the equations of motion from (q0, v0) over [0, t_final].

        ``u`` is ``None`` (no input), a constant input vector, or a function
        ``u(t, q, v)`` returning one. Returns a :class:`Trajectory` sampled at
        ``num`` evenly spaced times. Uses scipy's adaptive Runge–Kutta (DOP853).
        """
        q0, v0 = self._state(q0, v0)
        t_final = _checks.positive("t_final", t_final)
        if callable(u):
            policy = u
        else:
            u_const = self._input(u)
            policy = lambda t, q, v: u_const  # noqa: E731
        n = self.n

        def rhs(t, x):
            q, v = x[:n], x[n:]
            return np.concatenate([v, self.forward_dynamics(q, v, policy(t, q, v))])

        t_eval = np.linspace(0.0, t_final, int(num))
        sol = solve_ivp(rhs, (0.0, t_final), np.concatenate([q0, v0]), method="DOP853",
                        t_eval=t_eval, rtol=rtol, atol=atol)
        if not sol.success:
            raise RuntimeError(f"integration failed: {sol.message}")
        return Trajectory(sol.t, sol.y[:n].T, sol.y[n:].T)


class PlanarBody(ManipulatorSystem):
    """One rigid body in the vertical plane, q = [x, y, θ] (centre of mass and angle), gravity −g ŷ:

        M = diag(m, m, I),   C = 0,   tau_g = [0, −m g, 0],   U = m g y.

    Subclasses have fields ``m`` and ``g``, say what I is (``I``, or
    :meth:`rotational_inertia` for a formula), and give ``input_matrix``.
    The box, the rimless wheel in floating-base coordinates and the spinning
    ball are all one of these with their own contacts.
    """

    n = 3

    def rotational_inertia(self):
        """I, the moment of inertia about the centre of mass (kg m²)."""
        return self.I

    def mass_matrix(self, q):
        _checks.vector("q", q, 3)
        return np.diag([self.m, self.m, self.rotational_inertia()])

    def coriolis_matrix(self, q, v):
        self._state(q, v)
        return np.zeros((3, 3))

    def gravity_vector(self, q):
        _checks.vector("q", q, 3)
        return np.array([0.0, -self.m * self.g, 0.0])

    def potential_energy(self, q):
        """U = m g y."""
        return self.m * self.g * _checks.vector("q", q, 3)[1]
