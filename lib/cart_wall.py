"""The cart against a wall: one step of rigid contact as an LCP with one unknown, and its relaxations.

Notes 000, "Time-stepping LCP: Normal force" and "Relaxed complementarity-free
formulation". A cart of mass m moves on a line q ≥ 0 (the wall at q = 0)
under a force u. One semi-implicit Euler step with a wall force f ≥ 0 is a
linear complementarity problem in f (:func:`cart_wall_lcp`), solved here by
Lemke's algorithm (:func:`cart_wall_step`), in closed form
(:func:`cart_wall_closed_form`, the notes' figure), over whole grids at once
(:func:`cart_wall_batch`), as the discrete Gauss principle, a QP
(:func:`cart_wall_gauss_qp`), and relaxed without complementarity
(:func:`relaxed_cart_wall_step`); :func:`simulate_cart_wall` runs the steps.
The general contact steps these specialize are in :mod:`lib.timestepping`.

Introduced in: chapter 7 (the LCP) and chapter 8 (the relaxation).
"""

from dataclasses import dataclass

import numpy as np

from . import checks, convex
from .lcp import lcp_batch, lemke
from .system import Trajectory


def _finite_arrays(**arrays):
    """The arrays broadcast together as floats, or ``ValueError`` naming one with a NaN or infinite entry."""
    out = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in arrays.values()))
    return [checks.array(name, x) for name, x in zip(arrays, out)]


def cart_wall_lcp(m, h, q, v, u=0.0):
    """The LCP of one step of the cart against the wall q ≥ 0 (notes 000, "Time-stepping LCP: Normal force").

    Semi-implicit Euler for m q̈ = u + f gives q[n+1] = q + h v + (h²/m)(u + f), so

        q[n+1] = [q + h v + (h²/m) u] + (h²/m) f,   q[n+1] ≥ 0,  f ≥ 0,  q[n+1] f = 0:

    LCP(M, q_lcp) with w = q[n+1], z = f[n] (a force, N), M = [[h²/m]] and
    q_lcp = [q + h v + (h²/m) u].

    >>> cart_wall_lcp(1.0, 0.1, 0.05, -1.0)
    (array([[0.01]]), array([-0.05]))
    """
    m, h = checks.positive("m", m), checks.positive("h", h)
    q, v, u = checks.finite("q", q), checks.finite("v", v), checks.finite("u", u)
    return np.array([[h**2 / m]]), np.array([q + h * v + h**2 / m * u])


@dataclass(frozen=True)
class CartWallStep:
    """One step of the cart against the wall: the next position and velocity, and the wall force f (N).

    >>> s = cart_wall_step(1.0, 0.1, 0.05, -1.0)
    >>> float(s.q_next), float(s.v_next), round(float(s.f), 9)
    (0.0, -0.5, 5.0)
    """

    q_next: np.ndarray
    v_next: np.ndarray
    f: np.ndarray


def cart_wall_step(m, h, q, v, u=0.0):
    """One step of the cart against the wall, solving its LCP with Lemke's algorithm.

    Returns a :class:`CartWallStep` with q[n+1] = w, f[n] = z and
    v[n+1] = v + (h/m)(u + f).

    >>> s = cart_wall_step(1.0, 0.1, 0.05, -1.0)
    >>> float(s.q_next), float(s.v_next), round(float(s.f), 9)
    (0.0, -0.5, 5.0)
    """
    M, b = cart_wall_lcp(m, h, q, v, u)
    res = lemke(M, b)
    if not res.solved:                       # cannot happen for M = [[h²/m]] > 0, but never hide it
        raise RuntimeError(f"the cart-wall LCP was not solved: {res.reason}")
    f = res.z[0]
    return CartWallStep(np.float64(res.w[0]), np.float64(v + h / m * (u + f)), np.float64(f))


