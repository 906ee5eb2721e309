"""lib.constraints against closed forms of notes 000/001 and independent computations."""

import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

from lib.constraints import (DistanceConstraint, FourBar, PlanarBiped, PlanarTree, PointMass, PointPin,
                             PositionConstraint, PrescribedVelocity, StackedConstraint, SymbolicConstraint,
                             baumgarte, constrained_acceleration, constrained_dynamics, constraint_force,
                             gauss_dual, gauss_primal, generalized_force, integrate_fixed_step,
                             particle_state, pendulum_as_particle, pendulum_tension, pinv_solve,
                             project_to_constraint, simulate_constrained)
from lib.pendulum import SimplePendulum

RNG = np.random.default_rng(4)


def four_bar_problem(fb, rng, alpha=None):
    """M, τ, H, b of the four-bar at a random consistent state with a random crank torque."""
    q, v = fb.assemble(rng.uniform(-np.pi, np.pi), rng.uniform(-3, 3))
    M = fb.tree.mass_matrix(q)
    tau = generalized_force(fb.tree, q, v, rng.uniform(-5, 5, 1))
    H, b = fb.closure.acceleration_form(q, v, alpha)
    return M, tau, H, b


# --- the pendulum as a constrained particle ------------------------------------------
def test_constrained_particle_matches_minimal_coordinate_pendulum():
    """The particle on a rod follows SimplePendulum's trajectory, and λ gives the tension m l θ̇² + m g cos θ."""
    pendulum = SimplePendulum(m=1.3, l=0.9)
    particle, rod = pendulum_as_particle(pendulum)
    theta0, omega0 = 2.0, 1.5                       # a large swing, far from the small-angle regime
    q0, v0 = particle_state(pendulum.l, theta0, omega0)
    constrained = simulate_constrained(particle, rod, q0, v0, 2.0, num=80, rtol=1e-9, atol=1e-9)
    minimal = pendulum.simulate([theta0], [omega0], 2.0, num=80, rtol=1e-9, atol=1e-9)
    p, pd = particle_state(pendulum.l, minimal.q[:, 0], minimal.v[:, 0])
    np.testing.assert_allclose(constrained.q, p, atol=1e-6)
    np.testing.assert_allclose(constrained.v, pd, atol=1e-6)
    T = rod.tension(constrained.lam)
    np.testing.assert_allclose(T, pendulum_tension(pendulum, minimal.q, minimal.v), rtol=1e-6, atol=1e-6)


def test_tension_at_rest_is_the_weight_component():
    """Hanging at angle θ with no speed, the rod carries m g cos θ and the bob accelerates at g sin θ."""
    pendulum = SimplePendulum(m=2.0, l=1.5, g=9.81)
    particle, rod = pendulum_as_particle(pendulum)
    theta = 0.7
    q, v = particle_state(pendulum.l, theta, 0.0)
    vdot, lam = constrained_dynamics(particle, rod, q, v)
    assert rod.tension(lam) == pytest.approx(2.0 * 9.81 * np.cos(theta), rel=1e-12)
    tangent = np.array([np.cos(theta), np.sin(theta)])
    assert vdot @ tangent == pytest.approx(-9.81 * np.sin(theta), rel=1e-12)


def test_redundant_constraint_gives_minimum_norm_force():
    """Stating the rod twice halves each multiplier; the pseudo-inverse picks the least-norm λ (as lstsq does)."""
    particle, rod = pendulum_as_particle(SimplePendulum(m=1.0, l=1.0))
    q, v = particle_state(1.0, 0.4, 2.0)
    vdot1, lam1 = constrained_dynamics(particle, rod, q, v)
    vdot2, lam2 = constrained_dynamics(particle, StackedConstraint([rod, rod]), q, v)
    np.testing.assert_allclose(vdot2, vdot1, atol=1e-12)
    np.testing.assert_allclose(lam2, [lam1[0] / 2, lam1[0] / 2], atol=1e-12)
    # independent: the least-norm λ with Hᵀ λ equal to the needed generalized force
    H = np.vstack([rod.H(q), 3.0 * rod.H(q)])          # the same constraint, once scaled
    M, tau = particle.mass_matrix(q), generalized_force(particle, q, v)
    Hdot_v = np.concatenate([rod.Hdot_v(q, v), 3.0 * rod.Hdot_v(q, v)])
    lam = constraint_force(M, tau, H, Hdot_v)
    needed = M @ vdot1 - tau
    np.testing.assert_allclose(lam, np.linalg.lstsq(H.T, needed, rcond=None)[0], atol=1e-10)


