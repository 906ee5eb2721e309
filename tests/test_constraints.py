"""lib.constraints against closed forms of notes 000/001 and independent computations."""

import numpy as np
import pytest
import sympy as sp

from lib.constraints import (Contact, PositionConstraint, PrescribedVelocity, StackedConstraint, SymbolicConstraint,
                             baumgarte, constrained_acceleration, constrained_dynamics, constraint_force, gauss_dual,
                             gauss_primal, generalized_force, pinv_solve, project_to_constraint, simulate_constrained)
from lib.hybrid import contact_dynamics
from lib.linkages import FourBar
from lib.particle import (DistanceConstraint, PointMass, circle_contact, floor_contact, particle_state,
                          pendulum_as_particle, pendulum_tension)
from lib.pendulum import SimplePendulum


RNG = np.random.default_rng(4)

def four_bar_problem(fb, rng, alpha=None):
    """M, τ, H, b of the four-bar at a random consistent state with a random crank torque."""
    q, v = fb.assemble(rng.uniform(-np.pi, np.pi), rng.uniform(-3, 3))
    M = fb.tree.mass_matrix(q)
    tau = generalized_force(fb.tree, q, v, rng.uniform(-5, 5, 1))
    H, b = fb.closure.acceleration_form(q, v, alpha)
    return M, tau, H, b


def test_constrained_particle_matches_minimal_coordinate_pendulum():
    """The particle on a rod follows SimplePendulum's trajectory, and λ gives the tension m l θ̇² + m g cos θ."""
    pendulum = SimplePendulum(m=1.3, l=0.9)
    particle, rod = pendulum_as_particle(pendulum)
    theta0, omega0 = 2.0, 1.5                       # a large swing, far from the small-angle regime
    q0, v0 = particle_state(pendulum.l, theta0, omega0)
    constrained = simulate_constrained(particle, q0, v0, constraint=rod, t_final=2.0, num=80, rtol=1e-9, atol=1e-9)
    minimal = pendulum.simulate([theta0], [omega0], 2.0, num=80, rtol=1e-9, atol=1e-9)
    p, pd = particle_state(pendulum.l, minimal.q[:, 0], minimal.v[:, 0])
    np.testing.assert_allclose(constrained.q, p, atol=1e-6)
    np.testing.assert_allclose(constrained.v, pd, atol=1e-6)
    T = rod.tension(constrained.lam)
    np.testing.assert_allclose(T, pendulum_tension(pendulum, minimal.q, minimal.v), rtol=1e-6, atol=1e-6)


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


