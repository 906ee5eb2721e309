"""lib.elastic: the elastic-joint pendulum against Lagrange's equations, its energy and its rigid limit."""

import numpy as np
import pytest
import sympy as sp

from lib import lagrange_equations
from lib.elastic import ElasticJointPendulum

RNG = np.random.default_rng(16)
PARAMS = dict(K=300.0, I_l=0.2, I_m=2e-4, m=1.5, d=0.3, n_r=40.0, b_l=0.04, b_m=1e-4, l=0.4, F_x=1.5, g0=9.81)


def derived_accelerations():
    """The two equations from T, U and the generalized forces of friction, load and motor, solved for q''."""
    th, ps, thd, psd, thdd, psdd, tau = sp.symbols("theta psi thd psd thdd psdd tau")
    p = {k: sp.Float(v) for k, v in PARAMS.items()}
    T = p["I_l"] * thd**2 / 2 + p["n_r"]**2 * p["I_m"] * psd**2 / 2
    U = -p["m"] * p["g0"] * p["d"] * sp.cos(th) + p["K"] * (th - ps)**2 / 2
    # the motor angle is theta_m = n_r psi: tau (and its friction) act at the rate n_r psi'
    Q = [-p["b_l"] * thd + p["l"] * sp.cos(th) * p["F_x"], p["n_r"] * (tau - p["b_m"] * p["n_r"] * psd)]
    lhs = lagrange_equations(T - U, [th, ps], [thd, psd], [thdd, psdd])
    sol = sp.solve([lhs[0] - Q[0], lhs[1] - Q[1]], [thdd, psdd], dict=True)[0]
    return sp.lambdify([th, ps, thd, psd, tau], [sol[thdd], sol[psdd]], "numpy")


def test_equations_match_an_independent_derivation():
    joint, accel = ElasticJointPendulum(**PARAMS), derived_accelerations()
    for _ in range(10):
        q, v, u = RNG.uniform(-2, 2, 2), RNG.normal(size=2), RNG.normal()
        assert np.allclose(joint.forward_dynamics(q, v, [u]), accel(*q, *v, u), rtol=1e-10), \
            f"elastic-joint accelerations differ at q = {q}, v = {v}, u = {u}"


def test_energy_is_conserved_without_friction_or_inputs():
    joint = ElasticJointPendulum(K=200.0)
    run = joint.simulate([0.4, 0.1], [0.0, 0.0], 2.0, num=201, rtol=1e-11, atol=1e-11)
    E = np.array([joint.energy(q, v) for q, v in zip(run.q, run.v)])
    assert np.abs(E - E[0]).max() < 1e-7, "the spring is conservative: E = T + U must stay constant"


def test_stiff_joint_approaches_the_rigid_pendulum():
    gaps = []
    for K in (20.0, 200.0, 2000.0):
        joint = ElasticJointPendulum(**{**PARAMS, "K": K})
        flex = joint.simulate([0.3, 0.3], [0.0, 0.0], 2.0, u=[0.05], num=101, rtol=1e-9, atol=1e-9)
        rigid = joint.rigid().simulate([0.3], [0.0], 2.0, u=[0.05], num=101, rtol=1e-9, atol=1e-9)
        gaps.append(np.abs(flex.q[:, 0] - rigid.q[:, 0]).max())
    assert gaps[0] > 5 * gaps[1] > 25 * gaps[2], f"the gap to the rigid joint must shrink like 1/K: {gaps}"


def test_elastic_frequency_is_the_linearized_mode():
    joint = ElasticJointPendulum(K=500.0, g0=0.0)
    stiffness = np.array([[joint.K, -joint.K], [-joint.K, joint.K]])
    w2 = np.linalg.eigvals(np.linalg.solve(joint.mass_matrix([0, 0]), stiffness)).real.max()
    assert np.isclose(joint.elastic_frequency(), np.sqrt(w2))


def test_rigid_limit_has_the_reflected_inertia():
    joint = ElasticJointPendulum(**PARAMS)
    assert np.isclose(joint.rigid().I, PARAMS["I_l"] + PARAMS["n_r"]**2 * PARAMS["I_m"])


@pytest.mark.parametrize("field", ["K", "I_l", "I_m", "n_r"])
def test_bad_parameters_are_named(field):
    with pytest.raises(ValueError, match=field):
        ElasticJointPendulum(**{field: -1.0})