def test_pinv_solve_matches_numpy_pinv():
    """The eigen-decomposition pseudo-inverse equals numpy's on a rank-deficient PSD matrix."""
    G = RNG.normal(size=(4, 2))
    W, r = G @ G.T, RNG.normal(size=4)
    np.testing.assert_allclose(pinv_solve(W, r), np.linalg.pinv(W) @ r, atol=1e-10)


# --- Gauss's principle ---------------------------------------------------------------
@pytest.mark.parametrize("alpha", [None, 4.0])
def test_gauss_primal_dual_and_closed_form_agree_on_four_bar(alpha):
    """Primal QP (accelerations), dual QP (forces) and the closed form give the same q̈ and λ."""
    rng = np.random.default_rng(11)
    fb = FourBar()
    for _ in range(5):
        M, tau, H, b = four_bar_problem(fb, rng, alpha)
        a0, lam0 = constrained_acceleration(M, tau, H, b)
        for solver in (gauss_primal, gauss_dual):
            a, lam = solver(M, tau, H, b)
            np.testing.assert_allclose(a, a0, rtol=1e-6, atol=1e-6, err_msg=solver.__name__)
            np.testing.assert_allclose(lam, lam0, rtol=1e-6, atol=1e-6, err_msg=solver.__name__)
        np.testing.assert_allclose(H @ a0 + b, 0.0, atol=1e-9)


def test_gauss_strong_duality_and_sign_of_the_dual():
    """Primal optimum ½‖a − q̈_uc‖²_M equals minus the dual optimum ½λᵀWλ + λᵀḧ_uc (a sign slip breaks it)."""
    M, tau, H, b = four_bar_problem(FourBar(), np.random.default_rng(3))
    a, lam = gauss_primal(M, tau, H, b)
    a_uc = np.linalg.solve(M, tau)
    primal = 0.5 * (a - a_uc) @ M @ (a - a_uc)
    _, mu = gauss_dual(M, tau, H, b)
    W = H @ np.linalg.solve(M, H.T)
    dual = 0.5 * mu @ W @ mu + mu @ (H @ a_uc + b)
    assert primal > 0
    assert primal == pytest.approx(-dual, rel=1e-6)


