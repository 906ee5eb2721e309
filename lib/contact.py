"""Contact geometry and compliant contact: signed distance, contact Jacobian, spring-dampers, friction laws.

Notes 000 ("The Dynamics of Contact", "Compliant Contact Models", "Beyond
Point Contact"). Two bodies in contact are described by

* the signed distance φ(q) (positive apart, negative in penetration),
* the contact normal n and tangents t (orthonormal in Cartesian space),
  mapped to joint space and stacked into the contact Jacobian

      J(q) = [n; t₁; t₂] ∂p/∂q,

  so that J v is the contact-point velocity in contact coordinates, and a
  contact force λ = [f_n, f_t₁, f_t₂] enters the dynamics as

      M(q) v̇ + C(q, v) v = tau_g(q) + B u + Jᵀ(q) λ.

A compliant model computes λ from the state: a stiff spring and damper
resist penetration (linear, or Hunt–Crossley), and friction opposes sliding
(Coulomb, or a continuous approximation). :class:`CompliantSystem` wraps any
system of the common protocol with such forces, so ``simulate`` (and the
stiff integrators of :func:`simulate_ivp`) apply unchanged.

Introduced in: chapter 5.
"""

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from . import checks
from .system import ManipulatorSystem, PlanarBody, Trajectory


# --- argument checks --------------------------------------------------------------
def _normal(normal):
    n = np.asarray(normal, dtype=float)
    if n.ndim != 1 or n.size not in (2, 3) or not np.all(np.isfinite(n)) or np.linalg.norm(n) == 0:
        raise ValueError(f"normal must be a nonzero vector in 2 or 3 dimensions, got {normal!r}")
    return n / np.linalg.norm(n)


def _matrix(name, value, rows, cols=None):
    x = np.asarray(value, dtype=float)
    ok = x.ndim == 2 and x.shape[0] == rows and (cols is None or x.shape[1] == cols)
    if not ok:
        want = f"({rows}, {'n' if cols is None else cols})"
        raise ValueError(f"{name} must have shape {want}, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must contain only finite numbers")
    return x


# --- geometry ----------------------------------------------------------------------
def signed_distance(points, normal=(0.0, 1.0), offset=0.0, radius=0.0):
    """Signed distance from spheres (centres ``points``, radius r) to the plane n·p = offset:

        φ = n·p − offset − r     (> 0 apart, < 0 in penetration).

    ``points`` has shape (..., d) with d the dimension of ``normal``; the
    result has shape (...).

    >>> signed_distance([[0.0, 0.3], [1.0, -0.02]], radius=0.1)
    array([ 0.2 , -0.12])

    Introduced in: chapter 5.
    """
    n = _normal(normal)
    p = np.asarray(points, dtype=float)
    if p.shape[-1:] != n.shape:
        raise ValueError(f"points must have shape (..., {n.size}) to match the normal, got shape {p.shape}")
    return p @ n - checks.finite("offset", offset) - checks.nonnegative("radius", radius)


def contact_frame(normal):
    """The contact frame as rows [n; t] in 2D or [n; t₁; t₂] in 3D, orthonormal.

    In 2D, t = [n_y, −n_x] (for the floor, n = ŷ and t = x̂). In 3D, t₁ is the
    axis least aligned with n made orthogonal to it, and t₂ = n × t₁.

    >>> contact_frame([0.0, 1.0])
    array([[0., 1.],
           [1., 0.]])
    >>> contact_frame([0.0, 0.0, 1.0])
    array([[0., 0., 1.],
           [1., 0., 0.],
           [0., 1., 0.]])

    Introduced in: chapter 5.
    """
    n = _normal(normal)
    if n.size == 2:
        return np.array([n, [n[1], -n[0]]]) + 0.0   # + 0.0 turns −0 into 0
    axis = np.eye(3)[np.argmin(np.abs(n))]
    t1 = axis - (axis @ n) * n
    t1 /= np.linalg.norm(t1)
    return np.array([n, t1, np.cross(n, t1)])


