"""Time-stepping contact: one optimization problem per time step, for any system in the protocol.

Notes 000, "Time-stepping Approximations for Rigid Contact" through "Beyond
Point Contact". Every method here takes the semi-implicit Euler step

    v' = v + h M⁻¹ (tau + Jᵀ λ),     q' = q + h v'

(the notes' choice: the new velocity v' = v[n+1] updates the position) and
finds the contact impulses λ by solving a mathematical program:

* a linear complementarity problem (LCP), solved with :func:`lib.lcp.lemke`:
  the Stewart–Trinkle polyhedral friction cone with normal and friction
  forces together (:func:`lcp_contact_step`);
* Anitescu's convex relaxation, a QP in v' with one constraint
  (1/h)φ + (n + μ dᵢ) v' ≥ 0 per edge of the polyhedral cone, and its dual
  (:func:`anitescu_step`);
* Todorov's regularized dual (the MuJoCo formulation) with a desired contact
  velocity, stabilization gains B, K, a diagonal regularization, and the
  friction cone as a second-order cone (:func:`todorov_step`).

:func:`simulate_contact` steps a system with any of them. The notes' worked
examples are in their own modules: the cart against the wall
(:mod:`lib.cart_wall`, with its Gauss QP and its complementarity-free
relaxation), the brick with Coulomb friction and its hydroplaning
(:mod:`lib.brick`), and the box landing on a table (:mod:`lib.box`).

Contacts are described as in :mod:`lib.contact`: signed distances φ, shape
(k,), and contact Jacobians J, shape (k, 1 + d, n), whose rows for contact c
are the normal n_c = ∂φ_c/∂q and d = 0, 1 or 2 tangents (frictionless,
planar, spatial). Impulses are in N·s and are reported in the same contact
frame, ``lam`` shape (k, 1 + d) = [normal, tangents].

Solvers. The LCPs go to our own Lemke (:mod:`lib.lcp`): there is no
maintained pure-Python Lemke to call. The convex problems (Anitescu's QPs,
Todorov's QP and second-order-cone program) go to Clarabel through
:mod:`lib.convex`, the one place the course sets up that solver and decides
what counts as solved; it returns the dual multipliers we need as impulses.
A step whose problem is not solved returns a :class:`ContactStep` whose
status says "failed", with Clarabel's status as the reason.

Introduced in: chapter 7 (LCPs) and chapter 8 (convex relaxations).
"""

from dataclasses import dataclass

import numpy as np

from . import checks, convex
from .lcp import SOLVED, lemke
from .system import Trajectory


# --- checks ---------------------------------------------------------------------------------

def _contacts(phi, J, n):
    """φ as shape (k,) and J as shape (k, 1 + d, n), checked."""
    J = checks.array("J", J)
    if J.ndim == 2:                      # one row per contact: normals only
        J = J[:, None, :]
    if J.ndim != 3 or J.shape[2] != n or not 1 <= J.shape[1] <= 3:
        raise ValueError(f"J must have shape (k, 1 + d, {n}) with d = 0, 1 or 2, got shape {J.shape}")
    return checks.vector("phi", phi, J.shape[0]), J


def _friction_coefficients(mu, k):
    """μ as a per-contact array of shape (k,), each ≥ 0."""
    mu = checks.vector("mu", np.full(k, mu, dtype=float) if np.ndim(mu) == 0 else mu, k)
    if (mu < 0).any():
        raise ValueError(f"mu must be >= 0 for every contact; mu[{int(np.argmin(mu))}] = {mu.min()}")
    return mu


def _step_inputs(M, tau, v, h, phi, J, mu):
    M = checks.square("M", M, positive_definite=True)
    M_inv = np.linalg.inv(M)
    n = M.shape[0]
    tau = checks.vector("tau", tau, n)
    v = checks.vector("v", v, n)
    h = checks.positive("h", h)
    phi, J = _contacts(phi, J, n)
    mu = _friction_coefficients(mu, len(phi))
    return M, M_inv, tau, v, h, phi, J, mu


# --- what a contact step needs from a system ---------------------------------------------------

