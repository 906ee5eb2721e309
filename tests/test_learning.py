"""lib.learning: repeated trials learn the inverse-dynamics torques of a motion."""

import numpy as np
import pytest

import lib
from lib import learning

T = np.linspace(0.0, 2.0, 101)


def desired(t):
    q = np.c_[0.4 * np.sin(2 * t), 0.5 * np.sin(t)]
    v = np.c_[0.8 * np.cos(2 * t), 0.5 * np.cos(t)]
    a = np.c_[-1.6 * np.sin(2 * t), -0.5 * np.sin(t)]
    return q, v, a


def test_trial_with_the_inverse_dynamics_follows_the_motion():
    dp = lib.DoublePendulum(m1=1.0, m2=0.5, l1=1.0, l2=0.7)
    q_d, v_d, a_d = desired(T)
    u_d = np.array([dp.inverse_dynamics(*x) for x in zip(q_d, v_d, a_d)])
    trial = learning.run_trial(dp, T, u_d, q_d, v_d, kp=0.0, kd=0.0)
    assert np.abs(trial.q - q_d).max() < 1e-3, "open loop with u_d, the robot must follow q_d (RK4 error only)"
    assert np.allclose(trial.u_fb, 0.0), "no gains, no feedback"


def test_learning_converges_to_the_inverse_dynamics():
    dp = lib.DoublePendulum(m1=1.0, m2=0.5, l1=1.0, l2=0.7)
    q_d, v_d, a_d = desired(T)
    u_d = np.array([dp.inverse_dynamics(*x) for x in zip(q_d, v_d, a_d)])
    run = learning.learn_feedforward(dp, T, q_d, v_d, a_d, trials=8, kp=25.0, kd=10.0,
                                     M_hat=0.7 * dp.mass_matrix([0.0, 0.0]))
    torque_errors = np.abs(run.u - u_d).max(axis=(1, 2))
    assert np.all(np.diff(torque_errors) < 0), f"every trial must bring the torques closer: {torque_errors}"
    assert torque_errors[-1] < 1e-2 * torque_errors[0], "after 8 trials the torque error must be 100 times smaller"
    assert run.tracking_error[-1] < 1e-3 and np.all(np.diff(run.tracking_error) < 0)


def test_too_large_an_inertia_estimate_diverges():
    """The update contracts by about |1 - M_hat / M| per trial: M_hat up to about 2 M converges, 3 M does not."""
    p = lib.SimplePendulum(m=1.0, l=0.8)
    q_d, v_d, a_d = (x[:, :1] for x in desired(T))
    u_d = np.array([p.inverse_dynamics(*x) for x in zip(q_d, v_d, a_d)])
    final = {}
    for factor in (0.5, 1.0, 3.0):
        run = learning.learn_feedforward(p, T, q_d, v_d, a_d, trials=6, kp=20.0, kd=5.0,
                                         M_hat=factor * p.mass_matrix([0.0]))
        errors = np.abs(run.u - u_d).max(axis=(1, 2))
        final[factor] = errors[-1] / errors[0]
    assert final[0.5] < 1e-2 and final[1.0] < 1e-2, f"M_hat = M/2 or M must converge: {final}"
    assert final[3.0] > 1.0, f"M_hat = 3 M overcorrects and must diverge: {final}"


def test_bad_input_is_named():
    dp = lib.DoublePendulum()
    q_d, v_d, a_d = desired(T)
    with pytest.raises(ValueError, match="q_d must have shape"):
        learning.learn_feedforward(dp, T, q_d[:-1], v_d, a_d, 2, 10.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="t must be an increasing"):
        learning.run_trial(dp, T[::-1], np.zeros_like(q_d), q_d, v_d, 1.0, 1.0)
    with pytest.raises(ValueError, match="trials"):
        learning.learn_feedforward(dp, T, q_d, v_d, a_d, 0, 10.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="B = I"):
        learning.run_trial(lib.ActuatedPendulum(n_r=5.0), T, np.zeros((T.size, 1)), q_d[:, :1], v_d[:, :1], 1.0, 1.0)
