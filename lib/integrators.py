"""Fixed-step integrators, and why symplectic ones keep the energy over long horizons.

For ẋ = f(t, x): explicit Euler, x_{k+1} = x_k + h f(t_k, x_k), and the
classical fourth-order Runge–Kutta method. For a separable Hamiltonian
H(q, p) = K(p) + U(q) (notes 000, "Hamiltonian Mechanics": q̇ = ∂H/∂p,
ṗ = −∂H/∂q):

    symplectic (semi-implicit) Euler:  p_{k+1} = p_k − h ∂U/∂q(q_k),   q_{k+1} = q_k + h ∂K/∂p(p_{k+1})
    Störmer–Verlet:                    p_{k+½} = p_k − (h/2) ∂U/∂q(q_k),
                                       q_{k+1} = q_k + h ∂K/∂p(p_{k+½}),
                                       p_{k+1} = p_{k+½} − (h/2) ∂U/∂q(q_{k+1})

The symplectic maps preserve the symplectic form (DΦᵀ J DΦ = J; for one
degree of freedom, area); their energy error stays in a band (O(h) and O(h²))
over very long times, while explicit Euler gains energy steadily on the
oscillator and RK4, far more accurate per step, still drifts slowly.

:func:`simulate_fixed_step`'s "symplectic_euler" and "verlet" are the velocity
forms of these methods (v, then q). They are the symplectic maps above only
when M is constant (then H is separable); with a configuration-dependent M(q)
they are not, and their energy drifts. On the double pendulum of
tests/test_integrators.py (h = 20 ms, 60 s from (1, 0.5) rad at rest) their
largest energy error grows from 2.1 J in the first quarter to 16.8 J in the
last (symplectic Euler) and from 0.78 J to 4.7 J (Verlet), and one step
of 10 ms misses DΦᵀ J DΦ = J by 1e-4 to 1e-2. :func:`variational` is symplectic for
any M(q): the discrete Euler–Lagrange equations of a discrete Lagrangian
(Marsden and West 2001), whose energy error on the same run stays at
1.4e-3 J. Chapter 10 shows the same over 100 s with h = 10 ms.

Introduced in: chapter 10.
"""

import numpy as np

from . import checks
from .system import ManipulatorSystem, Trajectory


def _steps(h, steps):
    return checks.positive("h", h), checks.count("steps", steps)


def _ode_arrays(x0, h, steps, t0):
    """Checked (h, steps), the times t_k = t0 + k h and the array X, shape (steps+1, d), with x0 in row 0."""
    h, steps = _steps(h, steps)
    x = np.atleast_1d(np.asarray(x0, dtype=float))
    X = np.empty((steps + 1, x.size))
    X[0] = x
    return h, steps, checks.finite("t0", t0) + h * np.arange(steps + 1), X


def explicit_euler(f, x0, h, steps, t0=0.0):
    """Explicit Euler for ẋ = f(t, x): x_{k+1} = x_k + h f(t_k, x_k). Returns (t (steps+1,), x (steps+1, d)).

    >>> t, x = explicit_euler(lambda t, x: -x, [1.0], 0.5, 2)
    >>> x[:, 0]
    array([1.  , 0.5 , 0.25])

    Introduced in: chapter 10.
    """
    h, steps, t, X = _ode_arrays(x0, h, steps, t0)
    for k in range(steps):
        X[k + 1] = X[k] + h * np.asarray(f(t[k], X[k]), dtype=float)
    return t, X


def rk4(f, x0, h, steps, t0=0.0):
    """The classical Runge–Kutta method of order 4 for ẋ = f(t, x). Returns (t, x) like :func:`explicit_euler`.

        k1 = f(t, x),  k2 = f(t + h/2, x + h k1/2),  k3 = f(t + h/2, x + h k2/2),  k4 = f(t + h, x + h k3)
        x_{k+1} = x_k + h (k1 + 2 k2 + 2 k3 + k4) / 6

    >>> t, x = rk4(lambda t, x: -x, [1.0], 0.1, 10)
    >>> bool(abs(x[-1, 0] - np.exp(-1.0)) < 1e-6)
    True

    Introduced in: chapter 10.
    """
    h, steps, t, X = _ode_arrays(x0, h, steps, t0)
    F = lambda t, x: np.asarray(f(t, x), dtype=float)  # noqa: E731
    for k in range(steps):
        tk, xk = t[k], X[k]
        k1 = F(tk, xk)
        k2 = F(tk + h / 2, xk + h / 2 * k1)
        k3 = F(tk + h / 2, xk + h / 2 * k2)
        k4 = F(tk + h, xk + h * k3)
        X[k + 1] = xk + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return t, X


