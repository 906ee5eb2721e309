"""Hybrid systems: modes, guards and resets, and a simulator that detects the events.

In the language of notes 004 ("(Autonomous) Hybrid Systems") a hybrid system
is a set of **modes**, each with its own smooth dynamics ẋ = f(x); a set of
**guards** (also called witness functions), continuous functions of the state
whose zero crossing triggers an event; and a **reset** per guard, the discrete
update x⁺ = Δ(x⁻) applied at the event, after which a (possibly different)
mode takes over. :func:`simulate_hybrid` registers the guards of the current
mode as events of scipy's ``solve_ivp``, which locates each crossing to high
accuracy ("Simulating Hybrid Systems"), applies the reset and carries on.

Events can pile up: a ball with restitution e < 1 bounces infinitely often
before a finite time (Zeno behaviour). The simulator notices when a guard
fires again within ``zeno_dt`` and switches to the guard's ``zeno_target``
mode (for the ball: resting contact), or stops and says so; it never hangs.

For contact (notes 000, "Putting it all together") the modes are the sets of
active contacts: an inactive contact becomes active at the guard φᵢ = 0 (with
an impact as the reset), an active one becomes inactive at the guard λᵢ = 0.
:func:`contact_modes` builds these modes for any system in the common
protocol. The module ends with the rimless wheel, in minimal coordinates
(one angle, pinned at the stance toe) and in floating-base coordinates
(x, z, θ with the toe held by contact forces) (notes 004, "Minimal vs
floating-base coordinates").

Introduced in: chapter 6.
"""

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable

import numpy as np
from scipy.integrate import DOP853, OdeSolution
from scipy.optimize import brentq, root

from . import _checks
from .constraints import PointMass
from .impulse import impact_map_general, _restitution
from .system import ManipulatorSystem, PlanarBody


# --- the vocabulary: modes, guards, resets ------------------------------------
@dataclass(frozen=True)
class Guard:
    """A guard (witness function) of a mode, with its reset and the mode that follows.

    ``witness(t, x)`` is a continuous function whose zero crossing in
    ``direction`` (−1: from positive to negative, +1: the other way, 0: both)
    triggers the event. ``reset(x⁻) -> x⁺`` is the discrete update (``None``:
    the state carries over). ``target`` is the name of the next mode, or a
    function ``target(x⁺) -> name``. If the same guard fires twice within
    ``zeno_dt`` (see :func:`simulate_hybrid`) the event is taken to be Zeno:
    the simulator then applies ``zeno_reset`` (default: ``reset``) and moves to
    ``zeno_target`` (a name, or a function of x⁺ like ``target``), or stops
    if there is none.
    """

    name: str
    witness: Callable
    target: object
    reset: Callable = None
    direction: float = -1.0
    zeno_target: str = None
    zeno_reset: Callable = None


@dataclass(frozen=True)
class Mode:
    """A mode: continuous dynamics ``dynamics(t, x) -> ẋ`` and the guards that end it."""

    name: str
    dynamics: Callable
    guards: tuple = ()


@dataclass(frozen=True)
class Event:
    """One discrete transition: when, which guard, from and to which mode, x⁻ and x⁺."""

    t: float
    guard: str
    source: str
    target: str
    x_minus: np.ndarray
    x_plus: np.ndarray
    zeno: bool = False


@dataclass(frozen=True)
class Segment:
    """A piece of continuous flow inside one mode: the solver's times ``t`` (N,), states ``x`` (N, nx)."""

    mode: str
    t: np.ndarray
    x: np.ndarray
    dense: object = field(default=None, repr=False)


@dataclass(frozen=True)
class HybridTrajectory:
    """A hybrid run: the continuous segments, the events between them and why the run ended.

    ``status`` is "time limit" (reached t_final), "stopped at guard" (the
    guard named in ``stop_at`` fired), "zeno" (events accumulated and the
    guard had no ``zeno_target``) or "max events". ``message`` says the same
    in a sentence.
    """

    segments: tuple
    events: tuple
    status: str
    message: str

    @property
    def t(self):
        """All solver times, concatenated over the segments, shape (N,)."""
        return np.concatenate([s.t for s in self.segments])

    @property
    def x(self):
        """All states, concatenated over the segments, shape (N, nx)."""
        return np.concatenate([s.x for s in self.segments])

    @property
    def modes(self):
        """The mode name at every sample of :attr:`t`."""
        return np.concatenate([[s.mode] * len(s.t) for s in self.segments])

    @property
    def t_final(self):
        """The time at which the run ended (s)."""
        return float(self.segments[-1].t[-1])

    def event_times(self, guard=None):
        """Times of all events, or of the events of one guard, shape (k,)."""
        return np.array([ev.t for ev in self.events if guard is None or ev.guard == guard])

    def sample(self, times):
        """States at the given times, shape (len(times), nx), from the segments' dense output.

        At an event time the state after the reset is returned.
        """
        times = np.atleast_1d(np.asarray(times, dtype=float))
        out = np.empty((len(times), self.segments[0].x.shape[1]))
        starts = np.array([s.t[0] for s in self.segments])
        which = np.maximum(np.searchsorted(starts, times, side="right") - 1, 0)
        for k in np.unique(which):
            seg, idx = self.segments[k], np.flatnonzero(which == k)
            tc = np.clip(times[idx], seg.t[0], seg.t[-1])
            out[idx] = seg.dense(tc).T if seg.dense is not None and seg.t[-1] > seg.t[0] else seg.x[-1]
        return out


class GuardNotReached(ValueError):
    """A guard that was asked for did not fire before the time limit."""


