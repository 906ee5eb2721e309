"""Parameter estimation: the dynamics are linear in lumped parameters, so least squares finds them.

Notes 002 ("Parameter Estimation") sketch the idea. Masses, lengths and
inertias enter the manipulator equations only through a few products, the
lumped parameters π, and they enter linearly:

    M(q) q̈ + C(q, q̇) q̇ − tau_g(q) = Y(q, q̇, q̈) π = τ.

Stacking the regressor Y and the measured torques τ of many samples gives an
overdetermined linear system solved by least squares. Only the combinations
of π that change Y π can be found (the identifiable part); the others lie in
the null space of the stacked regressor, which its SVD reveals. Richer
excitation makes the stacked regressor better conditioned and the estimate
less sensitive to noise. The energy (power) form needs no accelerations:

    ∫ q̇ᵀ τ dt = ΔE(π) + ∫ (dissipation) dt   (linear in π too).

Regressors return the rows of all samples stacked, sample after sample:
shape (N·n, p) for N samples of an n-joint system with p lumped parameters,
to be matched with ``tau.reshape(-1)``.

Introduced in: chapter 3.
"""

import functools
from dataclasses import dataclass

import numpy as np
import sympy as sp

from . import checks
from .lagrange import lagrange_equations
from .manipulators import chain_symbols


def _samples(n, **arrays):
    """Validate arrays of N samples of n joints; return them with shape (N, n)."""
    out, N = [], None
    for name, x in arrays.items():
        try:
            x = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be an array of numbers, got {x!r}") from None
        if n == 1 and x.ndim <= 1:
            x = x.reshape(-1, 1)
        elif x.ndim == 1:
            x = x.reshape(1, -1)
        if x.ndim != 2 or x.shape[1] != n:
            raise ValueError(f"{name} must have shape (N, {n}) (or ({n},) for one sample), got shape {x.shape}")
        if N is not None and x.shape[0] != N:
            raise ValueError(f"{name} must have as many samples as {next(iter(arrays))}: {N}, got {x.shape[0]}")
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name} must contain only finite numbers")
        N = x.shape[0]
        out.append(x)
    return out


# --- one pendulum -------------------------------------------------------------
def pendulum_regressor(q, v, vdot, g=9.81):
    """Regressor of a rigid pendulum with viscous friction, π = [I, m d, b].

        I θ̈ + m g d sin θ + b θ̇ = u   ⇒   Y = [θ̈, g sin θ, θ̇]

    I is the inertia about the pivot, d the distance of the CoM from it. For
    the point-mass pendulum (I = m l², d = l) π = [m l², m l, b]. The mass
    and d of a rigid pendulum are not separately identifiable: only m d is.
    Shape (N, 3).

    >>> pendulum_regressor([np.pi / 2], [1.0], [0.5], g=10.0)
    array([[ 0.5, 10. ,  1. ]])

    Introduced in: chapter 3.
    """
    q, v, vdot = _samples(1, q=q, v=v, vdot=vdot)
    g = checks.finite("g", g)
    return np.column_stack([vdot[:, 0], g * np.sin(q[:, 0]), v[:, 0]])


def pendulum_lumped(pendulum):
    """π = [I, m d, b] of a :class:`lib.pendulum.SimplePendulum` or a link-side :class:`lib.pendulum.ActuatedPendulum`.

    >>> from lib.pendulum import SimplePendulum
    >>> pendulum_lumped(SimplePendulum(m=2.0, l=0.5, b=0.1))
    array([0.5, 1. , 0.1])

    Introduced in: chapter 3.
    """
    if hasattr(pendulum, "I"):  # ActuatedPendulum on the link side, n_r = 1
        if pendulum.side != "link" or pendulum.n_r != 1.0 or pendulum.F_x != 0.0:
            raise ValueError("pendulum must be link-side with n_r = 1 and F_x = 0 to match the regressor")
        return np.array([pendulum.I, pendulum.m * pendulum.d, pendulum.b_l + pendulum.b_m])
    return np.array([pendulum.m * pendulum.l**2, pendulum.m * pendulum.l, pendulum.b])