def _phase_arrays(q0, p0, h, steps):
    """Checked (h, steps) and the arrays Q, P of shape (steps+1, n) with the initial state in row 0."""
    h, steps = _steps(h, steps)
    q = np.atleast_1d(np.asarray(q0, dtype=float))
    p = np.atleast_1d(np.asarray(p0, dtype=float))
    if q.shape != p.shape:
        raise ValueError(f"q0 and p0 must have the same shape, got {q.shape} and {p.shape}")
    Q, P = np.empty((steps + 1, q.size)), np.empty((steps + 1, q.size))
    Q[0], P[0] = q, p
    return h, steps, Q, P


def symplectic_euler(force, velocity, q0, p0, h, steps):
    """Symplectic (semi-implicit) Euler for a separable Hamiltonian H = K(p) + U(q).

        p_{k+1} = p_k + h force(q_k),   q_{k+1} = q_k + h velocity(p_{k+1})

    with force(q) = −∂U/∂q and velocity(p) = ∂K/∂p (= M⁻¹ p for constant M).
    Symplectic because K depends on p only: a configuration-dependent M(q)
    makes H non-separable, and this scheme does not apply (use
    :func:`variational`). Returns (q, p), each of shape (steps+1, n).

    >>> q, p = symplectic_euler(lambda q: -q, lambda p: p, [1.0], [0.0], 0.1, 1)
    >>> q[-1], p[-1]
    (array([0.99]), array([-0.1]))

    Introduced in: chapter 10.
    """
    h, steps, Q, P = _phase_arrays(q0, p0, h, steps)
    for k in range(steps):
        P[k + 1] = P[k] + h * np.asarray(force(Q[k]), dtype=float)
        Q[k + 1] = Q[k] + h * np.asarray(velocity(P[k + 1]), dtype=float)
    return Q, P


def stormer_verlet(force, velocity, q0, p0, h, steps):
    """Störmer–Verlet (leapfrog) for a separable Hamiltonian: symplectic, time-reversible, order 2.

        p_{k+½} = p_k + (h/2) force(q_k),   q_{k+1} = q_k + h velocity(p_{k+½}),
        p_{k+1} = p_{k+½} + (h/2) force(q_{k+1})

    Arguments, returns and the separability it needs (a constant M) as for
    :func:`symplectic_euler`.

    >>> q, p = stormer_verlet(lambda q: -q, lambda p: p, [1.0], [0.0], 0.1, 1)
    >>> q[-1], p[-1].round(6)
    (array([0.995]), array([-0.09975]))

    Introduced in: chapter 10.
    """
    h, steps, Q, P = _phase_arrays(q0, p0, h, steps)
    F = np.asarray(force(Q[0]), dtype=float)
    for k in range(steps):
        p_half = P[k] + h / 2 * F
        Q[k + 1] = Q[k] + h * np.asarray(velocity(p_half), dtype=float)
        F = np.asarray(force(Q[k + 1]), dtype=float)
        P[k + 1] = p_half + h / 2 * F
    return Q, P


METHODS = ("euler", "rk4", "symplectic_euler", "verlet")
"""The methods :func:`simulate_fixed_step` and :func:`integrate_fixed_step` know ("symplectic_euler" and "verlet" in velocity form)."""


def _method(method):
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _march(accel, q, v, h, steps, method, t0=0.0):
    """``steps`` fixed steps h of q̇ = v, v̇ = accel(t, q, v) by a checked ``method``; (t, Q, V).

    "euler" and "rk4" treat x = (q, v) as one ODE (:func:`explicit_euler`,
    :func:`rk4`); "symplectic_euler" updates v, then q with the new v;
    "verlet" is velocity Verlet. These two velocity forms are symplectic only
    for a constant M and forces of q alone (:func:`simulate_fixed_step`).
    """
    n = q.size
    if method in ("euler", "rk4"):
        rhs = lambda t, x: np.concatenate([x[n:], accel(t, x[:n], x[n:])])  # noqa: E731
        t, X = (explicit_euler if method == "euler" else rk4)(rhs, np.concatenate([q, v]), h, steps, t0)
        return t, X[:, :n], X[:, n:]
    t = t0 + h * np.arange(steps + 1)
    Q, V = np.empty((steps + 1, n)), np.empty((steps + 1, n))
    Q[0], V[0] = q, v
    for k in range(steps):
        if method == "symplectic_euler":
            V[k + 1] = V[k] + h * accel(t[k], Q[k], V[k])
            Q[k + 1] = Q[k] + h * V[k + 1]
        else:
            v_half = V[k] + h / 2 * accel(t[k], Q[k], V[k])
            Q[k + 1] = Q[k] + h * v_half
            V[k + 1] = v_half + h / 2 * accel(t[k + 1], Q[k + 1], v_half)
    return t, Q, V


