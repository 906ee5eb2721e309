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

The module also holds the small systems the chapter works with: a free
:class:`PointMass`, a planar tree of rods :class:`PlanarTree` (floating or
pinned base), the :class:`FourBar` linkage and the :class:`PlanarBiped` of
notes 001 with a foot pinned to the ground.

Introduced in: chapter 4.
"""

from dataclasses import dataclass
from functools import cached_property

import clarabel
import numpy as np
import scipy.sparse as sparse
import sympy as sp
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from . import _checks
from .system import ManipulatorSystem

#: Relative cut-off below which eigenvalues of H M⁻¹ Hᵀ count as zero (pseudo-inverse).
PINV_RTOL = 1e-10


# --- argument checks --------------------------------------------------------
def _square(name, value):
    x = np.atleast_2d(np.asarray(value, dtype=float))
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {np.shape(value)}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must contain only finite numbers")
    return x


def _jacobian(name, value, n):
    x = np.asarray(value, dtype=float)
    if x.ndim == 1 and n == 1:
        x = x.reshape(-1, 1)
    if x.ndim != 2 or x.shape[1] != n:
        raise ValueError(f"{name} must have shape (m, {n}) for a system with n = {n}, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must contain only finite numbers")
    return x


def _problem(M, tau, H, Hdot_v):
    """Check and convert the four arrays every multiplier formula takes."""
    M = _square("M", M)
    n = M.shape[0]
    tau = _checks.vector("tau", tau, n)
    H = _jacobian("H", H, n)
    Hdot_v = _checks.vector("Hdot_v", Hdot_v, H.shape[0])
    return M, tau, H, Hdot_v


def _alpha(alpha):
    return _checks.positive("alpha", alpha)


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
    w, V = np.linalg.eigh(W)
    keep = w > rtol * max(w[-1], 0.0) if w.size else w > 0
    Vk = V[:, keep]
    return Vk @ ((Vk.T @ r) / w[keep])


def _multiplier(M, tau, H, Hdot_v):
    """(q̈, λ) of M q̈ = τ + Hᵀ λ, H q̈ + Ḣ q̇ = 0, without argument checks."""
    X = np.linalg.solve(M, np.column_stack([H.T, tau]))
    Minv_HT, vdot_uc = X[:, :-1], X[:, -1]          # M⁻¹ Hᵀ and the unconstrained q̈_uc = M⁻¹ τ
    W = H @ Minv_HT                                   # H M⁻¹ Hᵀ, shape (m, m)
    hddot_uc = H @ vdot_uc + Hdot_v                   # ḧ if no constraint force acted
    lam = -pinv_solve(0.5 * (W + W.T), hddot_uc)
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
    return -pinv_solve(0.5 * (W + W.T), hddot_uc)


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
    Hdot_v = _checks.vector("Hdot_v", Hdot_v, m)
    h = _checks.vector("h", h, m)
    v = _checks.vector("v", v, n)
    return Hdot_v + 2 * alpha * H @ v + alpha**2 * h


# --- Gauss's principle of least constraint -----------------------------------
def _qp(P, c, A=None, b=None):
    """Solve min ½ xᵀ P x + cᵀ x (subject to A x = b) with Clarabel; return (x, y) with P x + c + Aᵀ y = 0."""
    P = sparse.csc_matrix(np.triu(P))
    if A is None:
        A, b = sparse.csc_matrix((0, P.shape[0])), np.zeros(0)
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-12
    settings.tol_ktratio = 1e-10
    cones = [clarabel.ZeroConeT(len(b))] if len(b) else []
    sol = clarabel.DefaultSolver(P, np.asarray(c, dtype=float), sparse.csc_matrix(A), np.asarray(b, dtype=float),
                                 cones, settings).solve()
    if sol.status not in (clarabel.SolverStatus.Solved, clarabel.SolverStatus.AlmostSolved):
        raise RuntimeError(f"the QP solver stopped with status {sol.status} (are the constraints consistent?)")
    return np.asarray(sol.x, dtype=float), np.asarray(sol.z, dtype=float)


def gauss_primal(M, tau, H, Hdot_v):
    """Gauss's principle as a QP in the accelerations (notes 000; notes 001):

        min_a  ½ (a − q̈_uc)ᵀ M (a − q̈_uc)   subject to   H a + Ḣ q̇ = 0,   q̈_uc = M⁻¹ τ.

    Solved by the interior-point QP solver Clarabel. The multiplier is read off the
    optimality condition M (a − q̈_uc) = Hᵀ λ, i.e. λ is the QP's dual variable
    (Clarabel writes P x + c + Aᵀ y = 0, so λ = −y). Returns (q̈, λ).

    >>> a, lam = gauss_primal(np.eye(2), [0.0, -9.81], [[0.0, 1.0]], [0.0])
    >>> np.round(a, 6) + 0.0, np.round(lam, 6)
    (array([0., 0.]), array([9.81]))

    Introduced in: chapter 4.
    """
    M, tau, H, Hdot_v = _problem(M, tau, H, Hdot_v)
    # ½ (a − q̈_uc)ᵀ M (a − q̈_uc) = ½ aᵀ M a − τᵀ a + const, since M q̈_uc = τ.
    a, y = _qp(M, -tau, H, -Hdot_v)
    return a, -y


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
    lam, _ = _qp(W, hddot_uc)
    return np.linalg.solve(M, tau + H.T @ lam), lam


# --- constraints ------------------------------------------------------------
class Constraint:
    """Base class: m constraints on a system with n coordinates, in the form A q̈ + b = 0.

    Write new constraints by subclassing :class:`PositionConstraint` or
    :class:`VelocityConstraint`; solvers only call :meth:`acceleration_form`
    and :meth:`residual`.
    """

    m = 0
    n = 0

    def acceleration_form(self, q, v, alpha=None):
        """(A, b) with A q̈ + b = 0 the (stabilized, if alpha is given) constraint on accelerations."""
        q, v = _checks.vector("q", q, self.n), _checks.vector("v", v, self.n)
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
        return _checks.vector("h", self.h(_checks.vector("q", q, self.n)), self.m)

    def velocity_residual(self, q, v):
        """ḣ = H q̇, shape (m,)."""
        return self.H(_checks.vector("q", q, self.n)) @ _checks.vector("v", v, self.n)


class VelocityConstraint(Constraint):
    """A constraint h_v(q, q̇) = 0 on velocities (notes 000, "Bilateral Velocity Constraints").

    Subclasses implement ``h_v(q, v)`` (m,), ``dh_dq(q, v)`` and ``dh_dv(q, v)`` (m, n).
    Setting ḣ_v = (∂h_v/∂q) q̇ + (∂h_v/∂q̇) q̈ = 0, or = −α h_v when stabilized, gives
    A = ∂h_v/∂q̇, b = (∂h_v/∂q) q̇ (+ α h_v) and

        λ = −(∂h_v/∂q̇ M⁻¹ ∂h_v/∂q̇ᵀ)⁺ (∂h_v/∂q̇ M⁻¹ τ + (∂h_v/∂q) q̇ + α h_v).
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
        q, v = _checks.vector("q", q, self.n), _checks.vector("v", v, self.n)
        return _checks.vector("h_v", self.h_v(q, v), self.m)


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
        self.omega = _checks.finite("omega", omega)
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
        ns = {c.n for c in self.constraints}
        if len(ns) != 1:
            raise ValueError(f"constraints must all act on the same number of coordinates, got {sorted(ns)}")
        self.n = ns.pop()
        self.m = sum(c.m for c in self.constraints)

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


