"""The brick: a point mass sliding on the ground with Coulomb friction, and Anitescu's hydroplaning.

Notes 000, "Time-stepping LCP: Coulomb Friction": one semi-implicit Euler
step of the brick, pushed along the ground under its weight, is an LCP in the
friction forces f⁺, f⁻ and the sliding speed (:func:`brick_friction_lcp`,
solved by Lemke in :func:`brick_friction_step`, in closed form in
:func:`brick_friction_closed_form`, over grids in :func:`brick_friction_batch`).
In chapter 8 the same brick, a :class:`lib.particle.PointMass` on the ground,
slides under Anitescu's convex relaxation and lifts off the ground by a
boundary layer that shrinks with h and μ: :func:`hydroplaning`.

Introduced in: chapter 7 (friction) and chapter 8 (hydroplaning).
"""

from dataclasses import dataclass

import numpy as np

from . import checks, timestepping
from .lcp import LCPResult, lcp_batch, lemke
from .particle import PointMass


def brick_friction_lcp(m, h, v, u, mu, g=9.81):
    """The LCP of one step of the brick sliding on the ground with Coulomb friction.

    Notes 000, "Time-stepping LCP: Coulomb Friction". With the friction force
    f = f⁺ − f⁻, the normal force m g and v[n+1] = v + (h/m)(u + f⁺ − f⁻):

        0 ≤ v_abs + v[n+1]       ⊥  f⁺ ≥ 0
        0 ≤ v_abs − v[n+1]       ⊥  f⁻ ≥ 0
        0 ≤ μ m g − f⁺ − f⁻      ⊥  v_abs ≥ 0

    i.e. z = [f⁺, f⁻, v_abs] and

        M = [[ h/m, −h/m, 1],      q_lcp = [ v + (h/m) u,
             [−h/m,  h/m, 1],               −v − (h/m) u,
             [ −1,   −1,  0]],               μ m g       ].

    >>> M, b = brick_friction_lcp(1.0, 0.1, 1.0, 0.0, 0.5)
    >>> M
    array([[ 0.1, -0.1,  1. ],
           [-0.1,  0.1,  1. ],
           [-1. , -1. ,  0. ]])
    >>> b
    array([ 1.   , -1.   ,  4.905])
    """
    m, h = checks.positive("m", m), checks.positive("h", h)
    v, u = checks.finite("v", v), checks.finite("u", u)
    mu, g = checks.nonnegative("mu", mu), checks.positive("g", g)
    k = h / m
    M = np.array([[k, -k, 1.0], [-k, k, 1.0], [-1.0, -1.0, 0.0]])
    v_free = v + k * u
    return M, np.array([v_free, -v_free, mu * m * g])


@dataclass(frozen=True)
class BrickStep:
    """One step of the brick with friction.

    ``v_next`` the new velocity, ``f`` = f⁺ − f⁻ the friction force (N),
    ``regime`` "sticking" or "sliding", and ``lcp`` the solver's result
    (f⁺ and f⁻ alone are not unique while sticking; f is).

    >>> s = brick_friction_step(1.0, 0.1, 0.0, 2.0, 0.5)
    >>> s.regime, round(s.f, 6), s.lcp.solved
    ('sticking', -2.0, True)
    """

    v_next: float
    f: float
    regime: str
    lcp: LCPResult


def brick_friction_step(m, h, v, u, mu, g=9.81):
    """One step of the brick with Coulomb friction, solving :func:`brick_friction_lcp` with Lemke.

    >>> s = brick_friction_step(1.0, 0.1, 1.0, 0.0, 0.5)          # sliding: friction −μ m g
    >>> round(s.v_next, 6), round(s.f, 6), s.regime
    (0.5095, -4.905, 'sliding')
    >>> s = brick_friction_step(1.0, 0.1, 0.0, 2.0, 0.5)          # pushed gently: it sticks
    >>> round(s.v_next, 9), round(s.f, 6), s.regime
    (0.0, -2.0, 'sticking')
    """
    M, b = brick_friction_lcp(m, h, v, u, mu, g)
    res = lemke(M, b)
    if not res.solved:
        raise RuntimeError(f"the brick friction LCP was not solved: {res.reason}")
    f_plus, f_minus, _ = res.z
    f = f_plus - f_minus
    v_next = v + h / m * (u + f)
    scale = max(1.0, abs(v), h / m * abs(u))
    regime = "sticking" if abs(v_next) <= 1e-9 * scale else "sliding"
    return BrickStep(float(v_next), float(f), regime, res)


