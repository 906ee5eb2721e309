"""lib.impulse: impact maps against the conditions that define them, the notes' spinning-ball matrix, and energy."""

import numpy as np
import pytest
import sympy as sp

from lib.impulse import (SpinningBall, contact_impulse, coulomb_impact, impact_map, impact_map_friction,
                         impact_map_friction_symbolic, impact_map_general, post_impact_velocity,
                         spinning_ball_impact_symbolic)

RNG = np.random.default_rng(5)


def random_spd(n):
    A = RNG.normal(size=(n, n))
    return A @ A.T + n * np.eye(n)


def approaching(n_row, M=None):
    """A random velocity with n v < 0 (the bodies approach)."""
    v = RNG.normal(size=n_row.size)
    return v if n_row @ v < 0 else -v


def kinetic(M, v):
    return 0.5 * v @ M @ v


# --- frictionless ------------------------------------------------------------
@pytest.mark.parametrize("e", [0.0, 0.3, 0.7, 1.0])
def test_frictionless_normal_velocity_reverses_by_minus_e(e):
    for _ in range(20):
        M, n = random_spd(4), RNG.normal(size=4)
        v = approaching(n)
        vp = impact_map(M, n, e) @ v
        assert n @ vp == pytest.approx(-e * (n @ v), abs=1e-12)


def test_frictionless_energy_never_increases_and_is_conserved_at_e_1():
    for _ in range(50):
        M, n, e = random_spd(3), RNG.normal(size=3), RNG.uniform(0, 1)
        v = approaching(n)
        assert kinetic(M, impact_map(M, n, e) @ v) <= kinetic(M, v) + 1e-12
        assert kinetic(M, impact_map(M, n, 1.0) @ v) == pytest.approx(kinetic(M, v), rel=1e-12)


def test_frictionless_energy_loss_matches_closed_form():
    """ΔT = −½ (1 − e²) (n v)² / (n M⁻¹ nᵀ), from integrating the impulse."""
    M, n, e = random_spd(3), RNG.normal(size=3), 0.4
    v = approaching(n)
    loss = 0.5 * (1 - e**2) * (n @ v) ** 2 / (n @ np.linalg.solve(M, n))
    assert kinetic(M, v) - kinetic(M, impact_map(M, n, e) @ v) == pytest.approx(loss, rel=1e-10)


def test_frictionless_impulse_is_along_the_normal_and_matches_contact_impulse():
    """M (v⁺ − v⁻) = nᵀ Λ: the momentum change is the impulse along the normal."""
    M, n, e = random_spd(3), RNG.normal(size=3), 0.6
    v = approaching(n)
    Lam = contact_impulse(M, n, v, e)
    np.testing.assert_allclose(M @ (post_impact_velocity(M, n, v, e) - v), n * Lam[0], atol=1e-12)
    assert Lam[0] > 0


def test_two_particles_on_a_line_match_the_textbook_collision():
    """Masses m1, m2 colliding head on: v1⁺ = v1 − (1+e) m2 (v1 − v2)/(m1 + m2)."""
    m1, m2, e, v1, v2 = 2.0, 3.0, 0.5, 4.0, -1.0
    # φ = x2 − x1, n = [−1, 1]
    vp = post_impact_velocity(np.diag([m1, m2]), [-1.0, 1.0], [v1, v2], e)
    assert vp[0] == pytest.approx(v1 - (1 + e) * m2 * (v1 - v2) / (m1 + m2))
    assert vp[1] == pytest.approx(v2 + (1 + e) * m1 * (v1 - v2) / (m1 + m2))


def test_stacked_normals_give_every_contact_its_restitution():
    M, e = random_spd(4), 0.5
    n = RNG.normal(size=(2, 4))
    v = RNG.normal(size=4)
    np.testing.assert_allclose(n @ impact_map(M, n, e) @ v, -e * (n @ v), atol=1e-12)


# --- infinite friction ----------------------------------------------------------
def test_infinite_friction_stops_the_tangential_velocity_even_when_coupled():
    """J v⁺ = diag(−e, 0, 0) J v⁻ for a generic M, J (normal and tangent impulses coupled)."""
    for e in (0.0, 0.5, 1.0):
        M, J = random_spd(5), RNG.normal(size=(3, 5))
        v = RNG.normal(size=5)
        np.testing.assert_allclose(J @ impact_map_friction(M, J, e) @ v, np.diag([-e, 0, 0]) @ J @ v, atol=1e-10)


