"""lib.system: the protocol every system speaks, on textbook systems with closed forms (notes 000, 003)."""

import importlib
import inspect
import pkgutil
from dataclasses import dataclass, is_dataclass

import numpy as np
import pytest

import lib

from lib.impulse import SpinningBall
from lib.manipulators import PRRobot
from lib.pendulum import DoublePendulum, SimplePendulum
from lib.system import ManipulatorSystem, PlanarBody, Trajectory, solve_sampled

G = 9.81
RNG = np.random.default_rng(12)


def test_generalized_force_of_the_pendulum_is_the_notes_sum():
    """m l² θ̈ = −m g l sin θ − b θ̇ + u: τ is the right-hand side, term by term."""
    p = SimplePendulum(m=1.5, l=0.8, b=0.4)
    for theta, omega, u in ((0.3, -1.2, 0.7), (2.0, 0.5, -1.0)):
        tau = p.generalized_force([theta], [omega], [u])
        expected = -1.5 * G * 0.8 * np.sin(theta) - 0.4 * omega + u
        assert tau[0] == pytest.approx(expected, rel=1e-12), f"τ = {tau[0]}, the notes' sum is {expected}"


def test_generalized_force_of_the_double_pendulum_is_tau_g_minus_c_v():
    """No input, no friction: τ = tau_g − C v with the closed forms of notes 000, at random states."""
    dp = DoublePendulum(m1=1.2, m2=0.7, l1=0.9, l2=0.6)
    for _ in range(5):
        q, v = RNG.normal(size=2), RNG.normal(size=2)
        np.testing.assert_allclose(dp.generalized_force(q, v), dp.gravity_vector(q) - dp.coriolis_matrix(q, v) @ v)
        np.testing.assert_allclose(dp.bias(q, v), dp.coriolis_matrix(q, v) @ v)


def test_forward_and_inverse_dynamics_undo_each_other():
    """inverse_dynamics(q, v, forward_dynamics(q, v, u)) = B u for the double pendulum and the PR robot."""
    for system in (DoublePendulum(m1=1.0, m2=0.5), PRRobot(m1=2.0, m2=1.0, gravity=(0.0, -G))):
        for _ in range(5):
            q, v, u = RNG.normal(size=(3, 2))
            vdot = system.forward_dynamics(q, v, u)
            np.testing.assert_allclose(system.inverse_dynamics(q, v, vdot), system.input_matrix() @ u, atol=1e-12)
            np.testing.assert_allclose(system.mass_matrix(q) @ vdot, system.generalized_force(q, v, u), atol=1e-12)


def test_default_kinetic_energy_is_half_v_m_v_and_energy_adds_the_potential():
    """T = ½ vᵀ M v (the base class) equals the double pendulum's closed form; E = T + U."""
    dp = DoublePendulum(m1=1.1, m2=0.6, l1=1.0, l2=0.8)
    for _ in range(5):
        q, v = RNG.normal(size=(2, 2))
        assert ManipulatorSystem.kinetic_energy(dp, q, v) == pytest.approx(dp.kinetic_energy(q, v), rel=1e-12)
        assert dp.energy(q, v) == pytest.approx(dp.kinetic_energy(q, v) + dp.potential_energy(q), rel=1e-12)


def test_simulate_keeps_the_energy_without_friction_and_loses_it_with():
    """The unforced pendulum keeps E to the integrator's tolerance; with friction E falls monotonically."""
    free = SimplePendulum().simulate([1.0], [0.0], 3.0, num=200)
    E = np.array([SimplePendulum().energy(q, v) for q, v in zip(free.q, free.v)])
    assert np.ptp(E) < 1e-8, f"the energy drifts by {np.ptp(E):.1e} J"
    damped = SimplePendulum(b=0.5)
    run = damped.simulate([1.0], [0.0], 3.0, num=200)
    E = np.array([damped.energy(q, v) for q, v in zip(run.q, run.v)])
    assert np.all(np.diff(E) <= 1e-9), "friction can only take energy away"
    assert E[-1] < E[0] - 0.1


