"""Rigid bodies: inertia matrices, the parallel-axis theorem, König's theorem, the rolling race.

A rigid body of mass m moves with the velocity v_c of its centre of mass (CoM)
and the angular velocity ω. Every point r (measured from the CoM) moves with
v = v_c + S(ω) r, where S(·) is the skew-symmetric matrix of the cross
product. Its kinetic energy splits into a translational and a rotational part
(König's theorem, notes 003, "Kinetic energy of a rigid body"):

    T = ½ m v_cᵀ v_c + ½ ωᵀ I_c ω,    I_c = ∫ S(r)ᵀ S(r) dm.

The body inertia matrix I_c is symmetric and positive definite; this module
gives it for the homogeneous bodies of notes 003 (box, hollow cylinder) and
their relatives, moves it to another point (Steiner) or another frame
(I' = R I Rᵀ), and races four round bodies down an incline.

Frames: body axes along the axes of symmetry. The cylinders have their axis
of symmetry along x, as in the notes' table.

Introduced in: chapter 2.
"""

from dataclasses import dataclass

import numpy as np
import sympy as sp

from . import checks
from .system import ManipulatorSystem


# --- the cross product as a matrix ----------------------------------------
def skew(r):
    """The skew-symmetric matrix S(r) with S(r) b = r × b.

        S(r) = [[0, −r_z, r_y], [r_z, 0, −r_x], [−r_y, r_x, 0]],   S(r)ᵀ = −S(r)

    Numbers give a numpy array; sympy symbols give a sympy Matrix, so the same
    function serves the symbolic proofs of chapter 2.

    >>> skew([1.0, 2.0, 3.0]) @ np.array([0.0, 0.0, 1.0])   # r × e_z
    array([ 2., -1.,  0.])
    >>> x, y, z = sp.symbols("x y z")
    >>> skew([x, y, z])[0, 1]
    -z

    Introduced in: chapter 2.
    """
    if any(isinstance(c, sp.Basic) for c in np.ravel(np.asarray(r, dtype=object))):
        rx, ry, rz = [sp.sympify(c) for c in np.ravel(np.asarray(r, dtype=object))]
        return sp.Matrix([[0, -rz, ry], [rz, 0, -rx], [-ry, rx, 0]])
    rx, ry, rz = checks.vector("r", r, 3)
    return np.array([[0.0, -rz, ry], [rz, 0.0, -rx], [-ry, rx, 0.0]])


# --- checking an inertia matrix --------------------------------------------
def check_inertia(name, I, rtol=1e-9, positive_definite=False):
    """Return ``I`` as a (3, 3) array, or raise ``ValueError`` unless it is a physical inertia matrix.

    A body inertia matrix is symmetric and positive semidefinite, and its
    principal moments obey the triangle inequalities I_1 + I_2 ≥ I_3 (for
    every ordering; equality for a flat body), because I_1 + I_2 − I_3 = 2 ∫
    (distance to the plane of axes 1 and 2)² dm ≥ 0. Singular inertias are
    physical: a slender rod about its axis (0, I, I), a point mass at its CoM
    (0). ``positive_definite=True`` refuses them too, for a body whose inertia
    must be inverted (a free body's M). ``rtol`` is relative to the largest
    entry.

    >>> check_inertia("I_c", np.diag([1.0, 2.0, 2.5]))[2, 2]
    np.float64(2.5)
    >>> check_inertia("I_rod", np.diag([0.0, 1.0, 1.0]))[0, 0]    # a slender rod about its axis
    np.float64(0.0)
    >>> check_inertia("I_c", np.diag([1.0, -2.0, 2.5]))
    Traceback (most recent call last):
    ...
    ValueError: I_c must be positive semidefinite; its eigenvalues are [-2.   1.   2.5]

    Introduced in: chapter 2.
    """
    A = checks.square(name, checks.array(name, I, (3, 3)), symmetric=True, positive_definite=positive_definite,
                      rtol=rtol)
    A = 0.5 * (A + A.T)
    eig = np.linalg.eigvalsh(A)
    tol = rtol * max(float(np.abs(A).max()), np.finfo(float).tiny)
    if eig[0] < -tol:
        raise ValueError(f"{name} must be positive semidefinite; its eigenvalues are {eig}")
    if eig[0] + eig[1] < eig[2] - tol:
        raise ValueError(f"{name} is not the inertia of any body: its principal moments {eig} "
                         f"break the triangle inequality I1 + I2 >= I3")
    return A


