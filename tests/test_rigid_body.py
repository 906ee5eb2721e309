"""lib.rigid_body: inertias of notes 003 against integration over point clouds; Steiner, König, the rolling race."""

import numpy as np
import pytest
import sympy as sp

from lib.rigid_body import (RollingBody, box_inertia, check_inertia, hollow_cylinder_inertia, inertia_of_points,
                            konig_kinetic_energy, parallel_axis, race_bodies, race_results, ring_inertia,
                            rotate_inertia, rotation, skew, solid_cylinder_inertia, solid_sphere_inertia,
                            spherical_shell_inertia, steiner)

RNG = np.random.default_rng(3)


def box_cloud(m, a, b, c, k=40):
    """A homogeneous box as k³ equal point masses at the midpoints of a grid of cells."""
    axes = [(np.arange(k) + 0.5) / k * s - s / 2 for s in (a, b, c)]
    pts = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    return np.full(len(pts), m / len(pts)), pts


def hollow_cylinder_cloud(m, a, b, h, k=60):
    """A homogeneous hollow cylinder (axis x) as point masses on a polar grid, each weighted by its area r dr dθ."""
    r = b + (np.arange(k) + 0.5) / k * (a - b)
    th = (np.arange(k) + 0.5) / k * 2 * np.pi
    x = (np.arange(k) + 0.5) / k * h - h / 2
    R, TH, X = np.meshgrid(r, th, x, indexing="ij")
    pts = np.stack([X, R * np.cos(TH), R * np.sin(TH)], axis=-1).reshape(-1, 3)
    w = R.reshape(-1)
    return m * w / w.sum(), pts


def test_box_inertia_matches_notes_and_direct_integration():
    m, a, b, c = 3.0, 0.4, 0.9, 1.7
    I = box_inertia(m, a, b, c)
    np.testing.assert_allclose(I, np.diag([m * (b**2 + c**2), m * (a**2 + c**2), m * (a**2 + b**2)]) / 12)
    mass, r_c, I_num = inertia_of_points(*box_cloud(m, a, b, c))
    assert mass == pytest.approx(m)
    np.testing.assert_allclose(r_c, 0.0, atol=1e-12)
    np.testing.assert_allclose(I_num, I, rtol=2e-3, atol=1e-12)


def test_hollow_cylinder_inertia_matches_notes_and_direct_integration():
    m, a, b, h = 2.0, 0.3, 0.2, 1.1
    I = hollow_cylinder_inertia(m, a, b, h)
    axial, transverse = m * (a**2 + b**2) / 2, m * (3 * (a**2 + b**2) + h**2) / 12
    np.testing.assert_allclose(I, np.diag([axial, transverse, transverse]))
    _, _, I_num = inertia_of_points(*hollow_cylinder_cloud(m, a, b, h))
    np.testing.assert_allclose(I_num, I, rtol=2e-3, atol=1e-9)


def test_solid_cylinder_and_ring_are_the_limits_of_the_hollow_cylinder():
    m, r, h = 1.5, 0.25, 0.6
    np.testing.assert_allclose(solid_cylinder_inertia(m, r, h), hollow_cylinder_inertia(m, r, 0.0, h))
    np.testing.assert_allclose(solid_cylinder_inertia(m, r, h)[0, 0], m * r**2 / 2)
    np.testing.assert_allclose(ring_inertia(m, r, h), hollow_cylinder_inertia(m, r, r, h))
    np.testing.assert_allclose(ring_inertia(m, r)[0, 0], m * r**2)
    # a thin tube: the point-cloud inertia of a very thin wall approaches the ring's
    _, _, I_num = inertia_of_points(*hollow_cylinder_cloud(m, r, 0.999 * r, h))
    np.testing.assert_allclose(I_num, ring_inertia(m, r, h), rtol=3e-3, atol=1e-12)


def test_sphere_and_shell_against_point_clouds():
    m, r = 2.0, 0.5
    # a shell: a Fibonacci lattice of nearly uniformly spread points on the sphere
    k = 4000
    i = np.arange(k) + 0.5
    z = 1 - 2 * i / k
    th = np.pi * (1 + 5**0.5) * i
    pts = r * np.stack([np.sqrt(1 - z**2) * np.cos(th), np.sqrt(1 - z**2) * np.sin(th), z], axis=1)
    _, _, I_shell = inertia_of_points(np.full(k, m / k), pts)
    np.testing.assert_allclose(I_shell, spherical_shell_inertia(m, r), rtol=1e-3, atol=1e-4)
    # a solid ball: the grid points of a box that fall inside the sphere
    masses, cube = box_cloud(1.0, 2 * r, 2 * r, 2 * r, k=50)
    inside = np.linalg.norm(cube, axis=1) <= r
    _, _, I_ball = inertia_of_points(np.full(inside.sum(), m / inside.sum()), cube[inside])
    np.testing.assert_allclose(I_ball, solid_sphere_inertia(m, r), rtol=5e-3, atol=1e-4)