def simulate_fixed_step(system, q0, v0, *, h, steps, method="rk4", u=None):
    """Integrate a system in the common protocol with a fixed step h; returns a :class:`lib.system.Trajectory`.

    ``method``: "euler" and "rk4" treat x = (q, v) as one ODE; "symplectic_euler"
    (v_{k+1} = v_k + h v̇(q_k, v_k), q_{k+1} = q_k + h v_{k+1}) and "verlet"
    (velocity Verlet) update v then q. They are the symplectic maps above,
    with p = M v, only when M is constant and the forces depend on q only (a
    pendulum in its angle, a spring); with a configuration-dependent M(q)
    they are merely semi-implicit, not symplectic, and their energy drifts
    (on the double pendulum, module docstring). :func:`simulate_variational`
    is symplectic for any M(q).
    ``u`` as in :meth:`ManipulatorSystem.simulate`.

    >>> from lib.pendulum import SimplePendulum
    >>> traj = simulate_fixed_step(SimplePendulum(), [0.5], [0.0], h=0.01, steps=100, method="verlet")
    >>> traj.q.shape, round(float(traj.t[-1]), 6)
    ((101, 1), 1.0)

    Introduced in: chapter 10.
    """
    method = _method(method)
    h, steps = _steps(h, steps)
    if getattr(system, "nq", system.n) != system.n:
        raise ValueError("system must have q̇ = v (as many positions as velocities); use its own simulate()")
    q, v = system.check_state(q0, v0)
    policy = system.input_policy(u)
    return Trajectory(*_march(lambda t, q, v: system.forward_dynamics(q, v, policy(t, q, v)), q, v, h, steps,
                              method))


def integrate_fixed_step(accel, q0, v0, t_final, h, method="rk4"):
    """Integrate q̇ = v, v̇ = accel(t, q, v) over [0, t_final] with a fixed step h; (t, q, v) at every step.

    ``method`` as in :func:`simulate_fixed_step` ("rk4", "euler", "symplectic_euler",
    "verlet": the last two in velocity form, symplectic only for a constant M).
    The last step is shortened to land on t_final. This is how
    :func:`lib.constraints.simulate_constrained` steps a constrained system.

    >>> t, q, v = integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], np.pi, 0.01)
    >>> round(float(q[-1, 0]), 6), float(t[-1]) == np.pi
    (-1.0, True)

    Introduced in: chapter 4.
    """
    q = np.array(q0, dtype=float).reshape(-1)
    v = np.array(v0, dtype=float).reshape(-1)
    t_final = checks.positive("t_final", t_final)
    h = checks.positive("h", h)
    method = _method(method)
    steps = int(np.ceil(t_final / h - 1e-9))
    t, Q, V = _march(accel, q, v, h, steps - 1, method) if steps > 1 else (np.zeros(1), q[None], v[None])
    t_last = (steps - 1) * h
    _, q_end, v_end = _march(accel, Q[-1], V[-1], min(h, t_final - t_last), 1, method, t_last)
    return np.append(t, t_final), np.vstack([Q, q_end[-1:]]), np.vstack([V, v_end[-1:]])


# --- variational integrators: symplectic for any M(q) -------------------------------------------------------
RULES = ("midpoint", "trapezoid")
"""The discrete Lagrangians :func:`variational` knows."""


def _slopes(dL_dq, dL_dv, q0, q1, h, rule):
    """(D1 L_d, D2 L_d): the derivatives of the discrete Lagrangian L_d(q0, q1) in its two arguments."""
    v = (q1 - q0) / h
    if rule == "midpoint":                              # L_d = h L((q0 + q1)/2, (q1 − q0)/h)
        mid = (q0 + q1) / 2
        Lq, Lv = np.asarray(dL_dq(mid, v)), np.asarray(dL_dv(mid, v))
        return h / 2 * Lq - Lv, h / 2 * Lq + Lv
    Lv = (np.asarray(dL_dv(q0, v)) + np.asarray(dL_dv(q1, v))) / 2    # L_d = h/2 [L(q0, v) + L(q1, v)]
    return h / 2 * np.asarray(dL_dq(q0, v)) - Lv, h / 2 * np.asarray(dL_dq(q1, v)) + Lv


