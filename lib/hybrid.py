"""Hybrid systems: modes, guards and resets, and a simulator that detects the events.

In the language of notes 004 ("(Autonomous) Hybrid Systems") a hybrid system
is a set of **modes**, each with its own smooth dynamics ẋ = f(x); a set of
**guards** (also called witness functions), continuous functions of the state
whose zero crossing triggers an event; and a **reset** per guard, the discrete
update x⁺ = Δ(x⁻) applied at the event, after which a (possibly different)
mode takes over. :func:`simulate_hybrid` integrates the current mode with
scipy's DOP853 one accepted step at a time, evaluates every guard of the mode
at ``GUARD_SAMPLES`` points inside each step (the step's dense output), locates
a crossing to high accuracy with a root finder ("Simulating Hybrid Systems"),
applies the reset and carries on; why the inside of the step is looked at is
explained in its docstring.

Events can pile up: a ball with restitution e < 1 bounces infinitely often
before a finite time (Zeno behaviour). The simulator notices when a guard
fires again within ``zeno_dt`` and switches to the guard's ``zeno_target``
mode (for the ball: resting contact), or stops and says so; it never hangs.

For contact (notes 000, "Putting it all together") the modes are the sets of
active contacts: an inactive contact becomes active at the guard φᵢ = 0 (with
an impact as the reset), an active one becomes inactive at the guard λᵢ = 0.
:func:`contact_modes` builds these modes for any system in the common
protocol; an active contact is a :class:`lib.constraints.Contact`, held by
:func:`lib.constraints.constrained_dynamics`, and an impact is
:mod:`lib.impulse`'s. The worked hybrid systems are in :mod:`lib.bouncing`
(the bouncing and the spinning ball) and :mod:`lib.rimless_wheel`.

Introduced in: chapter 6.
"""

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable

import numpy as np
from scipy.integrate import DOP853, OdeSolution
from scipy.optimize import brentq, root

from . import checks
from .constraints import Contact, constrained_dynamics
from .impulse import impact_impulse, impact_map_general, restitution
from .system import ManipulatorSystem


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

    >>> ground = Guard("ground", lambda t, x: x[0], target="fall")
    >>> ground.direction, ground.reset is None
    (-1.0, True)
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
    """A mode: continuous dynamics ``dynamics(t, x) -> ẋ`` and the guards that end it.

    >>> Mode("rest", lambda t, x: np.zeros(2)).guards
    ()
    """

    name: str
    dynamics: Callable
    guards: tuple = ()


@dataclass(frozen=True)
class Event:
    """One discrete transition: when, which guard, from and to which mode, x⁻ and x⁺.

    >>> fall = Mode("fall", lambda t, x: np.array([x[1], -9.81]), (Guard("ground", lambda t, x: x[0], target="fall"),))
    >>> ev = simulate_hybrid([fall], "fall", [1.0, 0.0], t_final=0.5).events[0]
    >>> ev.guard, ev.source, ev.target, round(ev.t, 6), ev.zeno
    ('ground', 'fall', 'fall', 0.451524, False)
    """

    t: float
    guard: str
    source: str
    target: str
    x_minus: np.ndarray
    x_plus: np.ndarray
    zeno: bool = False


@dataclass(frozen=True)
class Segment:
    """A piece of continuous flow inside one mode: the solver's times ``t`` (N,), states ``x`` (N, nx).

    >>> fall = Mode("fall", lambda t, x: np.array([x[1], -9.81]))
    >>> seg = simulate_hybrid([fall], "fall", [1.0, 0.0], t_final=0.5).segments[0]
    >>> seg.mode, seg.x.shape[1], float(seg.t[-1])
    ('fall', 2, 0.5)
    """

    mode: str
    t: np.ndarray
    x: np.ndarray
    dense: object = field(default=None, repr=False)