def test_four_bar_drifts_without_baumgarte_and_not_with_it():
    """RK4 at h = 0.02 s for 5 s: ‖h‖ grows to millimetres without stabilization, stays below 1e-4 m with α = 5."""
    fb = FourBar()
    q0, v0 = fb.assemble(theta1=0.3, theta1_dot=6.0)
    free = simulate_constrained(fb.tree, q0, v0, constraint=fb.closure, t_final=5.0, h=0.02)
    held = simulate_constrained(fb.tree, q0, v0, constraint=fb.closure, t_final=5.0, h=0.02, alpha=5.0)
    h_free, h_held = np.linalg.norm(free.residual, axis=1), np.linalg.norm(held.residual, axis=1)
    assert h_free[-1] > 1e-3
    assert h_free[-1] > 3 * h_free[len(h_free) // 2]      # it keeps growing
    assert h_held.max() < 1e-4
    assert h_held[-1] < 1e-2 * h_free[-1]


def test_baumgarte_residual_follows_the_critically_damped_solution():
    """Starting off the rod, h(t) = (h0 + (ḣ0 + α h0) t) e^(−α t) exactly (ḧ = −2αḣ − α²h is imposed)."""
    particle, rod = pendulum_as_particle(SimplePendulum(m=1.0, l=1.0))
    q0, v0 = np.array([0.3, -1.1]), np.array([0.5, 0.2])
    alpha = 3.0
    traj = simulate_constrained(particle, q0, v0, constraint=rod, t_final=2.0, alpha=alpha, num=50, rtol=1e-10, atol=1e-12)
    h0, hd0 = rod.h(q0)[0], rod.velocity_residual(q0, v0)[0]
    t = traj.t
    np.testing.assert_allclose(traj.residual[:, 0], (h0 + (hd0 + alpha * h0) * t) * np.exp(-alpha * t), atol=1e-8)


def test_baumgarte_term_matches_formula():
    """baumgarte returns Ḣq̇ + 2αHq̇ + α²h, which makes λ the notes' stabilized multiplier."""
    H, Hdot_v, h, v = np.array([[1.0, 2.0]]), np.array([0.3]), np.array([0.05]), np.array([0.4, -0.1])
    assert baumgarte(H, Hdot_v, h, v, alpha=2.0)[0] == pytest.approx(0.3 + 4.0 * 0.2 + 4.0 * 0.05)


def test_driven_crank_turns_at_constant_speed_and_motor_work_is_energy():
    """The crank driven by h_v = θ̇1 − ω turns uniformly; ∫ λ ω dt equals the change of energy."""
    fb = FourBar()
    omega = 2.0
    q0, v0 = fb.assemble(theta1=0.2, theta1_dot=omega)
    drive = PrescribedVelocity(n=3, index=0, omega=omega)
    traj = simulate_constrained(fb.tree, q0, v0, constraint=StackedConstraint([fb.closure, drive]), t_final=1.5,
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
    traj = simulate_constrained(fb.tree, q0, v0, constraint=StackedConstraint([fb.closure, drive]), t_final=1.0, alpha=alpha,
                                num=40, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(traj.residual[:, 2], 0.5 * np.exp(-alpha * traj.t), atol=1e-7)


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
    traj = simulate_constrained(fb.tree, q0, v0, constraint=fb.closure, t_final=1.5, num=30, rtol=1e-10, atol=1e-10)
    energy = np.array([fb.tree.energy(q, v) for q, v in zip(traj.q, traj.v)])
    np.testing.assert_allclose(energy, energy[0], atol=1e-6)
    assert np.abs(traj.residual).max() < 1e-7


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
        simulate_constrained(particle, [0.0, -1.0], [0.0, 0.0], constraint=rod, t_final=1.0, alpha=alpha)
    with pytest.raises(ValueError, match="alpha"):
        PrescribedVelocity(2, 0, 1.0).acceleration_form([0.0, 0.0], [0.0, 0.0], alpha=alpha)


def test_bad_parameters_are_rejected_by_name():
    """A zero rod, a drive on a missing coordinate, an unset parameter, a step under an earlier name: named."""
    with pytest.raises(ValueError, match="l must"):
        DistanceConstraint(l=0.0)
    with pytest.raises(ValueError, match="index"):
        PrescribedVelocity(n=2, index=5, omega=1.0)
    with pytest.raises(ValueError, match="params"):
        SymbolicConstraint([sp.Symbol("x") - sp.Symbol("L")], [sp.Symbol("x")])
    particle, rod = pendulum_as_particle(SimplePendulum())
    with pytest.raises(TypeError, match="dt"):
        simulate_constrained(particle, [0.0, -1.0], [0.0, 0.0], constraint=rod, t_final=1.0, dt=0.01)
    with pytest.raises(ValueError, match="Constraint objects, got str"):
        StackedConstraint([rod, "rod"])
    with pytest.raises(ValueError, match=r"rows J of contact 'wall' must have shape \(k, 2\), got shape \(1, 3\)"):
        constrained_dynamics(particle, Contact("wall", lambda q: q[0], lambda q: [[1.0, 0.0, 0.0]]),
                             [0.0, -1.0], [0.0, 0.0])


# --- one path for every constrained system: contacts held, and the old step name ---------------
def test_contact_dynamics_is_constrained_dynamics_of_the_held_contacts():
    """The hybrid simulator's contact forces come from constrained_dynamics: the same q̈ and λ, to the last bit."""
    R = 1.0
    contacts = [circle_contact([0.0, 0.0], R), floor_contact(2, -R)]
    particle = PointMass(m=1.3, dim=2)
    for angle, speed in ((0.2, 0.5), (1.0, 2.0)):
        q = R * np.array([np.sin(angle), np.cos(angle)])
        v = speed * np.array([np.cos(angle), -np.sin(angle)])
        a_hybrid, lam_hybrid = contact_dynamics(particle, contacts[:1], q, v)
        a, lam = constrained_dynamics(particle, contacts[:1], q, v)
        assert np.array_equal(a_hybrid, a) and np.array_equal(lam_hybrid, lam), "two paths for one contact"
        # on the hump, the normal force is the weight's component minus the centripetal need
        expected = 1.3 * (9.81 * np.cos(angle) - speed**2 / R)
        assert lam[0] == pytest.approx(expected, rel=1e-9), f"normal force {lam[0]} != m (g cos θ − v²/R) = {expected}"


def test_a_list_of_constraints_is_their_stack():
    """constrained_dynamics(system, [a, b]) is constrained_dynamics(system, StackedConstraint([a, b]))."""
    fb = FourBar()
    q, v = fb.assemble(0.4, 1.5)
    drive = PrescribedVelocity(n=3, index=0, omega=1.5)
    a1, lam1 = constrained_dynamics(fb.tree, [fb.closure, drive], q, v)
    a2, lam2 = constrained_dynamics(fb.tree, StackedConstraint([fb.closure, drive]), q, v)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(lam1, lam2)
    assert lam1.shape == (3,), f"two closure rows and one drive row, got λ of shape {lam1.shape}"


def test_contact_is_a_position_constraint_on_its_normal_and_a_velocity_one_on_its_tangents():
    """A sticking floor contact: A = J, b = J̇ q̇ + [2α n q̇ + α² φ, α t q̇]; the residual is [φ, t q̇]."""
    floor = floor_contact(2, tangents=True)
    q, v, alpha = np.array([0.3, 0.02]), np.array([0.5, -0.1]), 4.0
    A, b = floor.acceleration_form(q, v, alpha)
    np.testing.assert_array_equal(A, [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(b, [2 * alpha * -0.1 + alpha**2 * 0.02, alpha * 0.5])
    np.testing.assert_allclose(floor.residual(q, v), [0.02, 0.5])
    A0, b0 = floor.acceleration_form(q, v)
    np.testing.assert_array_equal(b0, [0.0, 0.0])


def test_finite_difference_jdot_matches_the_analytic_one():
    """A contact built without J̇ q̇ gets it by central differences: equal to the circle's closed form."""
    hump = circle_contact([0.0, 0.0], 1.0)
    numeric = Contact("hump", hump.phi, hump.jacobian)
    for q, v in (([0.6, 0.9], [1.0, -0.4]), ([-0.2, 1.3], [0.3, 2.0])):
        q, v = np.array(q), np.array(v)
        np.testing.assert_allclose(numeric.rows_dot_v(q, v), hump.rows_dot_v(q, v), rtol=1e-6, atol=1e-8)


def test_the_step_is_h_and_symplectic_euler_has_one_spelling():
    """h=0.01 gives 51 samples up to 0.5 s; "symplectic euler" (with a space) is an unknown method, named."""
    particle, rod = pendulum_as_particle(SimplePendulum())
    q0, v0 = particle_state(1.0, 0.5, 0.0)
    traj = simulate_constrained(particle, q0, v0, constraint=rod, t_final=0.5, h=0.01, alpha=10.0, method="symplectic_euler")
    assert traj.t[-1] == 0.5 and len(traj.t) == 51, f"51 samples up to 0.5 s, got {len(traj.t)} up to {traj.t[-1]}"
    with pytest.raises(ValueError, match="method must be one of"):
        simulate_constrained(particle, q0, v0, constraint=rod, t_final=0.5, h=0.01, method="symplectic euler")
