"""Impulsive collisions: impact maps with restitution, with friction, and the spinning ball.

At a collision the contact force is an impulse: it changes the velocities in
an instant while the configuration stays put. Integrating
M q̈ = τ + nᵀ λ over the instant of the collision (notes 000, "Impulsive
Collisions") gives

    M (q̇⁺ − q̇⁻) = nᵀ Λ,      Λ = ∫ λ dt  (an impulse, N·s),

and asking for the normal velocity to reverse by the coefficient of
restitution, n q̇⁺ = −e n q̇⁻ with 0 ≤ e ≤ 1, fixes Λ:

    q̇⁺ = [I − (1+e) M⁻¹ nᵀ (n M⁻¹ nᵀ)^# n] q̇⁻,

where A^# is the pseudo-inverse. With friction the normal row n is stacked
with tangent rows into the contact Jacobian J = [n; t₁; t₂]. Infinite friction
stops the contact point's tangential motion, J q̇⁺ = diag(−e, 0, 0) J q̇⁻.
Friction limited to a cone needs an optimization; :func:`coulomb_impact`
solves one.

Velocities here are the generalized velocities v = q̇ of a system in the
common protocol (:mod:`lib.system`): only its mass matrix M(q) enters.

Introduced in: chapter 6.
"""

from dataclasses import dataclass

import numpy as np
import sympy as sp

from . import checks, convex
from .constraints import pinv_solve
from .system import PlanarBody


# --- argument checks ------------------------------------------------------
def restitution(e):
    """e as a float, or ``ValueError`` unless 0 ≤ e ≤ 1 (the coefficient of restitution).

    >>> restitution(0.5)
    0.5

    Introduced in: chapter 6.
    """
    return checks.between("e", e, 0.0, 1.0, "the coefficient of restitution")


def _rows(name, A, n):
    """A contact row or a stack of rows as a (k, n) array; a single row may be given as shape (n,)."""
    A = np.asarray(A, dtype=float) if not isinstance(A, np.ndarray) else A
    if np.ndim(A) == 1:
        A = np.reshape(A, (1, -1))
    A = checks.array(name, A, (None, n))
    if A.shape[0] == 0 or not np.any(A):
        raise ValueError(f"{name} must hold at least one row that is not all zeros, got {A.tolist()}")
    return A


# --- impact maps ----------------------------------------------------------
def impact_map_general(M, J, D):
    """The impact map for contact rows J and a diagonal of restitution factors D.

        q̇⁺ = [I − M⁻¹ Jᵀ (J M⁻¹ Jᵀ)^# D J] q̇⁻

    The impulse Λ = −(J M⁻¹ Jᵀ)^# D J q̇⁻ (:func:`impact_impulse`) gives
    J q̇⁺ = (I − D) J q̇⁻ whenever J M⁻¹ Jᵀ is invertible: a row with D = 1 + e
    has its velocity reversed and scaled by e, a row with D = 1 has its
    velocity stopped. Both maps of the notes are special cases
    (:func:`impact_map`, :func:`impact_map_friction`). The pseudo-inverse
    ^# is :func:`lib.constraints.pinv_solve`, the one lib uses for multipliers.

    Parameters: M (n, n) mass matrix; J (k, n) contact rows; D (k,) factors.
    Returns the (n, n) matrix that multiplies q̇⁻.

    >>> impact_map_general(np.eye(2), [[0.0, 1.0]], [1.5])
    array([[ 1. ,  0. ],
           [ 0. , -0.5]])

    Introduced in: chapter 6.
    """
    M = checks.square("M", M, symmetric=True)
    J = _rows("J", J, M.shape[0])
    D = checks.vector("D", D, J.shape[0])
    Minv_JT = np.linalg.solve(M, J.T)
    return np.eye(M.shape[0]) - Minv_JT @ pinv_solve(J @ Minv_JT, D[:, None] * J)


def impact_impulse(M, J, D, v):
    """The impulse Λ = −(J M⁻¹ Jᵀ)^# D J q̇⁻ (N·s, in the rows of J) of :func:`impact_map_general`, shape (k,).

    q̇⁺ = q̇⁻ + M⁻¹ Jᵀ Λ. A negative normal impulse would pull the bodies
    together: :func:`lib.hybrid.contact_modes` releases such a contact.

    >>> impact_impulse(np.eye(2), [[0.0, 1.0]], [1.5], [1.0, -2.0])
    array([3.])

    Introduced in: chapter 6.
    """
    M = checks.square("M", M, symmetric=True)
    J = _rows("J", J, M.shape[0])
    D = checks.vector("D", D, J.shape[0])
    v = checks.vector("v", v, M.shape[0])
    return -pinv_solve(J @ np.linalg.solve(M, J.T), D * (J @ v))