# --- inertia of homogeneous bodies (notes 003, "Examples of body inertia matrices") ---
def box_inertia(m, a, b, c):
    """Inertia about the CoM of a homogeneous box with sides a (along x), b (along y), c (along z).

        I_c = diag(m (b² + c²)/12, m (a² + c²)/12, m (a² + b²)/12)     (notes 003)

    >>> box_inertia(12.0, 1.0, 2.0, 3.0)
    array([[13.,  0.,  0.],
           [ 0., 10.,  0.],
           [ 0.,  0.,  5.]])

    Introduced in: chapter 2.
    """
    m = checks.positive("m", m)
    a, b, c = (checks.positive(k, v) for k, v in (("a", a), ("b", b), ("c", c)))
    return np.diag([m * (b**2 + c**2) / 12, m * (a**2 + c**2) / 12, m * (a**2 + b**2) / 12])


def hollow_cylinder_inertia(m, a, b, h):
    """Inertia about the CoM of a homogeneous hollow cylinder: outer radius a, inner radius b, length h, axis x.

        I_xx = m (a² + b²)/2,   I_yy = I_zz = m (3 (a² + b²) + h²)/12     (notes 003)

    b = 0 is the solid cylinder; b = a is a thin tube (the "cylindrical ring").

    >>> hollow_cylinder_inertia(2.0, 0.2, 0.1, 1.0).diagonal().round(4)
    array([0.05  , 0.1917, 0.1917])

    Introduced in: chapter 2.
    """
    m = checks.positive("m", m)
    a = checks.positive("a", a)
    b = checks.nonnegative("b", b)
    h = checks.nonnegative("h", h)
    if b > a:
        raise ValueError(f"b (inner radius) must not exceed a (outer radius), got b={b}, a={a}")
    axial = m * (a**2 + b**2) / 2
    transverse = m * (3 * (a**2 + b**2) + h**2) / 12
    return np.diag([axial, transverse, transverse])


def solid_cylinder_inertia(m, r, h):
    """Inertia about the CoM of a homogeneous solid cylinder of radius r and length h, axis x.

        I_xx = m r²/2,   I_yy = I_zz = m (3 r² + h²)/12

    >>> solid_cylinder_inertia(2.0, 1.0, 0.0)[0, 0]
    np.float64(1.0)

    Introduced in: chapter 2.
    """
    return hollow_cylinder_inertia(m, checks.positive("r", r), 0.0, h)


def ring_inertia(m, r, h=0.0):
    """Inertia about the CoM of a thin cylindrical ring (tube) of radius r and length h, axis x.

        I_xx = m r²,   I_yy = I_zz = m (6 r² + h²)/12   (½ m r² for a flat hoop, h = 0)

    >>> ring_inertia(2.0, 1.0).diagonal()
    array([2., 1., 1.])

    Introduced in: chapter 2.
    """
    r = checks.positive("r", r)
    return hollow_cylinder_inertia(m, r, r, h)


def solid_sphere_inertia(m, r):
    """Inertia about the centre of a homogeneous solid sphere: I_c = (2/5) m r² E.

    >>> solid_sphere_inertia(5.0, 1.0)[1, 1]
    np.float64(2.0)

    Introduced in: chapter 2.
    """
    m, r = checks.positive("m", m), checks.positive("r", r)
    return 0.4 * m * r**2 * np.eye(3)