def brick_friction_closed_form(m, h, v, u, mu, g=9.81):
    """The brick's friction step in closed form, elementwise over arrays of v and u.

    With the friction-free prediction v⁻ = v + (h/m) u: it sticks when the
    largest friction impulse can stop it, |v⁻| ≤ h μ g, and then
    v[n+1] = 0, f = −m v⁻/h; otherwise it slides, f = −μ m g sign(v⁻) and
    v[n+1] = v⁻ − h μ g sign(v⁻). Returns (v_next, f).

    >>> brick_friction_closed_form(1.0, 0.1, np.array([1.0, 0.0]), np.array([0.0, 2.0]), 0.5)
    (array([0.5095, 0.    ]), array([-4.905, -2.   ]))
    """
    m, h = checks.positive("m", m), checks.positive("h", h)
    mu, g = checks.nonnegative("mu", mu), checks.positive("g", g)
    v, u = np.broadcast_arrays(np.asarray(v, dtype=float), np.asarray(u, dtype=float))
    v_minus = v + h / m * u
    sticks = np.abs(v_minus) <= h * mu * g
    f = np.where(sticks, -m * v_minus / h, -mu * m * g * np.sign(v_minus))
    return np.where(sticks, 0.0, v_minus - h * mu * g * np.sign(v_minus)), f


def brick_friction_batch(m, h, v, u, mu, g=9.81):
    """The brick's friction LCP solved over whole arrays of (v, u) at once with :func:`lib.lcp.lcp_batch`.

    One 3×3 LCP per grid point, all solved together by enumeration; returns
    (v_next, f) like :func:`brick_friction_closed_form` (f = f⁺ − f⁻, unique
    even where f⁺ and f⁻ are not). Use it to map the sticking region.

    >>> v_next, f = brick_friction_batch(1.0, 0.1, np.array([1.0, 0.0]), np.array([0.0, 2.0]), 0.5)
    >>> v_next.round(6), f.round(6)
    (array([0.5095, 0.    ]), array([-4.905, -2.   ]))
    """
    m, h = checks.positive("m", m), checks.positive("h", h)
    mu, g = checks.nonnegative("mu", mu), checks.positive("g", g)
    v, u = np.broadcast_arrays(np.asarray(v, dtype=float), np.asarray(u, dtype=float))
    M, _ = brick_friction_lcp(m, h, 0.0, 0.0, mu, g)
    v_free = v + h / m * u
    b = np.stack([v_free, -v_free, np.full(v.shape, mu * m * g)], axis=-1)
    res = lcp_batch(M, b)
    if not res.solved.all():
        raise RuntimeError("some brick friction LCPs were not solved")
    f = res.z[..., 0] - res.z[..., 1]
    return v + h / m * (u + f), f



def hydroplaning_first_step(h, mu, v_t, g=9.81):
    """The height Anitescu's step lifts a sliding point mass off the ground in one step, closed form.

    From rest on the ground (φ = 0) with tangential speed v_t > μ g h, the
    planar Anitescu QP projects v⁻ = (v_t, −g h) onto the cone
    {v_z ≥ μ |v_x|}; the projection lands on its edge v_z = μ v_x:

        v'_x = (v_t − μ g h)/(1 + μ²),   v'_z = μ v'_x,   φ' = h v'_z = h μ (v_t − μ g h)/(1 + μ²).

    The LCP (maximum dissipation) gives φ' = 0 and v'_x = v_t − μ g h.
    Slower than μ g h, it sticks and φ' = 0.

    >>> round(hydroplaning_first_step(0.01, 0.5, 2.0), 8)
    0.0078038
    """
    h, mu = checks.positive("h", h), checks.nonnegative("mu", mu)
    v_t, g = abs(checks.finite("v_t", v_t)), checks.positive("g", g)
    return h * mu * max(v_t - mu * g * h, 0.0) / (1 + mu**2)


