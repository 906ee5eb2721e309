"""Small robots in the common protocol: the PR robot, planar n-link chains, a free rigid body.

* :class:`PRRobot`: the prismatic-revolute arm of notes 003, in closed form, on
  a horizontal plane or (Q5) with gravity in its plane.
* :func:`planar_chain_form` and :class:`PlanarChain`: an n-link planar arm of
  rigid links, derived symbolically with :mod:`lib.lagrange` (kinetic energy
  from the partial Jacobians of notes 003), compiled once per n with lambdify;
  :func:`planar_chain_rnea` computes the same inverse dynamics recursively
  (Newton–Euler), link by link, as a numeric cross-check.
* :class:`FreeRigidBody`: a body spinning about its fixed centre of mass with
  a unit quaternion for q and the angular velocity for v, so q has 4 entries
  and v has 3 (notes 000, the q vs v distinction).

Introduced in: chapter 3.
"""

import functools
from dataclasses import dataclass

import numpy as np
import sympy as sp

from . import checks
from .lagrange import manipulator_form_fast
from .rigid_body import check_inertia, skew
from .system import ManipulatorSystem


# --- the PR robot (notes 003, "Dynamic model of a PR robot") -----------------
@dataclass(frozen=True)
class PRRobot(ManipulatorSystem):
    """The PR robot of notes 003: a prismatic joint q1 along x carrying a revolute joint q2.

    Link 1 (mass m1) slides with its CoM a distance d_c1 behind the joint;
    link 2 (mass m2, inertia I_c2 about its CoM, normal to the plane) turns
    about the end of link 1 with its CoM at distance d_c2. B = E: u1 is a
    force, u2 a torque. With s2 = sin q2, c2 = cos q2:

        M(q) = [[m1 + m2,        −m2 d_c2 s2       ],
                [−m2 d_c2 s2,    I_c2 + m2 d_c2²   ]]
        c(q, q̇) = C(q, q̇) q̇ = [−m2 d_c2 c2 q̇2², 0],   C = [[0, −m2 d_c2 c2 q̇2], [0, 0]]

    (C from the Christoffel symbols). ``gravity`` is the gravity vector
    (g_x, g_y) in the plane of motion: (0, 0) for a horizontal plane (U
    constant), (0, −9.81) for a vertical plane with the slide horizontal (Q5);
    then tau_g = [(m1 + m2) g_x, m2 d_c2 (−s2 g_x + c2 g_y)]. The notes write
    M q̈ + c + g(q) = u with g = −tau_g.

    >>> robot = PRRobot(m1=2.0, m2=1.0, d_c2=0.5, I_c2=0.1)
    >>> robot.mass_matrix([0.0, np.pi / 2])
    array([[ 3.  , -0.5 ],
           [-0.5 ,  0.35]])
    >>> robot.bias([0.0, 0.0], [0.0, 2.0])   # c1 = −m2 d_c2 c2 q̇2²
    array([-2.,  0.])

    Introduced in: chapter 3.
    """

    n = 2

    m1: checks.Positive = 1.0
    m2: checks.Positive = 1.0
    d_c1: checks.Finite = 0.25
    d_c2: checks.Positive = 0.5
    I_c2: checks.Positive = 0.1
    gravity: tuple = (0.0, 0.0)

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "gravity", tuple(checks.vector("gravity", self.gravity, 2)))

    def mass_matrix(self, q):
        q = checks.vector("q", q, 2)
        m12 = -self.m2 * self.d_c2 * np.sin(q[1])
        return np.array([[self.m1 + self.m2, m12], [m12, self.I_c2 + self.m2 * self.d_c2**2]])

    def coriolis_matrix(self, q, v):
        q, v = self.check_state(q, v)
        return np.array([[0.0, -self.m2 * self.d_c2 * np.cos(q[1]) * v[1]], [0.0, 0.0]])

    def coriolis_matrix_family(self, q, v, alpha=0.0, beta=0.0):
        """Q4: other factorizations S = C + [[α q̇2, −α q̇1], [β q̇2, −β q̇1]]; all give S q̇ = C q̇.

        α = β = 0 is the Christoffel matrix, the only member of the family
        with Ṁ − 2S skew-symmetric.
        """
        q, v = self.check_state(q, v)
        alpha, beta = checks.finite("alpha", alpha), checks.finite("beta", beta)
        N = np.array([[alpha * v[1], -alpha * v[0]], [beta * v[1], -beta * v[0]]])
        return self.coriolis_matrix(q, v) + N

    def gravity_vector(self, q):
        q = checks.vector("q", q, 2)
        gx, gy = self.gravity
        return np.array([(self.m1 + self.m2) * gx,
                         self.m2 * self.d_c2 * (-np.sin(q[1]) * gx + np.cos(q[1]) * gy)])

    def input_matrix(self):
        return np.eye(2)

    def com_positions(self, q):
        """p_c1 = (q1 − d_c1, 0, 0) and p_c2 = (q1 + d_c2 c2, d_c2 s2, 0), shape (2, 3)."""
        q = checks.vector("q", q, 2)
        return np.array([[q[0] - self.d_c1, 0.0, 0.0],
                         [q[0] + self.d_c2 * np.cos(q[1]), self.d_c2 * np.sin(q[1]), 0.0]])

    def com_jacobians(self, q):
        """The partial Jacobians (J_L1, J_L2), (J_A1, J_A2), each (3, 2): v_ci = J_Li q̇, ω_i = J_Ai q̇."""
        q = checks.vector("q", q, 2)
        s2, c2 = np.sin(q[1]), np.cos(q[1])
        J_L1 = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
        J_L2 = np.array([[1.0, -self.d_c2 * s2], [0.0, self.d_c2 * c2], [0.0, 0.0]])
        J_A1 = np.zeros((3, 2))
        J_A2 = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
        return (J_L1, J_L2), (J_A1, J_A2)

    def kinetic_energy(self, q, v):
        """T = ½ m1 q̇1² + ½ m2 (q̇1² + d_c2² q̇2² − 2 d_c2 s2 q̇1 q̇2) + ½ I_c2 q̇2² (notes 003)."""
        q, v = self.check_state(q, v)
        d = self.d_c2
        return float(0.5 * self.m1 * v[0] ** 2
                     + 0.5 * self.m2 * (v[0] ** 2 + d**2 * v[1] ** 2 - 2 * d * np.sin(q[1]) * v[0] * v[1])
                     + 0.5 * self.I_c2 * v[1] ** 2)

    def potential_energy(self, q):
        """U = −m1 gᵀ p_c1 − m2 gᵀ p_c2 (zero on a horizontal plane)."""
        p = self.com_positions(q)[:, :2]
        g = np.array(self.gravity)
        return float(-self.m1 * g @ p[0] - self.m2 * g @ p[1])


