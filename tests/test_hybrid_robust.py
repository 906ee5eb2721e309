"""Every hybrid system the course ships, run under tiny perturbations and several tolerances.

A hybrid simulation can hang on the last bits of a float: after a reset the
state sits on a guard's surface, and whether the witness starts at +1e-17 or
−1e-17 must not decide whether the next crossing is seen. Each scenario here
is run from its initial state and from copies perturbed by a relative 1e-12,
at rtol = atol = 1e-6, 1e-8 and 1e-10, and every run must show the same
physics: the same sequence of modes, no body through the ground by more than
the tolerance at densely sampled times, the right final mode, and the closed
forms of the notes where there are some.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lib.bouncing import bouncing_ball_modes, bouncing_ball_rest_time, spinning_ball_modes
from lib.hybrid import Guard, Mode, contact_modes, simulate_hybrid
from lib.impulse import SpinningBall
from lib.particle import PointMass, circle_contact, floor_contact
from lib.rimless_wheel import FloatingRimlessWheel, RimlessWheel
from lib.trajopt import VerticalHopper

G = 9.81
TOLERANCES = (1e-6, 1e-8, 1e-10)
SEEDS = range(5)


def perturbed(x0, seed):
    """x0 itself for seed 0, else x0 with a relative perturbation of 1e-12 (and at least 1e-12 absolute)."""
    x0 = np.asarray(x0, dtype=float)
    if seed == 0:
        return x0.copy()
    noise = np.random.default_rng(seed).standard_normal(x0.shape)
    return x0 + 1e-12 * noise * np.maximum(np.abs(x0), 1.0)


def mode_sequence(run):
    """The modes visited, with repeats in a row collapsed: ["free", "free", "floor"] -> ["free", "floor"]."""
    seq = [run.segments[0].mode]
    for seg in run.segments[1:]:
        if seg.mode != seq[-1]:
            seq.append(seg.mode)
    return seq


def dense_states(run, n=4000):
    """The state at n evenly spaced times and at every solver time: a crossing between steps shows here."""
    tt = np.union1d(np.linspace(0.0, run.t_final, n), run.t)
    return run.sample(tt)


def runs(modes, mode, x0, t_final, **kwargs):
    """All (rtol, seed, run) of one scenario."""
    for rtol in TOLERANCES:
        for seed in SEEDS:
            yield rtol, seed, simulate_hybrid(modes, mode, perturbed(x0, seed), t_final,
                                              rtol=rtol, atol=rtol, **kwargs)


def slack(rtol):
    """How far a body may be found through a surface: the integration tolerance, with room for rounding."""
    return 10 * rtol


# --- the bouncing ball ---------------------------------------------------------------------
@pytest.mark.parametrize("e", [0.0, 0.5, 0.8])
def test_bouncing_ball_always_comes_to_rest_on_the_floor(e):
    t_rest = bouncing_ball_rest_time(1.0, e)
    for rtol, seed, run in runs(bouncing_ball_modes(e), "free", [1.0, 0.0], t_rest + 1.0):
        where = f"e = {e}, rtol = {rtol:g}, seed {seed}"
        assert mode_sequence(run) == ["free", "floor"], where
        assert run.status == "time limit", where
        assert dense_states(run)[:, 0].min() >= -slack(rtol), f"the ball went through the floor ({where})"
        rest = run.events[-1]
        assert rest.t == pytest.approx(t_rest, rel=1e-4), where
        # each bounce before the pile-up loses speed by e exactly
        speeds = np.array([ev.x_minus[1] for ev in run.events[:5] if not ev.zeno])
        if e > 0:
            np.testing.assert_allclose(speeds[1:] / speeds[:-1], e, rtol=1e-4, err_msg=where)


# --- the spinning ball (chapter 6) ---------------------------------------------------------
BALL = SpinningBall(r=0.1)


@pytest.mark.parametrize("spin, comes_back", [(10.0, False), (30.0, True)])
def test_spinning_ball_never_sinks_and_always_ends_rolling(spin, comes_back):
    x0 = [0.0, 0.5, 0.0, 1.0, 0.0, spin]
    for rtol, seed, run in runs(spinning_ball_modes(BALL, e=0.6), "free", x0, 2.0):
        where = f"spin {spin}, rtol = {rtol:g}, seed {seed}"
        assert mode_sequence(run) == ["free", "ground"], where
        X = dense_states(run)
        assert (X[:, 1] - BALL.r).min() >= -slack(rtol), f"the ball went through the ground ({where})"
        first = run.events[0]
        assert (first.x_plus[3] < 0) == comes_back, where
        q, v = run.x[-1][:3], run.x[-1][3:]
        assert q[1] == pytest.approx(BALL.r, abs=slack(rtol)), where
        assert v[0] + BALL.r * v[2] == pytest.approx(0.0, abs=slack(rtol)), f"rolling without slipping ({where})"


# --- the rimless wheel, minimal coordinates --------------------------------------------------
WHEEL = RimlessWheel(alpha=np.pi / 8, gamma=0.08)


def wheel_angle_stays_between_its_collisions(run, rtol, where):
    theta = dense_states(run)[:, 0]
    lo, hi = WHEEL.gamma - WHEEL.alpha, WHEEL.gamma + WHEEL.alpha
    assert theta.min() >= lo - slack(rtol) and theta.max() <= hi + slack(rtol), \
        f"the stance angle left [γ − α, γ + α]: a collision was missed ({where})"


@pytest.mark.parametrize("omega0", [1.0, 2.2])
def test_rolling_wheel_takes_every_step_and_approaches_the_limit_cycle(omega0):
    star = WHEEL.rolling_fixed_point()
    for rtol, seed, run in runs(WHEEL.modes(), "stance", [WHEEL.gamma - WHEEL.alpha, omega0], 6.0):
        where = f"omega0 = {omega0}, rtol = {rtol:g}, seed {seed}"
        assert mode_sequence(run) == ["stance"], where
        assert {ev.guard for ev in run.events} == {"collision"}, where
        wheel_angle_stays_between_its_collisions(run, rtol, where)
        post = np.array([omega0] + [ev.x_plus[1] for ev in run.events])
        expected = [omega0]
        for _ in run.events:
            expected.append(WHEEL.return_map(expected[-1]))
        np.testing.assert_allclose(post, expected, atol=100 * rtol, err_msg=where)
        assert abs(post[-1] - star) < 0.05 * abs(omega0 - star), where


def test_slow_wheel_always_rocks_back_and_comes_to_stand():
    for rtol, seed, run in runs(WHEEL.modes(), "stance", [WHEEL.gamma - WHEEL.alpha, 0.9], 10.0):
        where = f"rtol = {rtol:g}, seed {seed}"
        assert mode_sequence(run) == ["stance", "standing"], where
        assert run.events[0].guard == "back collision", where
        assert run.events[-1].zeno, where
        wheel_angle_stays_between_its_collisions(run, rtol, where)
        # every rock loses energy: the speeds after the collisions shrink by c each time
        speeds = np.abs([ev.x_plus[1] for ev in run.events if not ev.zeno])
        assert np.all(np.diff(speeds) < 0), where


# --- the rimless wheel, floating base (chapter 6) ----------------------------------------------
def test_floating_wheel_holds_its_toe_and_lands_on_the_next_one():
    fw = FloatingRimlessWheel(I=0.05)
    wheel = fw.minimal()
    omega = wheel.rolling_fixed_point()
    q0, v0 = fw.from_minimal(wheel.gamma - wheel.alpha, omega)
    reference = simulate_hybrid(wheel.modes(), "stance", [wheel.gamma - wheel.alpha, omega], 2.0,
                                stop_at="collision").events[-1]
    for rtol, seed, run in runs(fw.modes(), "toe 0", np.concatenate([q0, v0]), 2.0, stop_at="toe -1 touchdown"):
        where = f"rtol = {rtol:g}, seed {seed}"
        assert [(ev.guard, ev.target) for ev in run.events] == [("toe -1 touchdown", "toe -1")], where
        X = dense_states(run)
        assert all(fw.signed_distance(x[:3], -1) >= -slack(rtol) for x in X), f"the next toe went through ({where})"
        assert max(np.linalg.norm(fw.toe(x[:3], 0)) for x in X) <= slack(rtol), f"the stance toe moved ({where})"
        assert run.events[-1].t == pytest.approx(reference.t, abs=100 * rtol), where


# --- a particle on a hump over a floor (chapter 6) ----------------------------------------------
def test_particle_leaves_the_hump_and_lands_on_the_floor_every_time():
    R, v0 = 1.0, 0.5
    hump, floor = circle_contact([0.0, 0.0], R), floor_contact(2, -R)
    modes = contact_modes(PointMass(dim=2), [hump, floor], e=0.0)
    leave_at = (2 + v0**2 / (G * R)) / 3
    for rtol, seed, run in runs(modes, "hump", [0.0, R, v0, 0.0], 1.5):
        where = f"rtol = {rtol:g}, seed {seed}"
        assert mode_sequence(run) == ["hump", "free", "floor"], where
        X = dense_states(run)
        assert min(hump.phi(x[:2]) for x in X) >= -slack(rtol), f"through the hump ({where})"
        assert X[:, 1].min() >= -R - slack(rtol), f"through the floor ({where})"
        assert run.events[0].x_minus[1] / R == pytest.approx(leave_at, abs=100 * rtol), where


# --- the vertical hopper (chapter 9) --------------------------------------------------------
def test_hopper_alternates_flight_and_stance_with_the_closed_form_times():
    hopper = VerticalHopper(m=1.0, k=500.0, l0=1.0)
    H = 1.2
    fall, stance = hopper.flight_time(H) / 2, hopper.stance_time(H)
    for rtol, seed, run in runs(hopper.modes(), "flight", [H, 0.0], 2.0):
        where = f"rtol = {rtol:g}, seed {seed}"
        seq = mode_sequence(run)
        assert seq[:2] == ["flight", "stance"] and all(a != b for a, b in zip(seq, seq[1:])), where
        # each hop: fall, stance, rise; the event times follow from the closed forms
        expected = []
        t = fall
        while t < 2.0 - 1e-3:
            expected.append(t)
            t += stance if len(expected) % 2 else 2 * fall
        np.testing.assert_allclose(run.event_times()[:len(expected)], expected, atol=1e3 * rtol, err_msg=where)
        X = dense_states(run)
        assert X[:, 0].max() <= H + slack(rtol), f"the hopper gained energy ({where})"


# --- the two ways a crossing used to be stepped over ------------------------------------------
def ball_with_reset_to(z_after, e=0.5):
    """A hand-written bouncing ball whose reset leaves the height at z_after (rounding, in a real reset)."""
    return [Mode("fall", lambda t, x: np.array([x[1], -G]),
                 (Guard("ground", lambda t, x: x[0], target="fall",
                        reset=lambda x: np.array([z_after, -e * x[1]])),))]


@pytest.mark.parametrize("z_after", [-1e-17, -1e-12, 0.0, 1e-17, 1e-12])
def test_a_reset_onto_the_surface_does_not_hide_the_next_landing(z_after):
    """Whether the reset leaves the ball at +1e-17 or −1e-17, every landing is seen."""
    t0 = np.sqrt(2 / G)                                       # first landing, from 1 m
    landings = t0 + 2 * t0 * np.cumsum(0.5 ** np.arange(1, 4))  # flights of 2 e^k t0
    run = simulate_hybrid(ball_with_reset_to(z_after), "fall", [1.0, 0.0], t_final=landings[-1] + 0.05)
    np.testing.assert_allclose(run.event_times()[:4], np.r_[t0, landings], atol=1e-8)
    assert dense_states(run)[:, 0].min() > -1e-9


def test_a_witness_that_dips_below_zero_inside_one_long_step_fires():
    """ẋ = 1 is integrated in one long step; the witness (x − 1)² − 0.01 is negative on (0.9, 1.1) only."""
    drift = [Mode("drift", lambda t, x: np.array([1.0]),
                  (Guard("dip", lambda t, x: (x[0] - 1.0) ** 2 - 0.01, target="stop"),)),
             Mode("stop", lambda t, x: np.array([0.0]))]
    dip = drift[0].guards[0]
    ends_only = solve_ivp(drift[0].dynamics, (0.0, 3.0), [0.0], method="DOP853", rtol=1e-10, atol=1e-10,
                          events=lambda t, x: dip.witness(t, x))
    assert len(ends_only.t_events[0]) == 0                    # comparing step ends misses it
    run = simulate_hybrid(drift, "drift", [0.0], t_final=3.0)
    assert [ev.guard for ev in run.events] == ["dip"]
    assert run.events[0].t == pytest.approx(0.9, abs=1e-12)
