"""A box on a table: one rigid body in 3D with contacts at its eight corners, time-stepped.

Chapter 7's many-contact example (notes 000, "Time-stepping LCP"). The box's
configuration is its centre and rotation matrix (p, R) and its velocity
ν = [v, ω], so it is not a protocol system (q̇ ≠ ν for a rotation);
:func:`simulate_box` builds M, the forces and the corner contacts at every
step, hands them to the contact step of :mod:`lib.timestepping` ("lcp",
"anitescu" or "todorov") and turns R by :func:`lib.rigid_body.rotation`.

Introduced in: chapter 7.
"""

from dataclasses import dataclass

import numpy as np

from . import checks
from .rigid_body import rotation, skew
from .timestepping import CONTACT_STEPS


@dataclass(frozen=True)
class Box(checks.Checked):
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

    m: checks.Positive = 1.0
    size: tuple = (0.4, 0.2, 0.1)
    g: checks.Finite = 9.81

    def __post_init__(self):
        super().__post_init__()
        size = checks.vector("size", self.size, 3)
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
        return checks.vector("p", p, 3) + self.body_corners @ np.asarray(R, dtype=float).T

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
        phi = checks.vector("p", p, 3)[2] + r[:, 2]
        frame = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        J = np.array([frame @ np.hstack([np.eye(3), -skew(ri)]) for ri in r])
        return phi, J


@dataclass(frozen=True)
class BoxTrajectory:
    """A box simulation: t (N + 1,), p (N + 1, 3), R (N + 1, 3, 3), v and omega (N + 1, 3), lam_n (N, 8).

    It does not extend :class:`lib.system.Trajectory`: the box's configuration
    is a position and a rotation matrix, not a vector q, and ω is not the rate
    of any coordinate, so p, R, v and ω are kept apart.

    >>> traj = simulate_box(Box(), [0, 0, 0.1], np.eye(3), [0, 0, 0], [0, 0, 0], h=0.01, steps=3)
    >>> traj.p.shape, traj.R.shape, traj.lam_n.shape
    ((4, 3), (4, 3, 3), (3, 8))
    """

    t: np.ndarray
    p: np.ndarray
    R: np.ndarray
    v: np.ndarray
    omega: np.ndarray
    lam_n: np.ndarray


def simulate_box(box, p0, R0, v0, omega0, *, h, steps, mu=0.5, method="lcp", margin=None, **options):
    """Drop, slide or tumble a box onto the ground with a contact step per time step.

    Each step takes the corners with φ ≤ ``margin`` (the "potential contact
    pairs" of Anitescu's φ ≤ ε; by default 0.1 × the box's smallest side, or
    twice the distance the fastest corner can travel in one step if that is
    more, so no corner passes through the ground unseen), builds
    M, tau and J, calls the contact step of ``method`` ("lcp",
    "anitescu" or "todorov", ``options`` passed on), and updates
    p' = p + h v', R' = exp(h [ω']×) R. Resting flat, the four bottom corners
    touch at once: the normal impulses are not unique, yet v' is.

    It takes the box, its pose (p0, R0) and its velocity (v0, omega0) where
    the other simulators take ``(system, q0, v0)``: a rotation matrix is not
    a vector of coordinates, and ν = [v, ω] is not the rate of one, so the box
    has no q0 to pass and is not a protocol system.

    >>> box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    >>> traj = simulate_box(box, [0, 0, 0.1], np.eye(3), [0, 0, 0], [0, 0, 0], h=0.01, steps=30)
    >>> round(float(traj.p[-1, 2]), 6), round(float(traj.lam_n[-1].sum()), 6)     # resting: Σλ = m g h
    (0.05, 0.0981)
    """
    if method not in CONTACT_STEPS:
        raise ValueError(f"method must be one of {sorted(CONTACT_STEPS)}, got {method!r}")
    h = checks.positive("h", h)
    steps = checks.count("steps", steps)
    if margin is not None:
        margin = checks.nonnegative("margin", margin)
    p = checks.vector("p0", p0, 3)
    R = np.asarray(R0, dtype=float)
    if R.shape != (3, 3) or not np.allclose(R @ R.T, np.eye(3), atol=1e-9):
        raise ValueError("R0 must be a 3×3 rotation matrix")
    v, omega = checks.vector("v0", v0, 3), checks.vector("omega0", omega0, 3)
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
            s = CONTACT_STEPS[method](box.mass_matrix(R), box.forces(R, omega), nu, h, phi[near], J[near], mu=mu,
                               **options)
            if not s.solved:
                raise RuntimeError(f"step {i} (t = {t[i]:.4g}): {method} solver failed: {s.reason}")
            nu = s.v_next
            lam_n[near] = s.lam[:, 0]
        else:
            nu = nu + h * np.linalg.solve(box.mass_matrix(R), box.forces(R, omega))
        v, omega = nu[:3], nu[3:]
        p = p + h * v
        R = rotation(h * omega) @ R
        P.append(p)
        Rs.append(R)
        V.append(v)
        W.append(omega)
        L.append(lam_n)
    return BoxTrajectory(t, np.array(P), np.array(Rs), np.array(V), np.array(W), np.array(L))