def contact_jacobian(J_point, normal):
    """The contact Jacobian J = [n; t₁; t₂] ∂p/∂q from the Jacobian of the contact point.

    ``J_point`` is ∂p/∂q, shape (d, n) with d = 2 or 3 the dimension of the
    normal; the result has the same shape, its first row the contact normal
    in joint space ("n = ∂φ/∂q"), the others the tangents.

    >>> contact_jacobian(np.eye(2), [0.0, 1.0])
    array([[0., 1.],
           [1., 0.]])

    Introduced in: chapter 5.
    """
    F = contact_frame(normal)
    return F @ _matrix("J_point", J_point, F.shape[0])


def generalized_contact_force(J, lam):
    """The generalized force Jᵀ λ of contact forces λ = [f_n, f_t, …] (summed over contacts).

    ``J`` is one contact Jacobian (d, n) with ``lam`` shape (d,), or a stack
    (k, d, n) with ``lam`` shape (k, d).

    >>> generalized_contact_force([[0.0, 1.0, 0.0], [1.0, 0.0, -0.5]], [9.81, -1.0])
    array([-1.  ,  9.81,  0.5 ])

    Introduced in: chapter 5.
    """
    J = np.asarray(J, dtype=float)
    lam = np.asarray(lam, dtype=float)
    if J.ndim == 2:
        J = J[None]
        lam = lam.reshape(1, -1) if lam.ndim == 1 else lam
    if J.ndim != 3:
        raise ValueError(f"J must have shape (d, n) or (k, d, n), got shape {np.shape(J)}")
    if lam.shape != J.shape[:2]:
        raise ValueError(f"lam must have shape {J.shape[:2] if len(J) > 1 else J.shape[1:2]} to match J, "
                         f"got shape {np.shape(lam)}")
    return np.einsum("kdn,kd->n", J, lam)


# --- a planar rigid body with contact points -----------------------------------------
@dataclass(frozen=True)
class PlanarRigidBody(PlanarBody):
    """A rigid body in the vertical plane: q = [x, y, θ] (centre of mass and angle), gravity −g ŷ.

        M = diag(m, m, I),  C = 0,  tau_g = [0, −m g, 0],  B = I (force and torque at the centre).

    ``points`` (k, 2) are body-frame centres of contact spheres of radius
    ``radius``: the four corners of a box (radius 0), or the centre of a disk
    (radius r). Build them with :meth:`box` and :meth:`disk`.

    >>> brick = PlanarRigidBody.box(m=2.0, width=0.4, height=0.2)
    >>> brick.world_points([0.0, 0.1, 0.0])
    array([[-0.2,  0. ],
           [ 0.2,  0. ],
           [ 0.2,  0.2],
           [-0.2,  0.2]])

    Introduced in: chapter 5.
    """

    n = 3

    m: checks.Positive = 1.0
    I: checks.Positive = 1.0
    g: checks.Finite = 9.81
    points: tuple = ((0.0, 0.0),)
    radius: checks.Nonnegative = 0.0

    def __post_init__(self):
        super().__post_init__()
        pts = np.asarray(self.points, dtype=float)
        if pts.ndim != 2 or pts.shape[1] != 2:
            raise ValueError(f"points must have shape (k, 2), got shape {pts.shape}")
        object.__setattr__(self, "points", tuple(map(tuple, pts)))

    @classmethod
    def box(cls, m=1.0, width=1.0, height=0.5, g=9.81):
        """A uniform box, I = m (w² + h²)/12, with its four corners as contact points."""
        w, h = checks.positive("width", width), checks.positive("height", height)
        m = checks.positive("m", m)
        corners = ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))
        return cls(m=m, I=m * (w**2 + h**2) / 12.0, g=g, points=corners, radius=0.0)

    @classmethod
    def disk(cls, m=1.0, r=0.1, g=9.81):
        """A uniform disk (a ball in the plane), I = m r²/2, touching through a sphere of radius r."""
        m, r = checks.positive("m", m), checks.positive("r", r)
        return cls(m=m, I=0.5 * m * r**2, g=g, points=((0.0, 0.0),), radius=r)

    def input_matrix(self):
        return np.eye(3)

    def world_points(self, q):
        """Contact-sphere centres in the world, p_i = [x, y] + R(θ) r_i, shape (k, 2)."""
        q = checks.vector("q", q, 3)
        c, s = np.cos(q[2]), np.sin(q[2])
        return q[:2] + np.asarray(self.points) @ np.array([[c, s], [-s, c]])

    def point_jacobian(self, q, p):
        """∂p/∂q of the body's material point now at world position p: [[1, 0, −r_y], [0, 1, r_x]], r = p − [x, y].

        Works on a stack of points (k, 2) → (k, 2, 3).
        """
        q = checks.vector("q", q, 3)
        r = np.asarray(p, dtype=float) - q[:2]
        J = np.zeros(r.shape[:-1] + (2, 3))
        J[..., 0, 0] = J[..., 1, 1] = 1.0
        J[..., 0, 2], J[..., 1, 2] = -r[..., 1], r[..., 0]
        return J