def impact_map(M, n, e):
    """The frictionless impact map with coefficient of restitution e (notes 000).

        q̇⁺ = [I − (1+e) M⁻¹ nᵀ (n M⁻¹ nᵀ)^# n] q̇⁻

    ``n`` is the contact normal ∂φ/∂q as a row, shape (n,), or several normals
    stacked, shape (k, n), for simultaneous contacts sharing the same e.

    >>> P = impact_map(np.diag([2.0, 1.0]), [1.0, 0.0], e=0.5)
    >>> P @ np.array([-2.0, 3.0])
    array([1., 3.])

    Introduced in: chapter 6.
    """
    M = checks.square("M", M, symmetric=True)
    n = _rows("n", n, M.shape[0])
    e = restitution(e)
    return impact_map_general(M, n, np.full(n.shape[0], 1.0 + e))


def impact_map_friction(M, J, e):
    """The impact map with infinite friction: the contact point stops sliding (notes 000).

    J = [n; t₁; t₂] (or [n; t] in the plane): the first row is the contact
    normal, the other rows the tangents. The post-impact contact velocity is
    J q̇⁺ = diag(−e, 0, 0) J q̇⁻, which gives

        q̇⁺ = [I − M⁻¹ Jᵀ (J M⁻¹ Jᵀ)^# diag(1+e, 1, 1) J] q̇⁻.

    The notes print diag(1+e, 1, 1) to the left of (J M⁻¹ Jᵀ)^#. The two
    orders agree when J M⁻¹ Jᵀ is diagonal (normal and tangential impulses
    decoupled, as for the ball) or when e = 0; in general only the order used
    here makes J q̇⁺ = diag(−e, 0, 0) J q̇⁻ hold.

    >>> M = np.diag([1.0, 1.0, 2.0 / 3.0])   # hollow ball, m = r = 1
    >>> J = [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    >>> np.round(impact_map_friction(M, J, e=0.5), 6)
    array([[ 0.6,  0. , -0.4],
           [ 0. , -0.5,  0. ],
           [-0.6,  0. ,  0.4]])

    Introduced in: chapter 6.
    """
    M = checks.square("M", M, symmetric=True)
    J = _rows("J", J, M.shape[0])
    e = restitution(e)
    D = np.ones(J.shape[0])
    D[0] = 1.0 + e
    return impact_map_general(M, J, D)


def contact_impulse(M, n, v, e):
    """The frictionless collision impulse Λ = −(1+e) (n M⁻¹ nᵀ)^# n q̇⁻ (N·s), shape (k,).

    >>> contact_impulse(np.eye(2), [0.0, 1.0], [1.0, -2.0], e=1.0)
    array([4.])
    """
    M = checks.square("M", M, symmetric=True)
    n = _rows("n", n, M.shape[0])
    e = restitution(e)
    return impact_impulse(M, n, np.full(n.shape[0], 1.0 + e), v)


def post_impact_velocity(M, n, v, e):
    """q̇⁺ from the frictionless impact map of :func:`impact_map`, shape (n,).

    >>> post_impact_velocity(np.eye(2), [0.0, 1.0], [1.0, -2.0], e=0.5)
    array([1., 1.])
    """
    M = checks.square("M", M, symmetric=True)
    v = checks.vector("v", v, M.shape[0])
    return impact_map(M, n, e) @ v


# --- friction cone: an optimization ---------------------------------------
@dataclass(frozen=True)
class CoulombImpact:
    """The outcome of a collision with Coulomb friction.

    v_plus: post-impact velocity, shape (n,); impulse: Λ = [Λ_n, Λ_t…] in the
    rows of J (N·s); sticking: whether the contact point's tangential velocity
    is zero after the impact; status: the solver's status ("Solved"),
    "Solved (inside the cone)" when the impulse without the cone constraint
    already lies in the cone (computed in closed form), or "no impact" when
    the bodies were already separating.

    >>> out = coulomb_impact(np.eye(2), [[0.0, 1.0], [1.0, 0.0]], [1.0, -1.0], e=0.0, mu=np.inf)
    >>> out.v_plus.round(12) + 0.0, out.sticking, out.status
    (array([0., 0.]), True, 'Solved (inside the cone)')
    """

    v_plus: np.ndarray
    impulse: np.ndarray
    sticking: bool
    status: str


