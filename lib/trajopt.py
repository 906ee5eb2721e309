"""Trajectory optimization through contact: direct collocation across hybrid events.

Direct collocation (notes 004, "Trajectory optimization for the rimless
wheel") searches over the states x[0], …, x[N] at the break points of a
trajectory and the time step h between them, subject to the dynamics at the
collocation points and whatever else the trajectory must do:

    find x[·], h  subject to  ẋ(t_c,n) = f(x(t_c,n)),  n = 0 … N−1,
                               (periodicity),  h_min ≤ h ≤ h_max.

Between two break points the trajectory is the cubic (Hermite) spline through
x[n], x[n+1] with slopes f(x[n]), f(x[n+1]); its collocation point t_c,n is
the middle of the interval, where

    x(t_c) = ½ (x[n] + x[n+1]) + (h/8) (f(x[n]) − f(x[n+1])),
    ẋ(t_c) = (3/(2h)) (x[n+1] − x[n]) − ¼ (f(x[n]) + f(x[n+1])).

A hybrid trajectory is a sequence of **phases**, one per mode: each phase ends
on its guard, the reset maps its last state to the first state of the next
phase, and a periodic gait closes the loop through the last reset. For the
rimless wheel this is exactly the periodicity condition of the notes,
θ[0] = γ − α, θ[N] = γ + α, θ̇[0] = θ̇[N] cos 2α: the collision sits inside the
periodicity condition. :func:`hybrid_collocation` solves such problems with
scipy's SLSQP (or trust-constr) from a given initial guess and reports
whether the constraints were met, never raising when they were not.

Introduced in: chapter 9.
"""

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.optimize import Bounds, NonlinearConstraint, OptimizeResult, minimize

from . import checks
from .rimless_wheel import RimlessWheel


def hermite_simpson_defects(f, X, h):
    """The collocation defects ẋ(t_c) − f(x(t_c)) at the midpoints of the N intervals, shape (N, nx).

    ``f`` maps states stacked as rows, shape (K, nx), to their derivatives;
    ``X`` holds the break points x[0 … N] as rows; ``h`` is the time step.

    >>> t = np.linspace(0.0, 1.0, 5)                     # ẋ = −x, sampled exactly
    >>> X = np.exp(-t)[:, None]
    >>> float(np.max(np.abs(hermite_simpson_defects(lambda X: -X, X, 0.25)))) < 1e-3
    True

    Introduced in: chapter 9.
    """
    X = np.asarray(X, dtype=float)
    F = np.asarray(f(X), dtype=float)
    xc = 0.5 * (X[:-1] + X[1:]) + h / 8.0 * (F[:-1] - F[1:])
    xdot_c = 1.5 / h * (X[1:] - X[:-1]) - 0.25 * (F[:-1] + F[1:])
    return xdot_c - np.asarray(f(xc), dtype=float)


def _knot_jacobians(f, X):
    """∂f/∂x at every row of X by central differences, all rows at once: shape (K, nx, nx)."""
    K, nx = X.shape
    A = np.empty((K, nx, nx))
    for j in range(nx):
        eps = 1e-6 * (1.0 + np.max(np.abs(X[:, j])))
        dX = np.zeros_like(X)
        dX[:, j] = eps
        A[:, :, j] = (np.asarray(f(X + dX), dtype=float) - np.asarray(f(X - dX), dtype=float)) / (2 * eps)
    return A


