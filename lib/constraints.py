"""Bilateral constraints: multipliers, Baumgarte stabilization, Gauss's principle, constrained simulation.

A kinematic tree whose coordinates q do not satisfy every kinematic relation
(a closed chain, a foot pinned to the ground, a particle on a rod) gets the
missing relations as constraints h(q) = 0 and the matching forces (notes 000,
"Bilateral Position Constraints"; notes 001):

    M(q) q̈ + C(q, q̇) q̇ = tau_g(q) + B u + Hᵀ(q) λ,      H = ∂h/∂q.

Writing τ for everything on the right but the constraint force,
M q̈ = τ + Hᵀ λ, and asking ḧ = H q̈ + Ḣ q̇ = 0 gives the multiplier

    λ = −(H M⁻¹ Hᵀ)⁺ (H M⁻¹ τ + Ḣ q̇),

with ⁺ the Moore–Penrose pseudo-inverse (the smallest force when the
constraints are redundant). Baumgarte stabilization asks instead for
ḧ = −2α ḣ − α² h, which replaces Ḣ q̇ by Ḣ q̇ + 2α H q̇ + α² h.

Every constraint here is handed to the solvers in one acceleration-level form,
A q̈ + b = 0:

* position constraint h(q) = 0: A = H, b = Ḣ q̇ (+ 2α H q̇ + α² h);
* velocity constraint h_v(q, q̇) = 0: A = ∂h_v/∂q̇, b = (∂h_v/∂q) q̇ (+ α h_v).

A contact held closed is such a constraint too (:class:`Contact`: its rows
J = [n; t…] and J̇ q̇), so the hybrid simulator's contact modes and the
constrained simulator share :func:`constrained_dynamics`. The systems the
chapter constrains are in :mod:`lib.particle` (the pendulum as a particle on
a rod) and :mod:`lib.linkages` (planar trees, the four-bar linkage, the biped).

Introduced in: chapter 4.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np
import sympy as sp

from . import checks, convex
from .integrators import integrate_fixed_step
from .system import Trajectory, solve_sampled

#: Relative cut-off below which eigenvalues of H M⁻¹ Hᵀ count as zero: the one pseudo-inverse of lib,
#: for multipliers here and impulses in :mod:`lib.impulse`.
PINV_RTOL = 1e-10



# --- argument checks --------------------------------------------------------
def _problem(M, tau, H, Hdot_v):
    """Check and convert the four arrays every multiplier formula takes."""
    M = checks.square("M", M)
    n = M.shape[0]
    tau = checks.vector("tau", tau, n)
    H = np.asarray(H, dtype=float)
    H = checks.array("H", H.reshape(-1, 1) if H.ndim == 1 and n == 1 else H, (None, n))
    Hdot_v = checks.vector("Hdot_v", Hdot_v, H.shape[0])
    return M, tau, H, Hdot_v


def _alpha(alpha):
    return checks.positive("alpha", alpha)


# --- the multiplier and its stabilized form ----------------------------------
def pinv_solve(W, r, rtol=PINV_RTOL):
    """x = W⁺ r for a symmetric positive semidefinite W, through its eigen-decomposition.

    Eigenvalues below rtol times the largest count as zero, so x is the
    least-norm least-squares solution of W x = r (what the Moore–Penrose
    pseudo-inverse gives, at a fraction of np.linalg.pinv's cost).

    >>> pinv_solve(np.array([[1.0, 1.0], [1.0, 1.0]]), np.array([2.0, 2.0]))
    array([1., 1.])

    Introduced in: chapter 4.
    """
    w, V = np.linalg.eigh(0.5 * (W + W.T))
    keep = w > rtol * max(w[-1], 0.0) if w.size else w > 0
    Vk = V[:, keep]
    return Vk @ ((Vk.T @ r) / w[keep].reshape((-1,) + (1,) * (np.ndim(r) - 1)))


def _multiplier(M, tau, H, Hdot_v):
    """(q̈, λ) of M q̈ = τ + Hᵀ λ, H q̈ + Ḣ q̇ = 0, without argument checks."""
    X = np.linalg.solve(M, np.column_stack([H.T, tau]))
    Minv_HT, vdot_uc = X[:, :-1], X[:, -1]          # M⁻¹ Hᵀ and the unconstrained q̈_uc = M⁻¹ τ
    W = H @ Minv_HT                                   # H M⁻¹ Hᵀ, shape (m, m)
    hddot_uc = H @ vdot_uc + Hdot_v                   # ḧ if no constraint force acted
    lam = -pinv_solve(W, hddot_uc)
    return vdot_uc + Minv_HT @ lam, lam


def constraint_force(M, tau, H, Hdot_v):
    """The constraint multiplier λ = −(H M⁻¹ Hᵀ)⁺ (H M⁻¹ τ + Ḣ q̇) (notes 000, eq. lambda_from_h).

    Parameters: M (n, n) mass matrix; tau (n,) all generalized forces but the
    constraint force (tau_g + B u + tau_ext − C q̇); H (m, n) the constraint
    Jacobian; Hdot_v (m,) the product Ḣ q̇ (or any acceleration-level bias b of
    a constraint written A q̈ + b = 0, such as :func:`baumgarte`'s). Returns
    λ, shape (m,). When H M⁻¹ Hᵀ drops rank (redundant constraints) the
    pseudo-inverse picks the multiplier of least norm.

    A unit point mass pushed sideways by 2 N and held on the line x = 0 needs
    a 2 N reaction; stating the constraint twice splits it between the two:

    >>> M, tau = np.eye(2), np.array([2.0, 0.0])
    >>> constraint_force(M, tau, [[1.0, 0.0]], [0.0])
    array([-2.])
    >>> constraint_force(M, tau, [[1.0, 0.0], [1.0, 0.0]], [0.0, 0.0])
    array([-1., -1.])

    Introduced in: chapter 4.
    """
    M, tau, H, Hdot_v = _problem(M, tau, H, Hdot_v)
    Minv_HT = np.linalg.solve(M, H.T)
    W = H @ Minv_HT                                   # H M⁻¹ Hᵀ, shape (m, m)
    hddot_uc = H @ np.linalg.solve(M, tau) + Hdot_v   # ḧ if no constraint force acted
    return -pinv_solve(W, hddot_uc)


def constrained_acceleration(M, tau, H, Hdot_v):
    """Accelerations and multiplier of M q̈ = τ + Hᵀ λ with λ from :func:`constraint_force`.

    Returns (q̈ of shape (n,), λ of shape (m,)).

    >>> vdot, lam = constrained_acceleration(np.eye(2), [0.0, -9.81], [[0.0, 1.0]], [0.0])
    >>> vdot, lam
    (array([0., 0.]), array([9.81]))

    Introduced in: chapter 4.
    """
    return _multiplier(*_problem(M, tau, H, Hdot_v))


def baumgarte(H, Hdot_v, h, v, alpha):
    """The stabilized bias Ḣ q̇ + 2α H q̇ + α² h of Baumgarte's method (notes 000).

    Asking ḧ = H q̈ + Ḣ q̇ = −2α ḣ − α² h (critically damped, α > 0, units 1/s)
    instead of ḧ = 0 turns the multiplier into

        λ = −(H M⁻¹ Hᵀ)⁺ (H M⁻¹ τ + (Ḣ + 2α H) q̇ + α² h),

    which is :func:`constraint_force` with Hdot_v replaced by this function's value.

    >>> baumgarte([[1.0, 0.0]], [0.0], [0.01], [0.5, 0.0], alpha=10.0)
    array([11.])

    Introduced in: chapter 4.
    """
    alpha = _alpha(alpha)
    H = np.atleast_2d(np.asarray(H, dtype=float))
    if H.ndim != 2:
        raise ValueError(f"H must be a matrix of shape (m, n), got shape {H.shape}")
    m, n = H.shape
    Hdot_v = checks.vector("Hdot_v", Hdot_v, m)
    h = checks.vector("h", h, m)
    v = checks.vector("v", v, n)
    return Hdot_v + 2 * alpha * H @ v + alpha**2 * h


# --- Gauss's principle of least constraint -----------------------------------
def gauss_primal(M, tau, H, Hdot_v):
    """Gauss's principle as a QP in the accelerations (notes 000; notes 001):

        min_a  ½ (a − q̈_uc)ᵀ M (a − q̈_uc)   subject to   H a + Ḣ q̇ = 0,   q̈_uc = M⁻¹ τ.

    Solved by :func:`lib.convex.qp` (Clarabel). The multiplier is read off the
    optimality condition M (a − q̈_uc) = Hᵀ λ, i.e. λ is the QP's dual variable
    (Clarabel writes P x + c + Aᵀ y = 0, so λ = −y). Returns (q̈, λ).

    >>> a, lam = gauss_primal(np.eye(2), [0.0, -9.81], [[0.0, 1.0]], [0.0])
    >>> np.round(a, 6) + 0.0, np.round(lam, 6)
    (array([0., 0.]), array([9.81]))

    Introduced in: chapter 4.
    """
    M, tau, H, Hdot_v = _problem(M, tau, H, Hdot_v)
    # ½ (a − q̈_uc)ᵀ M (a − q̈_uc) = ½ aᵀ M a − τᵀ a + const, since M q̈_uc = τ.
    sol = convex.qp(M, -tau, A=H, b=-Hdot_v).require("Gauss's principle (are the constraints consistent?)")
    return sol.x, -sol.z


def gauss_dual(M, tau, H, Hdot_v):
    """Gauss's principle as a QP in the constraint forces (the dual of :func:`gauss_primal`):

        min_λ  ½ λᵀ (H M⁻¹ Hᵀ) λ + λᵀ ḧ_uc,    ḧ_uc = H M⁻¹ τ + Ḣ q̇,

    then q̈ = M⁻¹ (τ + Hᵀ λ). ḧ_uc is the constraint acceleration the system
    would have if no constraint force acted. With the sign convention
    M q̈ = τ + Hᵀ λ the linear term enters with a plus sign, so that the
    stationarity condition H M⁻¹ Hᵀ λ = −ḧ_uc is the closed form of
    :func:`constraint_force` (notes 000 print it with a minus sign, which is
    the same problem for the opposite sign of λ). When H M⁻¹ Hᵀ is singular
    the minimizer is not unique; the generalized force Hᵀ λ and q̈ are.
    Returns (q̈, λ).

    >>> a, lam = gauss_dual(np.eye(2), [0.0, -9.81], [[0.0, 1.0]], [0.0])
    >>> np.round(a, 6) + 0.0, np.round(lam, 6)
    (array([0., 0.]), array([9.81]))

    Introduced in: chapter 4.
    """
    M, tau, H, Hdot_v = _problem(M, tau, H, Hdot_v)
    Minv_HT = np.linalg.solve(M, H.T)
    W = H @ Minv_HT
    W = 0.5 * (W + W.T)
    hddot_uc = H @ np.linalg.solve(M, tau) + Hdot_v
    lam = convex.qp(W, hddot_uc).require("the dual of Gauss's principle").x
    return np.linalg.solve(M, tau + H.T @ lam), lam


# --- constraints ------------------------------------------------------------
class Constraint:
    """Base class: m constraints on a system with n coordinates, in the form A q̈ + b = 0.

    Write new constraints by subclassing :class:`PositionConstraint` or
    :class:`VelocityConstraint`; solvers only call :meth:`acceleration_form`
    and :meth:`residual`. ``n`` (and ``m``) are ``None`` for a constraint
    that takes its size from the system, such as a :class:`Contact`.

    >>> PrescribedVelocity(n=2, index=0, omega=1.0).acceleration_form([0.0, 0.0], [0.5, 0.0])
    (array([[1., 0.]]), array([0.]))
    """

    m = 0
    n = 0

    def acceleration_form(self, q, v, alpha=None):
        """(A, b) with A q̈ + b = 0 the (stabilized, if alpha is given) constraint on accelerations."""
        n = np.size(q) if self.n is None else self.n
        q, v = checks.vector("q", q, n), checks.vector("v", v, n)
        return self._form(q, v, None if alpha is None else _alpha(alpha))

    def _form(self, q, v, alpha):
        """acceleration_form for checked q, v and alpha."""
        raise NotImplementedError

    def residual(self, q, v):
        """How far the state is from satisfying the constraint: h(q) or h_v(q, q̇), shape (m,)."""
        raise NotImplementedError

    def _shaped(self, name, A, b):
        A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
        if A.shape != (self.m, self.n):
            raise ValueError(f"{name} must have shape ({self.m}, {self.n}), got shape {A.shape}")
        if b.shape != (self.m,):
            raise ValueError(f"the bias of {name} must have shape ({self.m},), got shape {b.shape}")
        return A, b


class PositionConstraint(Constraint):
    """A holonomic constraint h(q) = 0 with H = ∂h/∂q and the product Ḣ q̇.

    Subclasses set ``m`` and ``n`` and implement ``h(q)`` (m,), ``H(q)`` (m, n)
    and ``Hdot_v(q, v)`` (m,). The acceleration form is A = H and
    b = Ḣ q̇, or b = Ḣ q̇ + 2α H q̇ + α² h with Baumgarte stabilization.
    :class:`lib.particle.DistanceConstraint` and :class:`lib.linkages.PointPin`
    are two; :class:`SymbolicConstraint` derives H and Ḣ q̇ from h.

    >>> x, y = sp.symbols("x y")
    >>> on_line = SymbolicConstraint([y - x], [x, y])
    >>> on_line.acceleration_form([0.0, 0.1], [1.0, 1.0], alpha=10.0)
    (array([[-1.,  1.]]), array([10.]))
    """

    def h(self, q):
        raise NotImplementedError

    def H(self, q):
        raise NotImplementedError

    def Hdot_v(self, q, v):
        raise NotImplementedError

    def _form(self, q, v, alpha):
        H, b = self._shaped("H", self.H(q), self.Hdot_v(q, v))
        if alpha is not None:
            b = b + 2 * alpha * H @ v + alpha**2 * np.asarray(self.h(q), dtype=float)
        return H, b

    def residual(self, q, v=None):
        return checks.vector("h", self.h(checks.vector("q", q, self.n)), self.m)

    def velocity_residual(self, q, v):
        """ḣ = H q̇, shape (m,)."""
        return self.H(checks.vector("q", q, self.n)) @ checks.vector("v", v, self.n)


class VelocityConstraint(Constraint):
    """A constraint h_v(q, q̇) = 0 on velocities (notes 000, "Bilateral Velocity Constraints").

    Subclasses implement ``h_v(q, v)`` (m,), ``dh_dq(q, v)`` and ``dh_dv(q, v)`` (m, n).
    Setting ḣ_v = (∂h_v/∂q) q̇ + (∂h_v/∂q̇) q̈ = 0, or = −α h_v when stabilized, gives
    A = ∂h_v/∂q̇, b = (∂h_v/∂q) q̇ (+ α h_v) and

        λ = −(∂h_v/∂q̇ M⁻¹ ∂h_v/∂q̇ᵀ)⁺ (∂h_v/∂q̇ M⁻¹ τ + (∂h_v/∂q) q̇ + α h_v).

    :class:`PrescribedVelocity` is one.

    >>> PrescribedVelocity(n=1, index=0, omega=2.0).residual([0.0], [1.5])
    array([-0.5])
    """

    def h_v(self, q, v):
        raise NotImplementedError

    def dh_dq(self, q, v):
        raise NotImplementedError

    def dh_dv(self, q, v):
        raise NotImplementedError

    def _form(self, q, v, alpha):
        dq, _ = self._shaped("dh_dq", self.dh_dq(q, v), np.zeros(self.m))
        A, b = self._shaped("dh_dv", self.dh_dv(q, v), dq @ v)
        if alpha is not None:
            b = b + alpha * np.asarray(self.h_v(q, v), dtype=float)
        return A, b

    def residual(self, q, v):
        q, v = checks.vector("q", q, self.n), checks.vector("v", v, self.n)
        return checks.vector("h_v", self.h_v(q, v), self.m)


class PrescribedVelocity(VelocityConstraint):
    """Drive coordinate ``index`` at the constant rate ``omega``: h_v = q̇_i − ω = 0.

    The multiplier is the generalized force (torque, for a joint) the drive supplies.

    >>> c = PrescribedVelocity(n=2, index=0, omega=1.5)
    >>> c.residual([0.0, 0.0], [1.0, 0.3])
    array([-0.5])
    >>> c.acceleration_form([0.0, 0.0], [1.0, 0.3], alpha=2.0)
    (array([[1., 0.]]), array([-1.]))

    Introduced in: chapter 4.
    """

    def __init__(self, n, index, omega):
        self.n = int(n)
        if not 0 <= int(index) < self.n:
            raise ValueError(f"index must be in [0, {self.n}), got {index!r}")
        self.index = int(index)
        self.omega = checks.finite("omega", omega)
        self.m = 1

    def h_v(self, q, v):
        return np.array([v[self.index] - self.omega])

    def dh_dq(self, q, v):
        return np.zeros((1, self.n))

    def dh_dv(self, q, v):
        row = np.zeros((1, self.n))
        row[0, self.index] = 1.0
        return row


class StackedConstraint(Constraint):
    """Several constraints on the same system, stacked: A = [A_1; A_2; …], b = [b_1; b_2; …].

    Position and velocity constraints can be mixed; stating a constraint twice
    gives a redundant set whose multiplier the pseudo-inverse splits evenly.

    >>> c = PrescribedVelocity(n=2, index=1, omega=0.0)
    >>> StackedConstraint([c, c]).m
    2

    Introduced in: chapter 4.
    """

    def __init__(self, constraints):
        self.constraints = tuple(constraints)
        if not self.constraints:
            raise ValueError("constraints must hold at least one constraint")
        if not all(isinstance(c, Constraint) for c in self.constraints):
            kinds = sorted({type(c).__name__ for c in self.constraints if not isinstance(c, Constraint)})
            raise ValueError(f"constraints must be Constraint objects, got {', '.join(kinds)}")
        ns = {c.n for c in self.constraints} - {None}
        if len(ns) > 1:
            raise ValueError(f"constraints must all act on the same number of coordinates, got {sorted(ns)}")
        self.n = ns.pop() if ns else None
        ms = [c.m for c in self.constraints]
        self.m = None if None in ms else sum(ms)

    def _form(self, q, v, alpha):
        parts = [c._form(q, v, alpha) for c in self.constraints]
        return np.vstack([A for A, _ in parts]), np.concatenate([b for _, b in parts])

    def residual(self, q, v):
        return np.concatenate([c.residual(q, v) for c in self.constraints])


class SymbolicConstraint(PositionConstraint):
    """A position constraint h(q) = 0 given as sympy expressions; H and Ḣ q̇ are derived.

        H = ∂h/∂q,   Ḣ q̇ = ∂(H q̇)/∂q · q̇.

    ``h`` is a list of expressions in the symbols ``q``; ``params`` gives numbers
    to any other symbol.

    >>> x, y, l = sp.symbols("x y l")
    >>> rod = SymbolicConstraint([(x**2 + y**2 - l**2) / 2], [x, y], params={l: 1.0})
    >>> rod.H([0.6, -0.8])
    array([[ 0.6, -0.8]])
    >>> rod.Hdot_v([0.6, -0.8], [0.8, 0.6])
    array([1.])

    Introduced in: chapter 4.
    """

    def __init__(self, h, q, params=None):
        q = list(q)
        qd = list(sp.symbols(f"qd0:{len(q)}"))
        params = dict(params or {})
        h = sp.Matrix([sp.sympify(e) for e in (h if isinstance(h, (list, tuple, sp.MatrixBase)) else [h])])
        h = h.subs(params)
        leftover = h.free_symbols - set(q)
        if leftover:
            raise ValueError(f"params must give a value to every parameter; missing {sorted(map(str, leftover))}")
        H = h.jacobian(q)
        Hdot_v = (H * sp.Matrix(qd)).jacobian(q) * sp.Matrix(qd)
        self.n, self.m = len(q), h.shape[0]
        self.expressions = (h, H, Hdot_v)
        self._h = sp.lambdify([q], h, "numpy")
        self._H = sp.lambdify([q], H, "numpy")
        self._Hdot_v = sp.lambdify([q, qd], Hdot_v, "numpy")

    def h(self, q):
        return np.asarray(self._h(list(q)), dtype=float).reshape(self.m)

    def H(self, q):
        return np.asarray(self._H(list(q)), dtype=float).reshape(self.m, self.n)

    def Hdot_v(self, q, v):
        return np.asarray(self._Hdot_v(list(q), list(v)), dtype=float).reshape(self.m)


@dataclass(frozen=True)
class Contact(Constraint):
    """A contact held closed: signed distance φ(q), contact rows J(q) = [n; t…] and J̇(q, q̇) q̇.

    An active contact is a constraint on the accelerations, J q̈ + J̇ q̇ = 0
    (notes 000, "Putting it all together"). The first row n = ∂φ/∂q keeps
    the gap closed, a position constraint φ(q) = 0 whose multiplier is the
    normal force; further rows are tangents the contact holds still
    (infinite friction: it sticks), velocity constraints t q̇ = 0.
    ``jdot_v(q, v)`` returns J̇ q̇, shape (rows,); ``None`` computes it by a
    central finite difference of J along q̇. Its size comes from J, so ``m``
    and ``n`` are ``None``. With ``alpha`` the normal row is stabilized like
    a :class:`PositionConstraint` (+ 2α n q̇ + α² φ), the tangents like a
    :class:`VelocityConstraint` (+ α t q̇). :func:`lib.hybrid.contact_modes`
    switches contacts between held and free.

    >>> floor = Contact("floor", lambda q: q[-1], lambda q: [[0.0, 1.0]])
    >>> floor.acceleration_form([0.0, 0.2], [1.0, -1.0], alpha=10.0)
    (array([[0., 1.]]), array([0.]))
    >>> floor.residual([0.0, 0.2], [1.0, -1.0])
    array([0.2])

    Introduced in: chapter 6.
    """

    name: str
    phi: Callable
    jacobian: Callable
    jdot_v: Callable = None
    m = None
    n = None

    def rows(self, q):
        """J(q) as a 2-D array, shape (rows, n).

        >>> Contact("floor", lambda q: q[-1], lambda q: [0.0, 1.0]).rows([0.0, 0.5])
        array([[0., 1.]])
        """
        J = np.atleast_2d(np.asarray(self.jacobian(q), dtype=float))
        return checks.array(f"the rows J of contact {self.name!r}", J, (None, np.size(q)))

    def rows_dot_v(self, q, v):
        """J̇(q, q̇) q̇, shape (rows,).

        >>> ring = Contact("ring", lambda q: 1.0 - q @ q, lambda q: [-2 * q])   # inside the unit circle
        >>> ring.rows_dot_v(np.array([1.0, 0.0]), np.array([0.0, 1.0])).round(6)    # −2 |q̇|²
        array([-2.])
        """
        if self.jdot_v is not None:
            return np.atleast_1d(np.asarray(self.jdot_v(q, v), dtype=float))
        q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
        eps = 1e-6 / max(1.0, float(np.linalg.norm(v)))
        return (self.rows(q + eps * v) - self.rows(q - eps * v)) @ v / (2 * eps)

    def _form(self, q, v, alpha):
        J, b = self.rows(q), self.rows_dot_v(q, v)
        if alpha is not None:
            b = b + np.concatenate([[2 * alpha * J[0] @ v + alpha**2 * float(self.phi(q))], alpha * J[1:] @ v])
        return J, b

    def residual(self, q, v):
        """The gap φ and the tangential velocities t q̇ of the held contact, shape (rows,)."""
        q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
        return np.concatenate([[float(self.phi(q))], self.rows(q)[1:] @ v])


# --- constrained dynamics and simulation ------------------------------------------
def generalized_force(system, q, v, u=None):
    """Everything on the right of M q̈ = τ + Hᵀ λ but the constraint force: :meth:`ManipulatorSystem.generalized_force`.

        τ(q, q̇, u) = tau_g(q) + B u + tau_ext(q, q̇) − C(q, q̇) q̇.

    >>> from lib.particle import PointMass
    >>> generalized_force(PointMass(m=2.0, g=10.0, dim=1), [0.0], [0.0], [5.0])
    array([-15.])

    Introduced in: chapter 4.
    """
    return system.generalized_force(q, v, u)


def _held(system, constraint):
    """The constraint, or a list of them stacked, checked against the system's n."""
    if isinstance(constraint, (list, tuple)):
        constraint = StackedConstraint(constraint)
    if not isinstance(constraint, Constraint):
        raise ValueError(f"constraint must be a Constraint (or a list of them), got {type(constraint).__name__}")
    if constraint.n is not None and constraint.n != system.n:
        raise ValueError(f"constraint acts on {constraint.n} coordinates but the system has n = {system.n}")
    return constraint


def constrained_dynamics(system, constraint, q, v, u=None, alpha=None):
    """q̈ and λ of a system under a constraint, from the closed form (notes 000):

        M q̈ = τ + Aᵀ λ,   λ = −(A M⁻¹ Aᵀ)⁺ (A M⁻¹ τ + b),

    with τ the system's :meth:`generalized_force` and (A, b) the constraint's
    acceleration form (Baumgarte-stabilized when ``alpha`` is given). This is
    the one constrained-dynamics path of lib: the constrained simulator, the
    hybrid simulator's contact modes (a list of held :class:`Contact` s) and
    the chapters call it. ``constraint`` is a :class:`Constraint` or a list
    of them (stacked). Returns (q̈, λ).

    >>> from lib.pendulum import SimplePendulum
    >>> from lib.particle import pendulum_as_particle
    >>> particle, rod = pendulum_as_particle(SimplePendulum(l=1.0))
    >>> vdot, lam = constrained_dynamics(particle, rod, [0.0, -1.0], [0.0, 0.0])
    >>> np.round(vdot, 12) + 0.0, float(rod.tension(lam))
    (array([0., 0.]), 9.81)

    Introduced in: chapter 4.
    """
    constraint = _held(system, constraint)
    q, v = system.check_state(q, v)
    A, b = constraint._form(q, v, None if alpha is None else _alpha(alpha))
    if A.ndim != 2 or A.shape[1] != system.n:
        raise ValueError(f"the constraint's rows must have shape (m, {system.n}) for a system with n = {system.n}, "
                         f"got shape {A.shape}")
    return _multiplier(system.mass_matrix(q), system.generalized_force(q, v, u), A, b)


@dataclass(frozen=True)
class ConstrainedTrajectory(Trajectory):
    """A constrained motion: a :class:`lib.system.Trajectory` with multipliers lam (N, m) and the residual (N, m).

    ``residual`` is the constraint's :meth:`Constraint.residual` at every sample.

    >>> from lib.particle import PointMass, DistanceConstraint
    >>> traj = simulate_constrained(PointMass(), [1.0, 0.0], [0.0, 0.0], constraint=DistanceConstraint(l=1.0),
    ...                             t_final=0.5, num=3)
    >>> traj.lam.shape, traj.residual.shape, bool(np.abs(traj.residual).max() < 1e-8)
    ((3, 1), (3, 1), True)
    """

    lam: np.ndarray
    residual: np.ndarray


def simulate_constrained(system, q0, v0, *, constraint, t_final, u=None, alpha=None, h=None,
                         method=None, num=500, rtol=1e-10, atol=1e-10):
    """Simulate a system under a constraint, q̈ from :func:`constrained_dynamics` at every instant.

    ``u`` is None, a constant input or a function u(t, q, v); ``alpha`` turns
    on Baumgarte stabilization. With a step ``h`` the integration uses a
    fixed step (:func:`lib.integrators.integrate_fixed_step`, ``method``
    "rk4" by default, or "euler", "symplectic_euler", "verlet": the last two
    in velocity form, symplectic only for a constant mass matrix and forces of
    q alone (chapter 10), which a constraint force, depending on the
    velocity, is not) and records every step; without it scipy's adaptive
    ``method`` (default "DOP853") is
    sampled at ``num`` times. The trajectory's ``residual`` is the
    constraint's :meth:`Constraint.residual`: its growth is the drift.

    >>> from lib.pendulum import SimplePendulum
    >>> from lib.particle import pendulum_as_particle
    >>> particle, rod = pendulum_as_particle(SimplePendulum())
    >>> traj = simulate_constrained(particle, [1.0, 0.0], [0.0, 0.0], constraint=rod, t_final=1.0, h=0.01)
    >>> traj.q.shape, bool(np.abs(traj.residual).max() < 1e-6)
    ((101, 2), True)

    Introduced in: chapter 4.
    """
    constraint = _held(system, constraint)
    q0, v0 = system.check_state(q0, v0)
    if alpha is not None:
        _alpha(alpha)
    policy = system.input_policy(u)

    def accel(t, q, v):
        return constrained_dynamics(system, constraint, q, v, policy(t, q, v), alpha)[0]

    if h is not None:
        t, q, v = integrate_fixed_step(accel, q0, v0, t_final, h, method or "rk4")
    else:
        n = system.n
        t, x = solve_sampled(lambda t, x: np.concatenate([x[n:], accel(t, x[:n], x[n:])]), np.concatenate([q0, v0]),
                             t_final, num, method=method or "DOP853", rtol=rtol, atol=atol)
        q, v = x[:, :n], x[:, n:]
    lam = np.array([constrained_dynamics(system, constraint, qi, vi, policy(ti, qi, vi), alpha)[1]
                    for ti, qi, vi in zip(t, q, v)])
    residual = np.array([constraint.residual(qi, vi) for qi, vi in zip(q, v)])
    return ConstrainedTrajectory(t, q, v, lam, residual)


def project_to_constraint(constraint, q, v=None, tol=1e-12, max_iter=50):
    """Move (q, v) onto a position constraint: Gauss–Newton q ← q − H⁺ h, then v ← (I − H⁺ H) v.

    The smallest correction (least squares) that makes h(q) = 0 and ḣ = H v = 0.
    Returns q, or (q, v) when v is given.

    >>> from lib.particle import DistanceConstraint
    >>> rod = DistanceConstraint(l=1.0)
    >>> q, v = project_to_constraint(rod, [0.0, -1.2], [0.5, 0.3])
    >>> np.round(q, 9) + 0.0, np.round(v, 9) + 0.0
    (array([ 0., -1.]), array([0.5, 0. ]))

    Introduced in: chapter 4.
    """
    q = checks.vector("q", q, constraint.n)
    for _ in range(int(max_iter)):
        h = constraint.h(q)
        if np.linalg.norm(h) < tol:
            break
        q = q - np.linalg.pinv(constraint.H(q), rtol=PINV_RTOL) @ h
    if v is None:
        return q
    v = checks.vector("v", v, constraint.n)
    H = constraint.H(q)
    return q, v - np.linalg.pinv(H, rtol=PINV_RTOL) @ (H @ v)