def test_notes_ordering_agrees_when_the_delassus_matrix_is_diagonal():
    """The notes' I − M⁻¹Jᵀ D (JM⁻¹Jᵀ)^# J equals ours for the ball (J M⁻¹ Jᵀ diagonal) and when e = 0."""
    ball = SpinningBall(m=1.3, r=0.2)
    q = [0.0, 0.2, 0.0]
    M, J = ball.mass_matrix(q), ball.contact_jacobian(q)
    Minv_JT = np.linalg.solve(M, J.T)
    for e in (0.0, 0.6):
        notes = np.eye(3) - Minv_JT @ np.diag([1 + e, 1]) @ np.linalg.pinv(J @ Minv_JT) @ J
        np.testing.assert_allclose(impact_map_friction(M, J, e), notes, atol=1e-12)
    M2, J2 = random_spd(4), RNG.normal(size=(2, 4))
    Minv_JT = np.linalg.solve(M2, J2.T)
    notes = np.eye(4) - Minv_JT @ np.linalg.pinv(J2 @ Minv_JT) @ J2
    np.testing.assert_allclose(impact_map_friction(M2, J2, 0.0), notes, atol=1e-12)


def test_infinite_friction_with_e_0_never_adds_energy():
    for _ in range(30):
        M, J = random_spd(4), RNG.normal(size=(3, 4))
        v = RNG.normal(size=4)
        assert kinetic(M, impact_map_friction(M, J, 0.0) @ v) <= kinetic(M, v) + 1e-12


def test_general_map_is_a_projection_when_D_is_one():
    """With D = 1 the map removes the contact velocity: applying it twice changes nothing."""
    M, J = random_spd(4), RNG.normal(size=(2, 4))
    P = impact_map_general(M, J, [1.0, 1.0])
    np.testing.assert_allclose(P @ P, P, atol=1e-12)


# --- the spinning ball ------------------------------------------------------------
def test_spinning_ball_matrix_is_exactly_the_notes_matrix():
    P, (m, r, e) = spinning_ball_impact_symbolic()
    notes = sp.Matrix([[sp.Rational(3, 5), 0, -sp.Rational(2, 5) * r],
                       [0, -e, 0],
                       [-3 / (5 * r), 0, sp.Rational(2, 5)]])
    assert sp.simplify(P - notes) == sp.zeros(3, 3)
    assert not P.has(m)                                   # the mass cancels


def test_spinning_ball_general_inertia_matches_hand_derivation():
    """For I = k m r²: ẋ⁺ = (ẋ − k r θ̇)/(1+k), θ̇⁺ = (−ẋ/r + k θ̇)/(1+k); k = 2/5 is the solid ball."""
    k = sp.Rational(2, 5)
    P, (m, r, e) = spinning_ball_impact_symbolic(k)
    hand = sp.Matrix([[1 / (1 + k), 0, -k * r / (1 + k)], [0, -e, 0], [-1 / ((1 + k) * r), 0, k / (1 + k)]])
    assert sp.simplify(P - hand) == sp.zeros(3, 3)


def test_spinning_ball_conserves_angular_momentum_about_the_contact_point():
    """The impulse acts at the contact point, so I θ̇ − m r ẋ is unchanged."""
    ball = SpinningBall(m=0.7, r=0.15)
    P = ball.impact_matrix(0.8)
    for _ in range(10):
        v = RNG.normal(size=3)
        vp = P @ v
        L = lambda w: ball.k * ball.m * ball.r**2 * w[2] - ball.m * ball.r * w[0]  # noqa: E731
        assert L(vp) == pytest.approx(L(v), abs=1e-12)
        assert vp[0] + ball.r * vp[2] == pytest.approx(0.0, abs=1e-12)   # rolls after the bounce


def test_spinning_ball_numeric_matrix_and_symbolic_agree():
    ball = SpinningBall(m=2.0, r=0.3)
    P, (m, r, e) = spinning_ball_impact_symbolic()
    expected = np.array(P.subs({m: 2.0, r: 0.3, e: 0.55}), dtype=float)
    np.testing.assert_allclose(ball.impact_matrix(0.55), expected, atol=1e-12)


def test_symbolic_map_equals_numeric_map_for_a_random_system():
    Mn, Jn = random_spd(3), RNG.normal(size=(2, 3))
    e = sp.Symbol("e")
    P = impact_map_friction_symbolic(sp.Matrix(Mn), sp.Matrix(Jn), e)
    np.testing.assert_allclose(np.array(P.subs(e, 0.3), dtype=float), impact_map_friction(Mn, Jn, 0.3), atol=1e-9)


def test_backspin_reverses_the_horizontal_velocity():
    ball = SpinningBall(r=0.1)
    vp = ball.impact_matrix(0.7) @ np.array([1.0, -2.0, 25.0])     # r θ̇ = 2.5 > 1.5 ẋ
    assert vp[0] < 0 and vp[1] > 0