def spherical_shell_inertia(m, r):
    """Inertia about the centre of a thin spherical shell: I_c = (2/3) m r² E.

    >>> spherical_shell_inertia(3.0, 1.0)[2, 2]
    np.float64(2.0)

    Introduced in: chapter 2.
    """
    m, r = checks.positive("m", m), checks.positive("r", r)
    return 2.0 / 3.0 * m * r**2 * np.eye(3)


def inertia_of_points(masses, points):
    """Total mass, centre of mass and inertia about the CoM of a cloud of point masses.

        m = Σ m_k,   r_c = Σ m_k r_k / m,   I_c = Σ m_k S(r_k − r_c)ᵀ S(r_k − r_c)

    the discrete form of m = ∫ dm, r_c = (1/m) ∫ r dm and I_c = ∫ S(r)ᵀ S(r) dm
    (notes 003). Sampling a body finely approximates its inertia.

    ``masses`` has shape (N,), ``points`` shape (N, 3).

    >>> m, r_c, I_c = inertia_of_points([1.0, 1.0], [[-1.0, 0, 0], [1.0, 0, 0]])
    >>> m, r_c, I_c.diagonal()
    (2.0, array([0., 0., 0.]), array([0., 2., 2.]))

    Introduced in: chapter 2.
    """
    masses = np.asarray(masses, dtype=float)
    points = np.asarray(points, dtype=float)
    if masses.ndim != 1 or points.shape != (masses.size, 3):
        raise ValueError(f"points must have shape ({masses.size}, 3) to match masses, got shape {points.shape}")
    if masses.size == 0 or not np.all(np.isfinite(masses)) or np.any(masses <= 0):
        raise ValueError(f"masses must be finite numbers > 0, got {masses}")
    if not np.all(np.isfinite(points)):
        raise ValueError("points must contain only finite numbers")
    m = masses.sum()
    r_c = masses @ points / m
    d = points - r_c
    # Σ m_k S(d_k)ᵀ S(d_k) = Σ m_k (d_kᵀ d_k E − d_k d_kᵀ)
    I_c = np.sum(masses * np.sum(d * d, axis=1)) * np.eye(3) - (masses[:, None] * d).T @ d
    return float(m), r_c, I_c


# --- moving an inertia to another point or frame -----------------------------
def steiner(I_c, m, d):
    """The parallel-axis theorem for one axis: I' = I_c + m d².

    I_c is the moment about an axis through the CoM, d the distance of the
    parallel axis. Notes 003: I'_zz = I_zz + m (h/2)² for a cylinder turning
    about one end.

    >>> steiner(1.0, 2.0, 0.5)
    1.5

    Introduced in: chapter 2.
    """
    I_c = checks.positive("I_c", I_c)
    m = checks.positive("m", m)
    d = checks.finite("d", d)
    return I_c + m * d**2


def parallel_axis(I_c, m, r):
    """The parallel-axis theorem in matrix form: the inertia about a point displaced by r from the CoM.

        I = I_c + m (rᵀ r E − r rᵀ) = I_c + m S(r)ᵀ S(r)     (notes 003)

    >>> parallel_axis(np.eye(3), 2.0, [0.0, 0.0, 1.0]).diagonal()
    array([3., 3., 1.])

    Introduced in: chapter 2.
    """
    I_c = check_inertia("I_c", I_c)
    m = checks.positive("m", m)
    S = skew(checks.vector("r", r, 3))
    return I_c + m * S.T @ S


def check_rotation(name, R, atol=1e-9):
    """Return ``R`` as a (3, 3) array, or raise ``ValueError`` unless RᵀR = E and det R = +1.

    >>> check_rotation("R", np.eye(3)).shape
    (3, 3)

    Introduced in: chapter 2.
    """
    R = checks.array(name, R, (3, 3))
    if not np.allclose(R.T @ R, np.eye(3), atol=atol) or np.linalg.det(R) < 0:
        raise ValueError(f"{name} must be a rotation matrix (RᵀR = E, det R = +1); RᵀR = {(R.T @ R).round(6).tolist()}, "
                         f"det R = {np.linalg.det(R):.6g}")
    return R