def _forces(force, t, q0, q1, h, rule):
    """(F⁻, F⁺): the discrete generalized forces on q0 and q1 of one step (zero without a ``force``)."""
    if force is None:
        return 0.0, 0.0
    v = (q1 - q0) / h
    if rule == "midpoint":
        f = h / 2 * np.asarray(force(t + h / 2, (q0 + q1) / 2, v))
        return f, f
    return h / 2 * np.asarray(force(t, q0, v)), h / 2 * np.asarray(force(t + h, q1, v))


def variational(dL_dq, dL_dv, q0, p0, h, steps, rule="midpoint", force=None, t0=0.0, tol=1e-14, max_iter=30):
    """A variational integrator: the discrete Euler–Lagrange equations of a discrete Lagrangian, in (q, p).

    The discrete Lagrangian L_d(q_k, q_{k+1}) ≈ ∫ L dt over one step is

        "midpoint":   L_d = h L((q_k + q_{k+1})/2, (q_{k+1} − q_k)/h)
        "trapezoid":  L_d = (h/2) [L(q_k, v̄) + L(q_{k+1}, v̄)],   v̄ = (q_{k+1} − q_k)/h

    and the discrete action Σ L_d is stationary when D2 L_d(q_{k−1}, q_k) +
    D1 L_d(q_k, q_{k+1}) = 0 (the DEL). With the discrete Legendre transform
    p_k = −D1 L_d(q_k, q_{k+1}) = D2 L_d(q_{k−1}, q_k), one step is

        p_k + D1 L_d(q_k, q_{k+1}) + F⁻ = 0   (solved for q_{k+1} by Newton's method),
        p_{k+1} = D2 L_d(q_k, q_{k+1}) + F⁺

    where F⁻ = F⁺ = (h/2) force at the step's midpoint ("midpoint"), or (h/2)
    force at either end ("trapezoid"): the discrete Lagrange–d'Alembert
    principle for a generalized force ``force(t, q, v)`` (inputs, friction).
    Without a force the map (q_k, p_k) → (q_{k+1}, p_{k+1}) is symplectic for
    any L, a configuration-dependent M(q) included (Marsden and West 2001). For
    L = ½ vᵀ M v − U(q) with a constant M the trapezoidal rule is Störmer–Verlet.

    ``dL_dq(q, v)`` and ``dL_dv(q, v)`` are the exact gradients of L (for a
    manipulator, ½ ∂(vᵀ M(q) v)/∂q + tau_g(q) and M(q) v). Newton's Jacobian is
    taken by forward differences once per step, at the guess (q_k + h M(q_k)⁻¹ p_k
    first, then the extrapolation 2 q_k − q_{k−1}); it sets only how fast Newton
    converges, not the fixed point it converges to (to ``tol`` relative). Complex inputs are carried through (for the complex-
    step derivative of the map). Returns (Q, P), each of shape (steps+1, n).

    >>> Q, P = variational(lambda q, v: -q, lambda q, v: v, [1.0], [0.0], 0.1, 1, rule="trapezoid")
    >>> Q[-1], P[-1].round(6)    # Störmer–Verlet's step on the oscillator
    (array([0.995]), array([-0.09975]))

    Introduced in: chapter 10.
    """
    h, steps = _steps(h, steps)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    q = np.atleast_1d(np.asarray(q0))
    p = np.atleast_1d(np.asarray(p0))
    if q.shape != p.shape or q.ndim != 1:
        raise ValueError(f"q0 and p0 must be vectors of the same shape, got {q.shape} and {p.shape}")
    dtype = np.result_type(q, p, 1.0)
    Q, P = np.empty((steps + 1, q.size), dtype), np.empty((steps + 1, q.size), dtype)
    Q[0], P[0] = q, p
    n, eye = q.size, np.eye(q.size)
    for k in range(steps):
        t, qk, pk = t0 + k * h, Q[k], P[k]

        def residual(q1):
            return pk + _slopes(dL_dq, dL_dv, qk, q1, h, rule)[0] + _forces(force, t, qk, q1, h, rule)[0]

        # the guess: q_k + h M(q_k)⁻¹ p_k on the first step, then q_k + (q_k − q_{k−1}); both O(h²) off
        q1 = qk + h * np.linalg.solve(_legendre_matrix(dL_dv, qk, n), pk) if k == 0 else 2 * qk - Q[k - 1]
        r = residual(q1)
        eps = 1e-7 * (1.0 + np.abs(q1).max())
        jac = np.column_stack([(residual(q1 + eps * e) - r) / eps for e in eye])
        for _ in range(max_iter):
            step = np.linalg.solve(jac, r)
            q1 = q1 - step
            if np.abs(step).max() <= tol * (1.0 + np.abs(q1).max()):
                break
            r = residual(q1)
        else:
            raise RuntimeError(f"the discrete Euler–Lagrange equations did not converge in step {k} (h = {h}); "
                               "try a smaller h")
        Q[k + 1] = q1
        P[k + 1] = _slopes(dL_dq, dL_dv, qk, q1, h, rule)[1] + _forces(force, t, qk, q1, h, rule)[1]
    return Q, P