def _mode_table(modes):
    table = {}
    for m in modes:
        if not isinstance(m, Mode):
            raise ValueError(f"modes must be a list of Mode objects, got {type(m).__name__}")
        if m.name in table:
            raise ValueError(f"modes must have distinct names; {m.name!r} appears twice")
        table[m.name] = m
    if not table:
        raise ValueError("modes must contain at least one Mode")
    return table


# --- flowing inside a mode until a guard fires ----------------------------------
#: Interior points of every accepted step at which the guards are evaluated.
GUARD_SAMPLES = 8
#: A guard whose witness is within this of zero at the start of a segment is "on its surface".
ON_SURFACE = 1e-9


def _fires(before, after, direction):
    """Whether a witness going from ``before`` to ``after`` crosses zero in ``direction``."""
    down = before > 0.0 and after <= 0.0
    up = before < 0.0 and after >= 0.0
    return down if direction < 0 else up if direction > 0 else (down or up)


def _flow(dynamics, guards, t0, x0, t_final, rtol, atol, max_step):
    """Integrate ẋ = f(t, x) from (t0, x0) until t_final or the first guard crossing.

    Returns (times, states, dense output, index of the guard that fired or
    None). The last time and state are the event's when a guard fired. See
    :func:`simulate_hybrid` for why the guards are watched this way.
    """
    def witness(g, t, x):
        w = float(g.witness(t, x))
        if not np.isfinite(w):
            raise ValueError(f"guard {g.name!r}: the witness is {w} at t = {t:.6g} s, x = {x}")
        return w

    # The side each guard was last seen on. A witness that starts on its
    # surface (a reset has just put the state there) counts as being on the
    # side it must leave to fire: it fires if the flow carries it straight
    # through, and not if the flow carries it away.
    last = []
    for g in guards:
        w = witness(g, t0, x0)
        if abs(w) <= ON_SURFACE:
            w = -g.direction if g.direction != 0 else 0.0
        last.append(w)
    solver = DOP853(dynamics, t0, x0, t_final, rtol=rtol, atol=atol, max_step=max_step)
    ts, xs, pieces = [t0], [np.array(x0, dtype=float)], []
    while solver.status == "running":
        solver.step()
        if solver.status == "failed":
            raise RuntimeError(f"integration failed at t = {solver.t:g} s")
        t_old, t_new, dense = solver.t_old, solver.t, solver.dense_output()
        pieces.append(dense)
        fired, t_fire = None, np.inf
        grid = np.linspace(t_old, t_new, GUARD_SAMPLES + 2)[1:]
        states = dense(grid).T if guards else ()
        for i, g in enumerate(guards):
            before, t_before = last[i], t_old
            for tk, xk in zip(grid, states):
                if tk >= t_fire:                      # another guard fires earlier
                    break
                w = witness(g, tk, xk)
                if _fires(before, w, g.direction):
                    t_hit = tk
                    if w != 0.0:
                        def f(tt, g=g):
                            return witness(g, tt, dense(tt))
                        # No sign change here means the witness started on its
                        # surface and the flow carried it straight through.
                        t_hit = (t_before if f(t_before) * w >= 0.0 else
                                 brentq(f, t_before, tk, xtol=1e-15, rtol=4 * np.finfo(float).eps))
                    fired, t_fire = i, t_hit
                    break
                if w != 0.0:
                    before, t_before = w, tk
            last[i] = before
        if fired is not None:
            if t_fire > ts[-1]:
                ts.append(t_fire)
                xs.append(dense(t_fire))
            else:                                     # fired where the step began
                pieces.pop()
            return np.array(ts), np.array(xs), (OdeSolution(ts, pieces) if pieces else None), fired
        ts.append(t_new)
        xs.append(solver.y.copy())
    return np.array(ts), np.array(xs), (OdeSolution(ts, pieces) if pieces else None), None