# --- the planar n-link chain, symbolically -------------------------------------
@dataclass(frozen=True)
class ChainSymbols:
    """The sympy symbols of an n-link planar chain: joint angles, rates, accelerations and link parameters.

    >>> s = chain_symbols(2)
    >>> s.q, s.g
    ((q1, q2), g)
    """

    q: tuple
    qd: tuple
    qdd: tuple
    m: tuple
    l: tuple
    lc: tuple
    I: tuple
    g: sp.Symbol

    @property
    def params(self):
        """The parameters in the order the compiled functions take them: m, l, lc, I, g."""
        return self.m + self.l + self.lc + self.I + (self.g,)


def chain_symbols(n):
    """Symbols q1…qn, qd1…, qdd1…, m1…, l1…, lc1…, I1… and g for an n-link planar chain.

    >>> chain_symbols(2).lc
    (lc1, lc2)

    Introduced in: chapter 3.
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be a positive number of links, got {n}")
    s = lambda name, **kw: tuple(sp.symbols(f"{name}1:{n + 1}", **kw))  # noqa: E731
    return ChainSymbols(s("q"), s("qd"), s("qdd"), s("m", positive=True), s("l", positive=True),
                        s("lc", positive=True), s("I", nonnegative=True), sp.Symbol("g"))


def planar_chain_energies(n):
    """Kinetic and potential energy of an n-link planar chain of rigid links, and its symbols.

    Joint angles are relative, q = 0 hangs straight down, φ_i = q_1 + … + q_i
    is the absolute angle of link i; link i has mass m_i, length l_i, CoM at
    lc_i from its joint and inertia I_i about its CoM. The CoM of link i is

        p_ci = Σ_{a<i} l_a (sin φ_a, −cos φ_a) + lc_i (sin φ_i, −cos φ_i),

    so column j of its partial Jacobian is J_Li[:, j] = Σ_{j≤a≤i} ρ_ia (cos φ_a, sin φ_a)
    (ρ_ia = l_a, or lc_i for a = i), and ω_i = q̇_1 + … + q̇_i. Notes 003:
    M = Σ_i m_i J_Liᵀ J_Li + I_i J_Aiᵀ J_Ai, where (cos φ_a, sin φ_a)·(cos φ_b, sin φ_b)
    = cos(φ_a − φ_b). T = ½ q̇ᵀ M q̇ and U = Σ_i m_i g y_ci.

    >>> T, U, s = planar_chain_energies(1)
    >>> sp.simplify(T - (s.m[0] * s.lc[0]**2 + s.I[0]) * s.qd[0]**2 / 2)
    0

    Introduced in: chapter 3.
    """
    s = chain_symbols(n)
    phi = [sum(s.q[:i + 1]) for i in range(n)]

    def rho(i, a):
        return s.l[a] if a < i else s.lc[i]

    M = sp.zeros(n, n)
    for j in range(n):
        for k in range(j, n):
            entry = 0
            for i in range(k, n):  # links moved by both joints j and k
                entry += s.m[i] * sum(rho(i, a) * rho(i, b) * sp.cos(phi[a] - phi[b])
                                      for a in range(j, i + 1) for b in range(k, i + 1))
                entry += s.I[i]
            M[j, k] = M[k, j] = entry
    qd = sp.Matrix(s.qd)
    T = (qd.T * M * qd)[0] / 2
    U = sum(s.m[i] * s.g * (-sum(s.l[a] * sp.cos(phi[a]) for a in range(i)) - s.lc[i] * sp.cos(phi[i]))
            for i in range(n))
    return T, U, s


def planar_chain_form(n):
    """The manipulator form (M, C from Christoffel symbols, tau_g) of an n-link planar chain, cached.

    Derived with :func:`lib.lagrange.manipulator_form_fast` from
    :func:`planar_chain_energies`. Returns (form, T, U, symbols).

    >>> form, T, U, s = planar_chain_form(2)
    >>> form.M.shape, form.C.shape
    ((2, 2), (2, 2))

    Introduced in: chapter 3.
    """
    return _chain_form(n)


@functools.lru_cache(maxsize=None)
def _chain_form(n):
    # cached apart from planar_chain_form, so that lib.homework.without_lib can switch that one off
    T, U, s = planar_chain_energies(n)
    return manipulator_form_fast(T, U, s.q, s.qd), T, U, s


_CHAINS = {}  # n -> the compiled functions of the n-link chain (lib.homework switches them off by name)


def _compiled_chain(n):
    """M, C, tau_g, T, U of the n-link chain as numpy functions f(q, qd, params), compiled once per n."""
    if n not in _CHAINS:
        form, T, U, s = planar_chain_form(n)
        args = [list(s.q), list(s.qd), list(s.params)]
        compile_ = lambda e: sp.lambdify(args, e, "numpy", cse=True)  # noqa: E731
        _CHAINS[n] = {"M": compile_(form.M), "C": compile_(form.C), "tau_g": compile_(form.tau_g),
                      "T": compile_(T), "U": compile_(U)}
    return _CHAINS[n]


def _link_parameters(m, l, lc, I):
    m = np.atleast_1d(np.asarray(m, dtype=float))
    n = m.size
    if m.ndim != 1 or n < 1:
        raise ValueError(f"m must be a list of link masses, got {m}")
    for i, mi in enumerate(m):
        checks.positive(f"m[{i}]", mi)
    l = checks.vector("l", l, n)
    for i, li in enumerate(l):
        checks.positive(f"l[{i}]", li)
    lc = 0.5 * l if lc is None else checks.vector("lc", lc, n)
    for i, x in enumerate(lc):
        checks.positive(f"lc[{i}]", x)
    I = m * l**2 / 12 if I is None else checks.vector("I", I, n)
    for i, x in enumerate(I):
        checks.nonnegative(f"I[{i}]", x)
    return m, l, lc, I


class PlanarChain(ManipulatorSystem):
    """An n-link planar arm of rigid links in a vertical plane, revolute joints, torque at every joint.

    n = len(m). Link i: mass m[i], length l[i], CoM at lc[i] from its joint
    (default l/2) and inertia I[i] about its CoM (default m l²/12, a slender
    rod; 0 for a point mass). q are relative joint angles, q = 0 hanging down;
    gravity g along −y. M, C and tau_g come from the symbolic derivation of
    :func:`planar_chain_form`, compiled once per n and shared by all chains
    with that many links. With lc = l and I = 0 the two-link chain is the
    double pendulum of notes 000.

    >>> arm = PlanarChain(m=[1.0, 1.0], l=[1.0, 1.0], lc=[1.0, 1.0], I=[0.0, 0.0])
    >>> arm.mass_matrix([0.0, 0.0])
    array([[5., 2.],
           [2., 1.]])

    Introduced in: chapter 3.
    """

    def __init__(self, m, l, lc=None, I=None, g=9.81):
        self.m, self.l, self.lc, self.I = _link_parameters(m, l, lc, I)
        self.g = checks.finite("g", g)
        self.n = self.m.size
        self._params = list(np.concatenate([self.m, self.l, self.lc, self.I, [self.g]]))
        self._f = _compiled_chain(self.n)

    def __repr__(self):
        return (f"PlanarChain(m={self.m.tolist()}, l={self.l.tolist()}, lc={self.lc.tolist()}, "
                f"I={self.I.tolist()}, g={self.g})")

    def _call(self, key, q, v):
        return np.array(self._f[key](list(q), list(v), self._params), dtype=float)

    def mass_matrix(self, q):
        q = checks.vector("q", q, self.n)
        return self._call("M", q, np.zeros(self.n))

    def coriolis_matrix(self, q, v):
        q, v = self.check_state(q, v)
        return self._call("C", q, v).reshape(self.n, self.n)

    def gravity_vector(self, q):
        q = checks.vector("q", q, self.n)
        return self._call("tau_g", q, np.zeros(self.n)).reshape(self.n)

    def input_matrix(self):
        return np.eye(self.n)

    def kinetic_energy(self, q, v):
        q, v = self.check_state(q, v)
        return float(self._call("T", q, v))

    def potential_energy(self, q):
        q = checks.vector("q", q, self.n)
        return float(self._call("U", q, np.zeros(self.n)))

    def positions(self, q):
        """Joint positions from the base to the tip, shape (n+1, 2); q of shape (N, n) gives (N, n+1, 2).

        >>> PlanarChain(m=[1.0], l=[2.0]).positions([0.0])
        array([[ 0.,  0.],
               [ 0., -2.]])
        """
        q = np.asarray(q, dtype=float)
        if q.shape[-1:] != (self.n,):
            raise ValueError(f"q must have shape (..., {self.n}), got shape {q.shape}")
        phi = np.cumsum(q, axis=-1)
        steps = self.l[:, None] * np.stack([np.sin(phi), -np.cos(phi)], axis=-1)
        zero = np.zeros(q.shape[:-1] + (1, 2))
        return np.concatenate([zero, np.cumsum(steps, axis=-2)], axis=-2)

    def rnea(self, q, v, vdot, gravity=True):
        """Inverse dynamics τ = M v̇ + C v − tau_g by recursive Newton–Euler, see :func:`planar_chain_rnea`."""
        return planar_chain_rnea(q, v, vdot, self.m, self.l, self.lc, self.I, self.g if gravity else 0.0)

    def rnea_mass_matrix(self, q):
        """M(q) column by column from Newton–Euler: column j is τ(q, 0, e_j) without gravity."""
        q = checks.vector("q", q, self.n)
        zero = np.zeros(self.n)
        return np.column_stack([self.rnea(q, zero, e, gravity=False) for e in np.eye(self.n)])


def _cross2(a, b):
    return a[0] * b[1] - a[1] * b[0]


def planar_chain_rnea(q, v, vdot, m, l, lc=None, I=None, g=9.81):
    """Joint torques τ = M(q) v̇ + C(q, v) v − tau_g(q) of a planar chain by recursive Newton–Euler.

    Outward pass (base to tip), with e_i = (sin φ_i, −cos φ_i) along link i and
    n_i = (cos φ_i, sin φ_i) normal to it; gravity enters as an upward
    acceleration g of the base:

        ω_i = Σ_{a≤i} v_a,   α_i = Σ_{a≤i} v̇_a,   a_c,i = a_o,i + lc_i (α_i n_i − ω_i² e_i),
        a_o,i+1 = a_o,i + l_i (α_i n_i − ω_i² e_i),   a_o,1 = (0, g).

    Inward pass (tip to base), f_i the force of link i−1 on link i at joint i:

        f_i = m_i a_c,i + f_i+1,
        τ_i = I_i α_i + τ_i+1 + lc_i e_i × f_i + (l_i − lc_i) e_i × f_i+1.

    Arguments as for :class:`PlanarChain`. Same answer as the Lagrangian
    derivation, in O(n) operations and without symbols.

    >>> planar_chain_rnea([0.0], [0.0], [1.0], m=[1.0], l=[2.0], lc=[2.0], I=[0.0], g=0.0)
    array([4.])

    Introduced in: chapter 3.
    """
    m, l, lc, I = _link_parameters(m, l, lc, I)
    n = m.size
    q, v, vdot = (checks.vector(k, x, n) for k, x in (("q", q), ("v", v), ("vdot", vdot)))
    g = checks.finite("g", g)
    phi, omega, alpha = np.cumsum(q), np.cumsum(v), np.cumsum(vdot)
    e = np.stack([np.sin(phi), -np.cos(phi)], axis=1)
    nrm = np.stack([np.cos(phi), np.sin(phi)], axis=1)
    a_o = np.array([0.0, g])
    a_c = np.zeros((n, 2))
    for i in range(n):
        rel = alpha[i] * nrm[i] - omega[i] ** 2 * e[i]
        a_c[i] = a_o + lc[i] * rel
        a_o = a_o + l[i] * rel
    tau = np.zeros(n)
    f_next, tau_next = np.zeros(2), 0.0
    for i in reversed(range(n)):
        f = m[i] * a_c[i] + f_next
        tau[i] = I[i] * alpha[i] + tau_next + lc[i] * _cross2(e[i], f) + (l[i] - lc[i]) * _cross2(e[i], f_next)
        f_next, tau_next = f, tau[i]
    return tau


# --- q vs v: a free rigid body with a unit quaternion -----------------------------
def quaternion_multiply(a, b):
    """The quaternion product a ⊗ b, scalar first: (w, x, y, z).

    >>> quaternion_multiply([0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0])   # i j = k
    array([0., 0., 0., 1.])

    Introduced in: chapter 3.
    """
    w1, x1, y1, z1 = checks.vector("a", a, 4)
    w2, x2, y2, z2 = checks.vector("b", b, 4)
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quaternion_to_rotation(quat):
    """The rotation matrix R(q) of a unit quaternion q = (w, x, y, z) (body to world).

    >>> quaternion_to_rotation([1.0, 0.0, 0.0, 0.0])
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])

    Introduced in: chapter 3.
    """
    w, x, y, z = _unit_quaternion(quat)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _unit_quaternion(quat, name="q", tol=1e-6):
    quat = checks.vector(name, quat, 4)
    norm = np.linalg.norm(quat)
    if abs(norm - 1.0) > tol:
        raise ValueError(f"{name} must be a unit quaternion (norm 1), got norm {norm:.6g}")
    return quat / norm


class FreeRigidBody(ManipulatorSystem):
    """A rigid body turning about its fixed centre of mass: q is a unit quaternion (4 numbers), v = ω (3 numbers).

    Notes 000 ("q vs v"): 3D orientations have no singularity-free minimal
    coordinates, so positions and velocities need not have the same size.
    Here q = (w, x, y, z) with |q| = 1 and v = ω, the angular velocity in body
    axes, related by q̇ = ½ q ⊗ (0, ω) rather than q̇ = v. With the body
    inertia I_c and body torques u, Euler's equations are the manipulator
    equations with

        M = I_c,   C(q, v) = S(ω) I_c   (C v = ω × I_c ω),   tau_g = 0,   B = E.

    ``n`` is the size of v (3); ``nq`` the size of q (4).

    >>> body = FreeRigidBody(np.diag([1.0, 2.0, 3.0]))
    >>> body.bias([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0])   # ω × I ω
    array([ 0., -2.,  0.])

    Introduced in: chapter 3.
    """

    n = 3
    nq = 4

    def __init__(self, I_c):
        self.I_c = check_inertia("I_c", I_c, positive_definite=True)

    def __repr__(self):
        return f"FreeRigidBody(I_c={self.I_c.tolist()})"

    def check_state(self, q, v):
        return _unit_quaternion(q), checks.vector("v", v, 3)

    def mass_matrix(self, q):
        _unit_quaternion(q)
        return self.I_c.copy()

    def coriolis_matrix(self, q, v):
        q, v = self.check_state(q, v)
        return skew(v) @ self.I_c

    def gravity_vector(self, q):
        _unit_quaternion(q)
        return np.zeros(3)

    def input_matrix(self):
        return np.eye(3)

    def potential_energy(self, q):
        _unit_quaternion(q)
        return 0.0

    def qdot(self, q, v):
        """The kinematic map q̇ = N(q) v = ½ q ⊗ (0, ω), shape (4,)."""
        q, v = self.check_state(q, v)
        return 0.5 * quaternion_multiply(q, np.concatenate([[0.0], v]))

    def angular_momentum(self, q, v):
        """The angular momentum in world axes, R(q) I_c ω: constant without torques."""
        q, v = self.check_state(q, v)
        return quaternion_to_rotation(q) @ self.I_c @ v

    def project(self, q):
        """The quaternion(s) normalized to unit length: what an integrator's drift off |q| = 1 is projected back to.

        So :meth:`simulate` (the protocol's) integrates q̇ = ½ q ⊗ (0, ω),
        ω̇ = I_c⁻¹ (u − ω × I_c ω) with q of shape (num, 4), v of shape (num, 3).

        >>> body = FreeRigidBody(np.diag([1.0, 2.0, 3.0]))
        >>> body.project([2.0, 0.0, 0.0, 0.0])
        array([1., 0., 0., 0.])
        >>> traj = body.simulate([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0], np.pi, num=3)
        >>> traj.q[-1].round(6) + 0.0        # half a turn about z: q = (cos π/2, 0, 0, sin π/2)
        array([0., 0., 0., 1.])
        """
        q = np.asarray(q, dtype=float)
        return q / np.linalg.norm(q, axis=-1, keepdims=True)