@dataclass(frozen=True)
class ContactKinematics:
    """Contacts of a body with a plane: φ (k,), contact points on the body (k, d), Jacobians J (k, d, n).

    >>> kin = PlaneContact(PlanarRigidBody.box(width=0.4, height=0.2)).kinematics([0.0, 0.2, 0.0])
    >>> kin.phi.round(12), kin.points.shape, kin.J.shape
    (array([0.1, 0.1, 0.3, 0.3]), (4, 2), (4, 2, 3))
    """

    phi: np.ndarray
    points: np.ndarray
    J: np.ndarray


@dataclass(frozen=True)
class PlaneContact:
    """A body's contact spheres against the fixed plane n·p = offset (default: the floor y = 0).

    ``body`` provides ``world_points(q)`` (sphere centres, (k, d)), ``radius``
    and ``point_jacobian(q, p)`` ((k, d) → (k, d, n)), as
    :class:`PlanarRigidBody` does. For sphere i with centre c_i,

        φ_i = n·c_i − offset − r,   p_i = c_i − r n,   J_i = [n; t] ∂p_i/∂q.

    >>> ball = PlanarRigidBody.disk(m=1.0, r=0.1)
    >>> kin = PlaneContact(ball).kinematics([0.0, 0.08, 0.0])
    >>> np.round(kin.phi, 12), kin.J[0]
    (array([-0.02]), array([[0. , 1. , 0. ],
           [1. , 0. , 0.1]]))

    Introduced in: chapter 5.
    """

    body: object
    normal: tuple = (0.0, 1.0)
    offset: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "normal", tuple(_normal(self.normal)))
        checks.finite("offset", self.offset)
        object.__setattr__(self, "_frame", contact_frame(self.normal))

    def kinematics(self, q):
        n, r = self._frame[0], self.body.radius
        centres = self.body.world_points(q)
        phi = centres @ n - self.offset - r          # signed_distance, without re-checking the plane
        points = centres - r * n
        J = self._frame @ self.body.point_jacobian(q, points)
        return ContactKinematics(phi, points, J)


