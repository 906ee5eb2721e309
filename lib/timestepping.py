"""Time-stepping contact: one optimization problem per time step.

Notes 000, "Time-stepping Approximations for Rigid Contact" through "Beyond
Point Contact". Every method here takes the semi-implicit Euler step

    v' = v + h M⁻¹ (tau + Jᵀ λ),     q' = q + h v'

(the notes' choice: the new velocity v' = v[n+1] updates the position) and
finds the contact impulses λ by solving a mathematical program:

* a linear complementarity problem (LCP), solved with :func:`lib.lcp.lemke`:
  the cart against a wall, the brick with Coulomb friction (slack variables
  f⁺, f⁻, v_abs), and the Stewart–Trinkle polyhedral friction cone in 3D
  with normal and friction forces together (:func:`lcp_contact_step`);
* the discrete Gauss principle, a convex QP whose optimality conditions are
  the frictionless LCP (:func:`cart_wall_gauss_qp`);
* Anitescu's convex relaxation, a QP in v' with one constraint
  (1/h)φ + (n + μ dᵢ) v' ≥ 0 per edge of the polyhedral cone, and its dual
  (:func:`anitescu_step`), with its side effect of "hydroplaning"
  (:func:`hydroplaning`);
* Todorov's regularized dual (the MuJoCo formulation) with a desired contact
  velocity, stabilization gains B, K, a diagonal regularization, and the
  friction cone as a second-order cone (:func:`todorov_step`);
* the relaxed, complementarity-free cart against the wall with implicit
  damping inertia b, impulse regularization ε and time constant κ
  (:func:`relaxed_cart_wall_step`).

Contacts are described as in :mod:`lib.contact`: signed distances φ, shape
(k,), and contact Jacobians J, shape (k, 1 + d, n), whose rows for contact c
are the normal n_c = ∂φ_c/∂q and d = 0, 1 or 2 tangents (frictionless,
planar, spatial). Impulses are in N·s and are reported in the same contact
frame, ``lam`` shape (k, 1 + d) = [normal, tangents].

Solvers. The LCPs go to our own Lemke (:mod:`lib.lcp`): there is no
maintained pure-Python Lemke to call. The convex problems go to Clarabel, an
interior-point solver for QPs and second-order-cone programs: QPs through
``qpsolvers`` (one interface over many QP back ends, so a reader can swap
solvers by name), the SOCP of Todorov's conic friction cone directly through
``clarabel`` (qpsolvers has no cone constraints). Both are maintained, on
PyPI as wheels, and return the dual multipliers we need as impulses.

Introduced in: chapter 7 (LCPs) and chapter 8 (convex relaxations).
"""

import warnings
from dataclasses import dataclass

import clarabel
import numpy as np
import qpsolvers
import scipy.sparse as sp

from . import _checks, constraints
from .lcp import SOLVED, LCPResult, lcp_batch, lemke
from .system import ManipulatorSystem, Trajectory


# --- checks ---------------------------------------------------------------------------------

def _mass_matrix(M):
    """M as a symmetric positive definite (n, n) array, with its inverse."""
    try:
        M = np.atleast_2d(np.asarray(M, dtype=float))
    except (TypeError, ValueError):
        raise ValueError(f"M must be a square matrix of numbers, got {M!r}") from None
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square matrix, got shape {M.shape}")
    if not np.isfinite(M).all():
        raise ValueError("M must contain only finite numbers (found NaN or inf)")
    if not np.allclose(M, M.T, atol=1e-12 * max(1.0, np.abs(M).max())):
        raise ValueError("M must be symmetric")
    try:
        np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        raise ValueError("M must be positive definite") from None
    return M, np.linalg.inv(M)


def _contacts(phi, J, n):
    """φ as shape (k,) and J as shape (k, 1 + d, n), checked."""
    try:
        J = np.asarray(J, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"J must be an array of numbers, got {J!r}") from None
    if J.ndim == 2:                      # one row per contact: normals only
        J = J[:, None, :]
    if J.ndim != 3 or J.shape[2] != n or not 1 <= J.shape[1] <= 3:
        raise ValueError(f"J must have shape (k, 1 + d, {n}) with d = 0, 1 or 2, got shape {J.shape}")
    if not np.isfinite(J).all():
        raise ValueError("J must contain only finite numbers (found NaN or inf)")
    phi = _checks.vector("phi", phi, J.shape[0])
    return phi, J


def _friction_coefficients(mu, k):
    """μ as a per-contact array of shape (k,), each ≥ 0."""
    mu = np.broadcast_to(np.asarray(mu, dtype=float), (k,)) if np.ndim(mu) == 0 else np.asarray(mu, dtype=float)
    if mu.shape != (k,):
        raise ValueError(f"mu must be a number or have shape ({k},), got shape {mu.shape}")
    if not np.isfinite(mu).all() or (mu < 0).any():
        raise ValueError(f"mu must be finite and >= 0, got {mu}")
    return mu


def _step_inputs(M, tau, v, h, phi, J, mu):
    M, M_inv = _mass_matrix(M)
    n = M.shape[0]
    tau = _checks.vector("tau", tau, n)
    v = _checks.vector("v", v, n)
    h = _checks.positive("h", h)
    phi, J = _contacts(phi, J, n)
    mu = _friction_coefficients(mu, len(phi))
    return M, M_inv, tau, v, h, phi, J, mu


# --- semi-implicit Euler ------------------------------------------------------------------------

def dynamics_terms(system, q, v, u=None):
    """M(q) and the total non-contact force tau = tau_g + B u + tau_ext − C v of a protocol system.

    These are all a contact step needs from a :class:`lib.system.ManipulatorSystem`.

    >>> from lib.pendulum import SimplePendulum
    >>> M, tau = dynamics_terms(SimplePendulum(), [np.pi / 2], [0.0])
    >>> M, tau.round(2)
    (array([[1.]]), array([-9.81]))
    """
    q, v = system._state(q, v)
    tau = (system.gravity_vector(q) + system.input_matrix() @ system._input(u)
           + system.external_force(q, v) - system.coriolis_matrix(q, v) @ v)
    return system.mass_matrix(q), tau


def semi_implicit_euler_step(system, q, v, h, u=None):
    """One semi-implicit (symplectic) Euler step without contact.

        v' = v + h M⁻¹ (tau_g + B u + tau_ext − C v),    q' = q + h v'

    The new velocity updates the position; the notes single this choice out
    as essential for the contact LCPs below.

    >>> from lib.pendulum import SimplePendulum
    >>> q1, v1 = semi_implicit_euler_step(SimplePendulum(), [np.pi / 2], [0.0], 0.1)
    >>> q1.round(5), v1.round(5)
    (array([1.4727]), array([-0.981]))
    """
    h = _checks.positive("h", h)
    q, v = system._state(q, v)
    M, tau = dynamics_terms(system, q, v, u)
    v_next = v + h * np.linalg.solve(M, tau)
    return q + h * v_next, v_next


