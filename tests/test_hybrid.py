"""lib.hybrid: event detection, Zeno, return maps and contact modes, against free fall and closed forms."""

import numpy as np
import pytest

from lib.bouncing import bouncing_ball_modes, bouncing_ball_rest_time
from lib.hybrid import (Guard, GuardNotReached, Mode, contact_dynamics, contact_modes, first_event, fixed_point,
                        simulate_hybrid)
from lib.particle import PointMass, circle_contact, floor_contact

G = 9.81


def falling(e, zeno_target=None):
    """A hand-written bouncing ball: one mode, one guard, no contact machinery."""
    return [Mode("fall", lambda t, x: np.array([x[1], -G]),
                 (Guard("ground", lambda t, x: x[0], target="fall",
                        reset=lambda x: np.array([0.0, -e * x[1]]), zeno_target=zeno_target),)),
            Mode("rest", lambda t, x: np.zeros(2))]


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


def test_fixed_point_helper_on_a_linear_map():
    z = fixed_point(lambda z: np.array([[0.5, 0.1], [0.0, 0.2]]) @ z + 1.0, [0.0, 0.0])
    np.testing.assert_allclose(z, np.linalg.solve(np.eye(2) - [[0.5, 0.1], [0.0, 0.2]], [1.0, 1.0]))


def test_bad_input_is_rejected_by_name():
    """An unknown mode or guard, no time, a NaN state, two modes with one name, a target not in the modes: named."""
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
        contact_modes(PointMass(dim=1), [floor_contact(1)], e=1.2)
    with pytest.raises(ValueError, match="Contact objects"):
        contact_modes(PointMass(dim=1), ["floor"])
    bad_target = [Mode("a", lambda t, x: np.array([x[1], -G]), (Guard("g", lambda t, x: x[0], target="b"),))]
    with pytest.raises(ValueError, match="not in modes"):
        simulate_hybrid(bad_target, "a", [1.0, 0.0], 2.0)
