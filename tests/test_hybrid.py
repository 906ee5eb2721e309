"""lib.hybrid: event detection, Zeno, contact modes, and the rimless wheel against its closed forms."""

import numpy as np
import pytest

from lib.constraints import PointMass
from lib.hybrid import (Contact, FloatingRimlessWheel, Guard, GuardNotReached, Mode, RimlessWheel,
                        bouncing_ball_modes, bouncing_ball_rest_time, circle_contact, contact_dynamics,
                        contact_modes, first_event, fixed_point, floor_contact, return_map_jacobian,
                        simulate_hybrid, spinning_ball_modes)
from lib.impulse import SpinningBall

G = 9.81


def falling(e, zeno_target=None):
    """A hand-written bouncing ball: one mode, one guard, no contact machinery."""
    return [Mode("fall", lambda t, x: np.array([x[1], -G]),
                 (Guard("ground", lambda t, x: x[0], target="fall",
                        reset=lambda x: np.array([0.0, -e * x[1]]), zeno_target=zeno_target),)),
            Mode("rest", lambda t, x: np.zeros(2))]


# --- the simulator ---------------------------------------------------------------
def test_event_time_and_reset_match_free_fall():
    run = simulate_hybrid(falling(0.5), "fall", [2.0, 0.0], t_final=1.0)
    t1 = np.sqrt(2 * 2.0 / G)
    assert run.events[0].t == pytest.approx(t1, abs=1e-9)
    assert run.events[0].x_minus[1] == pytest.approx(-G * t1, abs=1e-8)
    assert run.events[0].x_plus[1] == pytest.approx(0.5 * G * t1, abs=1e-8)
    assert run.status == "time limit" and run.t_final == pytest.approx(1.0)


def test_successive_bounces_lose_speed_by_e():
    run = simulate_hybrid(falling(0.6), "fall", [1.0, 0.0], t_final=2.0)
    speeds = np.array([ev.x_minus[1] for ev in run.events])
    np.testing.assert_allclose(speeds[1:] / speeds[:-1], 0.6, rtol=1e-8)


def test_zeno_without_a_target_stops_with_a_clear_status():
    run = simulate_hybrid(falling(0.5), "fall", [1.0, 0.0], t_final=10.0)
    assert run.status == "zeno" and "Zeno" in run.message
    assert run.t_final == pytest.approx(bouncing_ball_rest_time(1.0, 0.5), abs=1e-5)


def test_zeno_target_takes_over():
    run = simulate_hybrid(falling(0.5, zeno_target="rest"), "fall", [1.0, 0.0], t_final=3.0)
    assert run.status == "time limit" and run.segments[-1].mode == "rest"
    assert run.events[-1].zeno


def test_max_events_ends_the_run():
    run = simulate_hybrid(falling(1.0), "fall", [1.0, 0.0], t_final=100.0, max_events=5)
    assert run.status == "max events" and len(run.events) == 5


def test_sample_returns_the_state_after_the_reset_at_an_event():
    run = simulate_hybrid(falling(0.5), "fall", [1.0, 0.0], t_final=1.0)
    t1 = run.events[0].t
    x = run.sample([0.0, 0.2, t1])
    np.testing.assert_allclose(x[1], [1.0 - 0.5 * G * 0.2**2, -G * 0.2], atol=1e-9)
    assert x[2][1] > 0


def test_first_event_that_never_fires_raises_a_clear_error():
    with pytest.raises(GuardNotReached, match="'floor liftoff' did not fire before t_max = 0.5 s"):
        first_event(bouncing_ball_modes(0.0), "floor", [0.0, 0.0], "floor liftoff", t_max=0.5)


# --- the bouncing ball as contact modes ------------------------------------------------
@pytest.mark.parametrize("e", [0.0, 0.5, 0.8])
def test_bouncing_ball_comes_to_rest_at_the_closed_form_time(e):
    run = simulate_hybrid(bouncing_ball_modes(e), "free", [1.0, 0.0], t_final=6.0)
    rest = run.events[-1]
    assert rest.target == "floor"
    assert rest.t == pytest.approx(bouncing_ball_rest_time(1.0, e), rel=1e-5)
    assert run.segments[-1].mode == "floor" and run.status == "time limit"
    np.testing.assert_allclose(run.x[-1], [0.0, 0.0], atol=1e-9)
    assert len(run.events) < 100


