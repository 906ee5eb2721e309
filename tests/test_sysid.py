"""lib.sysid: regressors against the systems' own inverse dynamics, least squares, identifiability (notes 002)."""

import numpy as np
import pytest

from lib.manipulators import PlanarChain, PRRobot
from lib.pendulum import DoublePendulum, SimplePendulum
from lib.sysid import (chain_regressor, chain_regressor_form, chain_standard_parameters, collect_data,
                       double_pendulum_lumped, double_pendulum_regressor, identifiable_part, identify, multisine,
                       pendulum_energy_regressor, pendulum_lumped, pendulum_regressor, pr_robot_lumped,
                       pr_robot_regressor, relative_error, unidentifiable_directions)

RNG = np.random.default_rng(2)


def random_samples(system, N):
    """N random states and accelerations with the torques from the system's inverse dynamics (noise-free)."""
    n = system.n
    q, v, vdot = RNG.uniform(-np.pi, np.pi, (N, n)), RNG.uniform(-3, 3, (N, n)), RNG.uniform(-5, 5, (N, n))
    tau = np.array([system.inverse_dynamics(*x) for x in zip(q, v, vdot)])
    return q, v, vdot, tau


def test_pendulum_regressor_reproduces_inverse_dynamics_with_friction():
    p = SimplePendulum(m=1.4, l=0.6, b=0.25, g=9.81)
    q, v, vdot, tau = random_samples(p, 20)
    Y = pendulum_regressor(q, v, vdot, g=9.81)
    np.testing.assert_allclose(Y @ pendulum_lumped(p), tau[:, 0], atol=1e-12)


def test_pr_robot_regressor_on_both_planes():
    for gravity in ((0.0, 0.0), (0.0, -9.81), (3.0, -4.0)):
        robot = PRRobot(m1=2.0, m2=1.2, d_c2=0.45, I_c2=0.08, gravity=gravity)
        q, v, vdot, tau = random_samples(robot, 20)
        Y = pr_robot_regressor(q, v, vdot, gravity)
        assert Y.shape == (40, 3)
        np.testing.assert_allclose(Y @ pr_robot_lumped(robot), tau.reshape(-1), atol=1e-12)