def simulate_hybrid(modes, mode, x0, t_final, stop_at=None, max_events=1000, zeno_dt=1e-6,
                    rtol=1e-10, atol=1e-10, max_step=np.inf):
    """Simulate a hybrid system with event detection (notes 004, "Simulating Hybrid Systems").

    Inside a mode the state flows by ẋ = f(x) (SciPy's DOP853). When one of
    the mode's guards crosses zero in its direction the flow stops at the
    crossing (located by root finding on the step's dense output), the reset
    maps x⁻ to x⁺ and the guard's target mode takes over. The run ends at
    ``t_final``, at the first firing of a guard named in ``stop_at`` (a name
    or a collection of names), when events pile up (Zeno) without a
    ``zeno_target``, or after ``max_events`` events, so it always terminates.
    Returns a :class:`HybridTrajectory`.

    How a crossing is never stepped over. An integrator that only compares a
    witness at the two ends of each step misses a crossing in two ways, and
    both happen after a reset: (1) a reset leaves the state *on* the surface
    of a guard (a ball that has just bounced is at height zero), so the
    witness starts at ±1e-17, and when it starts at −1e-17 a flight that comes
    back down ends the step on the same side it started; (2) a smooth flight
    (a parabola) is integrated exactly, so one step may span the whole flight.
    Here (1) a witness within ``ON_SURFACE`` of zero at the start of a segment
    counts as being on the side it must leave to fire, so it fires when the
    flow carries it straight through and not when the flow carries it away;
    and (2) every guard is evaluated at ``GUARD_SAMPLES`` interior points of
    every accepted step's dense output, so a crossing is found unless the
    witness goes out and back within an eighth of a step, a time over which
    the integrator's own error control keeps the state nearly polynomial.

    >>> fall = Mode("fall", lambda t, x: np.array([x[1], -9.81]),
    ...             (Guard("ground", lambda t, x: x[0], target="fall",
    ...                    reset=lambda x: np.array([x[0], -0.5 * x[1]])),))
    >>> run = simulate_hybrid([fall], "fall", [1.0, 0.0], t_final=1.0)
    >>> len(run.events), round(run.events[0].t, 6)
    (2, 0.451524)

    Introduced in: chapter 6.
    """
    table = _mode_table(modes)
    if mode not in table:
        raise ValueError(f"mode must be one of {sorted(table)}, got {mode!r}")
    x = np.asarray(x0, dtype=float).ravel()
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"x0 must be a non-empty array of finite numbers, got {x0!r}")
    t_final = _checks.positive("t_final", t_final)
    max_events = int(_checks.positive("max_events", max_events))
    zeno_dt = _checks.nonnegative("zeno_dt", zeno_dt)
    rtol = _checks.positive("rtol", rtol)
    atol = _checks.positive("atol", atol)
    max_step = _checks.positive("max_step", max_step) if np.isfinite(max_step) else np.inf

    stop_at = {stop_at} if isinstance(stop_at, str) else set(stop_at or ())
    t = 0.0
    segments, events = [], []
    last_fired = {}
    status, message = "time limit", f"reached t_final = {t_final:g} s"
    while True:
        current = table[mode]
        try:
            ts, xs, dense, fired = _flow(current.dynamics, current.guards, t, x, t_final, rtol, atol, max_step)
        except RuntimeError as err:
            raise RuntimeError(f"mode {mode!r}: {err}") from None
        segments.append(Segment(mode, ts, xs, dense))
        if fired is None:                              # no event: the time limit was reached
            break
        t_event = float(ts[-1])
        guard = current.guards[fired]
        x_minus = xs[-1].copy()
        key = (guard.name, mode)
        zeno = key in last_fired and t_event - last_fired[key] < zeno_dt
        last_fired[key] = t_event
        if zeno and guard.zeno_target is None:
            status = "zeno"
            message = (f"Zeno: guard {guard.name!r} fired twice within {zeno_dt:g} s at t = {t_event:.6g} s "
                       f"and has no zeno_target; stopped there")
            events.append(Event(t_event, guard.name, mode, mode, x_minus, x_minus, True))
            break
        if zeno:
            reset = guard.zeno_reset or guard.reset
            target = guard.zeno_target
        else:
            reset = guard.reset
            target = guard.target
        x_plus = np.asarray(reset(x_minus), dtype=float) if reset is not None else x_minus.copy()
        if callable(target):
            target = target(x_plus)
        if target not in table:
            raise ValueError(f"guard {guard.name!r} leads to mode {target!r}, which is not in modes")
        events.append(Event(t_event, guard.name, mode, target, x_minus, x_plus, zeno))
        t, x, mode = t_event, x_plus, target
        if guard.name in stop_at:
            status, message = "stopped at guard", f"guard {guard.name!r} fired at t = {t_event:.6g} s"
            break
        if len(events) >= max_events:
            status = "max events"
            message = (f"stopped after max_events = {max_events} events at t = {t:.6g} s "
                       f"(last guard {guard.name!r}); raise max_events or look for Zeno behaviour")
            break
        if t >= t_final:
            break
    return HybridTrajectory(tuple(segments), tuple(events), status, message)


def first_event(modes, mode, x0, guard, t_max, forbidden=(), **kwargs):
    """Simulate until the guard named ``guard`` fires; return that :class:`Event`.

    Raises :class:`GuardNotReached` (a ``ValueError``) with the reason if the
    guard does not fire before ``t_max``: the run reached the time limit, got
    stuck in Zeno behaviour, hit ``max_events``, or a guard named in
    ``forbidden`` fired first. Other guards may fire on the way; their resets
    are applied.

    >>> fall = Mode("fall", lambda t, x: np.array([x[1], -9.81]),
    ...             (Guard("ground", lambda t, x: x[0], target="fall"),))
    >>> round(first_event([fall], "fall", [1.0, 0.0], "ground", t_max=2.0).t, 6)
    0.451524

    Introduced in: chapter 6.
    """
    table = _mode_table(modes)
    names = {g.name for m in table.values() for g in m.guards}
    if guard not in names:
        raise ValueError(f"guard must be one of {sorted(names)}, got {guard!r}")
    forbidden = {forbidden} if isinstance(forbidden, str) else set(forbidden)
    run = simulate_hybrid(modes, mode, x0, t_max, stop_at={guard} | forbidden, **kwargs)
    if run.status == "stopped at guard" and run.events[-1].guard != guard:
        ev = run.events[-1]
        raise GuardNotReached(f"guard {guard!r} did not fire: guard {ev.guard!r} fired first, "
                              f"at t = {ev.t:.6g} s")
    if run.status != "stopped at guard":
        others = ", ".join(sorted({ev.guard for ev in run.events})) or "none"
        raise GuardNotReached(f"guard {guard!r} did not fire before t_max = {t_max:g} s "
                              f"({run.message}; other guards that fired: {others})")
    return run.events[-1]


# --- return maps -----------------------------------------------------------
def fixed_point(return_map, z0, tol=1e-10):
    """A fixed point z* = P(z*) of a return (Poincaré) map, by Newton-type root finding on P(z) − z.

    ``return_map`` takes and returns arrays of shape (k,) (a scalar map may
    take and return floats). Raises ``RuntimeError`` if the root finder fails.

    >>> float(fixed_point(lambda z: 0.5 * z + 1.0, [0.0])[0])
    2.0

    Introduced in: chapter 6.
    """
    z0 = np.atleast_1d(np.asarray(z0, dtype=float))
    sol = root(lambda z: np.atleast_1d(return_map(z)) - z, z0, method="hybr", tol=tol)
    if not sol.success:
        raise RuntimeError(f"no fixed point found from z0 = {z0}: {sol.message}")
    return sol.x