def _defect_jacobian(f, X, h):
    """Derivatives of :func:`hermite_simpson_defects` (raveled) w.r.t. the break points and h.

    Differentiating x(t_c) and ẋ(t_c) by the chain rule needs only ∂f/∂x at the
    break points and at the midpoints. Returns (shape (N nx, (N+1) nx), shape (N nx,)).
    """
    N, nx = X.shape[0] - 1, X.shape[1]
    F = np.asarray(f(X), dtype=float)
    xc = 0.5 * (X[:-1] + X[1:]) + h / 8.0 * (F[:-1] - F[1:])
    A, Ac = _knot_jacobians(f, X), _knot_jacobians(f, xc)
    eye = np.eye(nx)
    dxc_left, dxc_right = 0.5 * eye + h / 8.0 * A[:-1], 0.5 * eye - h / 8.0 * A[1:]
    dxdot_left, dxdot_right = -1.5 / h * eye - 0.25 * A[:-1], 1.5 / h * eye - 0.25 * A[1:]
    left = dxdot_left - np.einsum("nij,njk->nik", Ac, dxc_left)
    right = dxdot_right - np.einsum("nij,njk->nik", Ac, dxc_right)
    dX = np.zeros((N * nx, (N + 1) * nx))
    for n in range(N):
        dX[n * nx:(n + 1) * nx, n * nx:(n + 1) * nx] = left[n]
        dX[n * nx:(n + 1) * nx, (n + 1) * nx:(n + 2) * nx] = right[n]
    dh = -1.5 / h**2 * (X[1:] - X[:-1]) - np.einsum("nij,nj->ni", Ac, (F[:-1] - F[1:]) / 8.0)
    return dX, dh.ravel()


@dataclass(frozen=True)
class Phase:
    """One mode of a hybrid trajectory to optimize.

    dynamics: f(X) -> Ẋ on states stacked as rows, shape (K, nx) -> (K, nx);
    N: number of intervals; h_min, h_max: bounds on the phase's time step (s);
    guard: g(x) -> float, which must be zero at the phase's last break point
    (``None``: no guard); reset: Δ(x) -> x⁺ applied after the phase
    (``None``: identity); inside: c(X) -> (K,) or (K, m), which must be ≥ 0 at
    every break point (the trajectory stays in the mode: no intermediate
    contact).

    >>> fall = Phase("fall", lambda X: np.column_stack([X[:, 1], -9.81 + 0 * X[:, 0]]), N=10, h_min=0.01, h_max=0.1)
    >>> fall.N, fall.guard is None
    (10, True)
    """

    name: str
    dynamics: Callable
    N: int
    h_min: float
    h_max: float
    guard: Callable = None
    reset: Callable = None
    inside: Callable = None

    def __post_init__(self):
        if not isinstance(self.N, (int, np.integer)) or self.N < 1:
            raise ValueError(f"N must be an integer >= 1, got {self.N!r}")
        h_min = checks.positive("h_min", self.h_min)
        h_max = checks.positive("h_max", self.h_max)
        if h_min > h_max:
            raise ValueError(f"h_min must be <= h_max, got h_min = {h_min:g} > h_max = {h_max:g}")


@dataclass(frozen=True)
class CollocationResult:
    """The outcome of a collocation problem.

    success: the constraints hold to ``feas_tol`` (status "solved"). Otherwise
    status says how the solver stopped: "iteration limit" (it ran out of
    iterations), "infeasible" (it found its constraints incompatible, SLSQP's
    status 4) or "failed" (any other stop); a local solver cannot prove that
    no solution exists. ``message`` gives the solver's own status and message. t, x: per phase, the break-point times (absolute, s) and states
    (N+1, nx); h: the time step of every phase; violations: the largest
    violation of each family of constraints ("dynamics", "guard", "reset",
    "periodicity", "boundary", "inside", "h"); cost: the objective value.

    >>> res = rimless_wheel_collocation(N=10)
    >>> res.success, res.status, len(res.x), res.x[0].shape
    (False, 'iteration limit', 1, (11, 2))
    """

    success: bool
    status: str
    solver_status: int
    message: str
    t: tuple
    x: tuple
    h: np.ndarray
    violations: dict
    max_violation: float
    cost: float
    nit: int

    @property
    def durations(self):
        """Duration of each phase, N_p h_p (s)."""
        return [float(t[-1] - t[0]) for t in self.t]

    @property
    def period(self):
        """Total duration of the trajectory (s)."""
        return float(sum(self.durations))


def _unpack(z, phases, nxs):
    hs, Xs, i = [], [], 0
    for p, nx in zip(phases, nxs):
        hs.append(z[i])
        i += 1
        size = (p.N + 1) * nx
        Xs.append(z[i:i + size].reshape(p.N + 1, nx))
        i += size
    return hs, Xs


def _apply(fn, x):
    return x if fn is None else np.asarray(fn(x), dtype=float)