def semi_implicit_euler(system, q0, v0, h, steps, u=None):
    """Simulate ``steps`` semi-implicit Euler steps of a protocol system; a :class:`lib.system.Trajectory`.

    ``u`` is None, a constant input, or a function u(t, q, v).

    >>> from lib.pendulum import SimplePendulum
    >>> semi_implicit_euler(SimplePendulum(), [0.1], [0.0], 0.01, 100).q.shape
    (101, 1)
    """
    h = _checks.positive("h", h)
    steps = _steps(steps)
    q, v = system._state(q0, v0)
    t = h * np.arange(steps + 1)
    Q, V = [q], [v]
    for i in range(steps):
        q, v = semi_implicit_euler_step(system, q, v, h, u(t[i], q, v) if callable(u) else u)
        Q.append(q)
        V.append(v)
    return Trajectory(t, np.array(Q), np.array(V))


def _steps(steps):
    if isinstance(steps, bool) or int(steps) != steps or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    return int(steps)


# --- the cart against a wall (an LCP with one unknown) ----------------------------------------

def cart_wall_lcp(m, h, q, v, u=0.0):
    """The LCP of one step of the cart against the wall q ≥ 0 (notes 000, "Time-stepping LCP: Normal force").

    Semi-implicit Euler for m q̈ = u + f gives q[n+1] = q + h v + (h²/m)(u + f), so

        q[n+1] = [q + h v + (h²/m) u] + (h²/m) f,   q[n+1] ≥ 0,  f ≥ 0,  q[n+1] f = 0:

    LCP(M, q_lcp) with w = q[n+1], z = f[n] (a force, N), M = [[h²/m]] and
    q_lcp = [q + h v + (h²/m) u].

    >>> cart_wall_lcp(1.0, 0.1, 0.05, -1.0)
    (array([[0.01]]), array([-0.05]))
    """
    m, h = _checks.positive("m", m), _checks.positive("h", h)
    q, v, u = _checks.finite("q", q), _checks.finite("v", v), _checks.finite("u", u)
    return np.array([[h**2 / m]]), np.array([q + h * v + h**2 / m * u])


@dataclass(frozen=True)
class CartWallStep:
    """One step of the cart against the wall: the next position and velocity, and the wall force f (N)."""

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
    m, h = _checks.positive("m", m), _checks.positive("h", h)
    q, v, u = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (q, v, u)))
    for name, x in (("q", q), ("v", v), ("u", u)):
        if not np.isfinite(x).all():
            raise ValueError(f"{name} must contain only finite numbers")
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
    m, h = _checks.positive("m", m), _checks.positive("h", h)
    q, v, u = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (q, v, u)))
    res = lcp_batch(np.array([[h**2 / m]]), (q + h * v + h**2 / m * u)[..., None])
    if not res.solved.all():
        raise RuntimeError("some cart-wall LCPs were not solved")
    f = res.z[..., 0]
    return CartWallStep(res.w[..., 0], v + h / m * (u + f), f)


