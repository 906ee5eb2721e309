"""Planar linkages: trees of rods, the pins that close them, the four-bar linkage and a planar biped.

The systems chapter 4 puts under constraints (notes 000, "Bilateral Position
Constraints"; notes 001). A :class:`PlanarTree` is a kinematic tree of
uniform rods in the vertical plane, with a fixed or a floating base, written
in closed form in the common protocol. A :class:`PointPin` pins one of its
points to the ground: a :class:`lib.constraints.PositionConstraint` whose
multiplier is the force the pin applies. Closing a serial chain of three
rods with a pin gives the :class:`FourBar` linkage; pinning a foot of a
floating-base tree gives the :class:`PlanarBiped` standing on one leg. The
multipliers, Baumgarte stabilization and the constrained simulation are in
:mod:`lib.constraints`.

Introduced in: chapter 4.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.optimize import brentq

from . import checks
from .constraints import PositionConstraint
from .system import ManipulatorSystem


def _unit(theta):
    return np.array([np.cos(theta), np.sin(theta)])


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
        m = tuple(checks.positive(f"m[{i}]", x) for i, x in enumerate(self.m))
        l = tuple(checks.positive(f"l[{i}]", x) for i, x in enumerate(self.l))
        if len(l) != k or len(self.parent) != k:
            raise ValueError(f"m, l and parent must have the same length, got {k}, {len(l)}, {len(self.parent)}")
        parent = tuple(int(p) for p in self.parent)
        for i, p in enumerate(parent):
            if not -1 <= p < i:
                raise ValueError(f"parent[{i}] must be -1 or an earlier link, got {p}")
        offset = self.offset
        if offset is None:
            offset = tuple(0.0 if p < 0 else l[p] for p in parent)
        offset = tuple(checks.finite(f"offset[{i}]", x) for i, x in enumerate(offset))
        if len(offset) != k:
            raise ValueError(f"offset must have {k} entries, got {len(offset)}")
        base = tuple(checks.vector("base", self.base, 2))
        checks.finite("g", self.g)
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
        return self._point(checks.vector("q", q, self.n), self.levers(link, s))

    def point_jacobian(self, q, link, s):
        """J = ∂p/∂q of the point at distance s along ``link``: columns L_j e_j^⊥, shape (2, n)."""
        return self._jacobian(checks.vector("q", q, self.n), self.levers(link, s))

    def point_jacobian_dot(self, q, v, link, s):
        """J̇ of the point at distance s along ``link``: columns −L_j θ̇_j e_j, shape (2, n)."""
        q, v = self.check_state(q, v)
        theta, theta_dot = q[self._first:], v[self._first:]
        Jd = np.zeros((2, self.n))
        Jd[:, self._first:] = -self.levers(link, s) * theta_dot * np.array([np.cos(theta), np.sin(theta)])
        return Jd

    def joints(self, q):
        """World positions of every link's joint and far end, shape (k, 2, 2), for drawing."""
        return np.array([[self.point(q, i, 0.0), self.point(q, i, self.l[i])] for i in range(self.k)])

    def center_of_mass(self, q):
        """Position of the whole tree's centre of mass, shape (2,)."""
        q = checks.vector("q", q, self.n)
        return np.array(self.m) @ np.array([self._point(q, Li) for Li in self._L]) / sum(self.m)

    def mass_matrix(self, q):
        q = checks.vector("q", q, self.n)
        theta, f = q[self._first:], self._first
        M = np.zeros((self.n, self.n))
        M[f:, f:] = self._a * np.cos(theta[:, None] - theta[None, :]) + np.diag(self._inertia)
        if self.floating:
            M[:2, :2] = sum(self.m) * np.eye(2)
            M[:2, 2:] = self._mu * np.array([-np.sin(theta), np.cos(theta)])
            M[2:, :2] = M[:2, 2:].T
        return M

    def coriolis_matrix(self, q, v):
        q, v = self.check_state(q, v)
        theta, theta_dot, f = q[self._first:], v[self._first:], self._first
        C = np.zeros((self.n, self.n))
        C[f:, f:] = self._a * np.sin(theta[:, None] - theta[None, :]) * theta_dot[None, :]
        if self.floating:
            C[:2, 2:] = -self._mu * theta_dot * np.array([np.cos(theta), np.sin(theta)])
        return C

    def gravity_vector(self, q):
        q = checks.vector("q", q, self.n)
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
        q = checks.vector("q", q, self.n)
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
        self.tree, self.link, self.s = tree, int(link), checks.finite("s", s)
        self.target = checks.vector("target", target, 2)
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
class FourBar(checks.Checked):
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

    l1: checks.Positive = 0.4
    l2: checks.Positive = 1.0
    l3: checks.Positive = 0.8
    d: checks.Positive = 1.0
    m1: checks.Positive = 1.0
    m2: checks.Positive = 1.0
    m3: checks.Positive = 1.0
    g: checks.Finite = 9.81

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
        theta1 = checks.finite("theta1", theta1)
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
        rest = np.linalg.solve(H[:, 1:], -H[:, 0] * checks.finite("theta1_dot", theta1_dot))
        return q, np.concatenate([[theta1_dot], rest])


# --- the worked legged robot: a planar biped with its stance foot pinned ----------
@dataclass(frozen=True)
class PlanarBiped(checks.Checked):
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

    m_torso: checks.Positive = 10.0
    m_thigh: checks.Positive = 4.0
    m_shin: checks.Positive = 2.5
    l_torso: checks.Positive = 0.6
    l_thigh: checks.Positive = 0.45
    l_shin: checks.Positive = 0.45
    g: checks.Finite = 9.81

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
        hip = checks.vector("target", target, 2) - self.foot(q, leg=0)
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
        q = checks.vector("q", q, self.tree.n)
        J = self.foot_pin(leg).H(q)
        K = np.hstack([self.tree.input_matrix(), J.T])
        x = np.linalg.lstsq(K, -self.tree.gravity_vector(q), rcond=None)[0]
        return x[:4], x[4:]