def coulomb_impact(M, J, v, e, mu):
    """A collision with the impulse restricted to the friction cone ‖Λ_t‖ ≤ μ Λ_n, solved as an SOCP.

    With J = [n; t₁; t₂], A = J M⁻¹ Jᵀ and w = J q̇⁻, the impulse Λ changes the
    velocity to q̇⁺ = q̇⁻ + M⁻¹ Jᵀ Λ, and the kinetic energy by
    ΔT = ½ Λᵀ A Λ + wᵀ Λ. We keep Newton's law for the normal velocity and let
    friction dissipate as much energy as the cone allows:

        min_Λ  ½ Λᵀ A Λ + wᵀ Λ
        s.t.   n q̇⁺ = −e n q̇⁻,   Λ_n ≥ 0,   ‖Λ_t‖ ≤ μ Λ_n.

    The problem is convex (a second-order cone program, solved with Clarabel).
    Λ_t = 0 with the frictionless Λ_n is always feasible, so the kinetic
    energy after the impact is never above the frictionless one, hence never
    above the energy before it for 0 ≤ e ≤ 1. With μ = 0 this is the map of
    :func:`impact_map`; when J M⁻¹ Jᵀ is diagonal (the ball) and μ is large
    enough for the contact to stick, it is the map of :func:`impact_map_friction`.
    ``mu`` may be ``np.inf``.

    >>> M = np.diag([1.0, 1.0, 2.0 / 3.0])   # hollow ball, m = r = 1
    >>> J = [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    >>> out = coulomb_impact(M, J, [1.0, -2.0, 0.0], e=0.5, mu=0.1)
    >>> np.round(out.v_plus, 4), out.sticking
    (array([ 0.7 ,  1.  , -0.45]), False)

    Introduced in: chapter 6.
    """
    M = checks.square("M", M, symmetric=True)
    nq = M.shape[0]
    J = _rows("J", J, nq)
    v = checks.vector("v", v, nq)
    e = restitution(e)
    mu = np.inf if mu == np.inf else checks.nonnegative("mu", mu)
    k, d = J.shape[0], J.shape[0] - 1
    w = J @ v
    if w[0] >= 0.0:
        return CoulombImpact(v.copy(), np.zeros(k), bool(d == 0 or np.allclose(w[1:], 0.0)), "no impact")
    Minv_JT = np.linalg.solve(M, J.T)
    A = J @ Minv_JT
    A = 0.5 * (A + A.T)

    # Without the cone the problem has a closed-form (KKT) solution; if it lies
    # in the cone it is the answer, exactly (the contact sticks).
    kkt = np.block([[A, A[:1, :].T], [A[:1, :], np.zeros((1, 1))]])
    rhs = np.concatenate([-w, [-(1.0 + e) * w[0]]])
    free = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:k]
    if free[0] >= 0.0 and np.linalg.norm(free[1:]) <= mu * free[0] * (1 + 1e-12):
        v_plus = v + Minv_JT @ free
        sticking = bool(d == 0 or np.linalg.norm((J @ v_plus)[1:]) <= 1e-9 * max(1.0, np.linalg.norm(w)))
        return CoulombImpact(v_plus, free, sticking, "Solved (inside the cone)")

    # lib.convex's form: min ½ xᵀ P x + cᵀ x  s.t.  G x + s = h, s in a product of cones.
    G = [A[:1, :]]                        # zero cone: (A Λ)_n = −(1+e) w_n
    h = [np.array([-(1.0 + e) * w[0]])]
    cones = [("zero", 1)]
    G.append(-np.eye(1, k))               # nonnegative cone: Λ_n ≥ 0
    h.append(np.zeros(1))
    cones.append(("nonnegative", 1))
    if d > 0 and np.isfinite(mu):         # second-order cone: (μ Λ_n, Λ_t)
        S = -np.eye(k)
        S[0, 0] = -mu
        G.append(S)
        h.append(np.zeros(k))
        cones.append(("soc", k))
    solution = convex.solve(A, w, np.vstack(G), np.concatenate(h), cones).require("the friction-cone impact problem")
    status = solution.status
    impulse = solution.x
    v_plus = v + Minv_JT @ impulse
    w_plus = J @ v_plus
    sticking = bool(d == 0 or np.linalg.norm(w_plus[1:]) <= 1e-6 * max(1.0, np.linalg.norm(w)))
    return CoulombImpact(v_plus, impulse, sticking, status)