def rotation(axis, angle=None):
    """The rotation matrix by ``angle`` (rad) about ``axis`` (Rodrigues' formula), the one rotation of lib.

        R = E + sin(a) S(k) + (1 − cos(a)) S(k)²,   k = axis / |axis|

    Without ``angle``, ``axis`` is a rotation vector w = a k (axis times
    angle) and R = exp(S(w)); the zero vector is no rotation.

    >>> rotation([0.0, 0.0, 1.0], np.pi / 2).round(12) @ np.array([1.0, 0.0, 0.0])
    array([0., 1., 0.])
    >>> bool(np.allclose(rotation([0.0, 0.0, np.pi / 2]), rotation([0.0, 0.0, 1.0], np.pi / 2)))
    True

    Introduced in: chapter 2.
    """
    k = checks.vector("axis", axis, 3)
    norm = np.linalg.norm(k)
    if angle is None:
        if norm == 0:
            return np.eye(3)
        angle = norm
    elif norm == 0:
        raise ValueError("axis must be a nonzero vector")
    angle = checks.finite("angle", angle)
    S = skew(k / norm)
    return np.eye(3) + np.sin(angle) * S + (1.0 - np.cos(angle)) * S @ S


def rotate_inertia(I, R):
    """Express an inertia matrix in another frame: ⁰I = ⁰R_i ⁱI ⁰R_iᵀ (notes 003).

    ``R`` maps coordinates in the body frame i to frame 0. The quadratic form
    ωᵀ I ω is the same in both frames.

    >>> R = rotation([0.0, 0.0, 1.0], np.pi / 2)
    >>> rotate_inertia(np.diag([1.0, 2.0, 3.0]), R).diagonal().round(12)
    array([2., 1., 3.])

    Introduced in: chapter 2.
    """
    I = check_inertia("I", I)
    R = check_rotation("R", R)
    return R @ I @ R.T


# --- kinetic energy ---------------------------------------------------------
def rotational_kinetic_energy(I, omega):
    """The rotational kinetic energy ½ ωᵀ I ω (joules).

    >>> rotational_kinetic_energy(np.diag([1.0, 2.0, 3.0]), [0.0, 0.0, 2.0])
    6.0

    Introduced in: chapter 2.
    """
    I = check_inertia("I", I)
    omega = checks.vector("omega", omega, 3)
    return float(0.5 * omega @ I @ omega)


def konig_kinetic_energy(m, I_c, v_c, omega):
    """Kinetic energy of a rigid body by König's theorem (notes 003).

        T = ½ m v_cᵀ v_c + ½ ωᵀ I_c ω

    v_c: velocity of the CoM; ω: angular velocity; I_c and ω in the same frame.

    >>> konig_kinetic_energy(2.0, np.eye(3), [1.0, 0.0, 0.0], [0.0, 0.0, 1.0])
    1.5

    Introduced in: chapter 2.
    """
    m = checks.positive("m", m)
    v_c = checks.vector("v_c", v_c, 3)
    return float(0.5 * m * v_c @ v_c) + rotational_kinetic_energy(I_c, omega)