def polygon_signed_distance(A, B):
    """Signed distance φ between two convex polygons (vertices counter-clockwise), and the normal.

    Apart (φ > 0): the smallest vertex-to-edge distance, with n the unit
    vector from A's closest point to B's. Overlapping (φ < 0): minus the
    penetration depth, the smallest overlap of the two projections over the
    edge normals of both polygons (separating-axis theorem), with n that axis
    oriented from A toward B. Returns (φ, n (2,)). As notes 000 warn, this n
    can jump when the deepest point moves, and ties leave it ambiguous.

    >>> sq = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> phi, n = polygon_signed_distance(sq, sq + [0.9, 0.3])
    >>> round(phi, 12), n
    (-0.1, array([1., 0.]))
    >>> phi, n = polygon_signed_distance(sq, sq + [1.5, 0.0])
    >>> round(phi, 12), n
    (0.5, array([1., 0.]))

    Introduced in: chapter 5.
    """
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    for name, P in (("A", A), ("B", B)):
        if P.ndim != 2 or P.shape[1] != 2 or len(P) < 3:
            raise ValueError(f"{name} must be polygon vertices of shape (k >= 3, 2), got shape {P.shape}")
    axes = []
    for P in (A, B):
        edges = np.roll(P, -1, axis=0) - P
        normals = np.column_stack([edges[:, 1], -edges[:, 0]])   # outward for counter-clockwise vertices
        axes.extend(normals / np.linalg.norm(normals, axis=1, keepdims=True))
    best_overlap, best_axis = np.inf, None
    for a in axes:
        pa, pb = A @ a, B @ a
        overlap = min(pa.max() - pb.min(), pb.max() - pa.min())
        if overlap <= 0:
            break
        if overlap < best_overlap - 1e-12:
            best_overlap, best_axis = overlap, a if pa.mean() <= pb.mean() else -a
    else:
        return float(-best_overlap), best_axis + 0.0
    # apart: the closest pair is a vertex of one polygon and an edge of the other
    best, n = np.inf, None
    for P, Q, sign in ((A, B, 1.0), (B, A, -1.0)):
        for v in P:
            for a, b in zip(Q, np.roll(Q, -1, axis=0)):
                s = np.clip((v - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
                d = (a + s * (b - a)) - v        # from the vertex of P to the edge of Q
                dist = np.linalg.norm(d)
                if dist < best:
                    best, n = dist, sign * d / dist
    return float(best), n + 0.0


def box_vertices(center, angle, width, height):
    """Vertices (counter-clockwise, shape (4, 2)) of a box centred at ``center`` and turned by ``angle``.

    >>> box_vertices([0.0, 0.0], 0.0, 2.0, 1.0)
    array([[-1. , -0.5],
           [ 1. , -0.5],
           [ 1. ,  0.5],
           [-1. ,  0.5]])

    Introduced in: chapter 5.
    """
    w, h = checks.positive("width", width), checks.positive("height", height)
    c, s = np.cos(angle), np.sin(angle)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return checks.vector("center", center, 2) + local @ np.array([[c, s], [-s, c]])


# --- normal-force laws ---------------------------------------------------------------
def linear_normal_force(phi, phidot, k, b=0.0):
    """Piecewise-linear spring-damper: f_n = max(0, −k φ − b φ̇) in penetration (φ < 0), else 0.

    The clip at zero keeps the damper from pulling the bodies together as they
    separate. Vectorized over φ and φ̇ (same shapes, or broadcastable).

    >>> linear_normal_force([0.01, -0.01, -0.01], [0.0, 0.0, 2.0], k=1000.0, b=10.0)
    array([ 0., 10.,  0.])

    Introduced in: chapter 5.
    """
    k, b = checks.nonnegative("k", k), checks.nonnegative("b", b)
    phi, phidot = np.asarray(phi, dtype=float), np.asarray(phidot, dtype=float)
    return np.where(phi < 0, np.maximum(0.0, -k * phi - b * phidot), 0.0)


def hunt_crossley_normal_force(phi, phidot, k, d=0.0, p=1.0):
    """Hunt–Crossley contact force: with penetration x = max(0, −φ) and ẋ = −φ̇,

        f_n = max(0, k x^p (1 + d ẋ)).

    The damping grows with the penetration, so the force starts and ends at
    zero without a jump. p = 1 is the linear spring used in robotics
    simulators, p = 3/2 the Hertz law for spheres; d (s/m) sets the loss of energy.

    >>> hunt_crossley_normal_force([-0.01, -0.01], [-1.0, 1.0], k=1000.0, d=0.5)
    array([15.,  5.])

    Introduced in: chapter 5.
    """
    k, d, p = checks.nonnegative("k", k), checks.nonnegative("d", d), checks.positive("p", p)
    x = np.maximum(0.0, -np.asarray(phi, dtype=float))
    xdot = -np.asarray(phidot, dtype=float)
    return np.maximum(0.0, k * x**p * (1.0 + d * xdot))


# --- friction laws (friction coefficient as a function of the sliding velocity) --------------------
def _friction_params(mu_s, mu_d, v_s=None):
    mu_s, mu_d = checks.nonnegative("mu_s", mu_s), checks.nonnegative("mu_d", mu_d)
    return (mu_s, mu_d) if v_s is None else (mu_s, mu_d, checks.positive("v_s", v_s))


def coulomb_friction(v_t, f_n, mu_s, mu_d, f_stick=0.0):
    """Coulomb friction with static and dynamic coefficients (notes 000), vectorized:

    * sliding (v_t ≠ 0): f_t = −μ_d f_n sign(v_t), a constant drag opposing the motion;
    * sticking (v_t = 0): friction supplies the force ``f_stick`` that keeps
      the contact at rest, as long as |f_stick| ≤ μ_s f_n; past that threshold
      the contact starts to slip and f_t = μ_d f_n sign(f_stick).

    >>> coulomb_friction([0.5, -0.5, 0.0, 0.0], 10.0, mu_s=0.6, mu_d=0.4, f_stick=[0.0, 0.0, 6.0, 6.5])
    array([-4.,  4.,  6.,  4.])

    Introduced in: chapter 5.
    """
    mu_s, mu_d = _friction_params(mu_s, mu_d)
    v_t = np.asarray(v_t, dtype=float)
    f_n = np.asarray(f_n, dtype=float)
    f_stick = np.asarray(f_stick, dtype=float)
    sliding = -mu_d * f_n * np.sign(v_t)
    sticking = np.where(np.abs(f_stick) <= mu_s * f_n, f_stick, mu_d * f_n * np.sign(f_stick))
    return np.where(v_t != 0, sliding, sticking)


def coulomb_curve(mu_s, mu_d, v_max=1.0):
    """The Coulomb law as a polyline (v, μ) for plotting, μ the friction force over f_n along −v̂.

    The vertical segment at v = 0 is the set [−μ_s, μ_s] friction can take while sticking.

    >>> v, mu = coulomb_curve(0.6, 0.4, v_max=1.0)
    >>> v, mu
    (array([-1., -0., -0.,  0.,  0.,  1.]), array([-0.4, -0.4, -0.6,  0.6,  0.4,  0.4]))

    Introduced in: chapter 5.
    """
    mu_s, mu_d = _friction_params(mu_s, mu_d)
    v_max = checks.positive("v_max", v_max)
    return (np.array([-v_max, -0.0, -0.0, 0.0, 0.0, v_max]),
            np.array([-mu_d, -mu_d, -mu_s, mu_s, mu_d, mu_d]))


def _rise_and_fall(v_t, mu_s, mu_d, v_s, step):
    """μ(v_t) rising from 0 to μ_s at v_s, falling to μ_d at 3 v_s, joined by ``step`` from 0 to 1 on [0, 1]."""
    mu_s, mu_d, v_s = _friction_params(mu_s, mu_d, v_s)
    v_t = np.asarray(v_t, dtype=float)
    s = np.abs(v_t) / v_s
    mu = np.where(s <= 1, mu_s * step(np.minimum(s, 1.0)),
                  np.where(s <= 3, mu_s - (mu_s - mu_d) * step(np.clip((s - 1) / 2, 0.0, 1.0)), mu_d))
    return np.sign(v_t) * mu


def _smoothstep(x):
    """The quintic step S(x) = 10x³ − 15x⁴ + 6x⁵ on [0, 1]: from 0 to 1, with S' = S'' = 0 at both ends."""
    x = np.clip(x, 0.0, 1.0)
    return x**3 * (10 - 15 * x + 6 * x**2)


def piecewise_linear_mu(v_t, mu_s, mu_d, v_s):
    """A continuous, piecewise-linear approximation of Coulomb friction (the notes' green curve).

    With s = |v_t| / v_s (v_s the "stiction" speed):

        μ = μ_s s                       for s ≤ 1,
        μ = μ_s − (μ_s − μ_d)(s − 1)/2  for 1 ≤ s ≤ 3,
        μ = μ_d                         for s ≥ 3,

    signed like v_t; the friction force is f_t = −μ(v_t) f_n.

    >>> piecewise_linear_mu([0.0, 0.5, 1.0, 2.0, 3.0, -10.0], mu_s=0.6, mu_d=0.4, v_s=1.0)
    array([ 0. ,  0.3,  0.6,  0.5,  0.4, -0.4])

    Introduced in: chapter 5.
    """
    return _rise_and_fall(v_t, mu_s, mu_d, v_s, lambda x: x)


def stribeck_mu(v_t, mu_s, mu_d, v_s):
    """A smooth (Stribeck-like) approximation of Coulomb friction (the notes' blue curve).

    Same breakpoints as :func:`piecewise_linear_mu`, joined by the quintic
    step S(x) = 10x³ − 15x⁴ + 6x⁵ instead of straight lines, so μ is twice
    continuously differentiable away from v_t = 0. With s = |v_t| / v_s:

        μ = μ_s S(s)                          for s ≤ 1,
        μ = μ_s − (μ_s − μ_d) S((s − 1)/2)    for 1 ≤ s ≤ 3,
        μ = μ_d                               for s ≥ 3,

    rising to the static peak μ_s at v_s and falling to μ_d: the Stribeck effect.

    >>> stribeck_mu([0.0, 0.5, 1.0, 2.0, 3.0, -10.0], mu_s=0.6, mu_d=0.4, v_s=1.0)
    array([ 0. ,  0.3,  0.6,  0.5,  0.4, -0.4])

    Introduced in: chapter 5.
    """
    return _rise_and_fall(v_t, mu_s, mu_d, v_s, _smoothstep)


# --- a compliant contact model and a system that carries it ----------------------------------
@dataclass(frozen=True)
class CompliantContact(checks.Checked):
    """Parameters of a compliant contact: normal law, stiffness, damping, friction.

    ``model`` "linear" uses :func:`linear_normal_force` (k in N/m, b in N·s/m);
    "hunt-crossley" uses :func:`hunt_crossley_normal_force` (k in N/m^p, d in
    s/m, exponent p). Friction uses ``friction`` "stribeck" (:func:`stribeck_mu`)
    or "piecewise" (:func:`piecewise_linear_mu`) with μ_s, μ_d (default μ_s)
    and the stiction speed v_s.

    >>> CompliantContact(k=1e4, b=10.0, mu_s=0.5).forces([-0.001], [0.0], [1.0])
    (array([10.]), array([-5.]))

    Introduced in: chapter 5.
    """

    k: checks.Nonnegative = 1e4
    b: checks.Nonnegative = 0.0
    model: str = "linear"
    d: checks.Nonnegative = 0.0
    p: checks.Positive = 1.0
    mu_s: checks.Nonnegative = 0.0
    mu_d: checks.Nonnegative = None
    v_s: checks.Positive = 1e-3
    friction: str = "stribeck"

    def __post_init__(self):
        if self.mu_d is None:
            object.__setattr__(self, "mu_d", float(self.mu_s))
        super().__post_init__()
        if self.model not in ("linear", "hunt-crossley"):
            raise ValueError(f"model must be 'linear' or 'hunt-crossley', got {self.model!r}")
        if self.friction not in ("stribeck", "piecewise"):
            raise ValueError(f"friction must be 'stribeck' or 'piecewise', got {self.friction!r}")

    def normal_force(self, phi, phidot):
        if self.model == "linear":
            return linear_normal_force(phi, phidot, self.k, self.b)
        return hunt_crossley_normal_force(phi, phidot, self.k, self.d, self.p)

    def mu(self, speed):
        law = stribeck_mu if self.friction == "stribeck" else piecewise_linear_mu
        return law(speed, self.mu_s, self.mu_d, self.v_s)

    def forces(self, phi, phidot, v_t):
        """Normal forces f_n (k,) and friction forces f_t = −μ(|v_t|) f_n v_t/|v_t| ((k,) or (k, 2))."""
        f_n = self.normal_force(phi, phidot)
        v_t = np.asarray(v_t, dtype=float)
        if v_t.ndim == np.ndim(f_n):                 # planar: one tangent, signed speed
            return f_n, -self.mu(v_t) * f_n
        speed = np.linalg.norm(v_t, axis=-1)
        direction = np.divide(v_t, speed[..., None], out=np.zeros_like(v_t), where=speed[..., None] > 0)
        return f_n, -(self.mu(speed) * f_n)[..., None] * direction


class CompliantSystem(ManipulatorSystem):
    """A system of the common protocol with compliant contact forces added to tau_ext:

        M v̇ + C v = tau_g + B u + tau_ext + Σ_i J_iᵀ λ_i,   λ_i = [f_n, f_t](φ_i, J_i v).

    ``contacts`` gives the geometry (a :class:`PlaneContact`, or anything with
    ``kinematics(q)`` returning a :class:`ContactKinematics`), ``model`` the
    :class:`CompliantContact` forces. Everything else is the wrapped system's.

    >>> ball = PlanarRigidBody.disk(m=1.0, r=0.1)
    >>> sys = CompliantSystem(ball, PlaneContact(ball), CompliantContact(k=1e4))
    >>> sys.forward_dynamics([0.0, 0.1 - 9.81e-4, 0.0], [0.0, 0.0, 0.0]).round(9) + 0.0
    array([0., 0., 0.])

    Introduced in: chapter 5.
    """

    def __init__(self, system, contacts, model):
        if not isinstance(model, CompliantContact):
            raise ValueError(f"model must be a CompliantContact, got {type(model).__name__}")
        self.system, self.contacts, self.model = system, contacts, model
        self.n = system.n

    def mass_matrix(self, q):
        return self.system.mass_matrix(q)

    def coriolis_matrix(self, q, v):
        return self.system.coriolis_matrix(q, v)

    def gravity_vector(self, q):
        return self.system.gravity_vector(q)

    def input_matrix(self):
        return self.system.input_matrix()

    def kinetic_energy(self, q, v):
        return self.system.kinetic_energy(q, v)

    def potential_energy(self, q):
        return self.system.potential_energy(q)

    def _forces(self, kin, v):
        rel = kin.J @ v                                     # contact-frame velocities J v, (k, d)
        f_n, f_t = self.model.forces(kin.phi, rel[:, 0], rel[:, 1] if rel.shape[1] == 2 else rel[:, 1:])
        return np.column_stack([f_n, f_t])

    def contact_forces(self, q, v):
        """φ (k,) and the contact forces λ (k, d) = [f_n, f_t…] at the state (q, v)."""
        q, v = self.check_state(q, v)
        kin = self.contacts.kinematics(q)
        return kin.phi, self._forces(kin, v)

    def external_force(self, q, v):
        q, v = self.check_state(q, v)
        kin = self.contacts.kinematics(q)
        lam = self._forces(kin, v)
        return self.system.external_force(q, v) + np.einsum("kdn,kd->n", kin.J, lam)


# --- stiffness: closed forms and integrator work -----------------------------------------
def steady_penetration(m, k, g=9.81, p=1.0):
    """Penetration at rest under a weight m g on a spring law k x^p: x = (m g / k)^(1/p).

    >>> round(steady_penetration(m=180.0, k=1e6), 7)
    0.0017658

    Introduced in: chapter 5.
    """
    m, k, p = checks.positive("m", m), checks.positive("k", k), checks.positive("p", p)
    return (m * checks.positive("g", g) / k) ** (1.0 / p)


def required_stiffness(m, depth, g=9.81, p=1.0):
    """Stiffness that holds a weight m g with penetration ``depth`` at rest: k = m g / depth^p.

    The 180 kg humanoid of notes 000, allowed 1 mm, needs k ≈ 1.77 × 10⁶ N/m:

    >>> round(required_stiffness(m=180.0, depth=1e-3))
    1765800

    Introduced in: chapter 5.
    """
    m, depth, p = checks.positive("m", m), checks.positive("depth", depth), checks.positive("p", p)
    return m * checks.positive("g", g) / depth**p


def max_penetration(m, k, v_in, g=9.81):
    """Deepest penetration of a mass landing at speed v_in on an undamped linear spring.

    Energy balance ½ m v_in² + m g x = ½ k x² gives x = (m g + √((m g)² + k m v_in²)) / k.

    >>> round(max_penetration(m=1.0, k=1e4, v_in=1.0, g=0.0), 6)
    0.01

    Introduced in: chapter 5.
    """
    m, k = checks.positive("m", m), checks.positive("k", k)
    v_in, g = checks.finite("v_in", v_in), checks.nonnegative("g", g)
    return float((m * g + np.sqrt((m * g) ** 2 + k * m * v_in**2)) / k)


def contact_frequency(m, k):
    """Natural frequency ω = √(k/m) (rad/s) of a mass m on the contact spring k.

    >>> contact_frequency(m=1.0, k=1e6)
    1000.0

    Introduced in: chapter 5.
    """
    return float(np.sqrt(checks.positive("k", k) / checks.positive("m", m)))


def explicit_step_limit(m, k, method="rk4"):
    """Largest fixed step an explicit method can take on the undamped contact spring (ω = √(k/m)).

    "symplectic_euler": h < 2/ω; "rk4": h < 2√2/ω (where RK4's stability
    region crosses the imaginary axis). Forward Euler has no such step: it
    amplifies an undamped oscillation for every h > 0. The stiffer the
    contact, the smaller the step, which is the point of notes 000.

    >>> round(explicit_step_limit(m=1.0, k=1e6, method="symplectic_euler"), 6)
    0.002

    Introduced in: chapter 5.
    """
    omega = contact_frequency(m, k)
    if method == "symplectic_euler":
        return 2.0 / omega
    if method == "rk4":
        return 2.0 * np.sqrt(2.0) / omega
    raise ValueError(f"method must be 'symplectic_euler' or 'rk4', got {method!r}")


@dataclass(frozen=True)
class IvpTrajectory(Trajectory):
    """A :class:`lib.system.Trajectory` and its cost: right-hand-side evaluations (nfev), Jacobians (njev),
    LU factorizations (nlu), accepted steps and the method.

    >>> run = simulate_ivp(PlanarRigidBody.disk(), [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], t_final=0.1, method="Radau",
    ...                    num=3)
    >>> run.method, run.q.shape, run.nlu > 0
    ('Radau', (3, 3), True)
    """

    nfev: int
    njev: int
    nlu: int
    steps: int
    method: str


def simulate_ivp(system, q0, v0, *, t_final, u=None, method="RK45", rtol=1e-6, atol=1e-9, num=500,
                 max_step=np.inf, first_step=None):
    """Integrate a system with any of scipy's solvers and report the work done.

    Explicit methods ("RK45", "DOP853") against stiff ones ("Radau", "BDF",
    "LSODA"): with a stiff contact spring the explicit ones must keep the step
    near the stability limit 1/ω, the implicit ones need not. The
    trajectory is sampled at ``num`` times from the dense output. The
    equations are the system's own, q̇ = ``system.qdot(q, v)`` (not v for a
    body whose q holds a quaternion, whose q is ``system.project`` -ed back to
    unit length) and v̇ = ``system.forward_dynamics``,
    as in :meth:`lib.system.ManipulatorSystem.simulate`, which fixes the
    method (DOP853) and does not count the work.

    >>> ball = PlanarRigidBody.disk(m=1.0, r=0.1)
    >>> run = simulate_ivp(ball, [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], t_final=0.1, num=3)
    >>> run.q[-1].round(6), run.nfev > 0
    (array([0.     , 0.95095, 0.     ]), True)

    Introduced in: chapter 5.
    """
    q0, v0 = system.check_state(q0, v0)
    t_final = checks.positive("t_final", t_final)
    policy = system.input_policy(u)
    nq = q0.size

    def rhs(t, x):
        q, v = system.project(x[:nq]), x[nq:]
        return np.concatenate([system.qdot(q, v), system.forward_dynamics(q, v, policy(t, q, v))])

    options = {} if first_step is None else {"first_step": first_step}
    sol = solve_ivp(rhs, (0.0, t_final), np.concatenate([q0, v0]), method=method, rtol=rtol, atol=atol,
                    max_step=max_step, dense_output=True, **options)
    if not sol.success:
        raise RuntimeError(f"integration failed: {sol.message}")
    t = np.linspace(0.0, t_final, int(num))
    x = sol.sol(t)
    return IvpTrajectory(t, system.project(x[:nq].T), x[nq:].T, int(sol.nfev), int(sol.njev), int(sol.nlu), len(sol.t) - 1, method)