def _families(z, phases, nxs, periodic, boundary, dynamics=True):
    """All constraints as a dict of arrays: equalities (== 0) and 'inside' (>= 0)."""
    hs, Xs = _unpack(z, phases, nxs)
    out = {"dynamics": [], "guard": [], "reset": [], "periodicity": [], "boundary": [], "inside": []}
    for k, (p, h, X) in enumerate(zip(phases, hs, Xs)):
        if dynamics:
            out["dynamics"].append(hermite_simpson_defects(p.dynamics, X, h).ravel())
        if p.guard is not None:
            out["guard"].append(np.atleast_1d(float(p.guard(X[-1]))))
        if p.inside is not None:
            out["inside"].append(np.asarray(p.inside(X), dtype=float).ravel())
        if k + 1 < len(phases):
            out["reset"].append(Xs[k + 1][0] - _apply(p.reset, X[-1]))
    if periodic:
        out["periodicity"].append(Xs[0][0] - _apply(phases[-1].reset, Xs[-1][-1]))
    if boundary is not None:
        out["boundary"].append(np.atleast_1d(np.asarray(boundary(Xs, hs), dtype=float)))
    return {name: np.concatenate(parts) if parts else np.zeros(0) for name, parts in out.items()}


def collocation_violations(phases, Xs, hs, periodic=True, boundary=None):
    """The largest violation of each family of collocation constraints, for a given trajectory.

    Families: "dynamics" (collocation defects), "guard" (each phase ends on
    its guard), "reset" (x_{p+1}[0] = Δ_p(x_p[N])), "periodicity"
    (x_0[0] = Δ_last(x_last[N]), if ``periodic``), "boundary", "inside" (how
    far below zero) and "h" (outside [h_min, h_max]). Use it to check a
    trajectory from anywhere, e.g. a homework answer.

    >>> res = rimless_wheel_collocation()
    >>> bad = res.x[0].copy()
    >>> bad[0, 1] *= 1.1                                     # break θ̇[0] = θ̇[N] cos 2α
    >>> v = collocation_violations([rimless_wheel_phase(RimlessWheel(), N=20)], [bad], res.h)
    >>> v["periodicity"] > 0.1, v["guard"] < 1e-9
    (True, True)

    Introduced in: chapter 9.
    """
    phases = list(phases)
    Xs = [np.asarray(X, dtype=float) for X in Xs]
    hs = [float(h) for h in np.atleast_1d(hs)]
    if not (len(phases) == len(Xs) == len(hs)):
        raise ValueError(f"phases, Xs and hs must have the same length, got {len(phases)}, {len(Xs)}, {len(hs)}")
    for p, X in zip(phases, Xs):
        if X.ndim != 2 or X.shape[0] != p.N + 1:
            raise ValueError(f"Xs for phase {p.name!r} must have {p.N + 1} rows, got shape {X.shape}")
    nxs = [X.shape[1] for X in Xs]
    z = np.concatenate([np.concatenate([[h], X.ravel()]) for h, X in zip(hs, Xs)])
    fam = _families(z, phases, nxs, periodic, boundary)
    violations = {k: float(np.max(np.abs(v))) if v.size else 0.0 for k, v in fam.items() if k != "inside"}
    violations["inside"] = float(np.max(np.maximum(-fam["inside"], 0.0))) if fam["inside"].size else 0.0
    violations["h"] = float(max(max(p.h_min - h, h - p.h_max, 0.0) for p, h in zip(phases, hs)))
    return violations