def mass_matrix_from_jacobians(masses, inertias, J_L, J_A):
    """The robot inertia matrix from the partial Jacobians of its links (notes 003).

        M(q) = Σ_i m_i J_Liᵀ J_Li + J_Aiᵀ I_ci J_Ai,   T = ½ q̇ᵀ M(q) q̇

    with v_ci = J_Li q̇ the velocity of the CoM of link i and ω_i = J_Ai q̇ its
    angular velocity, each (3, n), and I_ci in the same frame as ω_i.
    ``masses``: N numbers; ``inertias``, ``J_L``, ``J_A``: lists of N arrays.

    >>> J_L = [np.array([[1.0], [0.0], [0.0]])]
    >>> J_A = [np.zeros((3, 1))]
    >>> mass_matrix_from_jacobians([2.0], [np.eye(3)], J_L, J_A)
    array([[2.]])

    Introduced in: chapter 2.
    """
    masses = list(masses)
    if not (len(masses) == len(inertias) == len(J_L) == len(J_A)) or not masses:
        raise ValueError(f"masses, inertias, J_L and J_A must have the same nonzero length, got "
                         f"{len(masses)}, {len(inertias)}, {len(J_L)}, {len(J_A)}")
    n = np.asarray(J_L[0]).shape[-1]
    M = np.zeros((n, n))
    for i, (m, I, JL, JA) in enumerate(zip(masses, inertias, J_L, J_A)):
        m = checks.positive(f"masses[{i}]", m)
        I = check_inertia(f"inertias[{i}]", I)
        JL, JA = np.asarray(JL, dtype=float), np.asarray(JA, dtype=float)
        if JL.shape != (3, n) or JA.shape != (3, n):
            raise ValueError(f"J_L[{i}] and J_A[{i}] must have shape (3, {n}), got {JL.shape} and {JA.shape}")
        M += m * JL.T @ JL + JA.T @ I @ JA
    return M


# --- potential energy from homogeneous transforms ---------------------------
def homogeneous(R, p):
    """The 4x4 homogeneous transform A = [[R, p], [0, 1]] (rotation R, translation p).

    >>> homogeneous(np.eye(3), [1.0, 2.0, 3.0]) @ np.array([0.0, 0.0, 0.0, 1.0])
    array([1., 2., 3., 1.])

    Introduced in: chapter 2.
    """
    A = np.eye(4)
    A[:3, :3] = check_rotation("R", R)
    A[:3, 3] = checks.vector("p", p, 3)
    return A


def potential_energy_from_transforms(masses, transforms, r_local, g=(0.0, 0.0, -9.81)):
    """Gravitational potential energy of a chain of links from homogeneous transforms (notes 003).

        U = Σ_i −m_i gᵀ r_0,ci,    (r_0,ci; 1) = ⁰A_1 ¹A_2 ⋯ ⁱ⁻¹A_i (r_i,ci; 1)

    ``transforms`` lists the N joint transforms ⁱ⁻¹A_i(q_i) (4x4) from the base
    out; ``r_local`` the CoM of each link in its own frame; ``g`` the gravity
    vector in frame 0.

    >>> A = [homogeneous(np.eye(3), [0.0, 0.0, 1.0])]
    >>> potential_energy_from_transforms([2.0], A, [[0.0, 0.0, 0.5]])
    29.43

    Introduced in: chapter 2.
    """
    masses = list(masses)
    if not (len(masses) == len(transforms) == len(r_local)) or not masses:
        raise ValueError(f"masses, transforms and r_local must have the same nonzero length, got "
                         f"{len(masses)}, {len(transforms)}, {len(r_local)}")
    g = checks.vector("g", g, 3)
    A = np.eye(4)
    U = 0.0
    for i, (m, Ai, ri) in enumerate(zip(masses, transforms, r_local)):
        m = checks.positive(f"masses[{i}]", m)
        Ai = np.asarray(Ai, dtype=float)
        if Ai.shape != (4, 4):
            raise ValueError(f"transforms[{i}] must have shape (4, 4), got {Ai.shape}")
        A = A @ Ai
        r0 = A @ np.append(checks.vector(f"r_local[{i}]", ri, 3), 1.0)
        U += -m * g @ r0[:3]
    return float(U)