def pendulum_energy_regressor(t, q, v, u, window=50, g=9.81):
    """The energy (power) form of pendulum identification: no accelerations needed.

    Over each window [t_a, t_b] of ``window`` samples, u θ̇ = d/dt(½ I θ̇² − m g d cos θ) + b θ̇²
    integrates to

        ∫ u θ̇ dt = I Δ(½ θ̇²) + m d Δ(−g cos θ) + b ∫ θ̇² dt,

    one row [Δ(½ θ̇²), −g Δ cos θ, ∫ θ̇² dt] of a regressor for π = [I, m d, b]
    with target ∫ u θ̇ dt (trapezoidal rule). Returns (Y, y).

    >>> t = np.linspace(0.0, 1.0, 101)   # θ̇ = t, so θ̈ = 1 and u = I = 2 (no gravity, no friction)
    >>> Y, y = pendulum_energy_regressor(t, t**2 / 2, t, 2.0 + 0.0 * t, window=100, g=0.0)
    >>> float(Y[0, 0]), float(y[0])   # Δ(½ θ̇²) = ½ and ∫ u θ̇ dt = 1
    (0.5, 1.0)

    Introduced in: chapter 3.
    """
    t = np.asarray(t, dtype=float)
    q, v, u = _samples(1, q=q, v=v, u=u)
    q, v, u = q[:, 0], v[:, 0], u[:, 0]
    if t.shape != q.shape or np.any(np.diff(t) <= 0):
        raise ValueError(f"t must be increasing with one time per sample ({q.size}), got shape {t.shape}")
    window = int(window)
    if not 1 <= window < t.size:
        raise ValueError(f"window must be between 1 and {t.size - 1} samples, got {window}")
    g = checks.finite("g", g)
    dt = np.diff(t)
    cumulative = lambda f: np.concatenate([[0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) * dt)])  # noqa: E731
    work, dissipation = cumulative(u * v), cumulative(v * v)
    a = np.arange(0, t.size - window, window)
    b = a + window
    Y = np.column_stack([0.5 * (v[b] ** 2 - v[a] ** 2), -g * (np.cos(q[b]) - np.cos(q[a])),
                         dissipation[b] - dissipation[a]])
    return Y, work[b] - work[a]


# --- the PR robot (notes 003) ------------------------------------------------------
def pr_robot_regressor(q, v, vdot, gravity=(0.0, 0.0)):
    """Regressor of the PR robot of notes 003, π = [m1 + m2, m2 d_c2, I_c2 + m2 d_c2²].

        τ1 = π1 (q̈1 − g_x) + π2 (−s2 q̈2 − c2 q̇2²)
        τ2 = π2 (−s2 q̈1 + s2 g_x − c2 g_y) + π3 q̈2

    m1 and m2 are never found separately, only their sum (and m2 d_c2).
    Shape (2N, 3).

    >>> pr_robot_regressor([0.0, 0.0], [0.0, 1.0], [1.0, 0.0])
    array([[ 1., -1.,  0.],
           [ 0.,  0.,  0.]])

    Introduced in: chapter 3.
    """
    q, v, vdot = _samples(2, q=q, v=v, vdot=vdot)
    gx, gy = checks.vector("gravity", gravity, 2)
    s2, c2 = np.sin(q[:, 1]), np.cos(q[:, 1])
    zero = np.zeros_like(s2)
    row1 = np.stack([vdot[:, 0] - gx, -s2 * vdot[:, 1] - c2 * v[:, 1] ** 2, zero], axis=1)
    row2 = np.stack([zero, -s2 * vdot[:, 0] + s2 * gx - c2 * gy, vdot[:, 1]], axis=1)
    return np.stack([row1, row2], axis=1).reshape(-1, 3)


def pr_robot_lumped(robot):
    """π = [m1 + m2, m2 d_c2, I_c2 + m2 d_c2²] of a :class:`lib.manipulators.PRRobot`.

    >>> from lib.manipulators import PRRobot
    >>> pr_robot_lumped(PRRobot(m1=2.0, m2=1.0, d_c2=0.5, I_c2=0.1))
    array([3.  , 0.5 , 0.35])

    Introduced in: chapter 3.
    """
    return np.array([robot.m1 + robot.m2, robot.m2 * robot.d_c2, robot.I_c2 + robot.m2 * robot.d_c2**2])


