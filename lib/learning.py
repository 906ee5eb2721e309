"""Inverse dynamics by experiment: repeated trials that learn the nominal torques.

Notes 003 ("Inverse dynamics") list two ways to find the torques u_d(t) that
make a robot follow a motion q_d(t) on [0, T]: compute them from the model,
u_d = M q̈_d + C q̇_d − tau_g, or *learn* them by repeating the motion, trial
after trial, each time correcting the nominal torques with the error measured
in the previous trial, so that u_k(t) → u_d(t) as k → ∞.

Each trial here applies u_k(t) plus a PD feedback that keeps the robot near
q_d, and records q, q̇, q̈ and the feedback torque. The next nominal torque is

    u_{k+1}(t) = u_k(t) + [K_p e_k(t) + K_d ė_k(t)] + M̂ ë_k(t),    e_k = q_d − q_k,

the torque the feedback had to add, plus a rough inertia M̂ (a constant
matrix, no model needed beyond it) times the acceleration error. If a trial
followed q_d exactly, M (q̈_d − q̈_k) = u_d − u_k − u_fb: the update is a
Newton step with M̂ in place of M, and the torque error contracts by about
‖I − M̂ M⁻¹‖ per trial.

Introduced in: chapter 1.
"""

from dataclasses import dataclass

import numpy as np

from . import checks


@dataclass(frozen=True)
class Trial:
    """One trial on the sample times t: q, v, vdot (N+1, n) and the feedback torque u_fb (N+1, n)."""

    q: np.ndarray
    v: np.ndarray
    vdot: np.ndarray
    u_fb: np.ndarray


@dataclass(frozen=True)
class LearningRun:
    """The nominal torques u[k] of trial k (u[-1]: after the last update), shape (trials + 1, N+1, n),
    and the largest tracking error max|q_d − q_k| of each trial (trials,)."""

    t: np.ndarray
    u: np.ndarray
    tracking_error: np.ndarray


def _samples(name, x, t, n):
    x = np.asarray(x, dtype=float)
    if x.ndim == 1 and n == 1:
        x = x[:, None]
    if x.shape != (t.size, n):
        raise ValueError(f"{name} must have shape ({t.size}, {n}) (one row per sample time), got {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} must contain only finite numbers")
    return x


def _grid(t):
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or not np.isfinite(t).all() or np.any(np.diff(t) <= 0):
        raise ValueError("t must be an increasing array of at least 2 finite sample times")
    return t


def _gain(name, k, n):
    k = np.asarray(k, dtype=float)
    k = k * np.eye(n) if k.ndim == 0 else k
    if k.shape != (n, n) or not np.isfinite(k).all():
        raise ValueError(f"{name} must be a number or an {n} x {n} matrix, got shape {k.shape}")
    return k


