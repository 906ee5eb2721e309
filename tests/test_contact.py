"""lib.contact against closed forms of notes 000 and independent computations."""

import numpy as np
import pytest
from scipy.optimize import brentq

from lib.constraints import constraint_force
from lib.integrators import integrate_fixed_step
from lib.contact import (CompliantContact, CompliantSystem, PlanarRigidBody, PlaneContact, box_vertices,
                         contact_frame, contact_jacobian, coulomb_curve, coulomb_friction, explicit_step_limit,
                         generalized_contact_force, hunt_crossley_normal_force, linear_normal_force,
                         max_penetration, piecewise_linear_mu, polygon_signed_distance, required_stiffness,
                         signed_distance, simulate_ivp, steady_penetration, stribeck_mu)

RNG = np.random.default_rng(5)
G = 9.81


# --- geometry -----------------------------------------------------------------------------
def test_signed_distance_to_an_inclined_plane():
    """φ = n·p − offset − r for a ball above a 30° slope, checked against the distance to a point of the plane."""
    n = np.array([-np.sin(np.pi / 6), np.cos(np.pi / 6)])
    p = np.array([0.4, 0.9])
    on_plane = np.array([2.0, 2.0 * np.tan(np.pi / 6)])      # a point of the line through the origin
    expected = (p - on_plane) @ n - 0.1
    assert signed_distance(p, n, 0.0, radius=0.1) == pytest.approx(expected)
    assert signed_distance([p, p], n, 0.0, radius=0.1).shape == (2,)


@pytest.mark.parametrize("normal", [[0.0, 1.0], [0.6, -0.8], [0.0, 0.0, 1.0], [1.0, 2.0, -2.0]])
def test_contact_frame_is_orthonormal_and_right_handed(normal):
    """[n; t…] is an orthonormal basis with first row n/|n| and determinant +1 (3D) or det = −1 with t = [n_y, −n_x] (2D)."""
    F = contact_frame(normal)
    np.testing.assert_allclose(F @ F.T, np.eye(len(normal)), atol=1e-12)
    np.testing.assert_allclose(F[0], np.asarray(normal) / np.linalg.norm(normal), atol=1e-12)
    if len(normal) == 3:
        assert np.linalg.det(F) == pytest.approx(1.0)


def test_contact_jacobian_gives_the_rolling_contact_velocity():
    """For a disk on the floor J v = [ẏ, ẋ + r θ̇] (normal speed and slip), and J's normal row is ∂φ/∂q."""
    r = 0.3
    disk = PlanarRigidBody.disk(m=1.0, r=r)
    contact = PlaneContact(disk)
    q, v = np.array([0.2, 0.25, 1.0]), np.array([0.7, -0.4, 2.0])
    J = contact.kinematics(q).J[0]
    np.testing.assert_allclose(J @ v, [v[1], v[0] + r * v[2]], atol=1e-12)
    eps = 1e-6
    dphi = [(contact.kinematics(q + eps * e).phi[0] - contact.kinematics(q - eps * e).phi[0]) / (2 * eps)
            for e in np.eye(3)]
    np.testing.assert_allclose(J[0], dphi, atol=1e-8)


def test_box_corner_jacobian_matches_finite_differences_of_the_corner():
    """J of each corner of a turned box is [n; t] times ∂p/∂q, ∂p/∂q by central differences of the corner's position."""
    box = PlanarRigidBody.box(m=1.0, width=0.6, height=0.2)
    q = np.array([0.1, 0.3, 0.4])
    kin = PlaneContact(box).kinematics(q)
    eps = 1e-6
    dp = np.stack([(box.world_points(q + eps * e) - box.world_points(q - eps * e)) / (2 * eps) for e in np.eye(3)],
                  axis=-1)                                # (4, 2, 3)
    np.testing.assert_allclose(kin.J, contact_frame([0.0, 1.0]) @ dp, atol=1e-8)
    np.testing.assert_allclose(kin.phi, box.world_points(q)[:, 1], atol=1e-12)