def dynamics_terms(system, q, v, u=None):
    """M(q) and the total non-contact force tau = tau_g + B u + tau_ext − C v of a protocol system.

    These are all a contact step needs from a :class:`lib.system.ManipulatorSystem`;
    tau is its :meth:`generalized_force`.

    >>> from lib.pendulum import SimplePendulum
    >>> M, tau = dynamics_terms(SimplePendulum(), [np.pi / 2], [0.0])
    >>> M, tau.round(2)
    (array([[1.]]), array([-9.81]))
    """
    q, v = system.check_state(q, v)
    return system.mass_matrix(q), system.generalized_force(q, v, u)


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
    contact (at a sliding contact max_j(−d_j v'): the sliding speed for a
    planar contact, the notes' v_abs, and less with a polyhedral cone when no
    direction points straight against the slip). With the contact-free
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

    >>> s = lcp_contact_step(np.eye(2), [0.0, -9.81], [1.0, 0.0], 0.1, [0.0], [[[0.0, 1.0], [1.0, 0.0]]], mu=0.5)
    >>> s.solved, s.impulse.round(4), s.lam.shape
    (True, array([-0.4905,  0.981 ]), (1, 2))
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

    ``form``: "primal" (the QP in v', Clarabel, :func:`lib.convex.qp`), "dual" (the QP
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
        sol = convex.qp(M, -M @ v_minus, G=-Jb, g=offset)
        if not sol.found:
            return _failed("failed", f"Clarabel did not solve the primal QP: status {sol.status}")
        beta = np.maximum(sol.z, 0.0)
        reason = "primal QP solved by Clarabel"
    elif form == "dual":
        W = Jb @ M_inv @ Jb.T
        sol = convex.qp(W, offset + Jb @ v_minus, lb=np.zeros(len(offset)))
        if not sol.found:
            return _failed("failed", f"Clarabel did not solve the dual QP: status {sol.status}")
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

    with W = J M_b⁻¹ Jᵀ (M_b = M + h b I), R = ε diag(W) the diagonal
    regularization that keeps the objective strictly convex, and the desired
    contact velocity

        ẋ^d = J v − h B J v − h K [φ, 0, 0]      (B, K: stabilization gains, 1/s and 1/s²).

    λ are forces (N), per contact [f_n, f_t1, f_t2]; the step applies the
    impulse h λ: v' = v⁻ + h M_b⁻¹ Jᵀ λ. ``b`` (N·s/m) is MuJoCo's implicit
    damping: the force −b v treated implicitly, M_b v' = M_b v + h (tau − b v) + h Jᵀλ,
    so v⁻ = v + h M_b⁻¹ (tau − b v).

    ``cone="soc"`` uses the friction cone itself,
    FC = {f_n ≥ 0, ‖f_t‖ ≤ μ f_n}, a second-order cone (solved by Clarabel
    as an SOCP); ``cone="polyhedral"`` writes λ_c = Σ_j β_{c,j} [1, μ d̂_j],
    β ≥ 0, a QP (Clarabel, :func:`lib.convex.qp`). Planar contacts (one tangent)
    use |f_t| ≤ μ f_n, which is both. Returns a :class:`ContactStep`;
    ``lam`` holds the impulses h λ, ``multipliers`` the forces λ (or β).

    >>> s = todorov_step([[1.0]], [0.0], [-1.0], 0.01, [0.0], [[[1.0]]], B=20.0, K=100.0)
    >>> s.v_next.round(6)                  # the contact velocity is driven to (1 − hB) v = −0.8
    array([-0.8])
    """
    if cone not in ("soc", "polyhedral"):
        raise ValueError(f"cone must be 'soc' or 'polyhedral', got {cone!r}")
    M, _, tau, v, h, phi, J, mu = _step_inputs(M, tau, v, h, phi, J, mu)
    B, K = checks.nonnegative("B", B), checks.nonnegative("K", K)
    eps, b = checks.nonnegative("eps", eps), checks.nonnegative("b", b)
    k, d = len(phi), J.shape[1] - 1
    n = M.shape[0]
    Mb_inv = np.linalg.inv(M + h * b * np.eye(n))
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
        sol = convex.qp(G.T @ P @ G, G.T @ c, lb=np.zeros(k * m))
        if not sol.found:
            return _failed("failed", f"Clarabel did not solve the polyhedral dual: status {sol.status}")
        multipliers = np.maximum(sol.x, 0.0)
        forces = G @ multipliers
        reason = "polyhedral dual QP solved by Clarabel"
    else:
        sol = _solve_cone_qp(P, c, k, d, mu)
        if not sol.found:
            return _failed("failed", f"Clarabel did not solve the conic dual: status {sol.status}")
        forces = sol.x
        multipliers = forces
        reason = "conic dual solved by Clarabel"
    lam = h * forces.reshape(k, 1 + d)
    impulse = np.einsum("kdn,kd->n", J, lam)
    return ContactStep(v_minus + Mb_inv @ impulse, lam, impulse, multipliers, SOLVED, reason)


def _solve_cone_qp(P, c, k, d, mu):
    """min ½ λᵀPλ + cᵀλ with each λ_c = [f_n, f_t…] in its friction cone; a :class:`lib.convex.ConvexSolution`.

    The constraint form of :func:`lib.convex.solve` is A λ + s = b with s in a cone. For the
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
            cones.append(("nonnegative", 1))
        elif mu[ci] == 0.0:
            rows = [row([-1.0] + [0.0] * d)] + [row([0.0] + list(np.eye(d)[i])) for i in range(d)]
            cones += [("nonnegative", 1), ("zero", d)]
        elif d == 1:
            rows = [row([-mu[ci], 1.0]), row([-mu[ci], -1.0])]
            cones.append(("nonnegative", 2))
        else:
            rows = [row([-mu[ci], 0.0, 0.0]), row([0.0, -1.0, 0.0]), row([0.0, 0.0, -1.0])]
            cones.append(("soc", 3))
        blocks += rows
    return convex.solve(P, c, np.array(blocks), np.zeros(len(blocks)), cones)


# --- simulating protocol systems with contact ---------------------------------------------------------

@dataclass(frozen=True)
class ContactTrajectory(Trajectory):
    """A time-stepping simulation: a :class:`lib.system.Trajectory` (N + 1 samples) with the impulses lam (N, k, 1 + d).

    >>> from lib.particle import PointMass
    >>> ball = PointMass()
    >>> traj = simulate_contact(ball, [0.0, 0.0], [1.0, 0.0], contacts=ball.ground_contact, h=0.1, steps=3, mu=0.5)
    >>> traj.q.shape, traj.lam.shape
    ((4, 2), (3, 1, 2))
    """

    lam: np.ndarray


CONTACT_STEPS = {"lcp": lcp_contact_step, "anitescu": anitescu_step, "todorov": todorov_step}
"""The contact steps :func:`simulate_contact` and :func:`lib.box.simulate_box` take by name."""


def _contact_data(contacts, q):
    c = contacts(q)
    if hasattr(c, "phi") and hasattr(c, "J"):
        return c.phi, c.J
    return c


def simulate_contact(system, q0, v0, *, contacts, h, steps, u=None, mu=0.0, method="lcp", **options):
    """Time-step a protocol system with contact: one contact step per time step, then q' = q + h v'.

    ``contacts(q)`` returns (φ, J) — φ (k,), J (k, 1 + d, n) — or an object
    with ``phi`` and ``J`` attributes (such as :class:`lib.contact.PlaneContact`'s
    ``kinematics``). ``method`` is "lcp" (:func:`lcp_contact_step`),
    "anitescu" (:func:`anitescu_step`) or "todorov" (:func:`todorov_step`);
    ``options`` go to that step. Needs q̇ = v (true of every protocol system
    in the course). Raises ``RuntimeError`` if a step's solver fails.

    >>> from lib.particle import PointMass
    >>> ball = PointMass(m=1.0, dim=2)
    >>> traj = simulate_contact(ball, [0.0, 0.0], [1.0, 0.0], contacts=ball.ground_contact, h=0.1, steps=3, mu=0.5)
    >>> traj.v[:, 0].round(4)                    # sliding: v_x drops by μ g h per step
    array([1.    , 0.5095, 0.019 , 0.    ])
    """
    if method not in CONTACT_STEPS:
        raise ValueError(f"method must be one of {sorted(CONTACT_STEPS)}, got {method!r}")
    h = checks.positive("h", h)
    steps = checks.count("steps", steps)
    q, v = system.check_state(q0, v0)
    step_fn = CONTACT_STEPS[method]
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