@dataclass(frozen=True)
class HybridTrajectory:
    """A hybrid run: the continuous segments, the events between them and why the run ended.

    It does not extend :class:`lib.system.Trajectory`: its state x need not
    split into q and v, a reset breaks the run into segments at the events,
    and the events belong to the result.

    ``status`` is "time limit" (reached t_final), "stopped at guard" (the
    guard named in ``stop_at`` fired), "zeno" (events accumulated and the
    guard had no ``zeno_target``) or "max events". ``message`` says the same
    in a sentence.

    >>> fall = Mode("fall", lambda t, x: np.array([x[1], -9.81]))
    >>> run = simulate_hybrid([fall], "fall", [1.0, 0.0], t_final=0.5)
    >>> run.status, run.sample([0.5]).round(4)
    ('time limit', array([[-0.2263, -4.905 ]]))
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
    """A guard that was asked for did not fire before the time limit.

    >>> issubclass(GuardNotReached, ValueError)
    True
    """


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

    It takes the modes, the starting mode and a state x0 where the other
    simulators take ``(system, q0, v0)``: a hybrid state lives in a mode, each
    mode's dynamics is its own ẋ = f(t, x) over a state that need not split
    into q and v, and the step is the solver's own, adaptive, so there is no
    ``h``.

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
    t_final = checks.positive("t_final", t_final)
    max_events = int(checks.positive("max_events", max_events))
    zeno_dt = checks.nonnegative("zeno_dt", zeno_dt)
    rtol = checks.positive("rtol", rtol)
    atol = checks.positive("atol", atol)
    max_step = checks.positive("max_step", max_step) if np.isfinite(max_step) else np.inf

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
    eps = checks.positive("eps", eps)
    cols = []
    for i in range(z.size):
        dz = np.zeros_like(z)
        dz[i] = eps
        cols.append((np.atleast_1d(return_map(z + dz)) - np.atleast_1d(return_map(z - dz))) / (2 * eps))
    return np.array(cols).T


# --- contact as a hybrid system ------------------------------------------------
def contact_dynamics(system, contacts, q, v):
    """Accelerations and contact forces with the given contacts held (notes 000, bilateral constraints).

    The held contacts are constraints J q̈ + J̇ q̇ = 0 on the stacked contact
    rows J, solved by :func:`lib.constraints.constrained_dynamics`:

        λ = −(J M⁻¹ Jᵀ)^# (J M⁻¹ τ + J̇ q̇),    q̈ = M⁻¹ (τ + Jᵀ λ),

    with τ the system's generalized force. Returns (q̈ shape (n,), λ shape
    (rows,)); λ[0] of each contact is its normal force. No contact: the free
    motion and no force.

    >>> from lib.particle import PointMass, floor_contact
    >>> contact_dynamics(PointMass(m=2.0, dim=1), [floor_contact(1)], [0.0], [0.0])
    (array([0.]), array([19.62]))

    Introduced in: chapter 6.
    """
    if not contacts:
        return system.forward_dynamics(q, v), np.zeros(0)
    return constrained_dynamics(system, list(contacts), q, v)


def mode_name(active):
    """The name of the mode with these contacts active: "free", or their names joined by "+".

    >>> mode_name(set()), mode_name({"toe 0", "toe -1"})
    ('free', 'toe -1+toe 0')

    Introduced in: chapter 6.
    """
    return "+".join(sorted(active)) if active else "free"


def contact_modes(system, contacts, e=0.0):
    """The modes, guards and resets of a system with unilateral contacts (notes 000, "Putting it all together").

    State x = [q, v]. There is one mode per set of active contacts (2^k modes
    for k contacts, named by :func:`mode_name`). In a mode the active contacts
    are bilateral constraints (:func:`contact_dynamics`), and

    * an inactive contact i has the guard φᵢ(q) = 0 (crossing downwards): the
      reset is an impact with restitution e (normal rows get 1+e, tangent rows
      1; see :func:`lib.impulse.impact_impulse`) on the touching contact
      and the active ones, releasing any active contact the impulse would have
      to pull on. The contact becomes active if its normal velocity after the
      impact is zero (always when e = 0); otherwise the body bounces off. A
      Zeno pile-up of bounces ends in the mode with the contact active.
    * an active contact i has the guard λᵢ = 0 (the normal force falling
      through zero): no reset, and the contact becomes inactive.

    >>> from lib.particle import PointMass, floor_contact
    >>> modes = contact_modes(PointMass(dim=1), [floor_contact(1)], e=0.5)
    >>> [m.name for m in modes], [g.name for m in modes for g in m.guards]
    (['free', 'floor'], ['floor touchdown', 'floor liftoff'])

    Introduced in: chapter 6.
    """
    e = restitution(e)
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
            Lam = impact_impulse(M, J, D, v)
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