def _solve_qp(P, c, G=None, g=None, lb=None):
    """min ½ xᵀPx + cᵀx s.t. G x ≤ g, x ≥ lb with Clarabel through qpsolvers; (x, z, found)."""
    P = sp.csc_matrix(P)
    G = None if G is None else sp.csc_matrix(G)
    problem = qpsolvers.Problem(P, c, G, g, lb=lb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # a failed solve is reported through the status
        sol = qpsolvers.solve_problem(problem, solver="clarabel", tol_gap_abs=1e-10, tol_gap_rel=1e-10,
                                      tol_feas=1e-10)
    return sol


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
    m, h = _checks.positive("m", m), _checks.positive("h", h)
    q, v, u = _checks.finite("q", q), _checks.finite("v", v), _checks.finite("u", u)
    v_minus = v + h / m * u
    sol = _solve_qp([[m]], np.array([-m * v_minus]), G=[[-1.0]], g=np.array([q / h]))
    if not sol.found:
        raise RuntimeError("the Gauss-principle QP was not solved")
    v_next = sol.x[0]
    return CartWallStep(np.float64(q + h * v_next), np.float64(v_next), np.float64(sol.z[0] / h))


# --- the brick with Coulomb friction ---------------------------------------------------------------

def brick_friction_lcp(m, h, v, u, mu, g=9.81):
    """The LCP of one step of the brick sliding on the ground with Coulomb friction.

    Notes 000, "Time-stepping LCP: Coulomb Friction". With the friction force
    f = f⁺ − f⁻, the normal force m g and v[n+1] = v + (h/m)(u + f⁺ − f⁻):

        0 ≤ v_abs + v[n+1]       ⊥  f⁺ ≥ 0
        0 ≤ v_abs − v[n+1]       ⊥  f⁻ ≥ 0
        0 ≤ μ m g − f⁺ − f⁻      ⊥  v_abs ≥ 0

    i.e. z = [f⁺, f⁻, v_abs] and

        M = [[ h/m, −h/m, 1],      q_lcp = [ v + (h/m) u,
             [−h/m,  h/m, 1],               −v − (h/m) u,
             [ −1,   −1,  0]],               μ m g       ].

    >>> M, b = brick_friction_lcp(1.0, 0.1, 1.0, 0.0, 0.5)
    >>> M
    array([[ 0.1, -0.1,  1. ],
           [-0.1,  0.1,  1. ],
           [-1. , -1. ,  0. ]])
    >>> b
    array([ 1.   , -1.   ,  4.905])
    """
    m, h = _checks.positive("m", m), _checks.positive("h", h)
    v, u = _checks.finite("v", v), _checks.finite("u", u)
    mu, g = _checks.nonnegative("mu", mu), _checks.positive("g", g)
    k = h / m
    M = np.array([[k, -k, 1.0], [-k, k, 1.0], [-1.0, -1.0, 0.0]])
    v_free = v + k * u
    return M, np.array([v_free, -v_free, mu * m * g])


@dataclass(frozen=True)
class BrickStep:
    """One step of the brick with friction.

    ``v_next`` the new velocity, ``f`` = f⁺ − f⁻ the friction force (N),
    ``regime`` "sticking" or "sliding", and ``lcp`` the solver's result
    (f⁺ and f⁻ alone are not unique while sticking; f is).
    """

    v_next: float
    f: float
    regime: str
    lcp: LCPResult


def brick_friction_step(m, h, v, u, mu, g=9.81):
    """One step of the brick with Coulomb friction, solving :func:`brick_friction_lcp` with Lemke.

    >>> s = brick_friction_step(1.0, 0.1, 1.0, 0.0, 0.5)          # sliding: friction −μ m g
    >>> round(s.v_next, 6), round(s.f, 6), s.regime
    (0.5095, -4.905, 'sliding')
    >>> s = brick_friction_step(1.0, 0.1, 0.0, 2.0, 0.5)          # pushed gently: it sticks
    >>> round(s.v_next, 9), round(s.f, 6), s.regime
    (0.0, -2.0, 'sticking')
    """
    M, b = brick_friction_lcp(m, h, v, u, mu, g)
    res = lemke(M, b)
    if not res.solved:
        raise RuntimeError(f"the brick friction LCP was not solved: {res.reason}")
    f_plus, f_minus, _ = res.z
    f = f_plus - f_minus
    v_next = v + h / m * (u + f)
    scale = max(1.0, abs(v), h / m * abs(u))
    regime = "sticking" if abs(v_next) <= 1e-9 * scale else "sliding"
    return BrickStep(float(v_next), float(f), regime, res)


def brick_friction_closed_form(m, h, v, u, mu, g=9.81):
    """The brick's friction step in closed form, elementwise over arrays of v and u.

    With the friction-free prediction v⁻ = v + (h/m) u: it sticks when the
    largest friction impulse can stop it, |v⁻| ≤ h μ g, and then
    v[n+1] = 0, f = −m v⁻/h; otherwise it slides, f = −μ m g sign(v⁻) and
    v[n+1] = v⁻ − h μ g sign(v⁻). Returns (v_next, f).

    >>> brick_friction_closed_form(1.0, 0.1, np.array([1.0, 0.0]), np.array([0.0, 2.0]), 0.5)
    (array([0.5095, 0.    ]), array([-4.905, -2.   ]))
    """
    m, h = _checks.positive("m", m), _checks.positive("h", h)
    mu, g = _checks.nonnegative("mu", mu), _checks.positive("g", g)
    v, u = np.broadcast_arrays(np.asarray(v, dtype=float), np.asarray(u, dtype=float))
    v_minus = v + h / m * u
    sticks = np.abs(v_minus) <= h * mu * g
    f = np.where(sticks, -m * v_minus / h, -mu * m * g * np.sign(v_minus))
    return np.where(sticks, 0.0, v_minus - h * mu * g * np.sign(v_minus)), f


def brick_friction_batch(m, h, v, u, mu, g=9.81):
    """The brick's friction LCP solved over whole arrays of (v, u) at once with :func:`lib.lcp.lcp_batch`.

    One 3×3 LCP per grid point, all solved together by enumeration; returns
    (v_next, f) like :func:`brick_friction_closed_form` (f = f⁺ − f⁻, unique
    even where f⁺ and f⁻ are not). Use it to map the sticking region.

    >>> v_next, f = brick_friction_batch(1.0, 0.1, np.array([1.0, 0.0]), np.array([0.0, 2.0]), 0.5)
    >>> v_next.round(6), f.round(6)
    (array([0.5095, 0.    ]), array([-4.905, -2.   ]))
    """
    m, h = _checks.positive("m", m), _checks.positive("h", h)
    mu, g = _checks.nonnegative("mu", mu), _checks.positive("g", g)
    v, u = np.broadcast_arrays(np.asarray(v, dtype=float), np.asarray(u, dtype=float))
    M, _ = brick_friction_lcp(m, h, 0.0, 0.0, mu, g)
    v_free = v + h / m * u
    b = np.stack([v_free, -v_free, np.full(v.shape, mu * m * g)], axis=-1)
    res = lcp_batch(M, b)
    if not res.solved.all():
        raise RuntimeError("some brick friction LCPs were not solved")
    f = res.z[..., 0] - res.z[..., 1]
    return v + h / m * (u + f), f


# --- general contact: the polyhedral friction cone (Stewart–Trinkle) ------------------------------

def friction_directions(J, num_directions=4):
    """Tangent directions d_{c,j} in joint space spanning the polyhedral friction cone, shape (k, m, n).

    Planar contacts (d = 1 tangent) get m = 2 directions, +t and −t. Spatial
    contacts (d = 2) get ``num_directions`` (even, ≥ 4) directions evenly
    spaced around the contact normal,

        d_{c,j} = cos θ_j t1_c + sin θ_j t2_c,   θ_j = 2π j / m,

    so that −d_{c,j} is also in the set (Stewart & Trinkle 1996; Anitescu needs it).
    Also returns the unit vectors (cos θ_j, sin θ_j) in the contact's tangent
    plane, shape (m, d), to map β back to tangential impulses.

    >>> D, E = friction_directions(np.array([[[0.0, 1.0], [1.0, 0.0]]]))
    >>> D
    array([[[ 1.,  0.],
            [-1.,  0.]]])
    """
    J = np.asarray(J, dtype=float)
    d = J.shape[1] - 1
    if d == 0:
        raise ValueError("J has no tangent rows: friction needs J of shape (k, 2, n) or (k, 3, n)")
    if d == 1:
        E = np.array([[1.0], [-1.0]])
    else:
        if isinstance(num_directions, bool) or int(num_directions) != num_directions \
                or num_directions < 4 or num_directions % 2:
            raise ValueError(f"num_directions must be an even integer >= 4, got {num_directions!r}")
        theta = 2 * np.pi * np.arange(int(num_directions)) / num_directions
        E = np.column_stack([np.cos(theta), np.sin(theta)])
        E[np.abs(E) < 1e-15] = 0.0
    return np.einsum("je,ken->kjn", E, J[:, 1:, :]), E


def stewart_trinkle_lcp(M, tau, v, h, phi, J, mu, num_directions=4):
    """The Stewart–Trinkle LCP of one step: normal and friction impulses together.

    Unknowns z = [λ_n (k), β (k m), γ (k)]: normal impulses, impulses along
    the friction directions D (:func:`friction_directions`), and one slack per
    contact (the sliding speed, the notes' v_abs). With the contact-free
    velocity v⁻ = v + h M⁻¹ tau and v' = v⁻ + M⁻¹ (Nᵀ λ_n + Dᵀ β),

        0 ≤ φ/h + N v'              ⊥  λ_n ≥ 0    (no penetration at the next step)
        0 ≤ D v' + E γ              ⊥  β ≥ 0      (friction opposes sliding)
        0 ≤ μ λ_n − Eᵀ β            ⊥  γ ≥ 0      (inside the polyhedral cone)

    where N stacks the normal rows and E[c m + j, c] = 1. For the brick
    (one contact, D = [+1; −1], a given normal impulse) these are exactly the
    notes' rows with f⁺, f⁻, v_abs. Returns (A, b, D, dirs): the LCP
    w = b + A z, the direction rows D (k m, n), and their unit vectors in the
    tangent plane, dirs (m, d), which map β back to tangential impulses.

    >>> A, b, D, dirs = stewart_trinkle_lcp(np.eye(2), [0.0, -9.81], [1.0, 0.0], 0.1, [0.0],
    ...                                  [[[0.0, 1.0], [1.0, 0.0]]], 0.5)
    >>> A.shape, b.round(3)
    ((4, 4), array([-0.981,  1.   , -1.   ,  0.   ]))
    """
    M, M_inv, tau, v, h, phi, J, mu = _step_inputs(M, tau, v, h, phi, J, mu)
    k = len(phi)
    N = J[:, 0, :]
    D, dirs = friction_directions(J, num_directions)
    m = D.shape[1]
    D = D.reshape(k * m, -1)
    E = np.kron(np.eye(k), np.ones((m, 1)))          # E[c m + j, c] = 1
    v_minus = v + h * M_inv @ tau
    A = np.block([
        [N @ M_inv @ N.T, N @ M_inv @ D.T, np.zeros((k, k))],
        [D @ M_inv @ N.T, D @ M_inv @ D.T, E],
        [np.diag(mu), -E.T, np.zeros((k, k))],
    ])
    b = np.concatenate([phi / h + N @ v_minus, D @ v_minus, np.zeros(k)])
    return A, b, D, dirs


@dataclass(frozen=True)
class ContactStep:
    """One contact step: the new velocity and the impulses that produced it.

    ``v_next`` (n,); ``lam`` (k, 1 + d), impulses (N·s) per contact in its
    frame [normal, tangents]; ``impulse`` (n,), the generalized impulse
    Jᵀλ = M (v' − v⁻); ``multipliers``, the solver's own unknowns (LCP z, or
    Anitescu's β, or Todorov's forces); ``status`` and ``reason`` from the
    solver. When the solver fails, ``v_next`` is None.
    """

    v_next: np.ndarray | None
    lam: np.ndarray | None
    impulse: np.ndarray | None
    multipliers: np.ndarray | None
    status: str
    reason: str

    @property
    def solved(self):
        return self.status == SOLVED


def _failed(status, reason):
    return ContactStep(None, None, None, None, status, reason)


def lcp_contact_step(M, tau, v, h, phi, J, mu=0.0, num_directions=4, max_iter=None, restarts=3):
    """One time step with rigid contact and Coulomb friction as an LCP, solved with Lemke's algorithm.

    Frictionless contacts (μ = 0 everywhere, or J without tangent rows) give
    the LCP 0 ≤ φ/h + N v' ⊥ λ_n ≥ 0 with v' = v⁻ + M⁻¹ Nᵀ λ_n; otherwise
    the Stewart–Trinkle LCP (:func:`stewart_trinkle_lcp`) with the
    polyhedral friction cone. M (n, n), tau (n,) the non-contact forces
    (see :func:`dynamics_terms`), v (n,), h > 0, φ (k,), J (k, 1 + d, n).

    >>> s = lcp_contact_step(np.eye(2), [0.0, -9.81], [1.0, 0.0], 0.1, [0.0],
    ...                      [[[0.0, 1.0], [1.0, 0.0]]], mu=0.5)
    >>> s.v_next.round(6), s.lam.round(6)                    # slides: v_x drops by μ g h
    (array([0.5095, 0.    ]), array([[ 0.981 , -0.4905]]))
    """
    M, M_inv, tau, v, h, phi, J, mu = _step_inputs(M, tau, v, h, phi, J, mu)
    k, d = len(phi), J.shape[1] - 1
    N = J[:, 0, :]
    v_minus = v + h * M_inv @ tau
    lam = np.zeros((k, 1 + d))
    if d == 0 or not mu.any():
        res = lemke(N @ M_inv @ N.T, phi / h + N @ v_minus, max_iter=max_iter, restarts=restarts)
        if not res.solved:
            return _failed(res.status, res.reason)
        lam[:, 0] = res.z
    else:
        A, b, D, dirs = stewart_trinkle_lcp(M, tau, v, h, phi, J, mu, num_directions)
        res = lemke(A, b, max_iter=max_iter, restarts=restarts)
        if not res.solved:
            return _failed(res.status, res.reason)
        m = dirs.shape[0]
        beta = res.z[k:k + k * m].reshape(k, m)
        lam[:, 0] = res.z[:k]
        lam[:, 1:] = beta @ dirs                    # Σ_j β_{c,j} (cos θ_j, sin θ_j)
    impulse = np.einsum("kdn,kd->n", J, lam)
    return ContactStep(v_minus + M_inv @ impulse, lam, impulse, res.z, SOLVED, res.reason)


# --- Anitescu's convex relaxation -----------------------------------------------------------------

def anitescu_rows(J, mu, num_directions=4):
    """The rows J_β of Anitescu's constraints, n_c + μ_c d_{c,j}: one per edge of each contact's polyhedral cone.

    Returns (J_beta (k m, n), the contact each row belongs to (k m,), and the
    row's unit direction in its contact's tangent plane (k m, d)). Without
    friction (μ = 0 everywhere, or no tangent rows) the rows are the normals
    n_c, one per contact.

    >>> Jb, owner, dirs = anitescu_rows([[[0.0, 1.0], [1.0, 0.0]]], 0.5)
    >>> Jb
    array([[ 0.5,  1. ],
           [-0.5,  1. ]])
    """
    J = np.asarray(J, dtype=float)
    if J.ndim == 2:
        J = J[:, None, :]
    k, d = J.shape[0], J.shape[1] - 1
    mu = _friction_coefficients(mu, k)
    if d == 0 or not mu.any():
        return J[:, 0, :], np.arange(k), np.zeros((k, d))
    D, E = friction_directions(J, num_directions)
    m = D.shape[1]
    rows = J[:, 0, None, :] + mu[:, None, None] * D           # (k, m, n)
    return rows.reshape(k * m, -1), np.repeat(np.arange(k), m), np.tile(E, (k, 1))


def anitescu_step(M, tau, v, h, phi, J, mu=0.0, num_directions=4, form="primal"):
    """One time step of Anitescu's convex relaxation of Coulomb friction.

    The primal QP (notes 000, "Anitescu's convex formulation"):

        min_{v'} ½ (v' − v⁻)ᵀ M (v' − v⁻)   s.t.   (1/h) φ_c + (n_c + μ_c d_{c,j}) v' ≥ 0  for all c, j

    with v⁻ = v + h M⁻¹ tau. Its multipliers β ≥ 0 are the impulses along the
    edges n_c + μ_c d_{c,j} of the polyhedral cone (the set of d's is
    symmetric, so this is the notes' n − μ dᵢ too), and
    M (v' − v⁻) = J_βᵀ β. Eliminating v' gives the dual

        min_{β ≥ 0} ½ βᵀ J_β M⁻¹ J_βᵀ β + βᵀ (φ/h + J_β v⁻).

    (The notes print the dual's linear term as (1/h) φ Σ βᵢ, which is this
    with v⁻ = 0; the J_β v⁻ term appears when the Lagrangian is expanded.)

    ``form``: "primal" (the QP in v', Clarabel via qpsolvers), "dual" (the QP
    in β, same solver), or "lemke" (the dual's optimality conditions, an LCP
    with a positive semidefinite matrix, by :func:`lib.lcp.lemke`). The three
    give the same v'; the impulses β need not be unique (a table on four
    legs), though their sum Jᵀλ is.

    >>> s = anitescu_step(np.eye(2), [0.0, -9.81], [1.0, 0.0], 0.1, [0.0],
    ...                   [[[0.0, 1.0], [1.0, 0.0]]], mu=0.5, form="lemke")
    >>> s.v_next.round(6)                        # it slides, and lifts off: v_z = μ v_x
    array([0.4076, 0.2038])
    """
    if form not in ("primal", "dual", "lemke"):
        raise ValueError(f"form must be 'primal', 'dual' or 'lemke', got {form!r}")
    M, M_inv, tau, v, h, phi, J, mu = _step_inputs(M, tau, v, h, phi, J, mu)
    k, d = len(phi), J.shape[1] - 1
    Jb, owner, dirs = anitescu_rows(J, mu, num_directions)
    v_minus = v + h * M_inv @ tau
    offset = phi[owner] / h                      # (1/h) φ_c for each row
    if form == "primal":
        sol = _solve_qp(M, -M @ v_minus, G=-Jb, g=offset)
        if not sol.found:
            return _failed("failed", f"Clarabel did not solve the primal QP: {sol.extras.get('status')}")
        beta = np.maximum(sol.z, 0.0)
        reason = "primal QP solved by Clarabel"
    elif form == "dual":
        W = Jb @ M_inv @ Jb.T
        sol = _solve_qp(W, offset + Jb @ v_minus, lb=np.zeros(len(offset)))
        if not sol.found:
            return _failed("failed", f"Clarabel did not solve the dual QP: {sol.extras.get('status')}")
        beta = np.maximum(sol.x, 0.0)
        reason = "dual QP solved by Clarabel"
    else:
        res = lemke(Jb @ M_inv @ Jb.T, offset + Jb @ v_minus, restarts=3)
        if not res.solved:
            return _failed(res.status, res.reason)
        beta, reason = res.z, res.reason
    impulse = Jb.T @ beta
    lam = np.zeros((k, 1 + d))
    np.add.at(lam[:, 0], owner, beta)                              # each edge pushes along n_c …
    if d:
        np.add.at(lam[:, 1:], owner, (mu[owner] * beta)[:, None] * dirs)   # … and along μ_c d_{c,j}
    v_next = v_minus + M_inv @ impulse
    if form == "primal":
        v_next = sol.x
    return ContactStep(v_next, lam, impulse, beta, SOLVED, reason)


# --- Todorov's regularized dual (MuJoCo) -------------------------------------------------------------

def todorov_step(M, tau, v, h, phi, J, mu=0.0, B=0.0, K=0.0, eps=0.0, b=0.0, cone="soc", num_directions=4):
    """One step of Todorov's regularized dual, the MuJoCo formulation (notes 000, "Todorov's regularization").

        min_λ ½ λᵀ (W + R) λ + (1/h) λᵀ (J v⁻ − ẋ^d)   s.t.  λ_c ∈ FC_c,

    with W = J M_b⁻¹ Jᵀ (M_b = M + b I), R = ε diag(W) the diagonal
    regularization that keeps the objective strictly convex, and the desired
    contact velocity

        ẋ^d = J v − h B J v − h K [φ, 0, 0]      (B, K: stabilization gains, 1/s and 1/s²).

    λ are forces (N), per contact [f_n, f_t1, f_t2]; the step applies the
    impulse h λ: v' = v⁻ + h M_b⁻¹ Jᵀ λ. ``b`` is the implicit damping
    inertia: M_b v' = M_b v + h (tau − b v) + h Jᵀλ, so v⁻ = v + h M_b⁻¹ (tau − b v).

    ``cone="soc"`` uses the friction cone itself,
    FC = {f_n ≥ 0, ‖f_t‖ ≤ μ f_n}, a second-order cone (solved by Clarabel
    as an SOCP); ``cone="polyhedral"`` writes λ_c = Σ_j β_{c,j} [1, μ d̂_j],
    β ≥ 0, a QP (Clarabel via qpsolvers). Planar contacts (one tangent)
    use |f_t| ≤ μ f_n, which is both. Returns a :class:`ContactStep`;
    ``lam`` holds the impulses h λ, ``multipliers`` the forces λ (or β).

    >>> s = todorov_step([[1.0]], [0.0], [-1.0], 0.01, [0.0], [[[1.0]]], B=20.0, K=100.0)
    >>> s.v_next.round(6)                  # the contact velocity is driven to (1 − hB) v = −0.8
    array([-0.8])
    """
    if cone not in ("soc", "polyhedral"):
        raise ValueError(f"cone must be 'soc' or 'polyhedral', got {cone!r}")
    M, _, tau, v, h, phi, J, mu = _step_inputs(M, tau, v, h, phi, J, mu)
    B, K = _checks.nonnegative("B", B), _checks.nonnegative("K", K)
    eps, b = _checks.nonnegative("eps", eps), _checks.nonnegative("b", b)
    k, d = len(phi), J.shape[1] - 1
    n = M.shape[0]
    Mb_inv = np.linalg.inv(M + b * np.eye(n))
    v_minus = v + h * Mb_inv @ (tau - b * v)
    Jflat = J.reshape(k * (1 + d), n)
    W = Jflat @ Mb_inv @ Jflat.T
    P = W + eps * np.diag(np.diag(W))
    xd = J @ v * (1.0 - h * B)                   # (k, 1 + d)
    xd[:, 0] -= h * K * phi
    c = (Jflat @ v_minus - xd.ravel()) / h

    if cone == "polyhedral" and d == 2 and mu.any():
        _, dirs = friction_directions(J, num_directions)
        m = dirs.shape[0]
        rays = np.zeros((k, 1 + d, k, m))        # λ_c = Σ_j β_{c,j} [1, μ_c cos θ_j, μ_c sin θ_j]
        for ci in range(k):
            rays[ci, 0, ci, :] = 1.0
            rays[ci, 1:, ci, :] = mu[ci] * dirs.T
        G = rays.reshape(k * (1 + d), k * m)
        sol = _solve_qp(G.T @ P @ G, G.T @ c, lb=np.zeros(k * m))
        if not sol.found:
            return _failed("failed", f"Clarabel did not solve the polyhedral dual: {sol.extras.get('status')}")
        multipliers = np.maximum(sol.x, 0.0)
        forces = G @ multipliers
        reason = "polyhedral dual QP solved by Clarabel"
    else:
        forces, status = _solve_cone_qp(P, c, k, d, mu)
        if forces is None:
            return _failed("failed", f"Clarabel did not solve the conic dual: {status}")
        multipliers = forces
        reason = "conic dual solved by Clarabel"
    lam = h * forces.reshape(k, 1 + d)
    impulse = np.einsum("kdn,kd->n", J, lam)
    return ContactStep(v_minus + Mb_inv @ impulse, lam, impulse, multipliers, SOLVED, reason)


def _solve_cone_qp(P, c, k, d, mu):
    """min ½ λᵀPλ + cᵀλ with each λ_c = [f_n, f_t…] in its friction cone, by Clarabel; (λ, status).

    Clarabel's constraint form is A λ + s = b_vec with s in a cone. For the
    second-order cone, s = [μ f_n, f_t1, f_t2] (so A = −diag(μ, 1, 1), b = 0);
    a frictionless contact has f_n ≥ 0 and f_t = 0; a planar one
    μ f_n ∓ f_t ≥ 0.
    """
    size = 1 + d
    blocks, cones = [], []
    for ci in range(k):
        def row(coeffs):
            r = np.zeros(k * size)
            r[ci * size:(ci + 1) * size] = coeffs
            return r

        if d == 0:
            rows = [row([-1.0])]
            cones.append(clarabel.NonnegativeConeT(1))
        elif mu[ci] == 0.0:
            rows = [row([-1.0] + [0.0] * d)] + [row([0.0] + list(np.eye(d)[i])) for i in range(d)]
            cones += [clarabel.NonnegativeConeT(1), clarabel.ZeroConeT(d)]
        elif d == 1:
            rows = [row([-mu[ci], 1.0]), row([-mu[ci], -1.0])]
            cones.append(clarabel.NonnegativeConeT(2))
        else:
            rows = [row([-mu[ci], 0.0, 0.0]), row([0.0, -1.0, 0.0]), row([0.0, 0.0, -1.0])]
            cones.append(clarabel.SecondOrderConeT(3))
        blocks += rows
    A = sp.csc_matrix(np.array(blocks))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-10
    solver = clarabel.DefaultSolver(sp.triu(sp.csc_matrix(P), format="csc"), np.asarray(c, dtype=float), A,
                                    np.zeros(A.shape[0]), cones, settings)
    sol = solver.solve()
    if sol.status != clarabel.SolverStatus.Solved:
        return None, str(sol.status)
    return np.array(sol.x), str(sol.status)


# --- the relaxed, complementarity-free cart against the wall --------------------------------------

def relaxed_cart_wall_step(m, h, q, v, u=0.0, b=0.0, eps=0.0, kappa=0.1):
    """One step of the relaxed (complementarity-free) cart against the wall, elementwise over arrays.

    Notes 000, "Relaxed complementarity-free formulation: Normal force":

        (m + b) (v[n+1] − v[n]) / h = u[n] + f[n] − b v[n]
        v⁻ = v[n] + h/(m + b) (u[n] − b v[n])
        v* = v[n] − 2h (1 + ε)/κ v[n] − h (1 + ε)/κ² q[n]
        argmin_{f ≥ 0}  ½ f² (1 + ε)/(m + b) + f (v⁻ − v*)
            ⇒   h f[n] = max(0, (m + b)(v* − v⁻)/(1 + ε))

    b is the implicit damping inertia, ε the impulse regularization and κ
    the error-reduction time constant. The argmin is an impulse (N·s: its
    term (1 + ε)/(m + b) times it is a velocity), so we write it as h f[n] and
    the dynamics give v[n+1] = v⁻ + h f[n]/(m + b). Then q[n+1] = q[n] + h v[n+1].
    As b, ε → 0 the step drives v[n+1] to max(v⁻, v*), while the LCP drives
    it to max(v⁻, −q[n]/h): the two differ where the Baumgarte target v*
    does, e.g. a force already at q[n] < 2κ|v[n]| when coming in at speed v[n] < 0.

    Returns a :class:`CartWallStep` (f the force f[n], N).

    >>> s = relaxed_cart_wall_step(1.0, 0.01, 0.05, -1.0, kappa=0.1)
    >>> round(float(s.q_next), 6), round(float(s.v_next), 6), round(float(s.f), 6)
    (0.0415, -0.85, 15.0)
    """
    m, h = _checks.positive("m", m), _checks.positive("h", h)
    b, eps = _checks.nonnegative("b", b), _checks.nonnegative("eps", eps)
    kappa = _checks.positive("kappa", kappa)
    q, v, u = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (q, v, u)))
    for name, x in (("q", q), ("v", v), ("u", u)):
        if not np.isfinite(x).all():
            raise ValueError(f"{name} must contain only finite numbers")
    v_minus = v + h / (m + b) * (u - b * v)
    v_star = v - 2 * h * (1 + eps) / kappa * v - h * (1 + eps) / kappa**2 * q
    impulse = np.maximum(0.0, (m + b) * (v_star - v_minus) / (1 + eps))
    v_next = v_minus + impulse / (m + b)
    return CartWallStep(q + h * v_next, v_next, impulse / h)