def run_trial(system, t, u_ff, q_d, v_d, kp, kd):
    """One trial: the nominal torque u_ff plus PD feedback, integrated by RK4 on the sample times t.

        u(t) = u_ff(t) + K_p (q_d(t) − q) + K_d (v_d(t) − v)

    u_ff, q_d and v_d are sampled at t (shape (N+1, n)) and taken linear in
    between; the trial starts on the desired state (q_d[0], v_d[0]). The
    system must have B = I (one motor per joint). Returns a :class:`Trial`.

    >>> from lib.pendulum import SimplePendulum
    >>> t = np.linspace(0.0, 1.0, 11)
    >>> hold = np.full((11, 1), 9.81 * np.sin(0.5))           # the torque that holds theta = 0.5
    >>> trial = run_trial(SimplePendulum(), t, hold, np.full((11, 1), 0.5), np.zeros((11, 1)), 10.0, 2.0)
    >>> float(np.abs(trial.q - 0.5).max()) < 1e-12
    True

    Introduced in: chapter 1.
    """
    t = _grid(t)
    n = system.n
    if not np.allclose(system.input_matrix(), np.eye(n)):
        raise ValueError("run_trial needs one motor per joint (B = I)")
    u_ff, q_d, v_d = (_samples(name, x, t, n) for name, x in (("u_ff", u_ff), ("q_d", q_d), ("v_d", v_d)))
    kp, kd = _gain("kp", kp, n), _gain("kd", kd, n)

    def feedback(i, s, q, v):
        qd = q_d[i] + s * (q_d[i + 1] - q_d[i])
        vd = v_d[i] + s * (v_d[i + 1] - v_d[i])
        return kp @ (qd - q) + kd @ (vd - v)

    def accel(i, s, q, v):
        uf = u_ff[i] + s * (u_ff[i + 1] - u_ff[i])
        return system.forward_dynamics(q, v, uf + feedback(i, s, q, v))

    Q, V = np.empty((t.size, n)), np.empty((t.size, n))
    q, v = q_d[0].copy(), v_d[0].copy()
    Q[0], V[0] = q, v
    for i, h in enumerate(np.diff(t)):
        k1q, k1v = v, accel(i, 0.0, q, v)
        k2q, k2v = v + h / 2 * k1v, accel(i, 0.5, q + h / 2 * k1q, v + h / 2 * k1v)
        k3q, k3v = v + h / 2 * k2v, accel(i, 0.5, q + h / 2 * k2q, v + h / 2 * k2v)
        k4q, k4v = v + h * k3v, accel(i, 1.0, q + h * k3q, v + h * k3v)
        q = q + h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q)
        v = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        Q[i + 1], V[i + 1] = q, v
    u_fb = (q_d - Q) @ kp.T + (v_d - V) @ kd.T
    vdot = np.array([system.forward_dynamics(qk, vk, uk) for qk, vk, uk in zip(Q, V, u_ff + u_fb)])
    return Trial(Q, V, vdot, u_fb)


def learn_feedforward(system, t, q_d, v_d, a_d, trials, kp, kd, M_hat, u0=None):
    """Learn the nominal torques of the motion q_d(t) by repeated trials (notes 003, "Inverse dynamics").

        u_{k+1}(t) = u_k(t) + [K_p e_k + K_d ė_k](t) + M̂ (q̈_d − q̈_k)(t)

    with the errors measured in trial k (:func:`run_trial`); u_0 = u0, or zero.
    M̂ is a rough constant inertia (n × n). Returns a :class:`LearningRun`;
    as the trials go on, u[k] approaches the inverse dynamics u_d(t).

    >>> from lib.pendulum import SimplePendulum
    >>> p, t = SimplePendulum(), np.linspace(0.0, 2.0, 41)
    >>> q_d, v_d, a_d = 0.3 * np.sin(t), 0.3 * np.cos(t), -0.3 * np.sin(t)
    >>> run = learn_feedforward(p, t, q_d, v_d, a_d, trials=6, kp=20.0, kd=5.0, M_hat=0.7)
    >>> u_d = np.array([p.inverse_dynamics([a], [b], [c]) for a, b, c in zip(q_d, v_d, a_d)])
    >>> bool(np.abs(run.u[-1] - u_d).max() < 1e-2 * np.abs(u_d).max())
    True

    Introduced in: chapter 1.
    """
    t = _grid(t)
    n = system.n
    q_d, v_d, a_d = (_samples(name, x, t, n) for name, x in (("q_d", q_d), ("v_d", v_d), ("a_d", a_d)))
    trials = int(trials)
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    M_hat = _gain("M_hat", M_hat, n)
    u = np.zeros((t.size, n)) if u0 is None else _samples("u0", u0, t, n)
    history, errors = [u], []
    for _ in range(trials):
        trial = run_trial(system, t, u, q_d, v_d, kp, kd)
        errors.append(float(np.abs(q_d - trial.q).max()))
        u = u + trial.u_fb + (a_d - trial.vdot) @ M_hat.T
        history.append(u)
    return LearningRun(t, np.array(history), np.array(errors))