def test_generalized_force_is_force_and_moment():
    """Jᵀ λ of a corner force on a box is [f_x, f_y, (p − c) × f]."""
    box = PlanarRigidBody.box(m=1.0, width=0.6, height=0.2)
    q = np.array([0.0, 0.5, 0.3])
    kin = PlaneContact(box).kinematics(q)
    lam = np.array([[5.0, -1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])   # [f_n, f_t] on corner 0
    f = np.array([-1.0, 5.0])                                             # t = x̂, n = ŷ
    r = kin.points[0] - q[:2]
    np.testing.assert_allclose(generalized_contact_force(kin.J, lam), [f[0], f[1], r[0] * f[1] - r[1] * f[0]],
                               atol=1e-12)
    np.testing.assert_allclose(generalized_contact_force(kin.J[0], lam[0]), generalized_contact_force(kin.J, lam))


# --- normal-force laws ------------------------------------------------------------------------
def test_normal_force_laws_at_their_breakpoints():
    """Zero when apart; the linear damper jumps at φ = 0⁻ while Hunt–Crossley starts from zero; both clip at 0."""
    k, b, d = 1e4, 50.0, 0.5
    assert linear_normal_force(1e-9, -1.0, k, b) == 0.0
    assert linear_normal_force(-1e-12, -1.0, k, b) == pytest.approx(b)         # the jump b |φ̇| of the damper
    assert hunt_crossley_normal_force(-1e-12, -1.0, k, d) == pytest.approx(0.0, abs=1e-6)
    assert linear_normal_force(-0.01, 10.0, k, b) == 0.0                         # separating fast: no pull
    assert hunt_crossley_normal_force(-0.01, 10.0, k, d) == 0.0
    assert hunt_crossley_normal_force(-0.01, 0.0, k, d, p=1.5) == pytest.approx(k * 0.01**1.5)
    x = np.linspace(-0.01, 0.01, 7)
    np.testing.assert_allclose(linear_normal_force(x, 0.0, k), k * np.maximum(0.0, -x))


# --- friction laws ----------------------------------------------------------------------------------
@pytest.mark.parametrize("law", [piecewise_linear_mu, stribeck_mu])
def test_regularized_friction_at_its_breakpoints(law):
    """μ(0) = 0, μ(v_s) = μ_s (the static peak), μ(v) = μ_d beyond 3 v_s, odd, and continuous."""
    mu_s, mu_d, v_s = 0.9, 0.5, 0.01
    assert law(0.0, mu_s, mu_d, v_s) == 0.0
    assert law(v_s, mu_s, mu_d, v_s) == pytest.approx(mu_s)
    assert law(2 * v_s, mu_s, mu_d, v_s) == pytest.approx(0.5 * (mu_s + mu_d))
    np.testing.assert_allclose(law([3 * v_s, 10.0], mu_s, mu_d, v_s), mu_d)
    v = np.linspace(-5 * v_s, 5 * v_s, 2001)
    mu = law(v, mu_s, mu_d, v_s)
    np.testing.assert_allclose(law(-v, mu_s, mu_d, v_s), -mu)
    assert np.abs(np.diff(mu)).max() < 2 * mu_s * (v[1] - v[0]) / v_s     # no jumps
    assert mu.max() == pytest.approx(mu_s)


def test_stribeck_is_smooth_at_the_peak_and_piecewise_is_not():
    """The quintic steps give dμ/dv = 0 on both sides of v_s; the piecewise law has slopes μ_s/v_s and −(μ_s−μ_d)/(2v_s)."""
    mu_s, mu_d, v_s, e = 0.9, 0.5, 0.01, 1e-7
    left = lambda law: (law(v_s, mu_s, mu_d, v_s) - law(v_s - e, mu_s, mu_d, v_s)) / e   # noqa: E731
    right = lambda law: (law(v_s + e, mu_s, mu_d, v_s) - law(v_s, mu_s, mu_d, v_s)) / e  # noqa: E731
    assert abs(left(stribeck_mu)) < 1e-3 and abs(right(stribeck_mu)) < 1e-3
    assert left(piecewise_linear_mu) == pytest.approx(mu_s / v_s, rel=1e-4)
    assert right(piecewise_linear_mu) == pytest.approx(-(mu_s - mu_d) / (2 * v_s), rel=1e-4)


def test_coulomb_friction_stick_slip_threshold():
    """Sticking holds exactly up to μ_s f_n; just past it the contact slips with the dynamic force μ_d f_n."""
    f_n, mu_s, mu_d = 20.0, 0.5, 0.3
    at = mu_s * f_n
    assert coulomb_friction(0.0, f_n, mu_s, mu_d, f_stick=at) == pytest.approx(at)
    assert coulomb_friction(0.0, f_n, mu_s, mu_d, f_stick=-at) == pytest.approx(-at)
    assert coulomb_friction(0.0, f_n, mu_s, mu_d, f_stick=at * (1 + 1e-9)) == pytest.approx(mu_d * f_n)
    np.testing.assert_allclose(coulomb_friction([1e-9, -3.0], f_n, mu_s, mu_d), [-mu_d * f_n, mu_d * f_n])
    v, mu = coulomb_curve(mu_s, mu_d, v_max=2.0)
    assert mu.max() == mu_s and mu[-1] == mu_d and v[-1] == 2.0


def test_compliant_forces_in_3d_oppose_the_slip_direction():
    """With two tangents the friction force is −μ f_n v̂_t, its size μ(|v_t|) f_n."""
    model = CompliantContact(k=1e3, mu_s=0.8, mu_d=0.6, v_s=1e-3)
    v_t = np.array([[0.3, -0.4]])
    f_n, f_t = model.forces(np.array([-0.01]), np.array([0.0]), v_t)
    assert f_n[0] == pytest.approx(10.0)
    np.testing.assert_allclose(f_t[0], -0.6 * 10.0 * np.array([0.6, -0.8]))


# --- compliant simulations --------------------------------------------------------------------------
def settle(model, m=0.5, t_final=0.4):
    """Rest penetration of a ball put down touching the floor, found by simulating until it settles."""
    ball = PlanarRigidBody.disk(m=m, r=0.1)
    run = simulate_ivp(CompliantSystem(ball, PlaneContact(ball), model), [0.0, 0.1, 0.0], [0.0, 0.0, 0.0],
                       t_final=t_final, method="BDF", rtol=1e-6, atol=1e-10, num=20)
    return 0.1 - run.q[-1, 1]


def test_linear_penetration_scales_as_m_g_over_k():
    """A damped ball put on the floor settles at penetration m g / k: ten times stiffer, ten times shallower."""
    m = 0.5
    depths = [settle(CompliantContact(k=k, b=1.6 * np.sqrt(k * m)), m) for k in (1e3, 1e4, 1e5)]
    np.testing.assert_allclose(depths, [m * G / k for k in (1e3, 1e4, 1e5)], rtol=1e-6)
    np.testing.assert_allclose(np.array(depths[:-1]) / depths[1:], 10.0, rtol=1e-6)


def test_hunt_crossley_penetration_scales_as_power_law():
    """With f = k x^(3/2) the rest penetration is (m g / k)^(2/3): 10× stiffer gives 10^(2/3) ≈ 4.64× shallower."""
    m = 0.5
    depths = [settle(CompliantContact(k=k, model="hunt-crossley", p=1.5, d=20.0), m) for k in (1e5, 1e6)]
    np.testing.assert_allclose(depths, [steady_penetration(m, k, p=1.5) for k in (1e5, 1e6)], rtol=1e-6)
    assert depths[0] / depths[1] == pytest.approx(10 ** (2 / 3), rel=1e-5)


def test_undamped_landing_reaches_the_energy_balance_depth():
    """Dropped from 5 cm onto an undamped spring, the deepest penetration is (m g + √((m g)² + k m v²))/k."""
    k, h = 1e4, 0.05
    ball = PlanarRigidBody.disk(m=1.0, r=0.1)
    run = simulate_ivp(CompliantSystem(ball, PlaneContact(ball), CompliantContact(k=k)), [0.0, 0.1 + h, 0.0],
                       [0.0, 0.0, 0.0], t_final=0.15, method="DOP853", rtol=1e-10, atol=1e-12, num=6000)
    deepest = 0.1 - run.q[:, 1].min()
    assert deepest == pytest.approx(max_penetration(1.0, k, np.sqrt(2 * G * h)), rel=1e-4)


def test_hunt_crossley_undamped_landing_matches_energy_balance_root():
    """For f = k x^(3/2) the deepest point solves ½ m v² + m g x = (2/5) k x^(5/2) (found here by brentq)."""
    k, h, m = 1e5, 0.05, 1.0
    ball = PlanarRigidBody.disk(m=m, r=0.1)
    model = CompliantContact(k=k, model="hunt-crossley", p=1.5)
    run = simulate_ivp(CompliantSystem(ball, PlaneContact(ball), model), [0.0, 0.1 + h, 0.0], [0.0, 0.0, 0.0],
                       t_final=0.13, method="DOP853", rtol=1e-10, atol=1e-12, num=6000)
    v_in = np.sqrt(2 * G * h)
    x = brentq(lambda x: 0.4 * k * x**2.5 - m * G * x - 0.5 * m * v_in**2, 1e-9, 1.0)
    assert 0.1 - run.q[:, 1].min() == pytest.approx(x, rel=1e-4)


def test_sliding_brick_stops_at_the_coulomb_distance():
    """A brick launched at 1 m/s on compliant ground with μ_d = 0.4 stops after v²/(2 μ_d g) (within 1 %)."""
    box = PlanarRigidBody.box(m=2.0, width=0.4, height=0.2)
    k = 1e4
    model = CompliantContact(k=k, b=np.sqrt(k * box.m / 2), mu_s=0.6, mu_d=0.4, v_s=1e-3)
    y_rest = 0.1 - box.m * G / (2 * k)                    # two corners share the weight
    run = simulate_ivp(CompliantSystem(box, PlaneContact(box), model), [0.0, y_rest, 0.0], [1.0, 0.0, 0.0],
                       t_final=0.4, method="BDF", rtol=1e-5, atol=1e-9, num=50)
    assert run.q[-1, 0] == pytest.approx(1.0 / (2 * 0.4 * G), rel=1e-2)
    assert abs(run.v[-1, 0]) < 1e-3


def test_box_at_rest_on_four_corners_shares_its_weight():
    """Resting flat, the two bottom corners each carry m g / 2 at penetration m g / (2k); the top ones nothing."""
    box = PlanarRigidBody.box(m=3.0, width=0.5, height=0.3)
    k = 2e4
    sys = CompliantSystem(box, PlaneContact(box), CompliantContact(k=k, b=100.0, mu_s=0.5))
    q = np.array([0.7, 0.15 - box.m * G / (2 * k), 0.0])
    phi, lam = sys.contact_forces(q, np.zeros(3))
    np.testing.assert_allclose(lam[:, 0], [box.m * G / 2, box.m * G / 2, 0.0, 0.0], rtol=1e-12)
    np.testing.assert_allclose(lam[:, 1], 0.0)
    np.testing.assert_allclose(sys.forward_dynamics(q, np.zeros(3)), 0.0, atol=1e-9)


def test_rigid_corner_forces_are_the_minimum_norm_split():
    """Holding both bottom corners rigidly is redundant (4 rows, 3 dof): the pseudo-inverse splits m g evenly, no friction."""
    box = PlanarRigidBody.box(m=3.0, width=0.5, height=0.3)
    q = np.array([0.0, 0.15, 0.0])
    J = PlaneContact(box).kinematics(q).J[:2].reshape(4, 3)     # rows n, t of corner 0, then of corner 1
    lam = constraint_force(box.mass_matrix(q), box.gravity_vector(q), J, np.zeros(4))
    np.testing.assert_allclose(lam, [box.m * G / 2, 0.0, box.m * G / 2, 0.0], atol=1e-10)


# --- stiffness ---------------------------------------------------------------------------------------
def test_humanoid_budget_needs_about_1_8_meganewton_per_metre():
    """Notes 000: 180 kg with at most 1 mm of penetration at rest needs k = m g / 1 mm ≈ 1.77e6 N/m."""
    k = required_stiffness(180.0, 1e-3)
    assert k == pytest.approx(180.0 * G / 1e-3)
    assert steady_penetration(180.0, k) == pytest.approx(1e-3)


@pytest.mark.parametrize("method", ["symplectic_euler", "rk4"])
def test_explicit_step_limit_separates_stable_from_unstable(method):
    """A resting ball on an undamped spring: 0.9× the step limit stays bounded, 1.1× blows up."""
    k = 1e4
    ball = PlanarRigidBody.disk(m=1.0, r=0.1)
    sys = CompliantSystem(ball, PlaneContact(ball), CompliantContact(k=k))
    y_eq = 0.1 - G / k
    h_max = explicit_step_limit(1.0, k, method)

    def swing(factor):
        dt = factor * h_max
        _, q, _ = integrate_fixed_step(lambda t, q, v: sys.forward_dynamics(q, v), [0.0, y_eq - 1e-4, 0.0],
                                       [0.0, 0.0, 0.0], 150 * dt, dt, method)
        return np.abs(q[:, 1] - y_eq).max()

    assert swing(0.9) < 5e-4
    assert swing(1.1) > 1e-2


def test_stiff_solver_needs_fewer_evaluations_on_stiff_contact():
    """Resting on a 10⁶ N/m spring for 0.3 s, RK45 pays for stability (≈ ω t evaluations), BDF does not."""
    k = 1e6
    ball = PlanarRigidBody.disk(m=1.0, r=0.1)
    sys = CompliantSystem(ball, PlaneContact(ball), CompliantContact(k=k, b=2 * np.sqrt(k)))
    q0 = [0.0, 0.1 - G / k + 1e-5, 0.0]
    runs = {m: simulate_ivp(sys, q0, [0.0, 0.0, 0.0], t_final=0.3, method=m, rtol=1e-5, atol=1e-9, num=5)
            for m in ("RK45", "BDF")}
    assert runs["RK45"].nfev > 2 * runs["BDF"].nfev
    for run in runs.values():
        assert 0.1 - run.q[-1, 1] == pytest.approx(G / k, rel=1e-3)


# --- the penetration-normal ambiguity -----------------------------------------------------------------
def test_polygon_distance_between_boxes():
    """Overlap: minus the smallest overlap, normal along that axis (A→B); apart: corner-to-corner Euclidean distance."""
    A = box_vertices([0.0, 0.0], 0.0, 2.0, 2.0)
    phi, n = polygon_signed_distance(A, box_vertices([1.7, 0.5], 0.0, 2.0, 2.0))
    assert phi == pytest.approx(-0.3) and np.allclose(n, [1.0, 0.0])
    phi, n = polygon_signed_distance(A, box_vertices([0.5, -1.8], 0.0, 2.0, 2.0))
    assert phi == pytest.approx(-0.2) and np.allclose(n, [0.0, -1.0])
    phi, n = polygon_signed_distance(A, box_vertices([2.3, 2.4], 0.0, 2.0, 2.0))
    assert phi == pytest.approx(0.5) and np.allclose(n, [0.6, 0.8])
    phi_swapped, n_swapped = polygon_signed_distance(box_vertices([2.3, 2.4], 0.0, 2.0, 2.0), A)
    assert phi_swapped == pytest.approx(phi) and np.allclose(n_swapped, -n)


def test_penetration_normal_jumps_across_the_diagonal():
    """Sliding B along A's corner diagonal, the normal flips from x̂ to ŷ: tiny motion, a 90° change of direction."""
    A = box_vertices([0.0, 0.0], 0.0, 2.0, 2.0)
    _, n1 = polygon_signed_distance(A, box_vertices([1.8 + 1e-6, 1.8], 0.0, 2.0, 2.0))
    _, n2 = polygon_signed_distance(A, box_vertices([1.8, 1.8 + 1e-6], 0.0, 2.0, 2.0))
    assert np.allclose(n1, [1.0, 0.0]) and np.allclose(n2, [0.0, 1.0])


def test_polygon_distance_matches_brute_force_on_random_turned_boxes():
    """φ > 0 equals the smallest distance between densely sampled edges of two separated turned boxes."""
    def edge_samples(P, k=250):
        s = np.linspace(0.0, 1.0, k)[:, None]
        return np.vstack([a + s * (b - a) for a, b in zip(P, np.roll(P, -1, axis=0))])
    for _ in range(3):
        A = box_vertices([0.0, 0.0], RNG.uniform(0, np.pi), 1.0, 0.5)
        B = box_vertices(RNG.uniform(1.2, 2.0, 2) * RNG.choice([-1, 1], 2), RNG.uniform(0, np.pi), 0.8, 0.4)
        phi, _ = polygon_signed_distance(A, B)
        a, b = edge_samples(A), edge_samples(B)
        brute = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)).min()
        assert phi == pytest.approx(brute, abs=3e-3)