# --- the spinning ball ------------------------------------------------------
def impact_map_friction_symbolic(M, J, e):
    """The infinite-friction impact map of :func:`impact_map_friction` in sympy, simplified.

    M and J are sympy matrices (J M⁻¹ Jᵀ must be invertible), e a symbol.

    >>> m, e = sp.symbols("m e", positive=True)
    >>> impact_map_friction_symbolic(sp.diag(m, m), sp.Matrix([[0, 1]]), e)
    Matrix([
    [1,  0],
    [0, -e]])
    """
    M, J = sp.Matrix(M), sp.Matrix(J)
    D = sp.eye(J.shape[0])
    D[0, 0] = 1 + e
    Minv_JT = M.inv() * J.T
    return sp.simplify(sp.eye(M.shape[0]) - Minv_JT * (J * Minv_JT).inv() * D * J)


def spinning_ball_impact_symbolic(k=sp.Rational(2, 3)):
    """The post-impact matrix of a ball bouncing with infinite friction, derived with sympy (notes 000).

    q = [x, z, θ], M = diag(m, m, k m r²) (k = 2/3 for the hollow sphere of
    the notes, 2/5 for a solid ball), J = [[0, 1, 0], [1, 0, r]]: the normal
    is the height z, the tangent the velocity ẋ + r θ̇ of the contact point.
    Returns (P, (m, r, e)) with q̇⁺ = P q̇⁻; for the hollow sphere

        P = [[3/5, 0, −2r/5], [0, −e, 0], [−3/(5r), 0, 2/5]].

    >>> P, (m, r, e) = spinning_ball_impact_symbolic()
    >>> P == sp.Matrix([[sp.Rational(3, 5), 0, -2 * r / 5], [0, -e, 0], [-3 / (5 * r), 0, sp.Rational(2, 5)]])
    True
    """
    m, r, e = sp.symbols("m r e", positive=True)
    M = sp.diag(m, m, k * m * r**2)
    J = sp.Matrix([[0, 1, 0], [1, 0, r]])
    return impact_map_friction_symbolic(M, J, e), (m, r, e)


@dataclass(frozen=True)
class SpinningBall(PlanarBody):
    """A ball of mass m and radius r in the plane, above a horizontal ground (notes 000).

    q = [x, z, θ]: the centre's position and the spin angle; no inputs.

        M = diag(m, m, k m r²),   tau_g = [0, −m g, 0],
        φ(q) = z − r,             J = [[0, 1, 0], [1, 0, r]]

    k = 2/3 is the hollow sphere of the notes (k = 2/5 a solid ball). The
    first row of J is the contact normal n = ∂φ/∂q, the second the tangential
    velocity ẋ + r θ̇ of the contact point. In flight the ball is a projectile
    spinning at a constant rate; at touchdown :meth:`impact_matrix` applies.

    >>> ball = SpinningBall(m=1.0, r=0.1)
    >>> ball.impact_matrix(e=0.8) @ np.array([1.0, -3.0, 20.0])   # backspin: it bounces back
    array([-0.2,  2.4,  2. ])
    """

    n = 3

    m: checks.Positive = 1.0
    r: checks.Positive = 0.1
    g: checks.Finite = 9.81
    k: checks.Positive = 2.0 / 3.0

    def rotational_inertia(self):
        """I = k m r² (k = 2/3 hollow, 2/5 solid)."""
        return self.k * self.m * self.r**2

    def input_matrix(self):
        return np.zeros((3, 0))

    def signed_distance(self, q):
        """φ(q) = z − r: the gap between the ball and the ground (m).

        >>> SpinningBall(r=0.25).signed_distance([0.0, 1.0, 3.0])
        0.75
        """
        return float(checks.vector("q", q, 3)[1] - self.r)

    def contact_jacobian(self, q):
        """J = [n; t] = [[0, 1, 0], [1, 0, r]], shape (2, 3)."""
        checks.vector("q", q, 3)
        return np.array([[0.0, 1.0, 0.0], [1.0, 0.0, self.r]])

    def impact_matrix(self, e):
        """The post-impact matrix P(e) of :func:`impact_map_friction` for this ball, shape (3, 3)."""
        q = np.array([0.0, self.r, 0.0])
        return impact_map_friction(self.mass_matrix(q), self.contact_jacobian(q), e)