def test_steiner_for_a_cylinder_turning_about_its_end():
    """Notes 003: I'_zz = I_zz + m (h/2)², checked against the point cloud measured from the end face."""
    m, a, b, h = 2.0, 0.3, 0.2, 1.1
    I_c = hollow_cylinder_inertia(m, a, b, h)
    masses, pts = hollow_cylinder_cloud(m, a, b, h)
    end = pts - np.array([-h / 2, 0.0, 0.0])  # positions seen from the centre of one end face
    I_end = np.sum(masses * (end[:, 0] ** 2 + end[:, 1] ** 2))
    assert steiner(I_c[2, 2], m, h / 2) == pytest.approx(I_end, rel=2e-3)


def test_parallel_axis_matrix_form_and_its_skew_identity():
    """I = I_c + m S(r)ᵀ S(r) = I_c + m (rᵀr E − r rᵀ), numerically and symbolically (the notes' homework)."""
    m, a, b, c = 3.0, 0.4, 0.9, 1.7
    I_c = box_inertia(m, a, b, c)
    r = np.array([0.3, -0.2, 0.5])
    I = parallel_axis(I_c, m, r)
    np.testing.assert_allclose(I, I_c + m * (r @ r * np.eye(3) - np.outer(r, r)), atol=1e-14)
    masses, pts = box_cloud(m, a, b, c)
    shifted = pts + r  # the same body, seen from a point at −r from its CoM
    I_about_point = np.sum(masses * np.sum(shifted**2, axis=1)) * np.eye(3) - (masses[:, None] * shifted).T @ shifted
    np.testing.assert_allclose(I, I_about_point, rtol=2e-3, atol=1e-9)
    x, y, z = sp.symbols("x y z", real=True)
    S = skew([x, y, z])
    rv = sp.Matrix([x, y, z])
    assert sp.simplify(S.T * S - ((rv.T * rv)[0] * sp.eye(3) - rv * rv.T)) == sp.zeros(3, 3)


def test_inertia_matrices_are_symmetric_positive_definite_and_check_inertia_accepts_them():
    for I in (box_inertia(1, 1, 2, 3), hollow_cylinder_inertia(1, 2, 1, 3), ring_inertia(1, 2),
              solid_sphere_inertia(1, 1), spherical_shell_inertia(1, 1),
              parallel_axis(box_inertia(1, 1, 2, 3), 2.0, [1.0, 2.0, 3.0])):
        np.testing.assert_allclose(I, I.T)
        assert np.linalg.eigvalsh(I)[0] > 0
        np.testing.assert_allclose(check_inertia("I", I), I)


def test_rotation_keeps_the_rotational_kinetic_energy():
    """ωᵀ I ω is the same in every frame: ⁰I = R ⁱI Rᵀ with ⁰ω = R ⁱω."""
    I_body = box_inertia(2.0, 0.3, 0.5, 0.9)
    for _ in range(5):
        R = rotation(RNG.normal(size=3), RNG.uniform(-np.pi, np.pi))
        np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
        w_body = RNG.normal(size=3)
        I0 = rotate_inertia(I_body, R)
        assert (R @ w_body) @ I0 @ (R @ w_body) == pytest.approx(w_body @ I_body @ w_body, rel=1e-12)
        np.testing.assert_allclose(np.linalg.eigvalsh(I0), np.linalg.eigvalsh(I_body), rtol=1e-12)
        assert not np.allclose(I0, I_body)  # the matrix itself does change


def test_konig_equals_the_kinetic_energy_summed_over_points():
    masses = RNG.uniform(0.5, 2.0, 30)
    pts = RNG.normal(size=(30, 3))
    m, r_c, I_c = inertia_of_points(masses, pts)
    v_c, omega = RNG.normal(size=3), RNG.normal(size=3)
    v = v_c + np.cross(omega, pts - r_c)  # v = v_c + S(ω) r
    T_points = 0.5 * np.sum(masses * np.sum(v * v, axis=1))
    assert konig_kinetic_energy(m, I_c, v_c, omega) == pytest.approx(T_points, rel=1e-12)


def test_skew_is_the_cross_product():
    a, b = RNG.normal(size=3), RNG.normal(size=3)
    np.testing.assert_allclose(skew(a) @ b, np.cross(a, b))
    np.testing.assert_allclose(skew(a).T, -skew(a))