def _legendre_matrix(dL_dv, q, n):
    """∂²L/∂v² at (q, 0) for an L quadratic in v (M(q) for a manipulator), column by column."""
    return np.column_stack([np.asarray(dL_dv(q, e)) for e in np.eye(n)])


def kinetic_energy_gradient(system, q, v, eps=1e-6):
    """∂T/∂q = ½ ∂(vᵀ M(q) v)/∂q, shape (n,): the system's own exact ``kinetic_energy_gradient`` when it has one.

    Otherwise central differences of M (error O(ε²), exact for a constant M).

    >>> from lib.pendulum import DoublePendulum
    >>> dp = DoublePendulum()
    >>> exact = kinetic_energy_gradient(dp, [0.3, 0.4], [1.0, -2.0])
    >>> differenced = kinetic_energy_gradient(lambda q: dp.mass_matrix(q), [0.3, 0.4], [1.0, -2.0])
    >>> bool(np.allclose(exact, differenced, atol=1e-8))
    True

    Introduced in: chapter 10.
    """
    if hasattr(system, "kinetic_energy_gradient"):
        return np.asarray(system.kinetic_energy_gradient(q, v))
    mass_matrix = getattr(system, "mass_matrix", system)
    q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
    out = np.empty(q.size)
    for k, e in enumerate(np.eye(q.size)):
        out[k] = 0.5 * v @ ((mass_matrix(q + eps * e) - mass_matrix(q - eps * e)) / (2 * eps)) @ v
    return out


def simulate_variational(system, q0, v0, *, h, steps, rule="midpoint", u=None):
    """Integrate a system in the common protocol with :func:`variational`; returns a :class:`lib.system.Trajectory`.

    L = ½ vᵀ M(q) v − U(q), so dL_dv = M(q) v and dL_dq = ∂T/∂q + tau_g(q)
    (:func:`kinetic_energy_gradient`). The inputs B u (``u`` as in
    :meth:`ManipulatorSystem.simulate`) and the system's external force enter
    as the forced DEL's generalized force. p_0 = M(q_0) v_0, and the velocity
    reported at each step is v_k = M(q_k)⁻¹ p_k.

    >>> from lib.pendulum import DoublePendulum
    >>> dp = DoublePendulum()
    >>> traj = simulate_variational(dp, [1.0, 0.5], [0.0, 0.0], h=0.01, steps=1000)
    >>> bool(np.abs(energy_error(dp, traj)).max() < 0.01)   # J, over 10 s
    True

    Introduced in: chapter 10.
    """
    h, steps = _steps(h, steps)
    if getattr(system, "nq", system.n) != system.n:
        raise ValueError("system must have q̇ = v (as many positions as velocities); use its own simulate()")
    q, v = system.check_state(q0, v0)
    policy = system.input_policy(u)
    B = system.input_matrix()

    def force(t, q, v):
        return B @ system.check_input(policy(t, q, v)) + system.external_force(q, v)

    unforced = u is None and type(system).external_force is ManipulatorSystem.external_force
    Q, P = variational(lambda q, v: kinetic_energy_gradient(system, q, v) + system.gravity_vector(q),
                       lambda q, v: system.mass_matrix(q) @ v, q, system.mass_matrix(q) @ v, h, steps, rule,
                       None if unforced else force)
    V = np.array([np.linalg.solve(system.mass_matrix(qk), pk) for qk, pk in zip(Q, P)])
    return Trajectory(h * np.arange(steps + 1), Q, V)


def energy_error(system, traj):
    """E(t_k) − E(t_0) along a trajectory, shape (N,): zero for an exact, unforced, frictionless motion.

    >>> from lib.pendulum import SimplePendulum
    >>> p = SimplePendulum()
    >>> traj = simulate_fixed_step(p, [0.5], [0.0], h=0.01, steps=1000, method="euler")
    >>> bool(energy_error(p, traj)[-1] > 0)   # explicit Euler gains energy
    True

    Introduced in: chapter 10.
    """
    E = np.array([system.energy(q, v) for q, v in zip(traj.q, traj.v)])
    return E - E[0]