# --- a free particle, and the pendulum as a particle on a rod -------------------
@dataclass(frozen=True)
class PointMass(ManipulatorSystem):
    """A free point mass m in ``dim`` dimensions, gravity −g along the last axis.

        M = m I,  C = 0,  tau_g = [0, …, 0, −m g],  B = I (a force on the particle).

    >>> PointMass(m=2.0).gravity_vector([0.0, 1.0])
    array([  0.  , -19.62])

    Introduced in: chapter 4.
    """

    m: float = 1.0
    g: float = 9.81
    dim: int = 2

    def __post_init__(self):
        _checks.positive("m", self.m)
        _checks.finite("g", self.g)
        if int(self.dim) not in (1, 2, 3):
            raise ValueError(f"dim must be 1, 2 or 3, got {self.dim!r}")

    @property
    def n(self):
        return int(self.dim)

    def mass_matrix(self, q):
        _checks.vector("q", q, self.n)
        return self.m * np.eye(self.n)

    def coriolis_matrix(self, q, v):
        self._state(q, v)
        return np.zeros((self.n, self.n))

    def gravity_vector(self, q):
        _checks.vector("q", q, self.n)
        tau_g = np.zeros(self.n)
        tau_g[-1] = -self.m * self.g
        return tau_g

    def input_matrix(self):
        return np.eye(self.n)

    def potential_energy(self, q):
        return self.m * self.g * _checks.vector("q", q, self.n)[-1]


class DistanceConstraint(PositionConstraint):
    """Keep a point mass at distance l from an anchor: h = ½ (‖p − a‖² − l²) = 0.

        H = (p − a)ᵀ,   Ḣ q̇ = ‖ṗ‖².

    The force on the particle is Hᵀ λ = λ (p − a): the rod tension, pulling
    toward the anchor, is T = −λ l.

    >>> rod = DistanceConstraint(l=2.0)
    >>> rod.h([0.0, -2.0]), rod.H([0.0, -2.0]), rod.Hdot_v([0.0, -2.0], [1.0, 0.0])
    (array([0.]), array([[ 0., -2.]]), array([1.]))

    Introduced in: chapter 4.
    """

    def __init__(self, l, anchor=(0.0, 0.0)):
        self.l = _checks.positive("l", l)
        self.anchor = np.asarray(anchor, dtype=float)
        if self.anchor.ndim != 1 or self.anchor.size not in (2, 3):
            raise ValueError(f"anchor must be a point in 2 or 3 dimensions, got {anchor!r}")
        self.n, self.m = self.anchor.size, 1

    def h(self, q):
        d = np.asarray(q, dtype=float) - self.anchor
        return np.array([0.5 * (d @ d - self.l**2)])

    def H(self, q):
        return (np.asarray(q, dtype=float) - self.anchor).reshape(1, self.n)

    def Hdot_v(self, q, v):
        v = np.asarray(v, dtype=float)
        return np.array([v @ v])

    def tension(self, lam):
        """The rod tension T = −λ l (newtons, positive when the rod pulls)."""
        return -np.asarray(lam, dtype=float)[..., 0] * self.l


