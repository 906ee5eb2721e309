"""Recursive dynamics of a 3D serial chain of revolute joints: Newton–Euler (RNEA), composite-rigid-body (CRBA), articulated-body (ABA).

The chain: link i turns about the z axis of its joint frame i, whose pose in
the frame of link i−1 is a fixed offset ``offsets[i]`` and fixed rotation
``rotations[i]`` followed by the joint rotation Rz(q_i). Link i has mass
m_i, its CoM at ``coms[i]`` and inertia ⁱI_ci about the CoM, both in frame i.
In world coordinates the inertia is ⁰I_ci = R_i ⁱI_ci R_iᵀ (chapter 2), which
is how q enters M.

RNEA (Luh, Walker and Paul; Featherstone 2008, ch. 5) computes inverse
dynamics τ = M(q) q̈ + C(q, q̇) q̇ − tau_g(q) in two O(n) passes, all vectors in
world coordinates, gravity as an upward acceleration of the base:

    outward:  ω_i = ω_{i−1} + z_i q̇_i,   ω̇_i = ω̇_{i−1} + z_i q̈_i + ω_{i−1} × z_i q̇_i,
              a_i = a_{i−1} + ω̇_{i−1} × r_i + ω_{i−1} × (ω_{i−1} × r_i)      (r_i = p_i − p_{i−1}),
              a_ci = a_i + ω̇_i × c_i + ω_i × (ω_i × c_i)                    (c_i = CoM − p_i)
    inward:   f_i = m_i a_ci + f_{i+1},
              n_i = ⁰I_ci ω̇_i + ω_i × ⁰I_ci ω_i + c_i × m_i a_ci + n_{i+1} + r_{i+1} × f_{i+1},
              τ_i = z_iᵀ n_i

CRBA (Featherstone 2008, ch. 6) builds M(q): with the 6D spatial inertia of
link j about the world origin and the joint's motion vector s_i = (z_i, p_i ×
z_i), the composite inertia I^C_i = Σ_{j ≥ i} I_j of the links beyond joint i
gives m_ij = s_iᵀ I^C_max(i,j) s_j.

ABA (Featherstone 2008, ch. 7) computes forward dynamics q̈ in three O(n)
passes without forming M: the articulated inertia of the links beyond joint i
replaces the composite one (``aba``'s docstring).

Introduced in: chapter 3.
"""

from dataclasses import dataclass

import numpy as np

from . import checks
from .rigid_body import check_inertia, rotation, skew