@dataclass(frozen=True)
class SlidingRun:
    """A point mass sliding on the ground: t, x, z (height), v_x, v_z (arrays of length N + 1).

    ``max_height`` is the largest spurious separation, ``mean_height`` its
    average while the mass slides (v_x > 0), ``stop_time`` when v_x first reaches 0.

    >>> run = hydroplaning(0.01, 0.5, 2.0)
    >>> round(run.stop_time, 2), bool(run.max_height > run.mean_height > 0)
    (0.42, True)
    """

    t: np.ndarray
    x: np.ndarray
    z: np.ndarray
    v_x: np.ndarray
    v_z: np.ndarray

    @property
    def max_height(self):
        return float(self.z.max())

    @property
    def stop_time(self):
        stopped = np.flatnonzero(self.v_x <= 1e-12)
        return float(self.t[stopped[0]]) if len(stopped) else float("inf")

    @property
    def mean_height(self):
        sliding = self.v_x > 1e-12
        return float(self.z[sliding].mean()) if sliding.any() else 0.0


def hydroplaning(h, mu, v0, g=9.81, duration=None, method="anitescu", form="lemke"):
    """Slide a point mass along the ground from speed v0 and record its height: Anitescu's "hydroplaning".

    Anitescu's constraint φ(q')/h ≥ −(n + μ d) v' lets a sliding contact
    separate, φ(q') ≥ h μ |v'_t| in the notes' words: the mass rides up on a
    boundary layer that shrinks with h and μ. ``method="lcp"`` runs the
    Stewart–Trinkle LCP for comparison (no separation). ``duration``
    defaults to the stopping time v0/(μ g) plus 10 steps. Returns a
    :class:`SlidingRun`; sweep h and μ over it to measure the effect.

    >>> run = hydroplaning(0.01, 0.5, 2.0)
    >>> bool(np.isclose(run.z[1], hydroplaning_first_step(0.01, 0.5, 2.0))), run.max_height > 0
    (True, True)
    >>> hydroplaning(0.01, 0.5, 2.0, method="lcp").max_height
    0.0
    """
    h, mu = checks.positive("h", h), checks.positive("mu", mu)
    v0, g = checks.finite("v0", v0), checks.positive("g", g)
    if duration is None:
        duration = abs(v0) / (mu * g) + 10 * h
    steps = max(1, int(np.ceil(checks.positive("duration", duration) / h)))
    body = PointMass(m=1.0, g=g, dim=2)
    options = {"form": form} if method == "anitescu" else {}
    traj = timestepping.simulate_contact(body, [0.0, 0.0], [v0, 0.0], contacts=body.ground_contact, h=h, steps=steps,
                                         mu=mu, method=method, **options)
    z = traj.q[:, 1]
    z = np.where(np.abs(z) < 1e-12, 0.0, z)
    return SlidingRun(traj.t, traj.q[:, 0], z, traj.v[:, 0], traj.v[:, 1])


def hydroplaning_sweep(hs, mus, v0, g=9.81, method="anitescu"):
    """The largest spurious separation of a slide from speed v0, over a grid of step sizes and friction coefficients.

    Returns an array of shape (len(hs), len(mus)) of :attr:`SlidingRun.max_height`
    (metres), one :func:`hydroplaning` run each.

    >>> heights = hydroplaning_sweep([0.02, 0.01], [0.5], 1.0)
    >>> heights.shape, bool(heights[0, 0] > heights[1, 0] > 0)
    ((2, 1), True)
    """
    return np.array([[hydroplaning(h, mu, v0, g=g, method=method).max_height for mu in mus] for h in hs])