def pendulum_as_particle(pendulum):
    """The simple pendulum rewritten as a free point mass on a rod: (PointMass, DistanceConstraint).

    >>> from lib.pendulum import SimplePendulum
    >>> particle, rod = pendulum_as_particle(SimplePendulum(m=2.0, l=0.5))
    >>> particle.m, rod.l
    (2.0, 0.5)

    Introduced in: chapter 4.
    """
    return PointMass(m=pendulum.m, g=pendulum.g, dim=2), DistanceConstraint(l=pendulum.l)


def particle_state(l, theta, theta_dot):
    """Cartesian state of a pendulum bob from its angle (θ = 0 hanging down):

        p = l [sin θ, −cos θ],   ṗ = l θ̇ [cos θ, sin θ].

    Works on arrays of angles (the last axis of the result holds x, y).

    >>> p, pd = particle_state(1.0, np.pi / 2, 2.0)
    >>> np.round(p, 12) + 0.0, np.round(pd, 12) + 0.0
    (array([1., 0.]), array([0., 2.]))

    Introduced in: chapter 4.
    """
    l = _checks.positive("l", l)
    theta, theta_dot = np.asarray(theta, dtype=float), np.asarray(theta_dot, dtype=float)
    p = l * np.stack([np.sin(theta), -np.cos(theta)], axis=-1)
    pd = l * theta_dot[..., None] * np.stack([np.cos(theta), np.sin(theta)], axis=-1)
    return p, pd


def pendulum_tension(pendulum, q, v):
    """Rod tension of a simple pendulum from the radial balance of the bob:

        T = m l θ̇² + m g cos θ.

    >>> from lib.pendulum import SimplePendulum
    >>> float(pendulum_tension(SimplePendulum(m=1.0, l=1.0, g=10.0), [0.0], [1.0]))
    11.0

    Introduced in: chapter 4.
    """
    theta, theta_dot = np.asarray(q, dtype=float)[..., 0], np.asarray(v, dtype=float)[..., 0]
    return pendulum.m * pendulum.l * theta_dot**2 + pendulum.m * pendulum.g * np.cos(theta)


# --- a planar tree of rods ---------------------------------------------------
def _unit(theta):
    return np.array([np.cos(theta), np.sin(theta)])


def _perp(theta):
    return np.array([-np.sin(theta), np.cos(theta)])


