"""Static figures of a simulated trajectory: its coordinates, a phase portrait, its energy drift.

Introduced in: chapter 1.
"""

import numpy as np

def _axes(ax, figsize=(5.0, 3.0)):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def _trajectory(traj):
    if not all(hasattr(traj, name) for name in ("t", "q", "v")):
        raise ValueError("traj must be a Trajectory with fields t, q and v")
    t, q, v = (np.asarray(x, dtype=float) for x in (traj.t, traj.q, traj.v))
    if q.ndim != 2 or v.shape != q.shape or t.shape != (q.shape[0],):
        raise ValueError(f"traj must have t of shape (N,) and q, v of shape (N, n); "
                         f"got {t.shape}, {q.shape}, {v.shape}")
    return t, q, v


def plot_angles(traj, labels=None, ax=None):
    """Plot every coordinate q_i(t) of a trajectory against time.

    Parameters
    ----------
    traj : lib.Trajectory
    labels : list of str or None
        One legend entry per coordinate (default ``q_1``, ``q_2``, …).
    ax : matplotlib Axes or None
        Where to draw (a new figure when None).

    Returns the Axes.

    >>> from lib import Trajectory
    >>> tr = Trajectory(np.array([0.0, 1.0]), np.zeros((2, 2)), np.zeros((2, 2)))
    >>> len(plot_angles(tr).get_lines())
    2
    >>> import matplotlib.pyplot as plt; plt.close("all")

    Introduced in: chapter 1.
    """
    t, q, _ = _trajectory(traj)
    labels = [f"$q_{i + 1}$" for i in range(q.shape[1])] if labels is None else list(labels)
    if len(labels) != q.shape[1]:
        raise ValueError(f"labels must have one entry per coordinate ({q.shape[1]}), got {len(labels)}")
    ax = _axes(ax)
    for i, label in enumerate(labels):
        ax.plot(t, q[:, i], label=label)
    ax.set_xlabel("time $t$ (s)")
    ax.set_ylabel("angle (rad)")
    ax.legend(loc="best")
    return ax


def phase_portrait(traj, index=0, ax=None, label=None):
    """Plot the phase portrait (q_i, q̇_i) of one coordinate, with its start marked.

    Parameters
    ----------
    traj : lib.Trajectory
    index : int
        Which coordinate, 0 ≤ index < n.
    ax : matplotlib Axes or None
    label : str or None
        Legend entry for the curve.

    Returns the Axes.

    >>> from lib import Trajectory
    >>> tr = Trajectory(np.array([0.0, 1.0]), np.zeros((2, 2)), np.ones((2, 2)))
    >>> phase_portrait(tr, index=1).get_xlabel()
    '$q_2$ (rad)'
    >>> phase_portrait(tr, index=2)
    Traceback (most recent call last):
    ...
    ValueError: index must be an integer in [0, 2), got 2
    >>> import matplotlib.pyplot as plt; plt.close("all")

    Introduced in: chapter 1.
    """
    _, q, v = _trajectory(traj)
    n = q.shape[1]
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < n:
        raise ValueError(f"index must be an integer in [0, {n}), got {index!r}")
    ax = _axes(ax, figsize=(4.0, 3.5))
    (line,) = ax.plot(q[:, index], v[:, index], lw=1, label=label)
    ax.plot(q[0, index], v[0, index], "o", color=line.get_color())
    ax.set_xlabel(f"$q_{index + 1}$ (rad)")
    ax.set_ylabel(rf"$\dot q_{index + 1}$ (rad/s)")
    if label is not None:
        ax.legend(loc="best")
    return ax


def plot_energy(system, traj, ax=None):
    """Plot the drift E(t) − E(0) of the total energy E = T + U along a trajectory.

    Without inputs, friction or external forces the energy of a mechanical
    system is conserved, so the curve shows the integrator's error alone.

    Parameters
    ----------
    system : lib.ManipulatorSystem
        Anything with ``energy(q, v)`` (joules).
    traj : lib.Trajectory
    ax : matplotlib Axes or None

    Returns the Axes and the drift (array of shape (N,), joules).

    >>> from lib import SimplePendulum
    >>> p = SimplePendulum()
    >>> ax, drift = plot_energy(p, p.simulate([1.0], [0.0], 0.5, num=5))
    >>> bool(abs(drift).max() < 1e-8)
    True
    >>> import matplotlib.pyplot as plt; plt.close("all")

    Introduced in: chapter 1.
    """
    if not callable(getattr(system, "energy", None)):
        raise ValueError("system must have an energy(q, v) method")
    t, q, v = _trajectory(traj)
    energy = np.array([system.energy(qk, vk) for qk, vk in zip(q, v)])
    drift = energy - energy[0]
    ax = _axes(ax)
    ax.plot(t, drift)
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.set_xlabel("time $t$ (s)")
    ax.set_ylabel("$E(t) - E(0)$ (J)")
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    return ax, drift