def return_map_jacobian(return_map, z, eps=1e-6):
    """∂P/∂z by central finite differences, shape (k, k); the fixed point is stable if all |eigenvalues| < 1.

    >>> np.round(return_map_jacobian(lambda z: 0.5 * z + 1.0, [2.0]), 9)
    array([[0.5]])

    Introduced in: chapter 6.
    """
    z = np.atleast_1d(np.asarray(z, dtype=float))
    eps = _checks.positive("eps", eps)
    cols = []
    for i in range(z.size):
        dz = np.zeros_like(z)
        dz[i] = eps
        cols.append((np.atleast_1d(return_map(z + dz)) - np.atleast_1d(return_map(z - dz))) / (2 * eps))
    return np.array(cols).T


# --- contact as a hybrid system ------------------------------------------------
@dataclass(frozen=True)
class Contact:
    """A potential contact: signed distance φ(q), contact rows J(q) = [n; t…] and J̇(q, q̇) q̇.

    The first row of ``jacobian(q)`` is the normal n = ∂φ/∂q; further rows
    are tangents, which an active contact holds still (infinite friction: the
    contact sticks). ``jdot_v(q, v)`` returns J̇ v, shape (rows,); if it is
    ``None`` it is computed by a central finite difference of J along v.
    """

    name: str
    phi: Callable
    jacobian: Callable
    jdot_v: Callable = None

    def rows(self, q):
        """J(q) as a 2-D array, shape (rows, n)."""
        return np.atleast_2d(np.asarray(self.jacobian(q), dtype=float))

    def rows_dot_v(self, q, v):
        """J̇(q, q̇) q̇, shape (rows,)."""
        if self.jdot_v is not None:
            return np.atleast_1d(np.asarray(self.jdot_v(q, v), dtype=float))
        eps = 1e-6 / max(1.0, float(np.linalg.norm(v)))
        return (self.rows(q + eps * v) - self.rows(q - eps * v)) @ v / (2 * eps)


def contact_dynamics(system, contacts, q, v):
    """Accelerations and contact forces with the given contacts held (notes 000, bilateral constraints).

    With a = M⁻¹(tau_g + tau_ext − C v) the free acceleration and J the stacked
    contact rows, J q̈ + J̇ q̇ = 0 gives

        λ = −(J M⁻¹ Jᵀ)^# (J a + J̇ q̇),    q̈ = a + M⁻¹ Jᵀ λ.

    Returns (q̈ shape (n,), λ shape (rows,)); λ[0] of each contact is its normal force.

    >>> ball = PointMass(m=2.0, dim=1)
    >>> contact_dynamics(ball, [floor_contact(1)], [0.0], [0.0])
    (array([0.]), array([19.62]))

    Introduced in: chapter 6.
    """
    q, v = system._state(q, v)
    a = system.forward_dynamics(q, v)
    if not contacts:
        return a, np.zeros(0)
    J = np.vstack([c.rows(q) for c in contacts])
    Jdv = np.concatenate([c.rows_dot_v(q, v) for c in contacts])
    Minv_JT = np.linalg.solve(system.mass_matrix(q), J.T)
    lam = -np.linalg.pinv(J @ Minv_JT) @ (J @ a + Jdv)
    return a + Minv_JT @ lam, lam


def mode_name(active):
    """The name of the mode with these contacts active: "free", or their names joined by "+"."""
    return "+".join(sorted(active)) if active else "free"