@dataclass(frozen=True)
class PlanarTree(ManipulatorSystem):
    """A kinematic tree of uniform rods in the vertical plane (x right, y up, gravity −g ŷ).

    Link i has mass m[i], length l[i] and absolute angle θ_i from the x axis.
    Its joint sits on its parent ``parent[i]`` at distance ``offset[i]`` from
    the parent's joint (default: the parent's far end); a root link
    (parent −1) starts at the base point, which is fixed at ``base`` or, with
    ``floating=True``, free: q = [x_b, y_b, θ_0, …, θ_{k−1}], else q = θ.

    Every point is p = p_b + Σ_j L_j e_j with e_j = [cos θ_j, sin θ_j] and
    lever arms L_j (the offsets down the chain, and s on the point's own
    link), so its Jacobian has columns L_j e_j^⊥ and J̇ q̇ = −Σ_j L_j θ̇_j² e_j.
    Stacking the centre-of-mass levers of every link in a matrix L (L[i, j]
    for the centre of link i on link j) and writing a = Lᵀ diag(m) L,
    μ = Lᵀ m, the Lagrangian of the rods gives, for the angles,

        M_jl = a_jl cos(θ_j − θ_l) + δ_jl m_j l_j²/12,
        (C q̇)_j = Σ_l a_jl sin(θ_j − θ_l) θ̇_l²,
        (tau_g)_j = −g μ_j cos θ_j,

    and, with a floating base, M_xx = (Σ m) I, the columns μ_j e_j^⊥ coupling
    base and angles, (C q̇)_x = −Σ_j μ_j θ̇_j² e_j and (tau_g)_x = [0, −g Σ m].
    C is Σ_i m_i J_ciᵀ J̇_ci, which makes Ṁ − 2C skew-symmetric.

    Joint torques act between a link and its parent (+1 on θ_i, −1 on
    θ_parent), or between a root link and the ground when the base is fixed;
    ``actuated`` lists the links whose joint has a motor (default: every joint
    that can have one).

    >>> chain = PlanarTree(m=(1.0, 1.0), l=(1.0, 1.0), parent=(-1, 0))
    >>> chain.point([0.0, np.pi / 2], link=1, s=1.0)
    array([1., 1.])
    >>> chain.input_matrix()
    array([[ 1., -1.],
           [ 0.,  1.]])

    Introduced in: chapter 4.
    """

    m: tuple
    l: tuple
    parent: tuple
    offset: tuple = None
    floating: bool = False
    base: tuple = (0.0, 0.0)
    g: float = 9.81
    actuated: tuple = None

    def __post_init__(self):
        k = len(self.m)
        m = tuple(_checks.positive(f"m[{i}]", x) for i, x in enumerate(self.m))
        l = tuple(_checks.positive(f"l[{i}]", x) for i, x in enumerate(self.l))
        if len(l) != k or len(self.parent) != k:
            raise ValueError(f"m, l and parent must have the same length, got {k}, {len(l)}, {len(self.parent)}")
        parent = tuple(int(p) for p in self.parent)
        for i, p in enumerate(parent):
            if not -1 <= p < i:
                raise ValueError(f"parent[{i}] must be -1 or an earlier link, got {p}")
        offset = self.offset
        if offset is None:
            offset = tuple(0.0 if p < 0 else l[p] for p in parent)
        offset = tuple(_checks.finite(f"offset[{i}]", x) for i, x in enumerate(offset))
        if len(offset) != k:
            raise ValueError(f"offset must have {k} entries, got {len(offset)}")
        base = tuple(_checks.vector("base", self.base, 2))
        _checks.finite("g", self.g)
        possible = tuple(i for i, p in enumerate(parent) if p >= 0 or not self.floating)
        actuated = possible if self.actuated is None else tuple(int(i) for i in self.actuated)
        for i in actuated:
            if i not in possible:
                raise ValueError(f"actuated: link {i} has no joint that can carry a motor")
        for name, value in (("m", m), ("l", l), ("parent", parent), ("offset", offset), ("base", base),
                            ("actuated", actuated)):
            object.__setattr__(self, name, value)
        # lever matrix of the centres of mass, and the constant coefficients a and μ
        L = np.array([self.levers(i, 0.5 * l[i]) for i in range(k)])
        mass = np.array(m)
        object.__setattr__(self, "_L", L)
        object.__setattr__(self, "_a", L.T @ np.diag(mass) @ L)
        object.__setattr__(self, "_mu", L.T @ mass)
        object.__setattr__(self, "_inertia", mass * np.array(l) ** 2 / 12.0)

    @property
    def k(self):
        """Number of links."""
        return len(self.m)

    @property
    def n(self):
        return self.k + (2 if self.floating else 0)

    @property
    def _first(self):
        return 2 if self.floating else 0

    def levers(self, link, s):
        """Lever arms L_j (shape (k,)) of the point at distance s along ``link``: p = p_b + Σ_j L_j e_j.

        >>> PlanarTree(m=(1.0, 1.0), l=(2.0, 1.0), parent=(-1, 0)).levers(1, 0.5)
        array([2. , 0.5])
        """
        L = np.zeros(len(self.m))
        L[link] = s
        i = link
        while self.parent[i] >= 0:
            L[self.parent[i]] += self.offset[i]
            i = self.parent[i]
        return L

    def _point(self, q, L):
        theta = q[self._first:]
        p = L @ np.column_stack([np.cos(theta), np.sin(theta)])
        return p + (q[:2] if self.floating else np.asarray(self.base))

    def _jacobian(self, q, L):
        theta = q[self._first:]
        J = np.zeros((2, self.n))
        if self.floating:
            J[:, :2] = np.eye(2)
        J[:, self._first:] = L * np.array([-np.sin(theta), np.cos(theta)])
        return J

    def point(self, q, link, s):
        """World position of the point at distance s along ``link``, shape (2,)."""
        return self._point(_checks.vector("q", q, self.n), self.levers(link, s))

    def point_jacobian(self, q, link, s):
        """J = ∂p/∂q of the point at distance s along ``link``: columns L_j e_j^⊥, shape (2, n)."""
        return self._jacobian(_checks.vector("q", q, self.n), self.levers(link, s))

    def point_jacobian_dot(self, q, v, link, s):
        """J̇ of the point at distance s along ``link``: columns −L_j θ̇_j e_j, shape (2, n)."""
        q, v = self._state(q, v)
        theta, theta_dot = q[self._first:], v[self._first:]
        Jd = np.zeros((2, self.n))
        Jd[:, self._first:] = -self.levers(link, s) * theta_dot * np.array([np.cos(theta), np.sin(theta)])
        return Jd

    def joints(self, q):
        """World positions of every link's joint and far end, shape (k, 2, 2), for drawing."""
        return np.array([[self.point(q, i, 0.0), self.point(q, i, self.l[i])] for i in range(self.k)])

    def center_of_mass(self, q):
        """Position of the whole tree's centre of mass, shape (2,)."""
        q = _checks.vector("q", q, self.n)
        return np.array(self.m) @ np.array([self._point(q, Li) for Li in self._L]) / sum(self.m)

    def mass_matrix(self, q):
        q = _checks.vector("q", q, self.n)
        theta, f = q[self._first:], self._first
        M = np.zeros((self.n, self.n))
        M[f:, f:] = self._a * np.cos(theta[:, None] - theta[None, :]) + np.diag(self._inertia)
        if self.floating:
            M[:2, :2] = sum(self.m) * np.eye(2)
            M[:2, 2:] = self._mu * np.array([-np.sin(theta), np.cos(theta)])
            M[2:, :2] = M[:2, 2:].T
        return M

    def coriolis_matrix(self, q, v):
        q, v = self._state(q, v)
        theta, theta_dot, f = q[self._first:], v[self._first:], self._first
        C = np.zeros((self.n, self.n))
        C[f:, f:] = self._a * np.sin(theta[:, None] - theta[None, :]) * theta_dot[None, :]
        if self.floating:
            C[:2, 2:] = -self._mu * theta_dot * np.array([np.cos(theta), np.sin(theta)])
        return C

    def gravity_vector(self, q):
        q = _checks.vector("q", q, self.n)
        tau_g = np.zeros(self.n)
        tau_g[self._first:] = -self.g * self._mu * np.cos(q[self._first:])
        if self.floating:
            tau_g[1] = -self.g * sum(self.m)
        return tau_g

    def input_matrix(self):
        B = np.zeros((self.n, len(self.actuated)))
        for col, i in enumerate(self.actuated):
            B[self._first + i, col] = 1.0
            if self.parent[i] >= 0:
                B[self._first + self.parent[i], col] = -1.0
        return B

    def potential_energy(self, q):
        """U = g Σ_i m_i y_ci."""
        q = _checks.vector("q", q, self.n)
        return self.g * sum(m * self._point(q, Li)[1] for m, Li in zip(self.m, self._L))