def test_resting_ball_normal_force_is_its_weight():
    qdd, lam = contact_dynamics(PointMass(m=2.5, dim=1), [floor_contact(1)], [0.0], [0.0])
    assert qdd[0] == pytest.approx(0.0, abs=1e-12) and lam[0] == pytest.approx(2.5 * G)


def test_contact_modes_lists_every_active_set():
    pm = PointMass(dim=2)
    names = [m.name for m in contact_modes(pm, [floor_contact(2), circle_contact([0, 0], 1.0)])]
    assert names == ["free", "floor", "hump", "floor+hump"]


def test_particle_leaves_a_frictionless_hump_where_the_normal_force_vanishes():
    """From the top of a circle of radius R with speed v0, λ = 0 at cos θ = (2 + v0²/(g R))/3."""
    R, v0 = 1.0, 0.5
    modes = contact_modes(PointMass(dim=2), [circle_contact([0.0, 0.0], R), floor_contact(2, -R)], e=0.0)
    run = simulate_hybrid(modes, "hump", [0.0, R, v0, 0.0], t_final=2.0)
    leave, land = run.events[0], run.events[1]
    assert (leave.guard, leave.target) == ("hump liftoff", "free")
    assert leave.x_minus[1] / R == pytest.approx((2 + v0**2 / (G * R)) / 3, abs=1e-8)
    # inelastic landing on the floor: the vertical velocity is removed, the horizontal one kept
    assert (land.guard, land.target) == ("floor touchdown", "floor")
    assert land.x_plus[3] == pytest.approx(0.0, abs=1e-12)
    assert land.x_plus[2] == pytest.approx(land.x_minus[2], abs=1e-12)
    assert run.x[-1][1] == pytest.approx(-R, abs=1e-9)


def test_finite_difference_jdot_matches_the_analytic_one():
    hump = circle_contact([0.0, 0.0], 1.0)
    numeric = Contact("hump", hump.phi, hump.jacobian)
    q, v = np.array([0.3, 1.1]), np.array([1.2, -0.4])
    assert numeric.rows_dot_v(q, v)[0] == pytest.approx(hump.rows_dot_v(q, v)[0], rel=1e-6)


def test_spinning_ball_bounces_back_and_ends_rolling():
    ball = SpinningBall(r=0.1)
    x0 = [0.0, 0.5, 0.0, 1.0, 0.0, 30.0]
    run = simulate_hybrid(spinning_ball_modes(ball, e=0.6), "free", x0, t_final=2.0)
    first = run.events[0]
    np.testing.assert_allclose(first.x_plus[3:], ball.impact_matrix(0.6) @ first.x_minus[3:], atol=1e-12)
    assert first.x_plus[3] < 0                               # backspin sends it back
    assert run.segments[-1].mode == "ground"
    q, v = run.x[-1][:3], run.x[-1][3:]
    assert q[1] == pytest.approx(ball.r, abs=1e-9)
    assert v[0] + ball.r * v[2] == pytest.approx(0.0, abs=1e-9)


# --- the rimless wheel, minimal coordinates -------------------------------------------------
WHEEL = RimlessWheel(alpha=np.pi / 8, gamma=0.08)


def test_rimless_wheel_stance_is_an_inverted_pendulum():
    """θ̈ = (g/l) sin θ from the protocol, and the closed form used by its modes."""
    stance = WHEEL.modes()[0].dynamics
    for th in (-0.3, 0.1, 0.4):
        acc = WHEEL.forward_dynamics([th], [0.7])[0]
        assert acc == pytest.approx(G / WHEEL.l * np.sin(th))
        assert stance(0.0, np.array([th, 0.7]))[1] == pytest.approx(acc)