def contact_modes(system, contacts, e=0.0):
    """The modes, guards and resets of a system with unilateral contacts (notes 000, "Putting it all together").

    State x = [q, v]. There is one mode per set of active contacts (2^k modes
    for k contacts, named by :func:`mode_name`). In a mode the active contacts
    are bilateral constraints (:func:`contact_dynamics`), and

    * an inactive contact i has the guard φᵢ(q) = 0 (crossing downwards): the
      reset is an impact with restitution e (normal rows get 1+e, tangent rows
      1; see :func:`lib.impulse.impact_map_general`) on the touching contact
      and the active ones, releasing any active contact the impulse would have
      to pull on. The contact becomes active if its normal velocity after the
      impact is zero (always when e = 0); otherwise the body bounces off. A
      Zeno pile-up of bounces ends in the mode with the contact active.
    * an active contact i has the guard λᵢ = 0 (the normal force falling
      through zero): no reset, and the contact becomes inactive.

    >>> modes = contact_modes(PointMass(dim=1), [floor_contact(1)], e=0.5)
    >>> [m.name for m in modes], [g.name for m in modes for g in m.guards]
    (['free', 'floor'], ['floor touchdown', 'floor liftoff'])

    Introduced in: chapter 6.
    """
    e = _restitution(e)
    if not isinstance(system, ManipulatorSystem):
        raise ValueError("system must be a ManipulatorSystem (the common protocol)")
    contacts = list(contacts)
    if not contacts or not all(isinstance(c, Contact) for c in contacts):
        raise ValueError("contacts must be a non-empty list of Contact objects")
    by_name = {c.name: c for c in contacts}
    if len(by_name) != len(contacts):
        raise ValueError("contacts must have distinct names")
    n = system.n

    def split(x):
        return x[:n], x[n:]

    def normal_force(active, x, name):
        q, v = split(x)
        chosen = [by_name[a] for a in sorted(active)]
        _, lam = contact_dynamics(system, chosen, q, v)
        i = 0
        for c in chosen:
            if c.name == name:
                return lam[i]
            i += c.rows(q).shape[0]
        raise KeyError(name)

    def settle(active, x):
        """Drop active contacts whose normal force would be negative (they let go)."""
        active = set(active)
        while active:
            forces = {a: normal_force(active, x, a) for a in active}
            worst = min(forces, key=forces.get)
            if forces[worst] >= -1e-9:
                break
            active.discard(worst)
        return mode_name(active)

    def impact(active, name, x, e_hit):
        q, v = split(x)
        held = set(active) | {name}
        M = system.mass_matrix(q)
        while True:
            chosen = [by_name[a] for a in sorted(held)]
            J, D, normal_of = [], [], {}
            for c in chosen:
                rows = c.rows(q)
                normal_of[c.name] = len(D)
                D.extend([1.0 + (e_hit if c.name == name else 0.0)] + [1.0] * (rows.shape[0] - 1))
                J.append(rows)
            J = np.vstack(J)
            A = J @ np.linalg.solve(M, J.T)
            Lam = -np.linalg.pinv(A) @ (np.array(D) * (J @ v))
            pulling = {a: Lam[normal_of[a]] for a in held if a != name and Lam[normal_of[a]] < -1e-12}
            if not pulling:
                break
            held.discard(min(pulling, key=pulling.get))
        return np.concatenate([q, impact_map_general(M, J, D) @ v])

    modes = []
    names = [c.name for c in contacts]
    for k in range(len(names) + 1):
        for active in combinations(names, k):
            active = frozenset(active)

            def dynamics(t, x, active=active):
                q, v = split(x)
                qdd, _ = contact_dynamics(system, [by_name[a] for a in sorted(active)], q, v)
                return np.concatenate([v, qdd])

            guards = []
            for c in contacts:
                if c.name in active:
                    guards.append(Guard(
                        f"{c.name} liftoff",
                        lambda t, x, active=active, c=c: normal_force(active, x, c.name),
                        target=mode_name(active - {c.name}), direction=-1.0))
                else:
                    def reset(x, active=active, c=c):
                        return impact(active, c.name, x, e)

                    def target(x_plus, active=active, c=c):
                        q, v = split(x_plus)
                        touching = {a for a in active | {c.name}
                                    if abs(by_name[a].rows(q)[0] @ v) <= 1e-9 * max(1.0, np.linalg.norm(v))}
                        return settle(touching, x_plus)

                    def zeno_reset(x, active=active, c=c):
                        return impact(active, c.name, x, 0.0)

                    guards.append(Guard(
                        f"{c.name} touchdown",
                        lambda t, x, c=c: c.phi(split(x)[0]),
                        target=target, reset=reset, direction=-1.0,
                        zeno_target=target, zeno_reset=zeno_reset))
            modes.append(Mode(mode_name(active), dynamics, tuple(guards)))
    return modes


# --- contacts for the point mass (lib.constraints.PointMass) -------------------------
def floor_contact(dim, height=0.0, name="floor"):
    """A frictionless horizontal floor for a :class:`PointMass`: φ(q) = z − height, n = [0, …, 1].

    >>> floor_contact(2).phi(np.array([0.3, 1.5]))
    1.5
    """
    height = _checks.finite("height", height)
    normal = np.zeros(dim)
    normal[-1] = 1.0
    return Contact(name, lambda q: float(q[-1] - height), lambda q: normal.reshape(1, -1),
                   lambda q, v: np.zeros(1))


def circle_contact(center, R, name="hump"):
    """A frictionless circle (sphere) of radius R for a :class:`PointMass` outside it.

        φ(q) = ‖q − c‖ − R,   n = (q − c)ᵀ / ‖q − c‖,   J̇ q̇ = (‖q̇‖² − (n q̇)²) / ‖q − c‖

    >>> hump = circle_contact([0.0, 0.0], 1.0)
    >>> hump.phi(np.array([0.0, 1.5])), hump.jacobian(np.array([0.0, 1.5]))
    (0.5, array([[0., 1.]]))
    """
    c = np.asarray(center, dtype=float)
    R = _checks.positive("R", R)

    def phi(q):
        return float(np.linalg.norm(q - c) - R)

    def jacobian(q):
        d = q - c
        return (d / np.linalg.norm(d)).reshape(1, -1)

    def jdot_v(q, v):
        d = q - c
        r = np.linalg.norm(d)
        return np.array([(v @ v - (d @ v / r) ** 2) / r])

    return Contact(name, phi, jacobian, jdot_v)


def bouncing_ball_modes(e, m=1.0, g=9.81):
    """The bouncing ball: a point mass over a floor, modes "free" (flight) and "floor" (resting).

    Touchdown (z = 0) reverses the velocity, ż⁺ = −e ż⁻; the bounces pile up
    (Zeno) and the ball comes to rest on the floor.

    >>> run = simulate_hybrid(bouncing_ball_modes(e=0.5), "free", [1.0, 0.0], t_final=3.0)
    >>> run.segments[-1].mode, round(run.events[-1].t, 4), round(bouncing_ball_rest_time(1.0, 0.5), 4)
    ('floor', 1.3546, 1.3546)

    Introduced in: chapter 6.
    """
    return contact_modes(PointMass(m=m, g=g, dim=1), [floor_contact(1)], e)


def bouncing_ball_rest_time(h0, e, g=9.81):
    """When a ball dropped from rest at height h0 comes to rest: t∞ = √(2 h0/g) (1 + e)/(1 − e).

    The first fall takes t₀ = √(2 h0/g) and ends at speed v₀ = g t₀; the k-th
    flight after it lasts 2 eᵏ v₀/g, a geometric series summing to
    2 e v₀ / (g (1 − e)).

    >>> round(bouncing_ball_rest_time(1.0, 0.0), 4)
    0.4515
    """
    h0 = _checks.positive("h0", h0)
    e = _restitution(e)
    g = _checks.positive("g", g)
    if e == 1.0:
        return np.inf
    return float(np.sqrt(2 * h0 / g) * (1 + e) / (1 - e))