class PointPin(PositionConstraint):
    """Pin a point of a :class:`PlanarTree` to a fixed place: h(q) = p(q) − p_D = 0 (notes 001).

    The point lies at distance s along ``link``. H = ∂p/∂q is the point's
    Jacobian and Ḣ q̇ = J̇ q̇; the multiplier λ (shape (2,)) is the world force
    the pin applies, e.g. the ground reaction on a foot.

    >>> chain = PlanarTree(m=(1.0,), l=(1.0,), parent=(-1,))
    >>> pin = PointPin(chain, link=0, s=1.0, target=(0.0, -1.0))
    >>> np.round(pin.h([-np.pi / 2]), 12) + 0.0
    array([0., 0.])

    Introduced in: chapter 4.
    """

    def __init__(self, tree, link, s, target):
        if not 0 <= int(link) < tree.k:
            raise ValueError(f"link must be in [0, {tree.k}), got {link!r}")
        self.tree, self.link, self.s = tree, int(link), _checks.finite("s", s)
        self.target = _checks.vector("target", target, 2)
        self.n, self.m = tree.n, 2
        self._L = tree.levers(self.link, self.s)

    def h(self, q):
        return self.tree._point(np.asarray(q, dtype=float), self._L) - self.target

    def H(self, q):
        return self.tree._jacobian(np.asarray(q, dtype=float), self._L)

    def Hdot_v(self, q, v):
        """J̇ q̇ = −Σ_j L_j θ̇_j² e_j."""
        f = self.tree._first
        theta, theta_dot = np.asarray(q, dtype=float)[f:], np.asarray(v, dtype=float)[f:]
        return -(self._L * theta_dot**2) @ np.column_stack([np.cos(theta), np.sin(theta)])