def test_a_constant_input_and_the_same_input_as_a_function_give_one_motion():
    """u = 0.3 and u(t, q, v) = 0.3 are the same input; the trajectory is a Trajectory of the asked size."""
    p = SimplePendulum()
    a = p.simulate([0.2], [0.0], 1.0, u=0.3, num=11)
    b = p.simulate([0.2], [0.0], 1.0, u=lambda t, q, v: np.array([0.3]), num=11)
    assert isinstance(a, Trajectory) and a.q.shape == (11, 1) and a.t[-1] == 1.0
    np.testing.assert_array_equal(a.q, b.q)


def test_input_policy_and_check_input():
    """None is no input (zeros of B's width), a number is a constant, a function is used as it is."""
    robot = PRRobot()
    np.testing.assert_array_equal(robot.check_input(None), [0.0, 0.0])
    np.testing.assert_array_equal(robot.input_policy([1.0, 2.0])(0.0, [0, 0], [0, 0]), [1.0, 2.0])
    f = lambda t, q, v: np.array([t, 0.0])  # noqa: E731
    assert robot.input_policy(f) is f
    with pytest.raises(ValueError, match=r"u must have shape \(2,\), got shape \(3,\)"):
        robot.check_input([1.0, 2.0, 3.0])


def test_check_state_names_the_bad_array_and_shows_the_entry():
    """A wrong shape or a NaN in q or v: a ValueError naming q or v, with the offending entry."""
    dp = DoublePendulum()
    with pytest.raises(ValueError, match=r"q must have shape \(2,\)"):
        dp.forward_dynamics([0.1], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"v must contain only finite numbers; v\[1\] = nan"):
        dp.forward_dynamics([0.1, 0.2], [0.0, np.nan])


def test_qdot_is_v_unless_a_system_says_otherwise():
    """For every system here q̇ = v; the free rigid body overrides it (tests/test_manipulators.py)."""
    np.testing.assert_array_equal(DoublePendulum().qdot([0.3, 0.1], [1.0, -2.0]), [1.0, -2.0])


def test_planar_body_falls_freely_with_its_own_inertia():
    """M = diag(m, m, I), C = 0, tau_g = [0, −m g, 0], U = m g y: a thrown ball follows the parabola and spins on."""
    ball = SpinningBall(m=2.0, r=0.5, k=0.4)
    assert isinstance(ball, PlanarBody)
    np.testing.assert_array_equal(ball.mass_matrix([0, 0, 0]), np.diag([2.0, 2.0, 0.4 * 2.0 * 0.25]))
    np.testing.assert_array_equal(ball.coriolis_matrix([0, 0, 0], [1, 2, 3]), np.zeros((3, 3)))
    assert ball.potential_energy([0.0, 1.5, 0.0]) == pytest.approx(2.0 * G * 1.5)
    run = ball.simulate([0.0, 1.0, 0.0], [1.0, 2.0, 5.0], 0.4, num=5)
    t = run.t
    np.testing.assert_allclose(run.q[:, 1], 1.0 + 2.0 * t - 0.5 * G * t**2, atol=1e-9)
    np.testing.assert_allclose(run.q[:, 2], 5.0 * t, atol=1e-9)


def test_solve_sampled_samples_evenly_and_fails_clearly():
    """ẋ = −x sampled at 5 even times matches e^(−t); a blow-up (ẋ = x², x(0) = 1) is a RuntimeError."""
    t, x = solve_sampled(lambda t, x: -x, [1.0], 2.0, num=5)
    np.testing.assert_allclose(t, np.linspace(0.0, 2.0, 5))
    np.testing.assert_allclose(x[:, 0], np.exp(-t), rtol=1e-8)
    with pytest.raises(RuntimeError, match="integration failed"):
        solve_sampled(lambda t, x: x**2, [1.0], 2.0)
    with pytest.raises(ValueError, match="t_final"):
        solve_sampled(lambda t, x: -x, [1.0], 0.0)