def cart_wall_closed_form(m, h, q, v, u=0.0):
    """The solution of the cart-wall LCP in closed form, elementwise over arrays of q, v, u.

    With the contact-free prediction q̂ = q + h v + (h²/m) u:

        q[n+1] = max(q̂, 0),   f[n] = (m/h²) max(−q̂, 0),   v[n+1] = v + (h/m)(u + f).

    This is the figure of the notes: q[n+1] and f[n] over a (q[n], v[n]) grid
    for m = 1, h = 0.1, u = 0. Returns a :class:`CartWallStep` of arrays.

    >>> s = cart_wall_closed_form(1.0, 0.1, np.array([0.05, 0.5]), np.array([-1.0, -1.0]))
    >>> s.q_next, s.f.round(9)
    (array([0. , 0.4]), array([5., 0.]))
    """
    m, h = checks.positive("m", m), checks.positive("h", h)
    q, v, u = _finite_arrays(q=q, v=v, u=u)
    q_hat = q + h * v + h**2 / m * u
    f = m / h**2 * np.maximum(-q_hat, 0.0)
    return CartWallStep(np.maximum(q_hat, 0.0), v + h / m * (u + f), f)


def cart_wall_batch(m, h, q, v, u=0.0):
    """The cart-wall LCP solved for whole arrays of (q, v, u) at once with :func:`lib.lcp.lcp_batch`.

    The same answer as :func:`cart_wall_closed_form`, but through the generic
    batched LCP solver: one LCP per grid point, all solved together.

    >>> s = cart_wall_batch(1.0, 0.1, np.array([0.05, 0.5]), np.array([-1.0, -1.0]))
    >>> s.q_next.round(12), s.f.round(9)
    (array([0. , 0.4]), array([5., 0.]))
    """
    m, h = checks.positive("m", m), checks.positive("h", h)
    q, v, u = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (q, v, u)))
    res = lcp_batch(np.array([[h**2 / m]]), (q + h * v + h**2 / m * u)[..., None])
    if not res.solved.all():
        raise RuntimeError("some cart-wall LCPs were not solved")
    f = res.z[..., 0]
    return CartWallStep(res.w[..., 0], v + h / m * (u + f), f)



def cart_wall_gauss_qp(m, h, q, v, u=0.0):
    """One cart-wall step as the discrete Gauss principle, a QP solved with Clarabel.

        min_{v'} ½ m (v' − v⁻)²   s.t.   (1/h) q + v' ≥ 0,     v⁻ = v + (h/m) u

    (notes 000: the frictionless LCP is exactly the optimality conditions of
    this convex QP). The multiplier of the constraint is the impulse h f.
    Returns a :class:`CartWallStep` equal to :func:`cart_wall_step`.

    >>> s = cart_wall_gauss_qp(1.0, 0.1, 0.05, -1.0)
    >>> round(float(s.q_next), 7), round(float(s.v_next), 6), round(float(s.f), 5)
    (0.0, -0.5, 5.0)
    """
    m, h = checks.positive("m", m), checks.positive("h", h)
    q, v, u = checks.finite("q", q), checks.finite("v", v), checks.finite("u", u)
    v_minus = v + h / m * u
    sol = convex.qp([[m]], [-m * v_minus], G=[[-1.0]], g=[q / h]).require("the cart-wall Gauss QP")
    v_next = sol.x[0]
    return CartWallStep(np.float64(q + h * v_next), np.float64(v_next), np.float64(sol.z[0] / h))