# --- the worked closed chain: a four-bar linkage -----------------------------------
@dataclass(frozen=True)
class FourBar:
    """A four-bar linkage built as a serial tree of three rods plus a loop-closure constraint.

    Crank (length l1) pivots at O = (0, 0), the coupler (l2) hangs on its end,
    the rocker (l3) on the coupler's end; the loop closes by pinning the
    rocker's far end to D = (d, 0). q = [θ1, θ2, θ3] (absolute angles), so
    three coordinates carry two closure constraints: one degree of freedom.
    Only the crank is actuated.

    >>> fb = FourBar()
    >>> q, v = fb.assemble(theta1=np.pi / 2, theta1_dot=1.0)
    >>> bool(np.allclose(fb.closure.h(q), 0.0)), bool(np.allclose(fb.closure.H(q) @ v, 0.0))
    (True, True)

    Introduced in: chapter 4.
    """

    l1: float = 0.4
    l2: float = 1.0
    l3: float = 0.8
    d: float = 1.0
    m1: float = 1.0
    m2: float = 1.0
    m3: float = 1.0
    g: float = 9.81

    def __post_init__(self):
        for name in ("l1", "l2", "l3", "d", "m1", "m2", "m3"):
            _checks.positive(name, getattr(self, name))
        _checks.finite("g", self.g)

    @cached_property
    def tree(self):
        """The open chain O–crank–coupler–rocker, a :class:`PlanarTree` with the crank motorized."""
        return PlanarTree(m=(self.m1, self.m2, self.m3), l=(self.l1, self.l2, self.l3),
                          parent=(-1, 0, 1), g=self.g, actuated=(0,))

    @cached_property
    def closure(self):
        """The loop closure: the rocker's far end pinned at D = (d, 0)."""
        return PointPin(self.tree, link=2, s=self.l3, target=(self.d, 0.0))

    def assemble(self, theta1, theta1_dot=0.0, branch=1):
        """A consistent state (q, v) for a crank angle θ1 and rate θ̇1.

        The coupler's far end B is where the circle of radius l2 about the
        crank tip A meets the circle of radius l3 about D; ``branch`` (±1)
        picks one of the two assemblies. v spans the null space of H with
        v[0] = θ̇1.
        """
        theta1 = _checks.finite("theta1", theta1)
        A = self.l1 * _unit(theta1)
        D = np.array([self.d, 0.0])
        AD = D - A
        dist = np.linalg.norm(AD)
        if dist > self.l2 + self.l3 or dist < abs(self.l2 - self.l3):
            raise ValueError(f"theta1 = {theta1} cannot be assembled: |AD| = {dist:.4g}")
        # B = A + a ê + b ê⊥ with ê along AD (the intersection of the two circles)
        a = (self.l2**2 - self.l3**2 + dist**2) / (2 * dist)
        b = np.sqrt(max(self.l2**2 - a**2, 0.0))
        e = AD / dist
        B = A + a * e + branch * b * np.array([-e[1], e[0]])
        theta2 = np.arctan2(*(B - A)[::-1])
        theta3 = np.arctan2(*(D - B)[::-1])
        q = np.array([theta1, theta2, theta3])
        H = self.closure.H(q)
        # θ̇1 given; solve H[:, 1:] [θ̇2, θ̇3] = −H[:, 0] θ̇1
        rest = np.linalg.solve(H[:, 1:], -H[:, 0] * _checks.finite("theta1_dot", theta1_dot))
        return q, np.concatenate([[theta1_dot], rest])


# --- the worked legged robot: a planar biped with its stance foot pinned ----------
@dataclass(frozen=True)
class PlanarBiped:
    """A planar biped (torso and two two-link legs) with a floating base at the hip (notes 001).

    Links: 0 torso (root, from the hip upward), 1 left thigh, 2 left shin,
    3 right thigh, 4 right shin; thighs hang from the hip, shins from the
    knees. q = [x_hip, y_hip, θ_torso, θ_thigh_L, θ_shin_L, θ_thigh_R, θ_shin_R]
    (absolute angles), inputs u = hip and knee torques (4). Pinning a foot to
    the ground adds h(q) = p_foot(q) − p_D = 0, and M q̈ + C q̇ = tau_g + B u + Jᵀ f
    with f = λ the ground reaction on the foot (notes 001).

    >>> robot = PlanarBiped()
    >>> q0 = robot.standing()
    >>> bool(np.allclose(robot.foot_pin().h(q0), 0.0))
    True

    Introduced in: chapter 4.
    """

    m_torso: float = 10.0
    m_thigh: float = 4.0
    m_shin: float = 2.5
    l_torso: float = 0.6
    l_thigh: float = 0.45
    l_shin: float = 0.45
    g: float = 9.81

    def __post_init__(self):
        for name in ("m_torso", "m_thigh", "m_shin", "l_torso", "l_thigh", "l_shin"):
            _checks.positive(name, getattr(self, name))
        _checks.finite("g", self.g)

    @cached_property
    def tree(self):
        """The floating-base tree, a :class:`PlanarTree` with n = 7 and four actuated joints."""
        return PlanarTree(m=(self.m_torso, self.m_thigh, self.m_shin, self.m_thigh, self.m_shin),
                          l=(self.l_torso, self.l_thigh, self.l_shin, self.l_thigh, self.l_shin),
                          parent=(-1, 0, 1, 0, 3), offset=(0.0, 0.0, self.l_thigh, 0.0, self.l_thigh),
                          floating=True, g=self.g)

    @property
    def mass(self):
        """Total mass (kg)."""
        return self.m_torso + 2 * self.m_thigh + 2 * self.m_shin

    def foot(self, q, leg=0):
        """Position of a foot (leg 0 left, 1 right): the far end of its shin."""
        return self.tree.point(q, 2 + 2 * leg, self.l_shin)

    def foot_pin(self, leg=0, target=(0.0, 0.0)):
        """The stance constraint: foot ``leg`` pinned at ``target``."""
        if leg not in (0, 1):
            raise ValueError(f"leg must be 0 or 1, got {leg!r}")
        return PointPin(self.tree, link=2 + 2 * leg, s=self.l_shin, target=target)

    def standing(self, lean=0.1, stance=(-0.15, 0.25), swing=(0.35, -0.4), target=(0.0, 0.0)):
        """A configuration with the left foot at ``target``.

        Angles are measured from straight (torso up, legs down): the torso
        leans forward by ``lean``, each leg's (thigh, shin) angles are
        ``stance`` and ``swing``. The hip is placed so that the stance foot
        lands on the target.
        """
        down, up = -np.pi / 2, np.pi / 2
        angles = np.array([up - lean, down + stance[0], down + stance[1], down + swing[0], down + swing[1]])
        q = np.concatenate([[0.0, 0.0], angles])
        hip = _checks.vector("target", target, 2) - self.foot(q, leg=0)
        return np.concatenate([hip, angles])

    def balanced(self, stance=(-0.15, 0.25), swing=(0.35, -0.4), target=(0.0, 0.0)):
        """Like :meth:`standing`, with the torso lean chosen so the centre of mass is right above the foot.

        Only then can the pinned foot (no ankle torque) hold the robot still.
        """
        offset = lambda lean: self.tree.center_of_mass(self.standing(lean, stance, swing, target))[0] - target[0]  # noqa: E731
        return self.standing(brentq(offset, -1.2, 1.2, xtol=1e-14), stance, swing, target)

    def holding_torques(self, q, leg=0):
        """Joint torques u and foot force f that keep the robot still at q (v = 0, q̈ = 0).

        Solves the statics 0 = tau_g + B u + Jᵀ f in the least-squares sense; the
        residual vanishes only when the centre of mass is above the foot
        (see :meth:`balanced`). Returns (u (4,), f (2,)).
        """
        q = _checks.vector("q", q, self.tree.n)
        J = self.foot_pin(leg).H(q)
        K = np.hstack([self.tree.input_matrix(), J.T])
        x = np.linalg.lstsq(K, -self.tree.gravity_vector(q), rcond=None)[0]
        return x[:4], x[4:]