@dataclass(frozen=True)
class CartWallTrajectory:
    """A cart-wall simulation: times t (N + 1,), positions q and velocities v (N + 1,), forces f (N,)."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    f: np.ndarray


def cart_wall_simulate(m, h, q0, v0, steps, u=0.0, method="lcp", b=0.0, eps=0.0, kappa=0.1):
    """Simulate the cart against the wall for ``steps`` steps: ``method`` "lcp" or "relaxed".

    "lcp" uses :func:`cart_wall_step` (Lemke), "relaxed" uses
    :func:`relaxed_cart_wall_step` with b, ε, κ. ``u`` is a constant force
    or a function u(t, q, v).

    >>> traj = cart_wall_simulate(1.0, 0.1, 0.25, -1.0, 5)
    >>> traj.q.round(6)
    array([0.25, 0.15, 0.05, 0.  , 0.  , 0.  ])
    """
    if method not in ("lcp", "relaxed"):
        raise ValueError(f"method must be 'lcp' or 'relaxed', got {method!r}")
    steps = _steps(steps)
    h = _checks.positive("h", h)
    q, v = _checks.finite("q0", q0), _checks.finite("v0", v0)
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


# --- simulating protocol systems with contact ---------------------------------------------------------

@dataclass(frozen=True)
class ContactTrajectory:
    """A time-stepping simulation: t (N + 1,), q and v (N + 1, n), impulses lam (N, k, 1 + d) per step."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray


_STEPS = {"lcp": lcp_contact_step, "anitescu": anitescu_step, "todorov": todorov_step}


def _contact_data(contacts, q):
    c = contacts(q)
    if hasattr(c, "phi") and hasattr(c, "J"):
        return c.phi, c.J
    return c


def simulate_contact(system, q0, v0, h, steps, contacts, u=None, mu=0.0, method="lcp", **options):
    """Time-step a protocol system with contact: one contact step per time step, then q' = q + h v'.

    ``contacts(q)`` returns (φ, J) — φ (k,), J (k, 1 + d, n) — or an object
    with ``phi`` and ``J`` attributes (such as :class:`lib.contact.PlaneContact`'s
    ``kinematics``). ``method`` is "lcp" (:func:`lcp_contact_step`),
    "anitescu" (:func:`anitescu_step`) or "todorov" (:func:`todorov_step`);
    ``options`` go to that step. Needs q̇ = v (true of every protocol system
    in the course). Raises ``RuntimeError`` if a step's solver fails.

    >>> ball = PointMass(m=1.0, dim=2)
    >>> traj = simulate_contact(ball, [0.0, 0.0], [1.0, 0.0], 0.1, 3, ball.ground_contact, mu=0.5)
    >>> traj.v[:, 0].round(4)                    # sliding: v_x drops by μ g h per step
    array([1.    , 0.5095, 0.019 , 0.    ])
    """
    if method not in _STEPS:
        raise ValueError(f"method must be one of {sorted(_STEPS)}, got {method!r}")
    h = _checks.positive("h", h)
    steps = _steps(steps)
    q, v = system._state(q0, v0)
    step_fn = _STEPS[method]
    t = h * np.arange(steps + 1)
    Q, V, L = [q], [v], []
    for i in range(steps):
        M, tau = dynamics_terms(system, q, v, u(t[i], q, v) if callable(u) else u)
        phi, J = _contact_data(contacts, q)
        s = step_fn(M, tau, v, h, phi, J, mu=mu, **options)
        if not s.solved:
            raise RuntimeError(f"step {i} (t = {t[i]:.4g}): {method} solver failed: {s.reason}")
        v = s.v_next
        q = q + h * v
        Q.append(q)
        V.append(v)
        L.append(s.lam)
    return ContactTrajectory(t, np.array(Q), np.array(V), np.array(L))


