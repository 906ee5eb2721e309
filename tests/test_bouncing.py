"""lib.bouncing: the bouncing ball against its closed-form rest time, the spinning ball against the notes' impact map."""

import numpy as np
import pytest

from lib.bouncing import bouncing_ball_modes, bouncing_ball_rest_time, spinning_ball_modes
from lib.hybrid import simulate_hybrid
from lib.impulse import SpinningBall


@pytest.mark.parametrize("e", [0.0, 0.5, 0.8])
def test_bouncing_ball_comes_to_rest_at_the_closed_form_time(e):
    run = simulate_hybrid(bouncing_ball_modes(e), "free", [1.0, 0.0], t_final=6.0)
    rest = run.events[-1]
    assert rest.target == "floor"
    assert rest.t == pytest.approx(bouncing_ball_rest_time(1.0, e), rel=1e-5)
    assert run.segments[-1].mode == "floor" and run.status == "time limit"
    np.testing.assert_allclose(run.x[-1], [0.0, 0.0], atol=1e-9)
    assert len(run.events) < 100


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


def test_rest_time_is_the_geometric_series_of_the_flights():
    """t∞ = t₀ + Σ 2 eᵏ v₀/g: summing the first 200 flights by hand gives the closed form."""
    h0, e, g = 1.3, 0.7, 9.81
    t0 = np.sqrt(2 * h0 / g)
    flights = sum(2 * e**k * g * t0 / g for k in range(1, 200))
    assert bouncing_ball_rest_time(h0, e, g) == pytest.approx(t0 + flights, rel=1e-12)
    assert bouncing_ball_rest_time(h0, 1.0) == np.inf, "an elastic ball never comes to rest"


def test_bad_input_is_rejected_by_name():
    """A restitution above 1, a negative drop height: named."""
    with pytest.raises(ValueError, match="e must be"):
        bouncing_ball_modes(1.2)
    with pytest.raises(ValueError, match="h0"):
        bouncing_ball_rest_time(-1.0, 0.5)
    with pytest.raises(ValueError, match="e must be"):
        spinning_ball_modes(SpinningBall(), -0.1)