# --- the double pendulum (notes 000) ----------------------------------------------
def double_pendulum_regressor(q, v, vdot, g=9.81):
    """Regressor of the point-mass double pendulum of notes 000.

    π = [(m1+m2) l1², m2 l2², m2 l1 l2, (m1+m2) l1, m2 l2]; reading the two
    equations of motion of notes 000 term by term:

        τ1 = π1 q̈1 + π2 (q̈1+q̈2) + π3 ((2q̈1+q̈2) c2 − (2q̇1+q̇2) q̇2 s2) + π4 g s1 + π5 g s12
        τ2 =         π2 (q̈1+q̈2) + π3 (q̈1 c2 + q̇1² s2)                       + π5 g s12

    Shape (2N, 5).

    >>> double_pendulum_regressor([0.0, 0.0], [0.0, 0.0], [1.0, 0.0]).round(3)
    array([[1., 1., 2., 0., 0.],
           [0., 1., 1., 0., 0.]])

    Introduced in: chapter 3.
    """
    q, v, vdot = _samples(2, q=q, v=v, vdot=vdot)
    g = checks.finite("g", g)
    s1, s2, c2, s12 = np.sin(q[:, 0]), np.sin(q[:, 1]), np.cos(q[:, 1]), np.sin(q[:, 0] + q[:, 1])
    a1, a2, w1, w2 = vdot[:, 0], vdot[:, 1], v[:, 0], v[:, 1]
    zero = np.zeros_like(s1)
    row1 = np.stack([a1, a1 + a2, (2 * a1 + a2) * c2 - (2 * w1 + w2) * w2 * s2, g * s1, g * s12], axis=1)
    row2 = np.stack([zero, a1 + a2, a1 * c2 + w1**2 * s2, zero, g * s12], axis=1)
    return np.stack([row1, row2], axis=1).reshape(-1, 5)


def double_pendulum_lumped(dp):
    """π = [(m1+m2) l1², m2 l2², m2 l1 l2, (m1+m2) l1, m2 l2] of a :class:`lib.pendulum.DoublePendulum`.

    >>> from lib.pendulum import DoublePendulum
    >>> double_pendulum_lumped(DoublePendulum())
    array([2., 1., 1., 2., 1.])

    Introduced in: chapter 3.
    """
    m1, m2, l1, l2 = dp.m1, dp.m2, dp.l1, dp.l2
    return np.array([(m1 + m2) * l1**2, m2 * l2**2, m2 * l1 * l2, (m1 + m2) * l1, m2 * l2])


# --- planar chains: linear in the standard parameters of each link -----------------
@functools.lru_cache(maxsize=None)
def chain_regressor_form(n):
    """Symbolic regressor of an n-link planar chain in the standard parameters of its links.

    Per link, φ_i = [m_i, h_i = m_i lc_i, J_i = I_i + m_i lc_i²] (mass, first
    moment and inertia about the joint). With θ_a = q_1 + … + q_a the absolute
    angle and ω_a its rate, joint i moves with ȯ_i = Σ_{a<i} l_a ω_a (cos θ_a, sin θ_a),
    and (cos θ_a, sin θ_a)·(cos θ_b, sin θ_b) = cos(θ_a − θ_b), so

        T_i = ½ m_i |ȯ_i|² + h_i ȯ_i · ė_i + ½ J_i ω_i²,   U_i = g (m_i y_oi − h_i cos θ_i),
        |ȯ_i|² = Σ_{a,b<i} l_a l_b ω_a ω_b cos(θ_a − θ_b),   ȯ_i · ė_i = Σ_{a<i} l_a ω_a ω_i cos(θ_a − θ_i),

    linear in φ, so Lagrange's equations read Y(q, q̇, q̈) φ = τ with
    Y = ∂τ/∂φ. Returns (Y, phi_symbols, chain symbols); lengths l and g stay
    symbolic (they are known, not identified).

    >>> Y, phi, s = chain_regressor_form(1)
    >>> phi, Y
    ((m1, h1, J1), Matrix([[0, g*sin(q1), qdd1]]))

    Introduced in: chapter 3.
    """
    s = chain_symbols(n)
    m = sp.symbols(f"m1:{n + 1}")
    h = sp.symbols(f"h1:{n + 1}")
    J = sp.symbols(f"J1:{n + 1}")
    theta = [sum(s.q[:i + 1]) for i in range(n)]
    omega = [sum(s.qd[:i + 1]) for i in range(n)]
    T, U = 0, 0
    for i in range(n):
        o_dot_sq = sum(s.l[a] * s.l[b] * omega[a] * omega[b] * sp.cos(theta[a] - theta[b])
                       for a in range(i) for b in range(i))
        o_dot_e_dot = sum(s.l[a] * omega[a] * omega[i] * sp.cos(theta[a] - theta[i]) for a in range(i))
        y_o = -sum(s.l[a] * sp.cos(theta[a]) for a in range(i))
        T += m[i] * o_dot_sq / 2 + h[i] * o_dot_e_dot + J[i] * omega[i] ** 2 / 2
        U += s.g * (m[i] * y_o - h[i] * sp.cos(theta[i]))
    tau = lagrange_equations(T - U, s.q, s.qd, s.qdd)
    phi = tuple(x for i in range(n) for x in (m[i], h[i], J[i]))
    Y = sp.Matrix([[sp.diff(tau_k, p) for p in phi] for tau_k in tau])
    return Y, phi, s


