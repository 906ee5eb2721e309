"""lib.rimless_wheel: the return map against its closed forms, minimal against floating-base coordinates (notes 004)."""

import numpy as np
import pytest

from lib.hybrid import GuardNotReached, first_event, return_map_jacobian, simulate_hybrid
from lib.rimless_wheel import FloatingRimlessWheel, RimlessWheel

G = 9.81
WHEEL = RimlessWheel(alpha=np.pi / 8, gamma=0.08)
FLOAT = FloatingRimlessWheel(I=0.05)


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


def test_bad_input_is_rejected_by_name():
    """Spokes too far apart, a negative slope, a floating wheel without hub inertia: named."""
    with pytest.raises(ValueError, match="alpha"):
        RimlessWheel(alpha=2.0)
    with pytest.raises(ValueError, match="gamma"):
        RimlessWheel(gamma=-0.1)
    with pytest.raises(ValueError, match="^I "):
        FloatingRimlessWheel(I=0.0)