def hybrid_collocation(phases, x_guess, h_guess, periodic=True, boundary=None, cost=None,
                       method="SLSQP", maxiter=100, tol=1e-10, feas_tol=1e-6):
    """Direct collocation over a sequence of modes, with the resets between them (notes 004).

    Decision variables: every phase's time step h_p and break points
    X_p = x_p[0 … N_p]. Constraints: Hermite–Simpson collocation in each
    phase (:func:`hermite_simpson_defects`); the phase's guard at its last
    break point; x_{p+1}[0] = Δ_p(x_p[N_p]) between phases; if ``periodic``,
    x_0[0] = Δ_last(x_last[N_last]); ``inside`` ≥ 0 at every break point;
    h_min ≤ h_p ≤ h_max; and ``boundary(Xs, hs) == 0`` for anything else
    (a fixed energy, a starting state). The objective is ``cost(Xs, hs)``, or
    zero (a feasibility problem).

    ``x_guess``: one (N_p+1, nx_p) array per phase; ``h_guess``: one step per
    phase. The solver starts from this fixed guess, so runs are repeatable.
    Returns a :class:`CollocationResult`; a problem the solver cannot make
    feasible comes back with ``success=False`` and the status of the solver's
    stop ("iteration limit", "infeasible" or "failed").

    >>> fall = Phase("fall", lambda X: np.column_stack([X[:, 1], -9.81 + 0 * X[:, 0]]), N=10,
    ...              h_min=0.01, h_max=0.2, guard=lambda x: x[0])
    >>> guess = np.column_stack([np.linspace(1.0, 0.0, 11), np.linspace(0.0, -4.0, 11)])
    >>> res = hybrid_collocation([fall], [guess], [0.05], periodic=False,
    ...                          boundary=lambda Xs, hs: Xs[0][0] - [1.0, 0.0])
    >>> res.status, round(res.period, 6)          # √(2 · 1 / 9.81)
    ('solved', 0.451524)

    Introduced in: chapter 9.
    """
    phases = list(phases)
    if not phases or not all(isinstance(p, Phase) for p in phases):
        raise ValueError("phases must be a non-empty list of Phase objects")
    if len(x_guess) != len(phases):
        raise ValueError(f"x_guess must hold one array per phase ({len(phases)}), got {len(x_guess)}")
    h_guess = np.atleast_1d(np.asarray(h_guess, dtype=float))
    if h_guess.shape != (len(phases),):
        raise ValueError(f"h_guess must hold one time step per phase ({len(phases)}), got shape {h_guess.shape}")
    if method not in ("SLSQP", "trust-constr"):
        raise ValueError(f"method must be 'SLSQP' or 'trust-constr', got {method!r}")
    nxs, z0, lo, hi = [], [], [], []
    for p, X, h in zip(phases, x_guess, h_guess):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[0] != p.N + 1 or not np.all(np.isfinite(X)):
            raise ValueError(f"x_guess for phase {p.name!r} must be a finite array of shape ({p.N + 1}, nx), "
                             f"got shape {X.shape}")
        nxs.append(X.shape[1])
        z0.append([np.clip(h, p.h_min, p.h_max)])
        z0.append(X.ravel())
        lo.append([p.h_min] + [-np.inf] * X.size)
        hi.append([p.h_max] + [np.inf] * X.size)
    z0, lo, hi = np.concatenate(z0), np.concatenate(lo), np.concatenate(hi)

    others = ("guard", "reset", "periodicity", "boundary")

    def equalities(z):
        c = _families(z, phases, nxs, periodic, boundary)
        return np.concatenate([c["dynamics"]] + [c[k] for k in others])

    def inequalities(z):
        return _families(z, phases, nxs, periodic, boundary, dynamics=False)["inside"]

    def small(z):
        c = _families(z, phases, nxs, periodic, boundary, dynamics=False)
        return np.concatenate([c[k] for k in others]), c["inside"]

    def jacobians(z):
        """Collocation rows from the chain rule; the few other rows by central differences."""
        hs, Xs = _unpack(z, phases, nxs)
        blocks, col = [], 0
        for p, h, X in zip(phases, hs, Xs):
            dX, dh = _defect_jacobian(p.dynamics, X, h)
            block = np.zeros((dX.shape[0], z.size))
            block[:, col] = dh
            block[:, col + 1:col + 1 + dX.shape[1]] = dX
            blocks.append(block)
            col += 1 + dX.shape[1]
        eq0, in0 = small(z)
        d_eq, d_in = np.zeros((eq0.size, z.size)), np.zeros((in0.size, z.size))
        for i in range(z.size):
            step = 1e-7 * (1.0 + abs(z[i]))
            zp, zm = z.copy(), z.copy()
            zp[i] += step
            zm[i] -= step
            (ep, ip), (em, im) = small(zp), small(zm)
            d_eq[:, i], d_in[:, i] = (ep - em) / (2 * step), (ip - im) / (2 * step)
        return np.vstack(blocks + [d_eq]), d_in

    memo = {}

    def jac(z, which):
        key = z.tobytes()
        if key not in memo:
            memo.clear()
            memo[key] = jacobians(z)
        return memo[key][which]

    def objective(z):
        if cost is None:
            return 0.0
        hs, Xs = _unpack(z, phases, nxs)
        return float(cost(Xs, hs))

    has_inside = inequalities(z0).size > 0
    if method == "SLSQP":
        constraints = [{"type": "eq", "fun": equalities, "jac": lambda z: jac(z, 0)}]
        if has_inside:
            constraints.append({"type": "ineq", "fun": inequalities, "jac": lambda z: jac(z, 1)})
        options = {"maxiter": maxiter, "ftol": tol}
    else:
        constraints = [NonlinearConstraint(equalities, 0.0, 0.0, jac=lambda z: jac(z, 0))]
        if has_inside:
            constraints.append(NonlinearConstraint(inequalities, 0.0, np.inf, jac=lambda z: jac(z, 1)))
        options = {"maxiter": maxiter, "gtol": tol, "xtol": tol}
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)       # trust-constr's quasi-Newton notices
            sol = minimize(objective, z0, method=method, bounds=Bounds(lo, hi), constraints=constraints,
                           jac=(lambda z: np.zeros_like(z)) if cost is None else "2-point", options=options)
    except (ValueError, np.linalg.LinAlgError) as err:       # e.g. trust-constr on redundant constraints
        sol = OptimizeResult(x=z0, status=-1, message=f"the solver stopped with an error: {err}", nit=0)

    hs, Xs = _unpack(sol.x, phases, nxs)
    violations = collocation_violations(phases, Xs, hs, periodic, boundary)
    worst = max(violations.values())
    if not np.isfinite(worst):
        worst = np.inf
    success = bool(worst <= feas_tol)
    if success:
        status = "solved"
    elif int(getattr(sol, "nit", 0)) >= maxiter:
        status = "iteration limit"
    elif method == "SLSQP" and sol.status == 4:               # "Inequality constraints incompatible"
        status = "infeasible"
    else:
        status = "failed"
    message = (f"{method}: {sol.message} (solver status {sol.status}); largest constraint violation "
               f"{worst:.3g} ({max(violations, key=violations.get)})")
    ts, start = [], 0.0
    for p, h in zip(phases, hs):
        ts.append(start + h * np.arange(p.N + 1))
        start = ts[-1][-1]
    return CollocationResult(success, status, int(sol.status), message, tuple(ts), tuple(Xs),
                             np.array(hs), violations, worst, objective(sol.x), int(getattr(sol, "nit", 0)))