@dataclass(frozen=True)
class SerialChain:
    """A serial chain of n revolute joints in 3D; arrays as described in the module docstring.

    ``offsets`` (n, 3), ``rotations`` (n, 3, 3), ``masses`` (n,), ``coms``
    (n, 3), ``inertias`` (n, 3, 3); ``gravity`` the world vector g (m/s²).

    >>> arm = SerialChain.planar([1.0, 0.5], [1.0, 0.7])
    >>> arm.n
    2
    """

    offsets: np.ndarray
    rotations: np.ndarray
    masses: np.ndarray
    coms: np.ndarray
    inertias: np.ndarray
    gravity: tuple = (0.0, 0.0, -9.81)

    def __post_init__(self):
        masses = np.atleast_1d(np.asarray(self.masses, dtype=float))
        n = masses.size
        shapes = {"offsets": (n, 3), "rotations": (n, 3, 3), "coms": (n, 3), "inertias": (n, 3, 3)}
        for name, shape in shapes.items():
            value = np.asarray(getattr(self, name), dtype=float)
            if value.shape != shape:
                raise ValueError(f"{name} must have shape {shape} for {n} links, got {value.shape}")
            object.__setattr__(self, name, value)
        if n == 0 or np.any(~np.isfinite(masses)) or np.any(masses <= 0):
            raise ValueError(f"masses must be numbers > 0, got {masses}")
        for i in range(n):
            check_inertia(f"inertias[{i}]", self.inertias[i])
        object.__setattr__(self, "masses", masses)
        object.__setattr__(self, "gravity", checks.vector("gravity", self.gravity, 3))

    @property
    def n(self):
        return self.masses.size

    @classmethod
    def planar(cls, m, l, lc=None, I=None, g=9.81):
        """The planar chain of :class:`lib.manipulators.PlanarChain` as a 3D chain: every joint about z, gravity along −y.

        Link i points along its x axis, the base frame is turned by −90° so that
        q = 0 hangs straight down, as in PlanarChain; the CoM is at lc_i on that
        axis, the inertia about z is I_i (a thin link in the plane, (0, I_i, I_i)).
        """
        m, l = np.asarray(m, dtype=float), np.asarray(l, dtype=float)
        lc = l if lc is None else np.asarray(lc, dtype=float)
        I = np.zeros_like(m) if I is None else np.asarray(I, dtype=float)
        n = m.size
        offsets = np.array([[0.0, 0.0, 0.0]] + [[l[i - 1], 0.0, 0.0] for i in range(1, n)])
        inertias = np.array([np.diag([0.0, Ii, Ii]) for Ii in I])
        rotations = np.array([rotation([0.0, 0.0, 1.0], -np.pi / 2)] + [np.eye(3)] * (n - 1))
        return cls(offsets, rotations, m, np.c_[lc, np.zeros((n, 2))], inertias,
                   gravity=(0.0, -g, 0.0))

    def check_state(self, q, v):
        return checks.vector("q", q, self.n), checks.vector("v", v, self.n)

    def frames(self, q):
        """World rotations R_i (n, 3, 3) and joint origins p_i (n, 3) of the links at q.

        >>> R, p = SerialChain.planar([1.0, 1.0], [1.0, 1.0]).frames([0.0, 0.0])
        >>> p.round(12) + 0.0     # hanging down: the elbow 1 m below the shoulder
        array([[ 0.,  0.,  0.],
               [ 0., -1.,  0.]])
        """
        q = checks.vector("q", q, self.n)
        R, p = np.empty((self.n, 3, 3)), np.empty((self.n, 3))
        R_prev, p_prev = np.eye(3), np.zeros(3)
        for i in range(self.n):
            p[i] = p_prev + R_prev @ self.offsets[i]
            R[i] = R_prev @ self.rotations[i] @ rotation([0.0, 0.0, 1.0], q[i])
            R_prev, p_prev = R[i], p[i]
        return R, p

    def com_positions(self, q):
        """World positions of the link CoMs, shape (n, 3)."""
        R, p = self.frames(q)
        return p + np.einsum("nij,nj->ni", R, self.coms)

    def world_inertias(self, q):
        """⁰I_ci = R_i ⁱI_ci R_iᵀ, shape (n, 3, 3): where q enters M."""
        R, _ = self.frames(q)
        return np.einsum("nij,njk,nlk->nil", R, self.inertias, R)

    def rnea(self, q, v, vdot, gravity=True):
        """Inverse dynamics τ = M v̇ + C v − tau_g by recursive Newton–Euler, shape (n,): two O(n) passes.

        >>> arm = SerialChain.planar([1.0], [1.0])
        >>> arm.rnea([np.pi / 2], [0.0], [0.0]).round(6)     # holding a horizontal 1 kg point mass at 1 m
        array([9.81])
        """
        q, v = self.check_state(q, v)
        vdot = checks.vector("vdot", vdot, self.n)
        R, p = self.frames(q)
        z = R[:, :, 2]
        c = np.einsum("nij,nj->ni", R, self.coms)
        I_w = np.einsum("nij,njk,nlk->nil", R, self.inertias, R)
        w, wd = np.zeros(3), np.zeros(3)
        a = -self.gravity if gravity else np.zeros(3)
        p_prev = np.zeros(3)
        W, WD, AC = np.empty((self.n, 3)), np.empty((self.n, 3)), np.empty((self.n, 3))
        for i in range(self.n):                                   # outward: base to tip
            r = p[i] - p_prev
            a = a + np.cross(wd, r) + np.cross(w, np.cross(w, r))
            wd = wd + z[i] * vdot[i] + np.cross(w, z[i] * v[i])
            w = w + z[i] * v[i]
            W[i], WD[i] = w, wd
            AC[i] = a + np.cross(wd, c[i]) + np.cross(w, np.cross(w, c[i]))
            p_prev = p[i]
        tau = np.empty(self.n)
        f, nm = np.zeros(3), np.zeros(3)
        for i in reversed(range(self.n)):                         # inward: tip to base
            r_next = (p[i + 1] - p[i]) if i + 1 < self.n else np.zeros(3)
            f_i = self.masses[i] * AC[i] + f
            nm = (I_w[i] @ WD[i] + np.cross(W[i], I_w[i] @ W[i]) + np.cross(c[i], self.masses[i] * AC[i])
                  + nm + np.cross(r_next, f))
            f = f_i
            tau[i] = z[i] @ nm
        return tau

    def spatial_inertias(self, q):
        """The 6×6 spatial inertias of the links about the world origin, (angular, linear) order, shape (n, 6, 6).

            I_j = [[⁰I_cj + m_j S(c_j) S(c_j)ᵀ, m_j S(c_j)], [m_j S(c_j)ᵀ, m_j 1]],   c_j the CoM in world coordinates

        >>> SerialChain.planar([2.0], [1.0]).spatial_inertias([0.0])[0][3:, 3:]    # the mass block
        array([[2., 0., 0.],
               [0., 2., 0.],
               [0., 0., 2.]])
        """
        R, p = self.frames(q)
        spatial = np.empty((self.n, 6, 6))
        for j in range(self.n):
            m, C = self.masses[j], skew(p[j] + R[j] @ self.coms[j])
            spatial[j] = np.block([[R[j] @ self.inertias[j] @ R[j].T + m * C @ C.T, m * C],
                                   [m * C.T, m * np.eye(3)]])
        return spatial

    def motion_vectors(self, q):
        """The joints' motion vectors s_i = (z_i, p_i × z_i) in world coordinates, shape (n, 6)."""
        R, p = self.frames(q)
        z = R[:, :, 2]
        return np.hstack([z, np.cross(p, z)])

    def crba(self, q):
        """The mass matrix M(q) by the composite-rigid-body algorithm, shape (n, n).

        >>> SerialChain.planar([1.0, 1.0], [1.0, 1.0]).crba([0.0, 0.0])
        array([[5., 2.],
               [2., 1.]])
        """
        S = self.motion_vectors(q)
        composite = np.cumsum(self.spatial_inertias(q)[::-1], axis=0)[::-1]     # I^C_i = Σ_{j ≥ i} I_j
        M = np.empty((self.n, self.n))
        for i in range(self.n):
            for j in range(i, self.n):
                M[i, j] = M[j, i] = S[i] @ composite[j] @ S[j]
        return M

    def aba(self, q, v, tau=None, gravity=True):
        """Forward dynamics v̇ by Featherstone's articulated-body algorithm, shape (n,): three O(n) passes, no M.

        Spatial vectors in world coordinates about the origin, V ×_m and V ×_f the
        motion and force cross products:

            outward:  V_i = V_{i−1} + s_i q̇_i,   c_i = V_i ×_m s_i q̇_i,   I^A_i = I_i,   p^A_i = V_i ×_f I_i V_i
            inward:   U_i = I^A_i s_i,   D_i = s_iᵀ U_i,   u_i = τ_i − s_iᵀ p^A_i,
                      I^A_{i−1} += I^A_i − U_i U_iᵀ / D_i,   p^A_{i−1} += p^A_i + (I^A_i − U_i U_iᵀ / D_i) c_i + U_i u_i / D_i
            outward:  a_0 = (0, −g),   a'_i = a_{i−1} + c_i,   q̈_i = (u_i − U_iᵀ a'_i) / D_i,   a_i = a'_i + s_i q̈_i

        >>> SerialChain.planar([1.0], [1.0]).aba([np.pi / 2], [0.0]).round(6)     # a horizontal point mass falls
        array([-9.81])
        """
        q, v = self.check_state(q, v)
        tau = np.zeros(self.n) if tau is None else checks.vector("tau", tau, self.n)
        S, I = self.motion_vectors(q), self.spatial_inertias(q)

        def cross_motion(V):
            w, vo = skew(V[:3]), skew(V[3:])
            return np.block([[w, np.zeros((3, 3))], [vo, w]])

        IA, pA, c = I.copy(), np.empty((self.n, 6)), np.empty((self.n, 6))
        V = np.zeros(6)
        for i in range(self.n):                                   # outward: velocities and bias forces
            V = V + S[i] * v[i]
            c[i] = cross_motion(V) @ (S[i] * v[i])
            pA[i] = -cross_motion(V).T @ (I[i] @ V)
        U, D, u = np.empty((self.n, 6)), np.empty(self.n), np.empty(self.n)
        for i in reversed(range(self.n)):                         # inward: articulated inertias
            U[i] = IA[i] @ S[i]
            D[i] = S[i] @ U[i]
            u[i] = tau[i] - S[i] @ pA[i]
            if i > 0:
                Ia = IA[i] - np.outer(U[i], U[i]) / D[i]
                IA[i - 1] += Ia
                pA[i - 1] += pA[i] + Ia @ c[i] + U[i] * u[i] / D[i]
        a = np.r_[np.zeros(3), -self.gravity] if gravity else np.zeros(6)
        qdd = np.empty(self.n)
        for i in range(self.n):                                   # outward: accelerations
            a = a + c[i]
            qdd[i] = (u[i] - U[i] @ a) / D[i]
            a = a + S[i] * qdd[i]
        return qdd

    def forward_dynamics(self, q, v, tau=None):
        """v̇ = M⁻¹ (τ − RNEA(q, v, 0)): the bias from one RNEA pass, M from the CRBA."""
        q, v = self.check_state(q, v)
        tau = np.zeros(self.n) if tau is None else checks.vector("tau", tau, self.n)
        return np.linalg.solve(self.crba(q), tau - self.rnea(q, v, np.zeros(self.n)))

    def energy(self, q, v):
        """T + U from the links' own velocities (finite-free: ω_i and v_ci from the outward pass), joules."""
        q, v = self.check_state(q, v)
        R, p = self.frames(q)
        z = R[:, :, 2]
        com = p + np.einsum("nij,nj->ni", R, self.coms)
        I_w = self.world_inertias(q)
        T, w = 0.0, np.zeros(3)
        for i in range(self.n):
            w = w + z[i] * v[i]
            v_c = sum((np.cross(z[j] * v[j], com[i] - p[j]) for j in range(i + 1)), np.zeros(3))
            T += 0.5 * self.masses[i] * v_c @ v_c + 0.5 * w @ I_w[i] @ w
        return float(T - self.masses @ com @ self.gravity)