def spinning_ball_modes(ball, e):
    """A :class:`lib.impulse.SpinningBall` bouncing on the ground: modes "free" (flight) and "ground" (rolling).

    Touchdown (φ = z − r = 0) applies the post-impact matrix of the notes
    (infinite friction): after the first bounce the contact point no longer
    slides, and once the bounces pile up the ball rolls, ẋ + r θ̇ = 0.

    >>> from lib.impulse import SpinningBall
    >>> ball = SpinningBall(r=0.1)
    >>> x0 = [0.0, 0.5, 0.0, 1.0, 0.0, 30.0]          # moving right with backspin
    >>> run = simulate_hybrid(spinning_ball_modes(ball, e=0.6), "free", x0, t_final=2.0)
    >>> round(float(run.events[0].x_plus[3]), 3)       # after the first bounce it moves left
    -0.6

    Introduced in: chapter 6.
    """
    contact = Contact("ground", ball.signed_distance, ball.contact_jacobian, lambda q, v: np.zeros(2))
    return contact_modes(ball, [contact], e)


# --- the rimless wheel ------------------------------------------------------------
@dataclass(frozen=True)
class RimlessWheel(ManipulatorSystem):
    """The rimless wheel on a ramp, in minimal coordinates: the stance leg pinned at its toe (notes 004).

    A point mass m at the hub (plus an optional hub inertia I) on massless
    spokes of length l, 2α apart, rolling down a ramp of slope γ. q = [θ], the
    stance leg's angle clockwise from the vertical. In stance

        (m l² + I) θ̈ = m g l sin θ        (θ̈ = (g/l) sin θ when I = 0),

    the next toe touches down at θ = γ + α, and the collision (angular
    momentum about the new toe conserved, the old leg leaving the ground)
    resets θ⁺ = θ⁻ − 2α and

        θ̇⁺ = c θ̇⁻,   c = (m l² cos 2α + I)/(m l² + I)   (= cos 2α when I = 0).

    Energy conservation over a step, ½ θ̇_N² = ½ θ̇_0² + 2 (g/l) sin α sin γ,
    with θ̇_0 = c θ̇_N gives the rolling fixed point (just after a collision)

        θ̇* = c √(4 m g l sin α sin γ / ((m l² + I)(1 − c²)))  (= cot 2α √(4 (g/l) sin α sin γ)).

    >>> wheel = RimlessWheel(alpha=np.pi / 8, gamma=0.08)
    >>> round(wheel.rolling_fixed_point(), 6)
    1.095463

    Introduced in: chapter 6.
    """

    m: float = 1.0
    l: float = 1.0
    g: float = 9.81
    alpha: float = np.pi / 8
    gamma: float = 0.08
    I: float = 0.0
    n = 1

    def __post_init__(self):
        _checks.positive("m", self.m)
        _checks.positive("l", self.l)
        _checks.positive("g", self.g)
        alpha = _checks.positive("alpha", self.alpha)
        if alpha >= np.pi / 2:
            raise ValueError(f"alpha must be in (0, π/2) (half the angle between spokes), got {self.alpha!r}")
        gamma = _checks.finite("gamma", self.gamma)
        if not (0.0 <= gamma < np.pi / 2):
            raise ValueError(f"gamma must be in [0, π/2) (the ramp slope), got {self.gamma!r}")
        _checks.nonnegative("I", self.I)

    # the protocol
    def mass_matrix(self, q):
        _checks.vector("q", q, 1)
        return np.array([[self.m * self.l**2 + self.I]])

    def coriolis_matrix(self, q, v):
        self._state(q, v)
        return np.zeros((1, 1))

    def gravity_vector(self, q):
        q = _checks.vector("q", q, 1)
        return np.array([self.m * self.g * self.l * np.sin(q[0])])

    def input_matrix(self):
        return np.zeros((1, 0))

    def potential_energy(self, q):
        """U = m g l cos θ: the hub's height above the stance toe, times m g."""
        return self.m * self.g * self.l * np.cos(_checks.vector("q", q, 1)[0])

    # the collision
    @property
    def impact_factor(self):
        """c = (m l² cos 2α + I)/(m l² + I): θ̇⁺ = c θ̇⁻ at every collision."""
        ml2 = self.m * self.l**2
        return (ml2 * np.cos(2 * self.alpha) + self.I) / (ml2 + self.I)

    def reset(self, x):
        """The collision with the next (downhill) leg: [θ, θ̇] ↦ [θ − 2α, c θ̇].

        >>> RimlessWheel(alpha=np.pi / 8, gamma=0.0).reset([np.pi / 8, 1.0]).round(6)
        array([-0.392699,  0.707107])
        """
        x = _checks.vector("x", x, 2)
        return np.array([x[0] - 2 * self.alpha, self.impact_factor * x[1]])

    def reset_back(self, x):
        """Falling back onto the uphill leg: [θ, θ̇] ↦ [θ + 2α, c θ̇]."""
        x = _checks.vector("x", x, 2)
        return np.array([x[0] + 2 * self.alpha, self.impact_factor * x[1]])

    # closed forms
    def _step_energy(self):
        """K = θ̇_N² − θ̇_0² over one step: 4 m g l sin α sin γ / (m l² + I)."""
        return 4 * self.m * self.g * self.l * np.sin(self.alpha) * np.sin(self.gamma) / (self.m * self.l**2 + self.I)

    def min_rolling_speed(self):
        """The smallest θ̇ just after a collision that carries the hub over the top of the stance leg (rad/s).

        Zero when γ ≥ α (the stance leg never passes the vertical). From
        ½ (m l² + I) ω² = m g l (1 − cos(γ − α)).

        >>> round(RimlessWheel().min_rolling_speed(), 4)
        0.9754
        """
        top = self.gamma - self.alpha
        if top >= 0:
            return 0.0
        return float(np.sqrt(2 * self.m * self.g * self.l * (1 - np.cos(top)) / (self.m * self.l**2 + self.I)))

    def return_map(self, omega):
        """The step-to-step map of θ̇ just after a collision: ω ↦ c √(ω² + K), K = 4 m g l sin α sin γ/(m l² + I).

        Raises ``ValueError`` if ω is too slow to carry the wheel over the top
        (the wheel then rocks back and takes no step).

        >>> w = RimlessWheel()
        >>> round(w.return_map(w.rolling_fixed_point()) - w.rolling_fixed_point(), 12)
        0.0
        """
        omega = _checks.finite("omega", omega)
        if omega <= self.min_rolling_speed():
            raise ValueError(f"omega = {omega:g} rad/s does not carry the wheel over the top of the stance leg "
                             f"(it needs more than {self.min_rolling_speed():.4g} rad/s); no step is taken")
        return float(self.impact_factor * np.sqrt(omega**2 + self._step_energy()))

    def rolling_fixed_point(self):
        """θ̇* just after a collision on the rolling limit cycle (rad/s); ValueError if the wheel cannot roll."""
        c = self.impact_factor
        omega = float(c * np.sqrt(self._step_energy() / (1 - c**2)))
        if self.gamma == 0.0 or omega <= self.min_rolling_speed():
            raise ValueError(f"no rolling limit cycle for alpha = {self.alpha:g}, gamma = {self.gamma:g}: "
                             f"the fixed point would not carry the wheel over the top")
        return omega

    def return_map_derivative(self):
        """dP/dω at the rolling fixed point: c² (< 1, so the limit cycle is stable).

        From P(ω) = c √(ω² + K): dP/dω = c ω / √(ω² + K) = c² ω / P(ω) = c² at ω = P(ω).

        >>> round(RimlessWheel(alpha=np.pi / 8).return_map_derivative(), 6)   # cos²(π/4)
        0.5
        """
        return float(self.impact_factor**2)

    # as a hybrid system
    def modes(self):
        """Modes "stance" and "standing" for :func:`simulate_hybrid`, state x = [θ, θ̇].

        Stance has two guards: "collision" (θ = γ + α, rolling forward; reset
        :meth:`reset`) and "back collision" (θ = γ − α, rocking back; reset
        :meth:`reset_back`). When the rocking collisions pile up (Zeno) the
        wheel stands still on two legs, mode "standing".

        >>> w = RimlessWheel()
        >>> run = simulate_hybrid(w.modes(), "stance", [w.gamma - w.alpha, 1.5], t_final=20.0)
        >>> round(float(run.events[-1].x_plus[1]), 3)      # converging to θ̇* = 1.0955
        1.095
        """
        a, g_ = self.alpha, self.gamma
        k = self.m * self.g * self.l / (self.m * self.l**2 + self.I)

        def stance(t, x):
            # θ̈ = m g l sin θ / (m l² + I): forward_dynamics written out, for speed.
            return np.array([x[1], k * np.sin(x[0])])

        def standing_reset(x):
            return np.array([g_ - a, 0.0])

        front = Guard("collision", lambda t, x: x[0] - (g_ + a), target="stance", reset=self.reset,
                      direction=1.0, zeno_target="standing", zeno_reset=standing_reset)
        back = Guard("back collision", lambda t, x: x[0] - (g_ - a), target="stance", reset=self.reset_back,
                     direction=-1.0, zeno_target="standing", zeno_reset=standing_reset)
        return [Mode("stance", stance, (front, back)),
                Mode("standing", lambda t, x: np.zeros(2))]

    def return_map_by_simulation(self, omega, t_max=10.0):
        """The step-to-step map evaluated by simulating one step with event detection (shooting).

        Raises :class:`GuardNotReached` if the wheel rocks back onto its
        uphill leg instead of taking a step, or takes no step before t_max.

        >>> w = RimlessWheel()
        >>> round(w.return_map_by_simulation(1.0), 8) == round(w.return_map(1.0), 8)
        True
        """
        omega = _checks.finite("omega", omega)
        ev = first_event(self.modes(), "stance", [self.gamma - self.alpha, omega], "collision", t_max,
                         forbidden="back collision")
        return float(ev.x_plus[1])

    def fixed_point_by_shooting(self, omega0=1.0):
        """θ̇* found by root finding on the simulated return map, P(ω) − ω = 0 (rad/s).

        >>> w = RimlessWheel()
        >>> abs(w.fixed_point_by_shooting() - w.rolling_fixed_point()) < 1e-8
        True
        """
        return float(fixed_point(lambda z: np.array([self.return_map_by_simulation(z[0])]), [omega0])[0])

    def spokes(self, theta, toe=(0.0, 0.0)):
        """Hub position (2,) and the toe positions of all spokes (k, 2), x right and z up, for drawing.

        The stance toe is at ``toe``; spoke j points at angle θ + 2αj from the downward vertical.
        """
        theta = _checks.finite("theta", theta)
        toe = _checks.vector("toe", toe, 2)
        hub = toe + self.l * np.array([np.sin(theta), np.cos(theta)])
        k = int(round(np.pi / self.alpha))
        angles = theta + 2 * self.alpha * np.arange(k)
        return hub, hub - self.l * np.column_stack([np.sin(angles), np.cos(angles)])