# --- the rimless wheel ------------------------------------------------------------
def rimless_wheel_phase(wheel, N=20, h_min=0.01, h_max=0.1):
    """The rimless wheel's stance as a collocation :class:`Phase`, x = [θ, θ̇].

    dynamics θ̈ = (m g l/(m l² + I)) sin θ; guard θ − (γ + α) (the next toe
    touches down); reset [θ − 2α, c θ̇] (:meth:`lib.rimless_wheel.RimlessWheel.reset`);
    inside: γ − α ≤ θ ≤ γ + α (no intermediate contact).

    >>> rimless_wheel_phase(RimlessWheel(), N=10).guard(np.array([0.08 + np.pi / 8, 1.0]))
    0.0

    Introduced in: chapter 9.
    """
    if not isinstance(wheel, RimlessWheel):
        raise ValueError(f"wheel must be a RimlessWheel, got {type(wheel).__name__}")
    a, g = wheel.alpha, wheel.gamma
    k = wheel.m * wheel.g * wheel.l / (wheel.m * wheel.l**2 + wheel.I)

    def stance(X):
        return np.column_stack([X[:, 1], k * np.sin(X[:, 0])])

    return Phase("stance", stance, N, h_min, h_max,
                 guard=lambda x: float(x[0] - (g + a)),                               # θ[N] = γ + α
                 reset=wheel.reset,                                                   # [θ − 2α, c θ̇]
                 inside=lambda X: np.column_stack([X[:, 0] - (g - a), (g + a) - X[:, 0]]))