@dataclass(frozen=True)
class PointMass(constraints.PointMass):
    """A point mass in the vertical plane (dim = 2, q = [x, z]) or in space (dim = 3, q = [x, y, z]).

        m q̈ = −m g e_z + u,   and a ground z ≥ 0 through :meth:`ground_contact`.

    The simplest body for friction: the notes' brick, sliding without tipping.
    Its dynamics are :class:`lib.constraints.PointMass`'s; this adds the ground.

    >>> PointMass(m=2.0).gravity_vector([0.0, 1.0])
    array([  0.  , -19.62])
    """

    def __post_init__(self):
        super().__post_init__()
        if self.dim not in (2, 3):
            raise ValueError(f"dim must be 2 or 3, got {self.dim!r}")

    def ground_contact(self, q):
        """The ground z = 0: φ = [z] and J = [[e_z, e_x(, e_y)]], shape (1, dim, dim).

        >>> PointMass().ground_contact([0.3, 0.2])
        (array([0.2]), array([[[0., 1.],
                [1., 0.]]]))
        """
        q = _checks.vector("q", q, self.dim)
        J = np.roll(np.eye(self.dim), 1, axis=0)[None]     # rows e_z, e_x (, e_y)
        return q[-1:].copy(), J


# --- hydroplaning of Anitescu's relaxation -------------------------------------------------------