def test_double_pendulum_regressor():
    dp = DoublePendulum(m1=1.3, m2=0.7, l1=1.1, l2=0.8)
    q, v, vdot, tau = random_samples(dp, 20)
    Y = double_pendulum_regressor(q, v, vdot)
    np.testing.assert_allclose(Y @ double_pendulum_lumped(dp), tau.reshape(-1), atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_chain_regressor_in_standard_parameters(n):
    chain = PlanarChain(m=[1.0, 2.0, 0.7][:n], l=[0.9, 0.6, 0.4][:n], lc=[0.3, 0.2, 0.25][:n], I=[0.05, 0.1, 0.02][:n])
    q, v, vdot, tau = random_samples(chain, 10)
    Y = chain_regressor(q, v, vdot, chain.l, chain.g)
    assert Y.shape == (10 * n, 3 * n)
    np.testing.assert_allclose(Y @ chain_standard_parameters(chain), tau.reshape(-1), atol=1e-10)


# --- identification on noise-free data ------------------------------------------------------
@pytest.mark.parametrize("system, regressor, lumped", [
    (SimplePendulum(m=1.4, l=0.6, b=0.25), pendulum_regressor, pendulum_lumped),
    (PRRobot(m1=2.0, m2=1.2, d_c2=0.45, I_c2=0.08), pr_robot_regressor, pr_robot_lumped),
    (DoublePendulum(m1=1.3, m2=0.7, l1=1.1, l2=0.8), double_pendulum_regressor, double_pendulum_lumped),
])
def test_noise_free_identification_recovers_the_lumped_parameters(system, regressor, lumped):
    q, v, vdot, tau = random_samples(system, 30)
    result = identify(regressor(q, v, vdot), tau)
    np.testing.assert_allclose(result.pi, lumped(system), rtol=1e-9)
    assert result.rank == len(lumped(system))
    assert result.residual < 1e-10


def test_noise_free_identification_from_a_simulated_trajectory():
    dp = DoublePendulum(m1=1.3, m2=0.7, l1=1.1, l2=0.8)
    data = collect_data(dp, multisine(4.0, [0.3, 0.8, 1.7], n=2, seed=1), [0.2, -0.1], [0.0, 0.0], 3.0, num=150)
    result = identify(double_pendulum_regressor(data.q, data.v, data.vdot), data.tau)
    np.testing.assert_allclose(result.pi, double_pendulum_lumped(dp), rtol=1e-7)


# --- identifiability ---------------------------------------------------------------------------
def test_pr_robot_masses_are_not_separately_identifiable():
    """Two robots with different m1, m2, d_c2, I_c2 but the same lumped parameters need the same torques."""
    a = PRRobot(m1=2.0, m2=1.0, d_c2=0.6, I_c2=0.1)
    m2 = 1.5
    d = a.m2 * a.d_c2 / m2
    b = PRRobot(m1=a.m1 + a.m2 - m2, m2=m2, d_c2=d, I_c2=a.I_c2 + a.m2 * a.d_c2**2 - m2 * d**2)
    np.testing.assert_allclose(pr_robot_lumped(a), pr_robot_lumped(b), atol=1e-14)
    for q, v, vdot in zip(*random_samples(a, 5)[:3]):
        np.testing.assert_allclose(a.inverse_dynamics(q, v, vdot), b.inverse_dynamics(q, v, vdot), atol=1e-12)


def test_two_link_chain_has_four_identifiable_combinations():
    """m1 never acts; m2 only through J1 + m2 l1² and h1 + m2 l1 (the classical base parameters)."""
    chain = PlanarChain(m=[1.0, 2.0], l=[0.9, 0.6], lc=[0.3, 0.2], I=[0.05, 0.1])
    q, v, vdot, tau = random_samples(chain, 40)
    Y = chain_regressor(q, v, vdot, chain.l)
    result = identify(Y, tau)
    assert result.rank == 4
    N = unidentifiable_directions(Y)
    assert N.shape == (6, 2)
    np.testing.assert_allclose(Y @ N, 0.0, atol=1e-10)
    l1 = chain.l[0]
    # φ = [m1, h1, J1, m2, h2, J2]: the null space is spanned by e_m1 and (0, −l1, −l1², 1, 0, 0)
    expected = np.array([[1.0, 0, 0, 0, 0, 0], [0, -l1, -(l1**2), 1.0, 0, 0]]).T
    np.testing.assert_allclose(expected - N @ (N.T @ expected), 0.0, atol=1e-10)
    phi = chain_standard_parameters(chain)
    np.testing.assert_allclose(identifiable_part(Y, result.pi), identifiable_part(Y, phi), atol=1e-9)
    base = lambda x: [x[1] + x[3] * l1, x[2] + x[3] * l1**2, x[4], x[5]]  # noqa: E731
    np.testing.assert_allclose(base(result.pi), base(phi), atol=1e-9)


def test_chain_regressor_column_of_the_first_mass_is_zero_symbolically():
    Y, phi, _ = chain_regressor_form(2)
    assert phi[0].name == "m1"
    assert all(e == 0 for e in Y[:, 0])


# --- noise and excitation -----------------------------------------------------------------------
def test_noisy_identification_is_close_and_richer_excitation_helps():
    p = SimplePendulum(m=1.4, l=0.6, b=0.25)
    truth = pendulum_lumped(p)

    def error(frequencies, amplitude):
        errs = []
        for seed in range(3):
            data = collect_data(p, multisine(amplitude, frequencies, seed=seed), [0.0], [0.0], 4.0, num=200,
                                noise_std=0.2, seed=seed)
            result = identify(pendulum_regressor(data.q, data.v, data.vdot), data.tau)
            errs.append(relative_error(result.pi, truth))
        return np.mean(errs)

    poor, rich = error([0.2], 0.5), error([0.2, 0.7, 1.3, 2.1], 4.0)
    assert rich < 0.05
    assert rich < poor / 3


def test_energy_form_identifies_the_pendulum_without_accelerations():
    p = SimplePendulum(m=1.4, l=0.6, b=0.25)
    data = collect_data(p, multisine(3.0, [0.3, 0.9, 1.6], seed=4), [0.0], [0.0], 6.0, num=1201)
    Y, y = pendulum_energy_regressor(data.t, data.q, data.v, data.tau, window=40)
    result = identify(Y, y)
    assert relative_error(result.pi, pendulum_lumped(p)) < 1e-3


def test_identify_on_a_small_exact_system():
    Y = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    r = identify(Y, Y @ [0.5, -2.0])
    np.testing.assert_allclose(r.pi, [0.5, -2.0])
    assert r.rank == 2 and r.condition == pytest.approx(np.linalg.cond(Y))


# --- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda: pendulum_regressor([0.0, 1.0], [0.0], [0.0, 0.0]), "v"),
    (lambda: pr_robot_regressor([[0.0, 1.0]], [[0.0, 1.0, 2.0]], [[0.0, 0.0]]), "v"),
    (lambda: pr_robot_regressor([0.0, 0.0], [0.0, 0.0], [0.0, 0.0], gravity=(0.0,)), "gravity"),
    (lambda: double_pendulum_regressor([0.0, 0.0], [0.0, 0.0], [np.nan, 0.0]), "vdot"),
    (lambda: chain_regressor([0.0], [0.0], [0.0], l=[-1.0]), r"l\[0\]"),
    (lambda: identify(np.ones((3, 2)), np.ones(4)), "Y"),
    (lambda: collect_data(SimplePendulum(), None, [0.0], [0.0], 1.0, noise_std=-1.0), "noise_std"),
    (lambda: multisine(1.0, [0.0, 1.0]), "frequencies"),
    (lambda: pendulum_energy_regressor([0.0, 1.0, 2.0], [0.0] * 3, [0.0] * 3, [0.0] * 3, window=5), "window"),
    (lambda: relative_error([1.0], [1.0, 2.0]), "pi_hat"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"(^|\W){name}(\W|$)"):
        call()