def rimless_wheel_collocation(wheel=None, N=20, h_min=0.01, h_max=0.1, method="SLSQP", **kwargs):
    """The rimless wheel's rolling limit cycle by direct collocation, the collision in the periodicity condition.

    One stance phase x = [θ, θ̇] with θ̈ = (m g l/(m l² + I)) sin θ and the
    constraints of notes 004:

        θ[0] = γ − α,   θ[N] = γ + α,   θ̇[0] = θ̇[N] cos 2α,
        γ − α ≤ θ[n] ≤ γ + α (no intermediate contact),   h_min ≤ h ≤ h_max.

    θ[N] = γ + α is the phase's guard; θ[0] = θ[N] − 2α and θ̇[0] = c θ̇[N]
    (c = cos 2α when I = 0) are the periodicity condition through the
    collision reset. The initial guess is fixed: θ rising linearly, θ̇ constant,
    h halfway between its bounds. Returns a :class:`CollocationResult`;
    ``result.x[0][0, 1]`` is θ̇ just after the collision, to compare with
    :meth:`lib.rimless_wheel.RimlessWheel.rolling_fixed_point`.

    >>> res = rimless_wheel_collocation()
    >>> res.status, round(float(res.x[0][0, 1]), 4), round(RimlessWheel().rolling_fixed_point(), 4)
    ('solved', 1.0955, 1.0955)

    Introduced in: chapter 9.
    """
    wheel = RimlessWheel() if wheel is None else wheel
    phase = rimless_wheel_phase(wheel, N, h_min, h_max)
    a, g = wheel.alpha, wheel.gamma
    h0 = 0.5 * (phase.h_min + phase.h_max)
    theta0 = np.linspace(g - a, g + a, N + 1)
    guess = np.column_stack([theta0, np.full(N + 1, 2 * a / (N * h0))])
    return hybrid_collocation([phase], [guess], [h0], periodic=True, method=method, **kwargs)


# --- a second system: the vertical hopper (SLIP with two modes) -------------------------
@dataclass(frozen=True)
class VerticalHopper:
    """A spring-loaded hopper moving up and down: a point mass m on a massless spring leg (stiffness k, rest length l0).

    State x = [z, ż], z the height of the mass. Two modes:

        flight (z > l0):  z̈ = −g
        stance (z ≤ l0):  z̈ = (k/m)(l0 − z) − g

    Touchdown and liftoff are both the guard z = l0, with no reset (the leg
    is massless). The motion conserves energy, so the periodic hops form a
    family, one per apex height H. Closed forms, with v = √(2 g (H − l0)) the
    touchdown speed, ω = √(k/m), δ = m g / k and A = √(δ² + (v/ω)²):

        flight time  2 v / g,    stance time  (2π − 2 arccos(δ/A)) / ω.

    >>> hop = VerticalHopper()
    >>> round(hop.flight_time(1.2), 6), round(hop.stance_time(1.2), 6)
    (0.403855, 0.159991)

    Introduced in: chapter 9.
    """

    m: checks.Positive = 1.0
    k: checks.Positive = 500.0
    l0: checks.Positive = 1.0
    g: checks.Positive = 9.81

    def flight(self, X):
        """Flight dynamics on stacked states, (K, 2) -> (K, 2)."""
        X = np.atleast_2d(X)
        return np.column_stack([X[:, 1], np.full(len(X), -self.g)])

    def stance(self, X):
        """Stance dynamics on stacked states, (K, 2) -> (K, 2)."""
        X = np.atleast_2d(X)
        return np.column_stack([X[:, 1], self.k / self.m * (self.l0 - X[:, 0]) - self.g])

    def touchdown_speed(self, H):
        """v = √(2 g (H − l0)) (m/s) for apex height H > l0."""
        H = checks.positive("H", H)
        if H <= self.l0:
            raise ValueError(f"H must be above the leg's rest length l0 = {self.l0:g}, got {H:g}")
        return float(np.sqrt(2 * self.g * (H - self.l0)))

    def flight_time(self, H):
        """Time in the air per hop, 2 v / g (s)."""
        return float(2 * self.touchdown_speed(H) / self.g)

    def stance_time(self, H):
        """Time on the ground per hop, (2π − 2 arccos(δ/A)) / ω (s)."""
        v, w, d = self.touchdown_speed(H), np.sqrt(self.k / self.m), self.m * self.g / self.k
        A = np.hypot(d, v / w)
        return float((2 * np.pi - 2 * np.arccos(d / A)) / w)

    def modes(self):
        """The hopper as a :func:`lib.hybrid.simulate_hybrid` system: modes "flight" and "stance"."""
        from .hybrid import Guard, Mode
        l0 = self.l0
        return [Mode("flight", lambda t, x: self.flight(x)[0],
                     (Guard("touchdown", lambda t, x: x[0] - l0, target="stance", direction=-1.0),)),
                Mode("stance", lambda t, x: self.stance(x)[0],
                     (Guard("liftoff", lambda t, x: x[0] - l0, target="flight", direction=1.0),))]