# --- bad input -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, kwargs", [("k", dict(k=-1.0)), ("b", dict(b=-0.1)), ("d", dict(d=-1.0)),
                                          ("mu_s", dict(mu_s=-0.2)), ("mu_d", dict(mu_d=-0.2)),
                                          ("v_s", dict(v_s=0.0)), ("model", dict(model="hertz"))])
def test_negative_contact_parameters_are_rejected_by_name(name, kwargs):
    with pytest.raises(ValueError, match=name):
        CompliantContact(**kwargs)


def test_negative_law_parameters_are_rejected_by_name():
    with pytest.raises(ValueError, match="k must"):
        linear_normal_force(-0.1, 0.0, k=-1.0)
    with pytest.raises(ValueError, match="b must"):
        linear_normal_force(-0.1, 0.0, k=1.0, b=-1.0)
    with pytest.raises(ValueError, match="d must"):
        hunt_crossley_normal_force(-0.1, 0.0, k=1.0, d=-1.0)
    with pytest.raises(ValueError, match="mu_s"):
        stribeck_mu(0.1, -0.5, 0.3, 0.01)
    with pytest.raises(ValueError, match="mu_d"):
        coulomb_friction(0.1, 1.0, 0.5, -0.3)
    with pytest.raises(ValueError, match="v_s"):
        piecewise_linear_mu(0.1, 0.5, 0.3, -0.01)
    with pytest.raises(ValueError, match="k must"):
        steady_penetration(1.0, k=-5.0)
    with pytest.raises(ValueError, match="depth"):
        required_stiffness(180.0, depth=0.0)
    with pytest.raises(ValueError, match="radius"):
        signed_distance([0.0, 1.0], radius=-0.1)