# --- Coulomb friction: the cone as an optimization ------------------------------------
def coulomb_ball_by_hand(ball, v, e, mu):
    """Decoupled normal and tangent: Λ_n = −(1+e) m ż, Λ_t = clip(sticking impulse, ±μ Λ_n)."""
    m, r, k = ball.m, ball.r, ball.k
    Ln = -(1 + e) * m * v[1]
    stick = -(v[0] + r * v[2]) / (1 / m + 1 / (k * m))
    Lt = np.clip(stick, -mu * Ln, mu * Ln)
    return v + np.array([Lt / m, Ln / m, r * Lt / (k * m * r**2)])


@pytest.mark.parametrize("mu", [0.0, 0.05, 0.2, 1.0, np.inf])
def test_coulomb_impact_of_the_ball_matches_the_hand_solution(mu):
    ball = SpinningBall(m=1.2, r=0.1)
    q = [0.0, 0.1, 0.0]
    for v in ([1.0, -2.0, 5.0], [0.3, -1.0, 40.0], [-2.0, -0.5, 0.0]):
        out = coulomb_impact(ball.mass_matrix(q), ball.contact_jacobian(q), v, e=0.6, mu=mu)
        np.testing.assert_allclose(out.v_plus, coulomb_ball_by_hand(ball, np.array(v), 0.6, mu), atol=1e-6)


def test_coulomb_impact_limits_are_the_two_maps_of_the_notes():
    ball = SpinningBall(r=0.2)
    q = [0.0, 0.2, 0.0]
    M, J, v = ball.mass_matrix(q), ball.contact_jacobian(q), np.array([0.5, -1.5, 3.0])
    np.testing.assert_allclose(coulomb_impact(M, J, v, 0.4, 0.0).v_plus, impact_map(M, J[0], 0.4) @ v, atol=1e-7)
    out = coulomb_impact(M, J, v, 0.4, np.inf)
    np.testing.assert_allclose(out.v_plus, impact_map_friction(M, J, 0.4) @ v, atol=1e-7)
    assert out.sticking


def test_coulomb_impact_respects_the_cone_never_adds_energy_and_keeps_newtons_law():
    for _ in range(25):
        M, J = random_spd(4), RNG.normal(size=(3, 4))
        v = approaching(J[0])
        e, mu = RNG.uniform(0, 1), RNG.uniform(0, 1.5)
        out = coulomb_impact(M, J, v, e, mu)
        Ln, Lt = out.impulse[0], out.impulse[1:]
        assert Ln >= -1e-9
        assert np.linalg.norm(Lt) <= mu * Ln + 1e-7
        assert J[0] @ out.v_plus == pytest.approx(-e * (J[0] @ v), abs=1e-7)
        assert kinetic(M, out.v_plus) <= kinetic(M, v) + 1e-7


def test_coulomb_impact_with_separating_bodies_does_nothing():
    out = coulomb_impact(np.eye(2), [[0.0, 1.0], [1.0, 0.0]], [1.0, 2.0], 0.5, 0.3)
    assert out.status == "no impact"
    np.testing.assert_allclose(out.v_plus, [1.0, 2.0])


# --- bad input ----------------------------------------------------------------
@pytest.mark.parametrize("e", [-0.1, 1.5, np.nan, "x"])
def test_restitution_outside_0_1_is_rejected(e):
    with pytest.raises(ValueError, match="e must be"):
        impact_map(np.eye(2), [1.0, 0.0], e)
    with pytest.raises(ValueError, match="e must be"):
        SpinningBall().impact_matrix(e)


@pytest.mark.parametrize("n", [[1.0, 0.0, 0.0], [[1.0]], np.zeros((1, 2, 2)), [0.0, 0.0], [np.nan, 1.0]])
def test_contact_normal_of_the_wrong_shape_is_rejected(n):
    with pytest.raises(ValueError, match="^n "):
        impact_map(np.eye(2), n, 0.5)


def test_other_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="M must be"):
        impact_map(np.ones((2, 3)), [1.0, 0.0], 0.5)
    with pytest.raises(ValueError, match="M must be symmetric"):
        impact_map([[1.0, 2.0], [0.0, 1.0]], [1.0, 0.0], 0.5)
    with pytest.raises(ValueError, match="^J "):
        impact_map_friction(np.eye(3), [[1.0, 0.0]], 0.5)
    with pytest.raises(ValueError, match="^v "):
        post_impact_velocity(np.eye(2), [1.0, 0.0], [1.0, 2.0, 3.0], 0.5)
    with pytest.raises(ValueError, match="mu must be"):
        coulomb_impact(np.eye(2), [[0.0, 1.0], [1.0, 0.0]], [0.0, -1.0], 0.5, -1.0)
    with pytest.raises(ValueError, match="^r "):
        SpinningBall(r=0.0)