def hopper_collocation(hopper=None, H=1.2, N=(10, 16, 10), h_max=0.05, method="SLSQP", **kwargs):
    """One hop of the :class:`VerticalHopper` from apex to apex by collocation over the mode sequence flight, stance, flight.

    Phases: "fall" from the apex x = [H, 0] to touchdown (guard z = l0, inside
    z ≥ l0), "stance" to liftoff (guard z = l0, inside z ≤ l0), and "rise" to
    the next apex (guard ż = 0, inside z ≥ l0); the resets are the identity.
    The hopper conserves energy, so every hop is periodic: the next apex
    height is *not* imposed, and ``res.x[2][-1, 0] == H`` (to the accuracy
    of the collocation) is a check of the solution. (Imposing it as well
    would make one constraint redundant.) The guess is fixed: parabolas in
    flight, half a sine dip in stance. Compare the phase durations with
    :meth:`VerticalHopper.flight_time` and :meth:`VerticalHopper.stance_time`.

    >>> res = hopper_collocation()
    >>> res.status, [round(T, 4) for T in res.durations]
    ('solved', [0.2019, 0.16, 0.2019])
    >>> round(VerticalHopper().flight_time(1.2) / 2, 4), round(VerticalHopper().stance_time(1.2), 4)
    (0.2019, 0.16)

    Introduced in: chapter 9.
    """
    hop = VerticalHopper() if hopper is None else hopper
    if not isinstance(hop, VerticalHopper):
        raise ValueError(f"hopper must be a VerticalHopper, got {type(hop).__name__}")
    v = hop.touchdown_speed(H)
    if len(N) != 3:
        raise ValueError(f"N must give the intervals of the three phases (fall, stance, rise), got {N!r}")
    Nd, Ns, Nr = N
    l0, g = hop.l0, hop.g
    fall = Phase("fall", hop.flight, Nd, 1e-4, h_max, guard=lambda x: x[0] - l0,
                 inside=lambda X: X[:, 0] - l0)
    stance = Phase("stance", hop.stance, Ns, 1e-4, h_max, guard=lambda x: x[0] - l0,
                   inside=lambda X: l0 - X[:, 0])
    rise = Phase("rise", hop.flight, Nr, 1e-4, h_max, guard=lambda x: x[1],
                 inside=lambda X: X[:, 0] - l0)
    # A fixed, rough guess: flights as parabolas, the stance as half a sine dip lasting π/ω.
    w = np.sqrt(hop.k / hop.m)
    Tf, Ts = v / g, np.pi / w
    td = np.linspace(0.0, Tf, Nd + 1)
    fall_guess = np.column_stack([H - 0.5 * g * td**2, -g * td])
    s = np.linspace(0.0, 1.0, Ns + 1)
    stance_guess = np.column_stack([l0 - v / w * np.sin(np.pi * s), -v * np.cos(np.pi * s)])
    tr = np.linspace(0.0, Tf, Nr + 1)
    rise_guess = np.column_stack([l0 + v * tr - 0.5 * g * tr**2, v - g * tr])
    return hybrid_collocation([fall, stance, rise], [fall_guess, stance_guess, rise_guess],
                              [Tf / Nd, Ts / Ns, Tf / Nr], periodic=False,
                              boundary=lambda Xs, hs: Xs[0][0] - [H, 0.0], method=method, **kwargs)