# --- the rolling race (notes 003, "Rolling inertias") -----------------------
@dataclass(frozen=True)
class RollingBody(ManipulatorSystem):
    """A round body of mass m, radius r and inertia I about its rolling axis, rolling without slipping down an incline.

    q = [s], the distance travelled down the slope (angle γ). Rolling makes
    the spin rate ṡ/r, so T = ½ (m + I/r²) ṡ² and U = −m g s sin γ:

        (m + I/r²) s̈ = m g sin γ + u,   s̈ = g sin γ / (1 + I/(m r²))

    The input u is a force along the slope. Equivalently, the body turns about
    its contact point with inertia I + m r² (Steiner).

    >>> ball = RollingBody(m=1.0, r=0.1, I=0.4 * 1.0 * 0.1**2, gamma=np.pi / 6)
    >>> round(ball.acceleration(), 4)
    3.5036

    Introduced in: chapter 2.
    """

    n = 1

    m: checks.Positive = 1.0
    r: checks.Positive = 0.1
    I: checks.Positive = 0.005
    gamma: checks.Finite = np.pi / 6
    g: checks.Positive = 9.81

    def __post_init__(self):
        super().__post_init__()
        if not 0 < self.gamma < np.pi / 2:
            raise ValueError(f"gamma must be an angle in (0, pi/2) radians, got {self.gamma}")

    def inertia_ratio(self):
        """The shape factor k = I / (m r²): 2/5 sphere, 1/2 cylinder, 2/3 shell, 1 ring."""
        return float(self.I / (self.m * self.r**2))

    def acceleration(self):
        """s̈ = g sin γ / (1 + I/(m r²)), constant, m/s²."""
        return float(self.g * np.sin(self.gamma) / (1.0 + self.inertia_ratio()))

    def finish_time(self, length):
        """Time to roll ``length`` metres from rest: t = sqrt(2 length / s̈)."""
        return float(np.sqrt(2.0 * checks.positive("length", length) / self.acceleration()))

    def spin_angle(self, s):
        """Angle the body has turned after rolling a distance s: φ = s / r (rad)."""
        return np.asarray(s, dtype=float) / self.r

    def mass_matrix(self, q):
        checks.vector("q", q, 1)
        return np.array([[self.m + self.I / self.r**2]])

    def coriolis_matrix(self, q, v):
        self.check_state(q, v)
        return np.zeros((1, 1))

    def gravity_vector(self, q):
        checks.vector("q", q, 1)
        return np.array([self.m * self.g * np.sin(self.gamma)])

    def input_matrix(self):
        return np.eye(1)

    def potential_energy(self, q):
        q = checks.vector("q", q, 1)
        return float(-self.m * self.g * np.sin(self.gamma) * q[0])


RACE_SHAPES = {
    "solid sphere": lambda m, r: solid_sphere_inertia(m, r)[0, 0],
    "solid cylinder": lambda m, r: solid_cylinder_inertia(m, r, 2 * r)[0, 0],
    "spherical shell": lambda m, r: spherical_shell_inertia(m, r)[0, 0],
    "ring": lambda m, r: ring_inertia(m, r, 2 * r)[0, 0],
}
"""The four racers of notes 003; each maps (m, r) to the inertia about the rolling axis."""


def race_bodies(m=1.0, r=0.1, gamma=np.pi / 6, g=9.81):
    """The four racers of notes 003 with the same mass and radius, inertias from this module.

    Returns a dict name -> :class:`RollingBody` for the solid sphere, the solid
    cylinder, the spherical shell and the (cylindrical) ring.

    >>> {k: round(b.inertia_ratio(), 3) for k, b in race_bodies().items()}
    {'solid sphere': 0.4, 'solid cylinder': 0.5, 'spherical shell': 0.667, 'ring': 1.0}

    Introduced in: chapter 2.
    """
    return {name: RollingBody(m=m, r=r, I=float(inertia(m, r)), gamma=gamma, g=g)
            for name, inertia in RACE_SHAPES.items()}


def race_results(bodies, length):
    """Finishing order of a rolling race: a list of (name, time) pairs, fastest first.

    ``bodies`` maps names to :class:`RollingBody`; ``length`` is the length of
    the track (m). The order follows from the inertia ratios alone: the
    smaller I/(m r²), the larger the acceleration.

    >>> [name for name, t in race_results(race_bodies(), 1.0)]
    ['solid sphere', 'solid cylinder', 'spherical shell', 'ring']

    Introduced in: chapter 2.
    """
    length = checks.positive("length", length)
    if not bodies:
        raise ValueError("bodies must name at least one RollingBody")
    return sorted(((name, body.finish_time(length)) for name, body in bodies.items()), key=lambda x: x[1])