@functools.lru_cache(maxsize=None)
def _compiled_chain_regressor(n):
    Y, phi, s = chain_regressor_form(n)
    return sp.lambdify([list(s.q), list(s.qd), list(s.qdd), list(s.l), s.g], Y, "numpy", cse=True)


def chain_regressor(q, v, vdot, l, g=9.81):
    """Numeric regressor of an n-link planar chain for the standard parameters, shape (N·n, 3n).

    See :func:`chain_regressor_form`; n = len(l).

    >>> chain_regressor([0.0], [0.0], [2.0], l=[1.0]).round(3)
    array([[0., 0., 2.]])

    Introduced in: chapter 3.
    """
    l = np.atleast_1d(np.asarray(l, dtype=float))
    n = l.size
    for i, li in enumerate(l):
        checks.positive(f"l[{i}]", li)
    q, v, vdot = _samples(n, q=q, v=v, vdot=vdot)
    g = checks.finite("g", g)
    f = _compiled_chain_regressor(n)
    rows = [np.array(f(list(qk), list(vk), list(ak), list(l), g), dtype=float) for qk, vk, ak in zip(q, v, vdot)]
    return np.concatenate(rows, axis=0)


def chain_standard_parameters(chain):
    """φ = [m_i, m_i lc_i, I_i + m_i lc_i²] for every link of a :class:`lib.manipulators.PlanarChain`, shape (3n,).

    >>> from lib.manipulators import PlanarChain
    >>> chain_standard_parameters(PlanarChain(m=[2.0], l=[1.0], lc=[0.5], I=[0.0]))
    array([2. , 1. , 0.5])

    Introduced in: chapter 3.
    """
    return np.column_stack([chain.m, chain.m * chain.lc, chain.I + chain.m * chain.lc**2]).reshape(-1)


# --- least squares and identifiability -------------------------------------------------
@dataclass(frozen=True)
class Identification:
    """Result of :func:`identify`: estimate ``pi``, rms residual, singular values, numerical rank, condition number.

    >>> Y = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> fit = identify(Y, Y @ [3.0, -1.0])
    >>> fit.rank, fit.residual < 1e-12, round(fit.condition, 6)
    (2, True, 1.767592)
    """

    pi: np.ndarray
    residual: float
    singular_values: np.ndarray
    rank: int
    condition: float


def identify(Y, tau, rtol=1e-9):
    """Least-squares estimate of the lumped parameters: π̂ = argmin |Y π − τ|².

    For a rank-deficient Y (unidentifiable combinations) the minimum-norm
    solution is returned; only its projection on the row space of Y (see
    :func:`identifiable_part`) means anything. ``rtol`` sets the numerical
    rank: singular values below rtol·σ_max count as zero. The condition
    number is σ_max/σ_min over the nonzero singular values.

    >>> Y = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> identify(Y, Y @ [3.0, -1.0]).pi.round(12)
    array([ 3., -1.])

    Introduced in: chapter 3.
    """
    Y, tau = _regression(Y, tau)
    sv = np.linalg.svd(Y, compute_uv=False)
    rank = int(np.sum(sv > rtol * sv[0])) if sv.size and sv[0] > 0 else 0
    pi, *_ = np.linalg.lstsq(Y, tau, rcond=rtol)
    residual = float(np.sqrt(np.mean((Y @ pi - tau) ** 2)))
    condition = float(sv[0] / sv[rank - 1]) if rank else np.inf
    return Identification(pi, residual, sv, rank, condition)