def test_gauss_solutions_agree_on_redundant_constraints():
    """With a redundant row, q̈ and the generalized force Hᵀλ agree; the closed form's λ has least norm."""
    M, tau, H, b = four_bar_problem(FourBar(), np.random.default_rng(5))
    H3, b3 = np.vstack([H, H[0] + H[1]]), np.append(b, b[0] + b[1])
    a0, lam0 = constrained_acceleration(M, tau, H3, b3)
    for solver in (gauss_primal, gauss_dual):
        a, lam = solver(M, tau, H3, b3)
        np.testing.assert_allclose(a, a0, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(H3.T @ lam, H3.T @ lam0, rtol=1e-6, atol=1e-6)
        assert np.linalg.norm(lam0) <= np.linalg.norm(lam) + 1e-9
    np.testing.assert_allclose(lam0 @ np.array([1.0, 1.0, -1.0]), 0.0, atol=1e-9)   # λ ⟂ null(H3ᵀ)


# --- Baumgarte stabilization and drift -----------------------------------------------
def test_four_bar_drifts_without_baumgarte_and_not_with_it():
    """RK4 at dt = 0.02 s for 5 s: ‖h‖ grows to millimetres without stabilization, stays below 1e-4 m with α = 5."""
    fb = FourBar()
    q0, v0 = fb.assemble(theta1=0.3, theta1_dot=6.0)
    free = simulate_constrained(fb.tree, fb.closure, q0, v0, 5.0, dt=0.02)
    held = simulate_constrained(fb.tree, fb.closure, q0, v0, 5.0, dt=0.02, alpha=5.0)
    h_free, h_held = np.linalg.norm(free.h, axis=1), np.linalg.norm(held.h, axis=1)
    assert h_free[-1] > 1e-3
    assert h_free[-1] > 3 * h_free[len(h_free) // 2]      # it keeps growing
    assert h_held.max() < 1e-4
    assert h_held[-1] < 1e-2 * h_free[-1]


def test_baumgarte_residual_follows_the_critically_damped_solution():
    """Starting off the rod, h(t) = (h0 + (ḣ0 + α h0) t) e^(−α t) exactly (ḧ = −2αḣ − α²h is imposed)."""
    particle, rod = pendulum_as_particle(SimplePendulum(m=1.0, l=1.0))
    q0, v0 = np.array([0.3, -1.1]), np.array([0.5, 0.2])
    alpha = 3.0
    traj = simulate_constrained(particle, rod, q0, v0, 2.0, alpha=alpha, num=50, rtol=1e-10, atol=1e-12)
    h0, hd0 = rod.h(q0)[0], rod.velocity_residual(q0, v0)[0]
    t = traj.t
    np.testing.assert_allclose(traj.h[:, 0], (h0 + (hd0 + alpha * h0) * t) * np.exp(-alpha * t), atol=1e-8)


def test_baumgarte_term_matches_formula():
    """baumgarte returns Ḣq̇ + 2αHq̇ + α²h, which makes λ the notes' stabilized multiplier."""
    H, Hdot_v, h, v = np.array([[1.0, 2.0]]), np.array([0.3]), np.array([0.05]), np.array([0.4, -0.1])
    assert baumgarte(H, Hdot_v, h, v, alpha=2.0)[0] == pytest.approx(0.3 + 4.0 * 0.2 + 4.0 * 0.05)


# --- velocity constraints --------------------------------------------------------------
def test_driven_crank_turns_at_constant_speed_and_motor_work_is_energy():
    """The crank driven by h_v = θ̇1 − ω turns uniformly; ∫ λ ω dt equals the change of energy."""
    fb = FourBar()
    omega = 2.0
    q0, v0 = fb.assemble(theta1=0.2, theta1_dot=omega)
    drive = PrescribedVelocity(n=3, index=0, omega=omega)
    traj = simulate_constrained(fb.tree, StackedConstraint([fb.closure, drive]), q0, v0, 1.5,
                                num=600, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(traj.q[:, 0], 0.2 + omega * traj.t, atol=1e-7)
    torque = traj.lam[:, 2]
    power = torque * omega
    work = np.sum(0.5 * (power[1:] + power[:-1]) * np.diff(traj.t))
    energy = np.array([fb.tree.energy(q, v) for q, v in zip(traj.q, traj.v)])
    assert np.ptp(energy) > 1.0                              # the motor does real work...
    assert work == pytest.approx(energy[-1] - energy[0], rel=1e-4, abs=1e-4)   # ...and all of it goes into E


def test_velocity_constraint_stabilization_decays_exponentially():
    """With ḣ_v = −α h_v, a crank started too fast approaches ω as (θ̇1(0) − ω) e^(−α t)."""
    fb = FourBar()
    omega, alpha = 2.0, 4.0
    q0, v0 = fb.assemble(theta1=0.2, theta1_dot=omega + 0.5)
    drive = PrescribedVelocity(n=3, index=0, omega=omega)
    traj = simulate_constrained(fb.tree, StackedConstraint([fb.closure, drive]), q0, v0, 1.0, alpha=alpha,
                                num=40, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(traj.h[:, 2], 0.5 * np.exp(-alpha * traj.t), atol=1e-7)


# --- the legged robot ----------------------------------------------------------------------
def test_pinned_foot_force_obeys_newtons_law_for_the_centre_of_mass():
    """f = m_total (a_com − g), with a_com by finite differences of the centre of mass along the motion."""
    robot = PlanarBiped()
    pin = robot.foot_pin()
    rng = np.random.default_rng(8)
    for _ in range(3):
        q, v = project_to_constraint(pin, robot.standing(lean=rng.uniform(-0.3, 0.3)), rng.normal(size=7))
        u = rng.uniform(-20, 20, 4)
        a, f = constrained_dynamics(robot.tree, pin, q, v, u)
        com = lambda s: robot.tree.center_of_mass(q + s * v + 0.5 * s**2 * a)  # noqa: E731
        eps = 1e-4
        a_com = (com(eps) - 2 * com(0.0) + com(-eps)) / eps**2
        np.testing.assert_allclose(f, robot.mass * (a_com - np.array([0.0, -robot.g])), rtol=1e-5, atol=1e-3)
        np.testing.assert_allclose(pin.H(q) @ a + pin.Hdot_v(q, v), 0.0, atol=1e-9)   # the foot stays put


def test_balanced_biped_stands_still_on_its_weight():
    """With the centre of mass above the foot, holding torques give q̈ = 0 and the ground carries (0, m g)."""
    robot = PlanarBiped()
    q = robot.balanced()
    u, f = robot.holding_torques(q)
    a, lam = constrained_dynamics(robot.tree, robot.foot_pin(), q, np.zeros(7), u)
    np.testing.assert_allclose(a, 0.0, atol=1e-9)
    np.testing.assert_allclose(lam, [0.0, robot.mass * robot.g], atol=1e-9)
    np.testing.assert_allclose(f, lam, atol=1e-9)


# --- the planar tree of rods --------------------------------------------------------------------
def lagranges_method_tree():
    """A floating base with a torso and a two-link leg hanging from the hip, by sympy.physics.mechanics."""
    x, y, a, b, c = dynamicsymbols("x y a b c")
    t = dynamicsymbols._t
    m, l, g = (0.7, 1.3, 0.9), (1.1, 0.8, 0.6), 9.81
    e = lambda th: sp.Matrix([sp.cos(th), sp.sin(th)])  # noqa: E731
    base = sp.Matrix([x, y])
    coms = [base + l[0] / 2 * e(a), base + l[1] / 2 * e(b), base + l[1] * e(b) + l[2] / 2 * e(c)]
    T = sum(mi * (p.diff(t).T * p.diff(t))[0] / 2 + mi * li**2 / 24 * th.diff(t) ** 2
            for mi, li, p, th in zip(m, l, coms, (a, b, c)))
    U = sum(mi * g * p[1] for mi, p in zip(m, coms))
    lm = LagrangesMethod(T - U, [x, y, a, b, c])
    lm.form_lagranges_equations()
    qs, vs = [x, y, a, b, c], sp.symbols("v0:5")
    subs = {qi.diff(t): vi for qi, vi in zip(qs, vs)}
    M = sp.lambdify([qs, vs], lm.mass_matrix.subs(subs))
    forcing = sp.lambdify([qs, vs], lm.forcing.subs(subs))       # = tau_g − C v
    tree = PlanarTree(m=m, l=l, parent=(-1, -1, 1), floating=True, g=g)
    return tree, M, forcing


def test_planar_tree_matches_lagranges_method():
    """M and tau_g − C v of a floating tree equal sympy's LagrangesMethod at random states."""
    tree, M, forcing = lagranges_method_tree()
    for _ in range(5):
        q, v = RNG.uniform(-3, 3, 5), RNG.uniform(-2, 2, 5)
        np.testing.assert_allclose(tree.mass_matrix(q), np.array(M(q, v), dtype=float), atol=1e-12)
        np.testing.assert_allclose(tree.gravity_vector(q) - tree.bias(q, v),
                                   np.array(forcing(q, v), dtype=float).ravel(), atol=1e-10)


def test_planar_tree_mdot_minus_2c_is_skew_symmetric():
    """Ṁ − 2C is skew-symmetric (Ṁ by central differences along v) for the biped tree."""
    tree = PlanarBiped().tree
    q, v = RNG.uniform(-2, 2, 7), RNG.uniform(-2, 2, 7)
    eps = 1e-6
    Mdot = (tree.mass_matrix(q + eps * v) - tree.mass_matrix(q - eps * v)) / (2 * eps)
    S = Mdot - 2 * tree.coriolis_matrix(q, v)
    np.testing.assert_allclose(S, -S.T, atol=1e-7)
    assert np.linalg.eigvalsh(tree.mass_matrix(q)).min() > 0


def test_point_pin_derivatives_match_finite_differences():
    """H = ∂h/∂q and Ḣq̇ = d/dt(H) q̇ of a pinned point equal central differences."""
    fb = FourBar()
    q, v = RNG.uniform(-3, 3, 3), RNG.uniform(-2, 2, 3)
    eps = 1e-6
    H_fd = np.column_stack([(fb.closure.h(q + eps * e) - fb.closure.h(q - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(fb.closure.H(q), H_fd, atol=1e-8)
    Hdot = (fb.closure.H(q + eps * v) - fb.closure.H(q - eps * v)) / (2 * eps)
    np.testing.assert_allclose(fb.closure.Hdot_v(q, v), Hdot @ v, atol=1e-7)


def test_symbolic_constraint_matches_hand_written_rod():
    """sympy-derived H and Ḣq̇ of ½(x² + y² − l²) equal DistanceConstraint's closed forms."""
    x, y = sp.symbols("x y")
    symbolic = SymbolicConstraint([(x**2 + y**2 - 1.7**2) / 2], [x, y])
    rod = DistanceConstraint(l=1.7)
    for _ in range(5):
        q, v = RNG.normal(size=2), RNG.normal(size=2)
        np.testing.assert_allclose(symbolic.h(q), rod.h(q), atol=1e-12)
        np.testing.assert_allclose(symbolic.H(q), rod.H(q), atol=1e-12)
        np.testing.assert_allclose(symbolic.Hdot_v(q, v), rod.Hdot_v(q, v), atol=1e-12)


def test_four_bar_conserves_energy_and_closure():
    """Unforced and without friction, the closed chain keeps its energy: constraint forces do no work."""
    fb = FourBar()
    q0, v0 = fb.assemble(theta1=1.0, theta1_dot=3.0)
    traj = simulate_constrained(fb.tree, fb.closure, q0, v0, 1.5, num=30, rtol=1e-10, atol=1e-10)
    energy = np.array([fb.tree.energy(q, v) for q, v in zip(traj.q, traj.v)])
    np.testing.assert_allclose(energy, energy[0], atol=1e-6)
    assert np.abs(traj.h).max() < 1e-7


def test_four_bar_assembly_and_projection():
    """assemble closes the loop for every crank angle of a crank–rocker; projection restores h = 0 and Hv = 0."""
    fb = FourBar()
    for theta1 in np.linspace(-np.pi, np.pi, 9):
        q, v = fb.assemble(theta1, 1.0)
        np.testing.assert_allclose(fb.closure.h(q), 0.0, atol=1e-12)
        np.testing.assert_allclose(fb.closure.H(q) @ v, 0.0, atol=1e-12)
    q, v = project_to_constraint(fb.closure, q + 0.01, v + 0.1)
    np.testing.assert_allclose(fb.closure.h(q), 0.0, atol=1e-12)
    np.testing.assert_allclose(fb.closure.H(q) @ v, 0.0, atol=1e-12)


def test_fixed_step_integrators_orders():
    """On q̈ = −q, halving dt cuts the error 2× (Euler), 16× (RK4)."""
    def error(method, dt):
        t, q, v = integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], 1.0, dt, method)
        return abs(q[-1, 0] - np.cos(1.0))
    assert error("euler", 0.01) / error("euler", 0.005) == pytest.approx(2.0, rel=0.05)
    assert error("symplectic euler", 0.01) / error("symplectic euler", 0.005) == pytest.approx(2.0, rel=0.1)
    assert error("rk4", 0.05) / error("rk4", 0.025) == pytest.approx(16.0, rel=0.1)


# --- bad input ------------------------------------------------------------------------------
def test_wrong_shape_jacobian_is_rejected_by_name():
    M, tau = np.eye(3), np.zeros(3)
    with pytest.raises(ValueError, match="H must have shape"):
        constraint_force(M, tau, np.ones((1, 2)), [0.0])
    with pytest.raises(ValueError, match="Hdot_v"):
        constraint_force(M, tau, np.ones((2, 3)), [0.0])
    with pytest.raises(ValueError, match="M must be a square"):
        constraint_force(np.ones((2, 3)), tau, np.ones((1, 3)), [0.0])

    class BadRod(PositionConstraint):
        n, m = 2, 1

        def h(self, q):
            return np.zeros(1)

        def H(self, q):
            return np.ones((2, 2))          # one row too many

        def Hdot_v(self, q, v):
            return np.zeros(1)

    with pytest.raises(ValueError, match="H must have shape"):
        constrained_dynamics(PointMass(), BadRod(), [0.0, -1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="constraint acts on 3"):
        constrained_dynamics(PointMass(), FourBar().closure, [0.0, -1.0], [0.0, 0.0])


@pytest.mark.parametrize("alpha", [0.0, -1.0, float("nan")])
def test_nonpositive_alpha_is_rejected_by_name(alpha):
    particle, rod = pendulum_as_particle(SimplePendulum())
    with pytest.raises(ValueError, match="alpha"):
        baumgarte([[1.0, 0.0]], [0.0], [0.0], [0.0, 0.0], alpha)
    with pytest.raises(ValueError, match="alpha"):
        constrained_dynamics(particle, rod, [0.0, -1.0], [0.0, 0.0], alpha=alpha)
    with pytest.raises(ValueError, match="alpha"):
        simulate_constrained(particle, rod, [0.0, -1.0], [0.0, 0.0], 1.0, alpha=alpha)
    with pytest.raises(ValueError, match="alpha"):
        PrescribedVelocity(2, 0, 1.0).acceleration_form([0.0, 0.0], [0.0, 0.0], alpha=alpha)


def test_bad_parameters_are_rejected_by_name():
    with pytest.raises(ValueError, match="l1"):
        FourBar(l1=-0.4)
    with pytest.raises(ValueError, match=r"m\[1\]"):
        PlanarTree(m=(1.0, -1.0), l=(1.0, 1.0), parent=(-1, 0))
    with pytest.raises(ValueError, match="parent"):
        PlanarTree(m=(1.0, 1.0), l=(1.0, 1.0), parent=(-1, 1))
    with pytest.raises(ValueError, match="l must"):
        DistanceConstraint(l=0.0)
    with pytest.raises(ValueError, match="dt"):
        integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], 1.0, -0.1)
    with pytest.raises(ValueError, match="theta1"):
        FourBar(l1=0.4, l2=0.3, l3=0.2, d=2.0).assemble(0.0)
    with pytest.raises(ValueError, match="index"):
        PrescribedVelocity(n=2, index=5, omega=1.0)
    with pytest.raises(ValueError, match="params"):
        SymbolicConstraint([sp.Symbol("x") - sp.Symbol("L")], [sp.Symbol("x")])
    with pytest.raises(ValueError, match="link"):
        PointPin(FourBar().tree, link=7, s=0.0, target=(0.0, 0.0))