@dataclass(frozen=True)
class FloatingRimlessWheel(PlanarBody):
    """The rimless wheel in floating-base coordinates q = [x, z, θ] (notes 004).

    (x, z) is the hub (x right, z up), θ the orientation measured like the
    minimal model's stance angle. Without contact the wheel is a free body:

        M = diag(m, m, I),   tau_g = [0, −m g, 0].

    Spoke j has its toe at p_j = [x − l sin ψ_j, z − l cos ψ_j], ψ_j = θ + 2αj
    (j = 0 the stance leg, j = −1 the next one downhill). The ramp passes
    through the origin with normal n̂ = [sin γ, cos γ] and downhill tangent
    t̂ = [cos γ, −sin γ]; the toe's signed distance is φ_j = n̂ · p_j and its
    contact rows J_j = [n̂ᵀ; t̂ᵀ] ∂p_j/∂q. A sticking toe is held by the
    contact force Jᵀλ, and the motion is then the minimal model's rotation
    about the toe (I > 0 is needed here: with I = 0 M would be singular).

    >>> fw = FloatingRimlessWheel(I=0.01)
    >>> q, v = fw.from_minimal(0.1, 1.0)
    >>> fw.to_minimal(q, v)
    (0.1, 1.0)

    Introduced in: chapter 6.
    """

    m: float = 1.0
    l: float = 1.0
    g: float = 9.81
    alpha: float = np.pi / 8
    gamma: float = 0.08
    I: float = 0.01
    n = 3

    def __post_init__(self):
        RimlessWheel(self.m, self.l, self.g, self.alpha, self.gamma, self.I)   # same checks
        _checks.positive("I", self.I)

    def minimal(self):
        """The same wheel in minimal coordinates (:class:`RimlessWheel`)."""
        return RimlessWheel(self.m, self.l, self.g, self.alpha, self.gamma, self.I)

    def input_matrix(self):
        return np.zeros((3, 0))

    def _frame(self):
        s, c = np.sin(self.gamma), np.cos(self.gamma)
        return np.array([s, c]), np.array([c, -s])

    def toe(self, q, j=0):
        """Position of the toe of spoke j, shape (2,).

        >>> FloatingRimlessWheel().toe([0.0, 1.0, 0.0])
        array([0., 0.])
        """
        q = _checks.vector("q", q, 3)
        psi = q[2] + 2 * self.alpha * j
        return np.array([q[0] - self.l * np.sin(psi), q[1] - self.l * np.cos(psi)])

    def signed_distance(self, q, j=0):
        """φ_j = n̂ · p_j: the height of toe j above the ramp (m)."""
        return float(self._frame()[0] @ self.toe(q, j))

    def contact_jacobian(self, q, j=0):
        """J_j = [n̂ᵀ; t̂ᵀ] ∂p_j/∂q, shape (2, 3): normal and tangential velocity of toe j.

        >>> FloatingRimlessWheel(gamma=0.0).contact_jacobian([0.0, 1.0, 0.0])
        array([[ 0.,  1.,  0.],
               [ 1.,  0., -1.]])
        """
        q = _checks.vector("q", q, 3)
        psi = q[2] + 2 * self.alpha * j
        dp = np.array([[1.0, 0.0, -self.l * np.cos(psi)], [0.0, 1.0, self.l * np.sin(psi)]])
        nh, th = self._frame()
        return np.array([nh @ dp, th @ dp])

    def contact_jdot_v(self, q, v, j=0):
        """J̇_j q̇ = [n̂ᵀ; t̂ᵀ] l θ̇² [sin ψ_j, cos ψ_j], shape (2,)."""
        q, v = self._state(q, v)
        psi = q[2] + 2 * self.alpha * j
        acc = self.l * v[2] ** 2 * np.array([np.sin(psi), np.cos(psi)])
        nh, th = self._frame()
        return np.array([nh @ acc, th @ acc])

    def contact(self, j=0):
        """Toe j as a sticking :class:`Contact` (normal and tangent rows) for :func:`contact_modes`."""
        return Contact(f"toe {j}", lambda q: self.signed_distance(q, j), lambda q: self.contact_jacobian(q, j),
                       lambda q, v: self.contact_jdot_v(q, v, j))

    def from_minimal(self, theta, thetadot, toe=(0.0, 0.0)):
        """(q, v) of the floating base for the minimal state (θ, θ̇) with the stance toe at ``toe``."""
        theta, thetadot = _checks.finite("theta", theta), _checks.finite("thetadot", thetadot)
        toe = _checks.vector("toe", toe, 2)
        s, c = np.sin(theta), np.cos(theta)
        q = np.array([toe[0] + self.l * s, toe[1] + self.l * c, theta])
        v = np.array([self.l * c * thetadot, -self.l * s * thetadot, thetadot])
        return q, v

    def to_minimal(self, q, v, j=0):
        """(θ, θ̇) of the minimal model standing on spoke j: θ = ψ_j = q[2] + 2αj, θ̇ = v[2]."""
        q, v = self._state(q, v)
        return float(q[2] + 2 * self.alpha * j), float(v[2])

    def modes(self, spokes=(0, -1), e=0.0):
        """:func:`contact_modes` with the toes of the given spokes as sticking contacts (default: stance and next)."""
        return contact_modes(self, [self.contact(j) for j in spokes], e)

    def stance_force(self, q, v, j=0):
        """The contact force λ = [λ_n, λ_t] holding toe j still (N); the toe sticks while |λ_t| ≤ μ λ_n.

        >>> fw = FloatingRimlessWheel(gamma=0.0)
        >>> fw.stance_force(*fw.from_minimal(0.0, 0.0)).round(6) + 0.0     # upright, at rest: the weight
        array([9.81, 0.  ])
        """
        _, lam = contact_dynamics(self, [self.contact(j)], q, v)
        return lam