# --- constrained dynamics and simulation ------------------------------------------
def generalized_force(system, q, v, u=None):
    """Everything on the right of M q̈ = τ + Hᵀ λ but the constraint force:

        τ(q, q̇, u) = tau_g(q) + B u + tau_ext(q, q̇) − C(q, q̇) q̇.

    >>> generalized_force(PointMass(m=2.0, g=10.0, dim=1), [0.0], [0.0], [5.0])
    array([-15.])

    Introduced in: chapter 4.
    """
    q, v = system._state(q, v)
    u = system._input(u)
    return (system.gravity_vector(q) + system.input_matrix() @ u + system.external_force(q, v)
            - system.coriolis_matrix(q, v) @ v)


def _check_pair(system, constraint):
    if constraint.n != system.n:
        raise ValueError(f"constraint acts on {constraint.n} coordinates but the system has n = {system.n}")


def constrained_dynamics(system, constraint, q, v, u=None, alpha=None):
    """q̈ and λ of a system under a constraint, from the closed form (notes 000):

        M q̈ = τ + Aᵀ λ,   λ = −(A M⁻¹ Aᵀ)⁺ (A M⁻¹ τ + b),

    with (A, b) the constraint's acceleration form (Baumgarte-stabilized when
    ``alpha`` is given). Returns (q̈, λ).

    >>> from lib.pendulum import SimplePendulum
    >>> particle, rod = pendulum_as_particle(SimplePendulum(l=1.0))
    >>> vdot, lam = constrained_dynamics(particle, rod, [0.0, -1.0], [0.0, 0.0])
    >>> np.round(vdot, 12) + 0.0, float(rod.tension(lam))
    (array([0., 0.]), 9.81)

    Introduced in: chapter 4.
    """
    _check_pair(system, constraint)
    q, v = system._state(q, v)
    A, b = constraint._form(q, v, None if alpha is None else _alpha(alpha))
    return _multiplier(system.mass_matrix(q), generalized_force(system, q, v, u), A, b)