# --- the rolling race --------------------------------------------------------------
def test_race_finishing_order_follows_from_the_inertias():
    """Notes 003: solid sphere first, solid cylinder second, spherical shell third, ring last."""
    results = race_results(race_bodies(m=2.0, r=0.15, gamma=0.3), length=2.0)
    assert [name for name, _ in results] == ["solid sphere", "solid cylinder", "spherical shell", "ring"]
    times = [t for _, t in results]
    assert times == sorted(times) and len(set(times)) == 4


def test_race_order_is_computed_not_hard_coded():
    """Give the ring an (impossible) tiny inertia: it must win."""
    bodies = race_bodies()
    ring = bodies["ring"]
    bodies["ring"] = RollingBody(m=ring.m, r=ring.r, I=0.1 * ring.m * ring.r**2, gamma=ring.gamma)
    assert race_results(bodies, 1.0)[0][0] == "ring"


def test_rolling_body_simulation_reaches_the_finish_at_the_closed_form_time():
    for name, body in race_bodies(m=1.0, r=0.1, gamma=np.pi / 8).items():
        length = 1.5
        t_f = body.finish_time(length)
        traj = body.simulate([0.0], [0.0], t_f, num=50)
        assert traj.q[-1, 0] == pytest.approx(length, rel=1e-8), name
        # energy: ½ (m + I/r²) v² = m g s sin γ at the finish (independent of the acceleration formula)
        v_end = np.sqrt(2 * body.m * body.g * length * np.sin(body.gamma) / (body.m + body.I / body.r**2))
        assert traj.v[-1, 0] == pytest.approx(v_end, rel=1e-8), name
        E = [body.energy(q, v) for q, v in zip(traj.q, traj.v)]
        assert np.ptp(E) < 1e-8


def test_rolling_acceleration_from_newton_with_the_friction_force():
    """m a = m g sin γ − f, I α = f r, a = α r (no slip) gives the same acceleration."""
    body = RollingBody(m=1.3, r=0.2, I=0.03, gamma=0.4)
    a, f = np.linalg.solve([[body.m, 1.0], [body.I / body.r, -body.r]], [body.m * body.g * np.sin(body.gamma), 0.0])
    assert body.acceleration() == pytest.approx(a, rel=1e-12)
    assert f > 0


# --- bad input ------------------------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda: box_inertia(-1.0, 1, 1, 1), "m"),
    (lambda: box_inertia(1.0, 0.0, 1, 1), "a"),
    (lambda: hollow_cylinder_inertia(1.0, 0.1, 0.2, 1.0), "b"),
    (lambda: solid_sphere_inertia(1.0, -0.5), "r"),
    (lambda: steiner(-1.0, 1.0, 0.5), "I_c"),
    (lambda: steiner(1.0, 0.0, 0.5), "m"),
    (lambda: parallel_axis(np.eye(3), 1.0, [1.0, 2.0]), "r"),
    (lambda: RollingBody(I=0.0), "I"),
    (lambda: RollingBody(gamma=2.0), "gamma"),
    (lambda: inertia_of_points([1.0, 1.0], [[0.0, 0.0, 0.0]]), "points"),
    (lambda: inertia_of_points([1.0, -1.0], [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]), "masses"),
    (lambda: rotate_inertia(np.eye(3), np.diag([1.0, 1.0, -1.0])), "R"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()


def test_check_inertia_accepts_the_singular_inertias_of_a_rod_and_a_point_mass():
    """A slender rod (0, I, I) and a point mass (0) are physical: semidefinite, triangle inequalities with equality."""
    rod = inertia_of_points([1.0, 1.0], [[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0]])[2]
    np.testing.assert_allclose(check_inertia("I_rod", rod), np.diag([0.0, 0.5, 0.5]))
    np.testing.assert_allclose(check_inertia("I_point", np.zeros((3, 3))), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="I_rod must be positive definite"):
        check_inertia("I_rod", rod, positive_definite=True)
    with pytest.raises(ValueError, match="triangle inequality"):
        check_inertia("I_c", np.diag([0.0, 0.5, 0.6]))    # 0 + 0.5 < 0.6: no body


@pytest.mark.parametrize("I, what", [
    (np.array([[1.0, 0.2, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), "symmetric"),
    (np.diag([1.0, 1.0, -0.5]), "positive semidefinite"),
    (np.diag([1.0, 1.0, 3.0]), "triangle inequality"),
    (np.eye(2), "shape"),
    (np.full((3, 3), np.nan), "finite"),
])
def test_check_inertia_rejects_what_no_body_has(I, what):
    with pytest.raises(ValueError, match=f"I_c.*{what}"):
        check_inertia("I_c", I)
    with pytest.raises(ValueError, match="I_c"):
        parallel_axis(I, 1.0, [0.0, 0.0, 1.0])