@pytest.mark.parametrize("make, name", [
    (lambda: SimplePendulum(m=0.0), "m"),
    (lambda: SimplePendulum(b=-0.1), "b"),
    (lambda: SimplePendulum(g=np.inf), "g"),
    (lambda: DoublePendulum(l2="long"), "l2"),
    (lambda: SpinningBall(r=-0.1), "r"),
])
def test_parameters_are_checked_when_a_system_is_made(make, name):
    """A parameter annotated Positive, Nonnegative or Finite is checked at construction, by name."""
    with pytest.raises(ValueError, match=rf"^{name} must be a"):
        make()


ONE_FORM = ["system", "q0", "v0"]
SAYS_WHY_FORM = "where the other simulators take"
SAYS_WHY_RECORD = "does not extend :class:`lib.system.Trajectory`"


def form_problem(fn):
    """None if ``fn`` takes (system, q0, v0, *, t_final or steps, …) or its docstring says why not; else the problem."""
    params = list(inspect.signature(fn).parameters.values())
    positional = [p.name for p in params if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    keywords = {p.name for p in params if p.kind is p.KEYWORD_ONLY}
    if positional == ONE_FORM and keywords & {"t_final", "steps"}:
        return None
    if SAYS_WHY_FORM in " ".join((fn.__doc__ or "").split()):
        return None
    return f"{fn.__module__}.{fn.__name__}{inspect.signature(fn)} neither takes (system, q0, v0, *, t_final or " \
           f"steps, …) nor says why in its docstring ('{SAYS_WHY_FORM} …')"


def record_problem(cls):
    """None if a ``…Trajectory`` record extends Trajectory or its docstring says why not; else the problem."""
    if issubclass(cls, Trajectory) or SAYS_WHY_RECORD in " ".join((cls.__doc__ or "").split()):
        return None
    return f"{cls.__module__}.{cls.__name__} neither extends lib.system.Trajectory nor says why ('{SAYS_WHY_RECORD}')"


def lib_members():
    """Every function and class defined in a module of lib, with its module's name."""
    for info in pkgutil.walk_packages(lib.__path__, "lib."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == info.name:
                yield name, obj


def test_every_simulator_takes_the_one_form_or_says_why():
    """simulate_<what>(system, q0, v0, *, t_final or steps, …) returning a Trajectory, or a docstring that says why not."""
    members = list(lib_members())
    simulators = [obj for name, obj in members if inspect.isfunction(obj) and name.startswith("simulate")]
    records = [obj for name, obj in members if inspect.isclass(obj) and is_dataclass(obj)
               and name.endswith("Trajectory") and obj is not Trajectory]
    assert len(simulators) >= 8 and len(records) >= 6, \
        f"found only {[f.__name__ for f in simulators]} and {[c.__name__ for c in records]}"
    problems = [p for p in map(form_problem, simulators) if p] + [p for p in map(record_problem, records) if p]
    assert not problems, "\n".join(problems)


def test_the_form_check_catches_a_simulator_in_another_form_and_a_stray_record():
    """The checks above fail on a simulator in another form and a record beside Trajectory that say nothing."""
    def simulate_other(m, q0, v0, *, h, steps):
        """Another form, no reason given."""

    def simulate_positional(system, q0, v0, t_final):
        """t_final is not keyword-only."""

    @dataclass(frozen=True)
    class StrayTrajectory:
        """A record beside Trajectory, no reason given."""

        t: np.ndarray

    def simulate_fine(system, q0, v0, *, t_final, h=None):
        """The one form."""

    assert form_problem(simulate_other) and form_problem(simulate_positional) and record_problem(StrayTrajectory)
    assert form_problem(simulate_fine) is None and record_problem(Trajectory) is None