def hydroplaning_first_step(h, mu, v_t, g=9.81):
    """The height Anitescu's step lifts a sliding point mass off the ground in one step, closed form.

    From rest on the ground (φ = 0) with tangential speed v_t > μ g h, the
    planar Anitescu QP projects v⁻ = (v_t, −g h) onto the cone
    {v_z ≥ μ |v_x|}; the projection lands on its edge v_z = μ v_x:

        v'_x = (v_t − μ g h)/(1 + μ²),   v'_z = μ v'_x,   φ' = h v'_z = h μ (v_t − μ g h)/(1 + μ²).

    The LCP (maximum dissipation) gives φ' = 0 and v'_x = v_t − μ g h.
    Slower than μ g h, it sticks and φ' = 0.

    >>> round(hydroplaning_first_step(0.01, 0.5, 2.0), 8)
    0.0078038
    """
    h, mu = _checks.positive("h", h), _checks.nonnegative("mu", mu)
    v_t, g = abs(_checks.finite("v_t", v_t)), _checks.positive("g", g)
    return h * mu * max(v_t - mu * g * h, 0.0) / (1 + mu**2)


@dataclass(frozen=True)
class SlidingRun:
    """A point mass sliding on the ground: t, x, z (height), v_x, v_z (arrays of length N + 1).

    ``max_height`` is the largest spurious separation, ``mean_height`` its
    average while the mass slides (v_x > 0), ``stop_time`` when v_x first reaches 0.
    """

    t: np.ndarray
    x: np.ndarray
    z: np.ndarray
    v_x: np.ndarray
    v_z: np.ndarray

    @property
    def max_height(self):
        return float(self.z.max())

    @property
    def stop_time(self):
        stopped = np.flatnonzero(self.v_x <= 1e-12)
        return float(self.t[stopped[0]]) if len(stopped) else float("inf")

    @property
    def mean_height(self):
        sliding = self.v_x > 1e-12
        return float(self.z[sliding].mean()) if sliding.any() else 0.0


def hydroplaning(h, mu, v0, g=9.81, duration=None, method="anitescu", form="lemke"):
    """Slide a point mass along the ground from speed v0 and record its height: Anitescu's "hydroplaning".

    Anitescu's constraint φ(q')/h ≥ −(n + μ d) v' lets a sliding contact
    separate, φ(q') ≥ h μ |v'_t| in the notes' words: the mass rides up on a
    boundary layer that shrinks with h and μ. ``method="lcp"`` runs the
    Stewart–Trinkle LCP for comparison (no separation). ``duration``
    defaults to the stopping time v0/(μ g) plus 10 steps. Returns a
    :class:`SlidingRun`; sweep h and μ over it to measure the effect.

    >>> run = hydroplaning(0.01, 0.5, 2.0)
    >>> bool(np.isclose(run.z[1], hydroplaning_first_step(0.01, 0.5, 2.0))), run.max_height > 0
    (True, True)
    >>> hydroplaning(0.01, 0.5, 2.0, method="lcp").max_height
    0.0
    """
    h, mu = _checks.positive("h", h), _checks.positive("mu", mu)
    v0, g = _checks.finite("v0", v0), _checks.positive("g", g)
    if duration is None:
        duration = abs(v0) / (mu * g) + 10 * h
    steps = max(1, int(np.ceil(_checks.positive("duration", duration) / h)))
    body = PointMass(m=1.0, g=g, dim=2)
    options = {"form": form} if method == "anitescu" else {}
    traj = simulate_contact(body, [0.0, 0.0], [v0, 0.0], h, steps, body.ground_contact, mu=mu,
                            method=method, **options)
    z = traj.q[:, 1]
    z = np.where(np.abs(z) < 1e-12, 0.0, z)
    return SlidingRun(traj.t, traj.q[:, 0], z, traj.v[:, 0], traj.v[:, 1])


def hydroplaning_sweep(hs, mus, v0, g=9.81, method="anitescu"):
    """The largest spurious separation of a slide from speed v0, over a grid of step sizes and friction coefficients.

    Returns an array of shape (len(hs), len(mus)) of :attr:`SlidingRun.max_height`
    (metres), one :func:`hydroplaning` run each.

    >>> heights = hydroplaning_sweep([0.02, 0.01], [0.5], 1.0)
    >>> heights.shape, bool(heights[0, 0] > heights[1, 0] > 0)
    ((2, 1), True)
    """
    return np.array([[hydroplaning(h, mu, v0, g=g, method=method).max_height for mu in mus] for h in hs])


# --- a box on a table: four (or eight) corner contacts in 3D ----------------------------------------

def _hat(w):
    """The skew matrix [w]× with [w]× x = w × x."""
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _rotation(w):
    """exp([w]×) by Rodrigues' formula."""
    angle = np.linalg.norm(w)
    if angle < 1e-12:
        return np.eye(3) + _hat(w)
    K = _hat(w / angle)
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