def _regression(Y, tau):
    try:
        Y = np.asarray(Y, dtype=float)
        tau = np.asarray(tau, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError("Y and tau must be arrays of numbers") from None
    if Y.ndim != 2 or Y.shape[0] != tau.size:
        raise ValueError(f"Y must have shape ({tau.size}, p) to match tau, got shape {Y.shape}")
    if not (np.all(np.isfinite(Y)) and np.all(np.isfinite(tau))):
        raise ValueError("Y and tau must contain only finite numbers")
    return Y, tau


def unidentifiable_directions(Y, rtol=1e-9):
    """An orthonormal basis of the null space of Y, shape (p, p − rank): combinations of π the data cannot see.

    Adding any of these columns to π leaves Y π, the torques, unchanged.

    >>> unidentifiable_directions(np.array([[1.0, 1.0], [2.0, 2.0]])).round(6).T
    array([[-0.707107,  0.707107]])

    Introduced in: chapter 3.
    """
    Y, _ = _regression(Y, np.zeros(np.shape(Y)[0]))
    _, sv, Vt = np.linalg.svd(Y)
    rank = int(np.sum(sv > rtol * sv[0])) if sv.size and sv[0] > 0 else 0
    basis = Vt[rank:].T
    # a sign convention that makes the output reproducible: first nonzero entry negative
    for k in range(basis.shape[1]):
        j = np.flatnonzero(np.abs(basis[:, k]) > 1e-12)[0]
        basis[:, k] *= -np.sign(basis[j, k])
    return basis


def identifiable_part(Y, pi, rtol=1e-9):
    """The projection of π on the row space of Y: the part of π the data determine.

    Two parameter vectors with the same identifiable part produce the same
    torques on every sample of Y.

    >>> identifiable_part(np.array([[1.0, 1.0]]), [3.0, 1.0])
    array([2., 2.])

    Introduced in: chapter 3.
    """
    N = unidentifiable_directions(Y, rtol)
    pi = checks.vector("pi", pi, np.shape(Y)[1])
    return pi - N @ (N.T @ pi)


def relative_error(pi_hat, pi):
    """|π̂ − π| / |π|, the relative error of an estimate.

    >>> relative_error([1.1, 2.0], [1.0, 2.0]).round(4)
    np.float64(0.0447)

    Introduced in: chapter 3.
    """
    pi = np.asarray(pi, dtype=float)
    pi_hat = checks.vector("pi_hat", pi_hat, pi.size)
    return np.linalg.norm(pi_hat - pi) / np.linalg.norm(pi)


# --- generating data ------------------------------------------------------------------
def multisine(amplitude, frequencies, n=1, seed=0):
    """An exciting input u(t) for identification: a sum of sines with random phases on each of n joints.

        u_j(t) = amplitude Σ_k sin(2π f_k t + ϕ_jk)

    More frequencies excite more of the dynamics: the richer the excitation,
    the better conditioned the stacked regressor. Returns a function
    u(t, q, v) for :meth:`ManipulatorSystem.simulate`.

    >>> u = multisine(1.0, [0.25], n=2, seed=0)
    >>> u(0.0, None, None).shape
    (2,)

    Introduced in: chapter 3.
    """
    amplitude = checks.finite("amplitude", amplitude)
    f = np.atleast_1d(np.asarray(frequencies, dtype=float))
    if f.ndim != 1 or f.size == 0 or not np.all(np.isfinite(f)) or np.any(f <= 0):
        raise ValueError(f"frequencies must be a nonempty list of numbers > 0, got {frequencies!r}")
    phases = np.random.default_rng(seed).uniform(0.0, 2 * np.pi, size=(int(n), f.size))
    return lambda t, q, v: amplitude * np.sin(2 * np.pi * f * t + phases).sum(axis=1)


@dataclass(frozen=True)
class IdentificationData:
    """Samples for identification: times t (N,), q, v, vdot (N, n) and measured joint torques tau (N, n).

    >>> from lib.pendulum import SimplePendulum
    >>> data = collect_data(SimplePendulum(), 0.5, [0.0], [0.0], 1.0, num=3)
    >>> data.t, data.tau.ravel()
    (array([0. , 0.5, 1. ]), array([0.5, 0.5, 0.5]))
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    vdot: np.ndarray
    tau: np.ndarray


def collect_data(system, u, q0, v0, t_final, num=400, noise_std=0.0, seed=0):
    """Simulate ``system`` under the input u and record what an identification experiment measures.

    The joint torques are τ = B u at the sampled times, plus Gaussian noise of
    standard deviation ``noise_std`` (N·m or N); the accelerations are the
    model's, v̇ = forward_dynamics(q, v, u) (in practice, filtered
    differences of the measured velocities). Noise on τ alone keeps the least
    squares estimate unbiased.

    >>> from lib.pendulum import SimplePendulum
    >>> data = collect_data(SimplePendulum(), multisine(2.0, [0.3, 0.7]), [0.0], [0.0], 2.0, num=5)
    >>> data.tau.shape
    (5, 1)

    Introduced in: chapter 3.
    """
    noise_std = checks.nonnegative("noise_std", noise_std)
    traj = system.simulate(q0, v0, t_final, u=u, num=num)
    policy = system.input_policy(u)
    B = system.input_matrix()
    inputs = [system.check_input(policy(t, q, v)) for t, q, v in zip(traj.t, traj.q, traj.v)]
    vdot = np.array([system.forward_dynamics(q, v, uk) for q, v, uk in zip(traj.q, traj.v, inputs)])
    tau = np.array([B @ uk for uk in inputs])
    tau = tau + np.random.default_rng(seed).normal(0.0, noise_std, size=tau.shape) if noise_std > 0 else tau
    return IdentificationData(traj.t, traj.q, traj.v, vdot, tau)