@dataclass(frozen=True)
class ConstrainedTrajectory:
    """A constrained motion: t (N,), q and v (N, n), multipliers lam (N, m), constraint residual h (N, m)."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    h: np.ndarray


def integrate_fixed_step(accel, q0, v0, t_final, dt, method="rk4"):
    """Integrate q̇ = v, v̇ = accel(t, q, v) with a fixed step dt; returns (t, q, v) at every step.

    ``method``: "euler" (explicit: q⁺ = q + dt v, v⁺ = v + dt v̇),
    "symplectic euler" (semi-implicit: v⁺ = v + dt v̇, then q⁺ = q + dt v⁺) or
    "rk4" (classical Runge–Kutta). The last step is shortened to land on t_final.

    >>> t, q, v = integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], np.pi, 0.01)
    >>> round(float(q[-1, 0]), 6)
    -1.0

    Introduced in: chapter 4.
    """
    q = np.array(q0, dtype=float).reshape(-1)
    v = np.array(v0, dtype=float).reshape(-1)
    t_final = _checks.positive("t_final", t_final)
    dt = _checks.positive("dt", dt)
    if method not in ("euler", "symplectic euler", "rk4"):
        raise ValueError(f"method must be 'euler', 'symplectic euler' or 'rk4', got {method!r}")
    steps = int(np.ceil(t_final / dt - 1e-9))
    ts, qs, vs = np.empty(steps + 1), np.empty((steps + 1, q.size)), np.empty((steps + 1, v.size))
    t = 0.0
    ts[0], qs[0], vs[0] = t, q, v
    for i in range(steps):
        h = min(dt, t_final - t)
        if method == "euler":
            a = accel(t, q, v)
            q, v = q + h * v, v + h * a
        elif method == "symplectic euler":
            v = v + h * accel(t, q, v)
            q = q + h * v
        else:
            k1q, k1v = v, accel(t, q, v)
            k2q, k2v = v + 0.5 * h * k1v, accel(t + 0.5 * h, q + 0.5 * h * k1q, v + 0.5 * h * k1v)
            k3q, k3v = v + 0.5 * h * k2v, accel(t + 0.5 * h, q + 0.5 * h * k2q, v + 0.5 * h * k2v)
            k4q, k4v = v + h * k3v, accel(t + h, q + h * k3q, v + h * k3v)
            q = q + h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q)
            v = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        t = (i + 1) * dt if i + 1 < steps else t_final
        ts[i + 1], qs[i + 1], vs[i + 1] = t, q, v
    return ts, qs, vs


def simulate_constrained(system, constraint, q0, v0, t_final, u=None, alpha=None, dt=None,
                         method=None, num=500, rtol=1e-10, atol=1e-10):
    """Simulate a system under a constraint, q̈ from :func:`constrained_dynamics` at every instant.

    ``u`` is None, a constant input or a function u(t, q, v); ``alpha`` turns
    on Baumgarte stabilization. With ``dt`` the integration uses a fixed step
    (``method`` "rk4" by default, or "euler", "symplectic euler") and records
    every step; without it scipy's adaptive ``method`` (default "DOP853") is
    sampled at ``num`` times. The residual h is the constraint's
    :meth:`Constraint.residual`: its growth is the drift.

    >>> from lib.pendulum import SimplePendulum
    >>> particle, rod = pendulum_as_particle(SimplePendulum())
    >>> traj = simulate_constrained(particle, rod, [1.0, 0.0], [0.0, 0.0], 1.0, dt=0.01)
    >>> traj.q.shape, bool(np.abs(traj.h).max() < 1e-6)
    ((101, 2), True)

    Introduced in: chapter 4.
    """
    _check_pair(system, constraint)
    q0, v0 = system._state(q0, v0)
    t_final = _checks.positive("t_final", t_final)
    if alpha is not None:
        _alpha(alpha)
    policy = u if callable(u) else (lambda t, q, v, _u=system._input(u): _u)

    def accel(t, q, v):
        return constrained_dynamics(system, constraint, q, v, policy(t, q, v), alpha)[0]

    if dt is not None:
        t, q, v = integrate_fixed_step(accel, q0, v0, t_final, dt, method or "rk4")
    else:
        n = system.n

        def rhs(t, x):
            return np.concatenate([x[n:], accel(t, x[:n], x[n:])])

        sol = solve_ivp(rhs, (0.0, t_final), np.concatenate([q0, v0]), method=method or "DOP853",
                        t_eval=np.linspace(0.0, t_final, int(num)), rtol=rtol, atol=atol)
        if not sol.success:
            raise RuntimeError(f"integration failed: {sol.message}")
        t, q, v = sol.t, sol.y[:n].T, sol.y[n:].T
    lam = np.array([constrained_dynamics(system, constraint, qi, vi, policy(ti, qi, vi), alpha)[1]
                    for ti, qi, vi in zip(t, q, v)])
    h = np.array([constraint.residual(qi, vi) for qi, vi in zip(q, v)])
    return ConstrainedTrajectory(t, q, v, lam, h)


def project_to_constraint(constraint, q, v=None, tol=1e-12, max_iter=50):
    """Move (q, v) onto a position constraint: Gauss–Newton q ← q − H⁺ h, then v ← (I − H⁺ H) v.

    The smallest correction (least squares) that makes h(q) = 0 and ḣ = H v = 0.
    Returns q, or (q, v) when v is given.

    >>> rod = DistanceConstraint(l=1.0)
    >>> q, v = project_to_constraint(rod, [0.0, -1.2], [0.5, 0.3])
    >>> np.round(q, 9) + 0.0, np.round(v, 9) + 0.0
    (array([ 0., -1.]), array([0.5, 0. ]))

    Introduced in: chapter 4.
    """
    q = _checks.vector("q", q, constraint.n)
    for _ in range(int(max_iter)):
        h = constraint.h(q)
        if np.linalg.norm(h) < tol:
            break
        q = q - np.linalg.pinv(constraint.H(q), rtol=PINV_RTOL) @ h
    if v is None:
        return q
    v = _checks.vector("v", v, constraint.n)
    H = constraint.H(q)
    return q, v - np.linalg.pinv(H, rtol=PINV_RTOL) @ (H @ v)