def test_rolling_fixed_point_matches_notes_formula():
    """With I = 0: θ̇* = cot 2α √(4 (g/l) sin α sin γ)."""
    a, g = WHEEL.alpha, WHEEL.gamma
    expected = np.sqrt(4 * G / WHEEL.l * np.sin(a) * np.sin(g)) / np.tan(2 * a)
    assert WHEEL.rolling_fixed_point() == pytest.approx(expected, rel=1e-12)
    assert WHEEL.impact_factor == pytest.approx(np.cos(2 * a))


def test_simulated_return_map_matches_energy_closed_form():
    for omega in (1.0, 1.3, 2.0):
        assert WHEEL.return_map_by_simulation(omega) == pytest.approx(WHEEL.return_map(omega), abs=1e-8)


def test_fixed_point_by_shooting_and_its_stability():
    omega = WHEEL.fixed_point_by_shooting(1.5)
    assert omega == pytest.approx(WHEEL.rolling_fixed_point(), abs=1e-8)
    dP = return_map_jacobian(lambda z: np.array([WHEEL.return_map_by_simulation(z[0])]), [omega])
    assert dP[0, 0] == pytest.approx(WHEEL.return_map_derivative(), abs=1e-5)
    assert WHEEL.return_map_derivative() == pytest.approx(np.cos(2 * WHEEL.alpha) ** 2)
    assert abs(dP[0, 0]) < 1                                   # stable


def test_simulation_converges_to_the_limit_cycle():
    run = simulate_hybrid(WHEEL.modes(), "stance", [WHEEL.gamma - WHEEL.alpha, 2.0], t_final=25.0)
    after = [ev.x_plus[1] for ev in run.events if ev.guard == "collision"]
    assert after[-1] == pytest.approx(WHEEL.rolling_fixed_point(), abs=1e-6)


def test_energy_is_conserved_in_stance_and_lost_at_collisions():
    ev = first_event(WHEEL.modes(), "stance", [WHEEL.gamma - WHEEL.alpha, 1.2], "collision", 5.0)
    E0 = WHEEL.energy([WHEEL.gamma - WHEEL.alpha], [1.2])
    assert WHEEL.energy(ev.x_minus[:1], ev.x_minus[1:]) == pytest.approx(E0, abs=1e-8)
    lost = WHEEL.kinetic_energy(ev.x_minus[:1], ev.x_minus[1:]) - WHEEL.kinetic_energy(ev.x_plus[:1], ev.x_plus[1:])
    assert lost == pytest.approx(0.5 * WHEEL.l**2 * ev.x_minus[1] ** 2 * np.sin(2 * WHEEL.alpha) ** 2, rel=1e-10)


def test_slow_wheel_rocks_back_and_comes_to_stand():
    run = simulate_hybrid(WHEEL.modes(), "stance", [WHEEL.gamma - WHEEL.alpha, 0.9], t_final=10.0)
    assert run.segments[-1].mode == "standing"
    assert run.events[0].guard == "back collision"
    with pytest.raises(GuardNotReached, match="'back collision' fired first"):
        WHEEL.return_map_by_simulation(0.9)
    with pytest.raises(ValueError, match="omega"):
        WHEEL.return_map(0.9)


def test_shallow_ramp_has_no_rolling_cycle():
    with pytest.raises(ValueError, match="no rolling limit cycle"):
        RimlessWheel(gamma=0.01).rolling_fixed_point()


def test_fixed_point_helper_on_a_linear_map():
    z = fixed_point(lambda z: np.array([[0.5, 0.1], [0.0, 0.2]]) @ z + 1.0, [0.0, 0.0])
    np.testing.assert_allclose(z, np.linalg.solve(np.eye(2) - [[0.5, 0.1], [0.0, 0.2]], [1.0, 1.0]))


# --- minimal vs floating-base coordinates ---------------------------------------------------
FLOAT = FloatingRimlessWheel(I=0.05)