@dataclass(frozen=True)
class Box:
    """A uniform box of mass m and side lengths (a, b, c) against the ground z = 0, contact at its 8 corners.

    Its configuration is (p, R), the centre of mass and the rotation matrix,
    and its velocity ν = [v, ω] (linear and angular, both in world
    coordinates). It is not a protocol system (q̇ ≠ ν for a rotation), so it
    has its own step (:func:`simulate_box`); the contact step itself is the
    generic one:

        M(R) = diag(m I₃, R I_b Rᵀ),   tau = [0, 0, −m g, −ω × (R I_b Rᵀ ω)],
        corner i at p + R r_i, φ_i its height, J_i = [e_z; e_x; e_y] [I₃, −[R r_i]×].

    >>> box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    >>> phi, J = box.ground_contacts([0.0, 0.0, 0.05], np.eye(3))
    >>> np.round(phi, 12)
    array([0. , 0. , 0. , 0. , 0.1, 0.1, 0.1, 0.1])
    """

    m: float = 1.0
    size: tuple = (0.4, 0.2, 0.1)
    g: float = 9.81

    def __post_init__(self):
        _checks.positive("m", self.m)
        _checks.finite("g", self.g)
        size = _checks.vector("size", self.size, 3)
        if (size <= 0).any():
            raise ValueError(f"size must be three positive lengths, got {self.size!r}")
        object.__setattr__(self, "size", tuple(float(s) for s in size))

    @property
    def body_inertia(self):
        """I_b = (m/12) diag(b² + c², a² + c², a² + b²)."""
        a, b, c = self.size
        return self.m / 12.0 * np.diag([b**2 + c**2, a**2 + c**2, a**2 + b**2])

    @property
    def body_corners(self):
        """The corners r_i in the body frame, shape (8, 3): bottom four (z = −c/2) first."""
        a, b, c = (s / 2 for s in self.size)
        return np.array([[sx * a, sy * b, sz * c] for sz in (-1, 1) for sx, sy in
                         ((-1, -1), (1, -1), (1, 1), (-1, 1))])

    def corners(self, p, R):
        """World positions of the corners, p + R r_i, shape (8, 3)."""
        return _checks.vector("p", p, 3) + self.body_corners @ np.asarray(R, dtype=float).T

    def mass_matrix(self, R):
        R = np.asarray(R, dtype=float)
        M = np.zeros((6, 6))
        M[:3, :3] = self.m * np.eye(3)
        M[3:, 3:] = R @ self.body_inertia @ R.T
        return M

    def forces(self, R, omega):
        """tau = [0, 0, −m g, −ω × (I ω)]: gravity and the gyroscopic torque."""
        I_world = np.asarray(R, dtype=float) @ self.body_inertia @ np.asarray(R, dtype=float).T
        return np.concatenate([[0.0, 0.0, -self.m * self.g], -np.cross(omega, I_world @ omega)])

    def ground_contacts(self, p, R):
        """φ (8,) and J (8, 3, 6) of the eight corners against the ground, rows [normal e_z, e_x, e_y]."""
        R = np.asarray(R, dtype=float)
        r = self.body_corners @ R.T                       # corner offsets in the world
        phi = _checks.vector("p", p, 3)[2] + r[:, 2]
        frame = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        J = np.array([frame @ np.hstack([np.eye(3), -_hat(ri)]) for ri in r])
        return phi, J


@dataclass(frozen=True)
class BoxTrajectory:
    """A box simulation: t (N + 1,), p (N + 1, 3), R (N + 1, 3, 3), v and omega (N + 1, 3), lam_n (N, 8)."""

    t: np.ndarray
    p: np.ndarray
    R: np.ndarray
    v: np.ndarray
    omega: np.ndarray
    lam_n: np.ndarray


def simulate_box(box, p0, R0, v0, omega0, h, steps, mu=0.5, method="lcp", margin=None, **options):
    """Drop, slide or tumble a box onto the ground with a contact step per time step.

    Each step takes the corners with φ ≤ ``margin`` (the "potential contact
    pairs" of Anitescu's φ ≤ ε; by default 0.1 × the box's smallest side, or
    twice the distance the fastest corner can travel in one step if that is
    more, so no corner passes through the ground unseen), builds
    M, tau and J, calls the contact step of ``method`` ("lcp",
    "anitescu" or "todorov", ``options`` passed on), and updates
    p' = p + h v', R' = exp(h [ω']×) R. Resting flat, the four bottom corners
    touch at once: the normal impulses are not unique, yet v' is.

    >>> box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    >>> traj = simulate_box(box, [0, 0, 0.1], np.eye(3), [0, 0, 0], [0, 0, 0], 0.01, 30)
    >>> round(float(traj.p[-1, 2]), 6), round(float(traj.lam_n[-1].sum()), 6)     # resting: Σλ = m g h
    (0.05, 0.0981)
    """
    if method not in _STEPS:
        raise ValueError(f"method must be one of {sorted(_STEPS)}, got {method!r}")
    h = _checks.positive("h", h)
    steps = _steps(steps)
    if margin is not None:
        margin = _checks.nonnegative("margin", margin)
    p = _checks.vector("p0", p0, 3)
    R = np.asarray(R0, dtype=float)
    if R.shape != (3, 3) or not np.allclose(R @ R.T, np.eye(3), atol=1e-9):
        raise ValueError("R0 must be a 3×3 rotation matrix")
    v, omega = _checks.vector("v0", v0, 3), _checks.vector("omega0", omega0, 3)
    t = h * np.arange(steps + 1)
    P, Rs, V, W, L = [p], [R], [v], [omega], []
    for i in range(steps):
        phi, J = box.ground_contacts(p, R)
        if margin is None:
            corner_speed = np.linalg.norm(v + np.cross(omega, box.corners(p, R) - p), axis=1).max()
            near = np.flatnonzero(phi <= max(0.1 * min(box.size), 2 * h * corner_speed))
        else:
            near = np.flatnonzero(phi <= margin)
        nu = np.concatenate([v, omega])
        lam_n = np.zeros(8)
        if len(near):
            s = _STEPS[method](box.mass_matrix(R), box.forces(R, omega), nu, h, phi[near], J[near], mu=mu,
                               **options)
            if not s.solved:
                raise RuntimeError(f"step {i} (t = {t[i]:.4g}): {method} solver failed: {s.reason}")
            nu = s.v_next
            lam_n[near] = s.lam[:, 0]
        else:
            nu = nu + h * np.linalg.solve(box.mass_matrix(R), box.forces(R, omega))
        v, omega = nu[:3], nu[3:]
        p = p + h * v
        R = _rotation(h * omega) @ R
        P.append(p)
        Rs.append(R)
        V.append(v)
        W.append(omega)
        L.append(lam_n)
    return BoxTrajectory(t, np.array(P), np.array(Rs), np.array(V), np.array(W), np.array(L))