def test_wrong_shape_jacobians_are_rejected_by_name():
    with pytest.raises(ValueError, match="J_point"):
        contact_jacobian(np.ones((3, 4)), [0.0, 1.0])
    with pytest.raises(ValueError, match="lam"):
        generalized_contact_force(np.ones((2, 3)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="J must"):
        generalized_contact_force(np.ones(3), [1.0])
    with pytest.raises(ValueError, match="normal"):
        contact_frame([0.0, 0.0])
    with pytest.raises(ValueError, match="points"):
        PlanarRigidBody(points=((0.0, 0.0, 0.0),))
    with pytest.raises(ValueError, match="method"):
        explicit_step_limit(1.0, 1e4, method="euler")


def test_simulate_ivp_integrates_the_system_s_own_qdot():
    """A body spinning about z at ω = 0.8: its quaternion is (cos(ωt/2), 0, 0, sin(ωt/2)), not q0 + t v.

    The free rigid body's q (a unit quaternion, 4 entries) is not its velocity
    (the angular velocity, 3 entries): simulate_ivp must integrate q̇ = qdot(q, v).
    """
    from lib.manipulators import FreeRigidBody

    body = FreeRigidBody(np.diag([1.0, 1.0, 2.0]))
    run = simulate_ivp(body, [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.8], t_final=2.0, method="DOP853", rtol=1e-10,
                       atol=1e-12, num=5)
    assert run.q.shape == (5, 4) and run.v.shape == (5, 3), f"q {run.q.shape}, v {run.v.shape}"
    for t, q in zip(run.t, run.q):
        np.testing.assert_allclose(q, [np.cos(0.4 * t), 0.0, 0.0, np.sin(0.4 * t)], atol=1e-8)
    np.testing.assert_allclose(run.q, body.simulate([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.8], 2.0, num=5).q, atol=1e-8)