def test_floating_stance_agrees_with_minimal_coordinates():
    wheel = FLOAT.minimal()
    omega = wheel.rolling_fixed_point()
    q0, v0 = FLOAT.from_minimal(wheel.gamma - wheel.alpha, omega)
    floating = simulate_hybrid(FLOAT.modes(), "toe 0", np.concatenate([q0, v0]), t_final=2.0,
                               stop_at="toe -1 touchdown")
    minimal = first_event(wheel.modes(), "stance", [wheel.gamma - wheel.alpha, omega], "collision", 2.0)
    ev = floating.events[-1]
    assert floating.events[0] is ev                                    # no event before the collision
    assert ev.t == pytest.approx(minimal.t, abs=1e-8)
    tt = np.linspace(0.0, 0.99 * ev.t, 25)
    xf = floating.sample(tt)
    xm = simulate_hybrid(wheel.modes(), "stance", [wheel.gamma - wheel.alpha, omega], t_final=ev.t).sample(tt)
    np.testing.assert_allclose(xf[:, 2], xm[:, 0], atol=1e-8)
    np.testing.assert_allclose(xf[:, 5], xm[:, 1], atol=1e-8)
    for x in xf:                                                       # the toe stays put
        np.testing.assert_allclose(FLOAT.toe(x[:3], 0), [0.0, 0.0], atol=1e-8)
    # the collision: the same post-impact rate, the old toe released, the new one held
    assert ev.target == "toe -1"
    assert FLOAT.to_minimal(ev.x_plus[:3], ev.x_plus[3:], j=-1) == pytest.approx(tuple(minimal.x_plus), abs=1e-8)


def test_floating_stance_needs_a_normal_force_inside_the_friction_cone():
    wheel = FLOAT.minimal()
    for th in np.linspace(wheel.gamma - wheel.alpha, wheel.gamma + wheel.alpha, 7):
        q, v = FLOAT.from_minimal(th, 1.1)
        lam_n, lam_t = FLOAT.stance_force(q, v)
        assert lam_n > 0 and abs(lam_t) < 0.5 * lam_n
        # Newton for the hub: m (centripetal) = contact force + gravity, along the leg
        leg = np.array([np.sin(th), np.cos(th)])
        nh, th_ = np.array([np.sin(wheel.gamma), np.cos(wheel.gamma)]), np.array([np.cos(wheel.gamma), -np.sin(wheel.gamma)])
        force = lam_n * nh + lam_t * th_
        assert force @ leg - FLOAT.m * G * np.cos(th) == pytest.approx(-FLOAT.m * FLOAT.l * 1.1**2, abs=1e-8)


def test_hub_inertia_changes_the_impact_factor_as_angular_momentum_says():
    w = RimlessWheel(I=0.2)
    assert w.impact_factor == pytest.approx((np.cos(2 * w.alpha) + 0.2) / 1.2)


# --- bad input ------------------------------------------------------------------------
def test_bad_input_is_rejected_by_name():
    with pytest.raises(ValueError, match="mode must be one of"):
        simulate_hybrid(falling(0.5), "nope", [1.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="t_final"):
        simulate_hybrid(falling(0.5), "fall", [1.0, 0.0], 0.0)
    with pytest.raises(ValueError, match="x0"):
        simulate_hybrid(falling(0.5), "fall", [np.nan, 0.0], 1.0)
    with pytest.raises(ValueError, match="distinct names"):
        simulate_hybrid(falling(0.5) + falling(0.5), "fall", [1.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="guard must be one of"):
        first_event(falling(0.5), "fall", [1.0, 0.0], "roof", 1.0)
    with pytest.raises(ValueError, match="e must be"):
        bouncing_ball_modes(1.2)
    with pytest.raises(ValueError, match="alpha"):
        RimlessWheel(alpha=2.0)
    with pytest.raises(ValueError, match="gamma"):
        RimlessWheel(gamma=-0.1)
    with pytest.raises(ValueError, match="^I "):
        FloatingRimlessWheel(I=0.0)
    bad_target = [Mode("a", lambda t, x: np.array([x[1], -G]), (Guard("g", lambda t, x: x[0], target="b"),))]
    with pytest.raises(ValueError, match="not in modes"):
        simulate_hybrid(bad_target, "a", [1.0, 0.0], 2.0)