def relaxed_cart_wall_step(m, h, q, v, u=0.0, b=0.0, eps=0.0, kappa=0.1):
    """One step of the relaxed (complementarity-free) cart against the wall, elementwise over arrays.

    Notes 000, "Relaxed complementarity-free formulation: Normal force", with
    the implicit damping in MuJoCo's form (chapter 8 explains the change):

        (m + h b) (v[n+1] − v[n]) / h = u[n] + f[n] − b v[n]
        v⁻ = v[n] + h/(m + h b) (u[n] − b v[n])
        v* = v[n] − 2h (1 + ε)/κ v[n] − h (1 + ε)/κ² q[n]
        argmin_{hf ≥ 0}  ½ (hf)² (1 + ε)/(m + h b) + hf (v⁻ − v*)
            ⇒   h f[n] = max(0, (m + h b)(v* − v⁻)/(1 + ε))

    b is the implicit damping (N·s/m: a damping force b v[n], treated
    implicitly, which adds the inertia h b), ε the impulse regularization and
    κ the error-reduction time constant. The argmin is an impulse (N·s: its
    term (1 + ε)/(m + h b) times it is a velocity), so we write it as h f[n]
    and the dynamics give v[n+1] = v⁻ + h f[n]/(m + h b). Then
    q[n+1] = q[n] + h v[n+1].
    As b, ε → 0 the step drives v[n+1] to max(v⁻, v*), while the LCP drives
    it to max(v⁻, −q[n]/h): the two differ where the Baumgarte target v*
    does, e.g. a force already at q[n] < 2κ|v[n]| when coming in at speed v[n] < 0.

    Returns a :class:`CartWallStep` (f the force f[n], N).

    >>> s = relaxed_cart_wall_step(1.0, 0.01, 0.05, -1.0, kappa=0.1)
    >>> round(float(s.q_next), 6), round(float(s.v_next), 6), round(float(s.f), 6)
    (0.0415, -0.85, 15.0)
    """
    m, h = checks.positive("m", m), checks.positive("h", h)
    b, eps = checks.nonnegative("b", b), checks.nonnegative("eps", eps)
    kappa = checks.positive("kappa", kappa)
    q, v, u = _finite_arrays(q=q, v=v, u=u)
    inertia = m + h * b                                   # kg: the mass and the implicit damping's h b
    v_minus = v + h / inertia * (u - b * v)
    v_star = v - 2 * h * (1 + eps) / kappa * v - h * (1 + eps) / kappa**2 * q
    impulse = np.maximum(0.0, inertia * (v_star - v_minus) / (1 + eps))
    v_next = v_minus + impulse / inertia
    return CartWallStep(q + h * v_next, v_next, impulse / h)


@dataclass(frozen=True)
class CartWallTrajectory(Trajectory):
    """A cart-wall simulation: a :class:`lib.system.Trajectory` of one coordinate (q, v of shape (N + 1,)), forces f (N,).

    Its q and v have shape (N + 1,), not (N + 1, 1) as a one-coordinate
    system's would: the cart's steps, its u(t, q, v) and the chapters that
    read the run all work in the scalar q.

    >>> traj = simulate_cart_wall(1.0, 0.25, -1.0, h=0.1, steps=5)
    >>> traj.t.shape, traj.f.shape
    ((6,), (5,))
    """

    f: np.ndarray


def simulate_cart_wall(m, q0, v0, *, h, steps, u=0.0, method="lcp", b=0.0, eps=0.0, kappa=0.1):
    """Simulate the cart against the wall for ``steps`` steps: ``method`` "lcp" or "relaxed".

    "lcp" uses :func:`cart_wall_step` (Lemke), "relaxed" uses
    :func:`relaxed_cart_wall_step` with b, ε, κ. ``u`` is a constant force
    or a function u(t, q, v).

    It takes the cart's mass ``m`` where the other simulators take a system:
    the cart is a mass on a line, and every step of this module is written in
    m, as the notes write it. As a protocol system the same "lcp" run is
    :func:`lib.timestepping.simulate_contact` on a ``PointMass(m, g=0, dim=1)``
    with the wall φ = q, J = [[1]]; its impulses are h f.

    >>> traj = simulate_cart_wall(1.0, 0.25, -1.0, h=0.1, steps=5)
    >>> traj.q.round(6)
    array([0.25, 0.15, 0.05, 0.  , 0.  , 0.  ])
    """
    if method not in ("lcp", "relaxed"):
        raise ValueError(f"method must be 'lcp' or 'relaxed', got {method!r}")
    steps = checks.count("steps", steps)
    h = checks.positive("h", h)
    q, v = checks.finite("q0", q0), checks.finite("v0", v0)
    t = h * np.arange(steps + 1)
    Q, V, F = [q], [v], []
    for i in range(steps):
        ui = u(t[i], q, v) if callable(u) else u
        if method == "lcp":
            s = cart_wall_step(m, h, q, v, ui)
        else:
            s = relaxed_cart_wall_step(m, h, q, v, ui, b=b, eps=eps, kappa=kappa)
        q, v = float(s.q_next), float(s.v_next)
        Q.append(q)
        V.append(v)
        F.append(float(s.f))
    return CartWallTrajectory(t, np.array(Q), np.array(V), np.array(F))

