"""Animations of the course's systems: a pendulum chain, a box in 3-D, balls bouncing.

Each builds its frames and hands them to :func:`lib.plotting.players.player`
(or returns ``(fig, draw, times)`` for it).

Introduced in: chapter 1.
"""

import numpy as np

from .. import checks
from .players import _times, frame_indices, player

def animate_pendulum(positions, t, frames=100, size=3.0, dpi=64, trail=20, title=None):
    """Animate a planar chain of point masses hanging from a pivot at the origin.

    Frame k draws the links origin → p_1(t_k) → p_2(t_k) → … and a fading trace
    of the last mass. The player runs in real time: consecutive frames are
    (t_last − t_first) / (frames − 1) seconds apart.

    Parameters
    ----------
    positions : array, shape (N, k, 2)
        Cartesian positions (x right, y up, metres) of the k masses at N times,
        e.g. ``DoublePendulum.positions(q)`` stacked over a trajectory.
    t : array, shape (N,)
        Strictly increasing sample times (seconds).
    frames : int
        Largest number of frames to draw (the samples are thinned evenly);
        keep it near 100 so that the page stays light.
    size : float
        Width and height of the figure (inches).
    dpi : float
        Resolution of each frame; ``size * dpi`` pixels square.
    trail : int
        Number of past frames in the trace of the last mass (0 for none).
    title : str or None
        Title drawn above the pendulum.

    Returns
    -------
    AnimationHTML
        A ``str`` holding the self-contained player; Jupyter shows it directly.

    >>> t = np.linspace(0.0, 1.0, 5)
    >>> p = np.stack([np.sin(t), -np.cos(t)], axis=1)[:, None, :]   # one mass, shape (5, 1, 2)
    >>> html = animate_pendulum(p, t, frames=3, size=1.0, dpi=30)
    >>> html.frames, html.count('data:image/png;base64')
    (3, 3)

    Introduced in: chapter 1.
    """
    import matplotlib.pyplot as plt

    positions = checks.array("positions", positions, (None, None, 2))
    if positions.shape[0] < 1 or positions.shape[1] < 1:
        raise ValueError(f"positions must have shape (N, k, 2) with N, k >= 1, got shape {positions.shape}")
    t = _times(t, positions.shape[0])
    frames = checks.count("frames", frames)
    trail = checks.count("trail", trail, 0)
    size = checks.positive("size", size)
    dpi = checks.positive("dpi", dpi)

    idx = frame_indices(len(t), frames)
    reach = 1.1 * max(float(np.max(np.linalg.norm(positions, axis=2))), 1e-9)

    fig, ax = plt.subplots(figsize=(size, size), dpi=dpi)
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-reach, reach)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=10)
    ax.plot([0.0], [0.0], "ks", markersize=4, zorder=3)
    (trace,) = ax.plot([], [], "-", color="tab:orange", lw=1, alpha=0.6)
    (chain,) = ax.plot([], [], "o-", color="tab:blue", lw=2, markersize=6)
    clock = ax.text(0.03, 0.96, "", transform=ax.transAxes, fontsize=9, va="top")
    # Fixed margins rather than a layout engine: with an engine matplotlib
    # redraws every frame twice when saving it.
    fig.subplots_adjust(left=0.03, right=0.97, bottom=0.03, top=0.88 if title else 0.97)

    def draw(k):
        i = idx[k]
        xs = np.concatenate([[0.0], positions[i, :, 0]])
        ys = np.concatenate([[0.0], positions[i, :, 1]])
        chain.set_data(xs, ys)
        recent = idx[max(0, k - trail):k + 1]
        trace.set_data(positions[recent, -1, 0], positions[recent, -1, 1])
        clock.set_text(f"t = {t[i]:.2f} s")

    return player(fig, draw, t[idx])


def animate_double_pendulum(system, traj, **options):
    """Animate a simulated :class:`lib.DoublePendulum` (or any system with ``positions(q)``).

    The positions p1, p2 of the masses (notes 000, "Simple Double Pendulum")
    are computed at every sample of the trajectory and handed to
    :func:`animate_pendulum`, which takes the same keyword ``options``.

    Parameters
    ----------
    system : object with ``positions(q)`` returning an array of shape (k, 2)
    traj : lib.Trajectory
        A simulated motion (``traj.t`` shape (N,), ``traj.q`` shape (N, n)).

    >>> from lib import DoublePendulum
    >>> dp = DoublePendulum()
    >>> traj = dp.simulate([0.5, 0.0], [0.0, 0.0], 0.2, num=4)
    >>> animate_double_pendulum(dp, traj, frames=2, size=1.0, dpi=30).frames
    2

    Introduced in: chapter 1.
    """
    if not callable(getattr(system, "positions", None)):
        raise ValueError("system must have a positions(q) method giving the masses' coordinates")
    if not all(hasattr(traj, name) for name in ("t", "q")):
        raise ValueError("traj must be a Trajectory with fields t and q")
    positions = np.array([system.positions(q) for q in np.asarray(traj.q)])
    return animate_pendulum(positions, traj.t, **options)



#: The six faces of a box, by corner index (the order of :meth:`lib.box.Box.corners`).
BOX_FACES = ((0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7))


def box_scene(box, traj, frames=50, dpi=60, limits=((-0.3, 0.6), (-0.45, 0.45), (0.0, 0.45))):
    """A box moving over the floor in 3-D: ``(fig, draw, times)`` for :func:`player`.

    ``traj`` has the box's positions ``p`` (N, 3), orientations ``R`` (N, 3,
    3) and times ``t`` (N,), as :func:`lib.box.simulate_box` returns; at most
    ``frames`` of them are drawn; ``draw(k)`` returns the eight corners it
    drew (8, 3), so a test can read what frame k shows. mplot3d sorts polygons by their depth,
    which puts the large floor polygon in front of a box resting on it; here
    the sorting is off (``computed_zorder = False``) and the floor is drawn
    first, the box over it.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> from lib.box import Box, simulate_box
    >>> box = Box(m=1.0, size=(0.3, 0.2, 0.1))
    >>> traj = simulate_box(box, [0, 0, 0.1], np.eye(3), [0, 0, 0], [0, 0, 0], h=0.01, steps=5)
    >>> fig, draw, times = box_scene(box, traj, frames=3)
    >>> len(times), fig.axes[0].computed_zorder
    (3, False)

    Introduced in: chapter 7.
    """
    import matplotlib.pyplot as plt
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    idx = frame_indices(len(traj.t), frames)
    (x0, x1), (y0, y1), (z0, z1) = limits
    fig = plt.figure(figsize=(4.6, 3.6), dpi=dpi)
    ax = fig.add_subplot(projection="3d")
    ax.computed_zorder = False
    ax.set(xlim=(x0, x1), ylim=(y0, y1), zlim=(z0, z1), xticks=[], yticks=[], zticks=[])
    ax.set_box_aspect((x1 - x0, y1 - y0, z1 - z0))
    ax.view_init(elev=18, azim=-60)
    floor = Poly3DCollection([[(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]],
                             facecolor="0.85", edgecolor="none", zorder=1)
    ax.add_collection3d(floor)
    body = Poly3DCollection([], facecolor="tab:orange", edgecolor="k", alpha=0.9, zorder=2)
    ax.add_collection3d(body)
    label = ax.text2D(0.02, 0.92, "", transform=ax.transAxes, fontsize=9)

    def draw(k):
        corners = box.corners(traj.p[idx[k]], traj.R[idx[k]])
        body.set_verts([corners[list(f)] for f in BOX_FACES])
        label.set_text(f"t = {traj.t[idx[k]]:.2f} s")
        return corners

    return fig, draw, traj.t[idx]


def balls_scene(runs, ball, frames=60, dpi=60, lift=0.75):
    """Spinning balls bouncing on a floor, one above the other: ``(fig, draw, times)`` for :func:`player`.

    ``runs`` maps a label to a :class:`lib.hybrid.HybridRun` of a planar ball
    with state ``[x, z, theta, x', z', theta']`` (height ``z`` of the centre
    above the floor, metres); ``ball`` has the radius ``r``. Ball k is drawn
    over its own floor line, ``k * lift`` metres up, as a circle with a spoke
    that shows its rotation and the trace of its centre. The frames are
    ``frames`` evenly spaced times over the shortest run. ``draw(k)`` returns
    the floor height, the circle and the spoke of each ball, in order, so a
    test can read what frame k shows.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> from lib import bouncing, hybrid, impulse
    >>> ball = impulse.SpinningBall(r=0.1)
    >>> run = hybrid.simulate_hybrid(bouncing.spinning_ball_modes(ball, 0.6), "free",
    ...                              [0.0, 0.3, 0.0, 1.0, 0.0, 5.0], t_final=0.4)
    >>> fig, draw, times = balls_scene({"a ball": run}, ball, frames=3)
    >>> [(floor, round(float(circle.center[1]), 3)) for floor, circle, spoke in draw(0)]
    [(0.0, 0.3)]

    Introduced in: chapter 6.
    """
    import matplotlib.pyplot as plt

    frames = checks.count("frames", frames)
    t = np.linspace(0.0, min(run.t_final for run in runs.values()), frames)
    fig, ax = plt.subplots(figsize=(5.0, 3.6), dpi=dpi)
    ax.set_xlim(-0.6, 0.8)
    ax.set_ylim(-0.03, (len(runs) - 1) * lift + 0.62)
    ax.set_aspect("equal")
    ax.set_xticks([])                         # text is the slowest thing to draw
    ax.set_yticks([])
    balls = []
    for k, (name, run) in enumerate(runs.items()):
        floor = k * lift                      # each ball gets its own floor
        ax.axhline(floor, color="k", lw=1)
        ax.text(-0.58, floor + 0.55, name, fontsize=9)
        circle = plt.Circle((0, 0), ball.r, fill=False, lw=1.5, color="tab:blue")
        ax.add_patch(circle)
        (spoke,) = ax.plot([], [], color="tab:red", lw=2)
        (trace,) = ax.plot([], [], color="tab:orange", lw=0.8, alpha=0.7)
        balls.append((run.sample(t), floor, circle, spoke, trace))
    clock = ax.text(0.5, (len(runs) - 1) * lift + 0.55, "", fontsize=9)
    fig.subplots_adjust(left=0.02, right=0.98, bottom=0.02, top=0.98)

    def draw(i):
        shown = []
        for X, floor, circle, spoke, trace in balls:
            x, z, th = X[i, :3]
            circle.center = (x, floor + z)
            spoke.set_data([x, x + ball.r * np.cos(th)], [floor + z, floor + z + ball.r * np.sin(th)])
            trace.set_data(X[:i + 1, 0], floor + X[:i + 1, 1])
            shown.append((floor, circle, spoke))
        clock.set_text(f"t = {t[i]:.2f} s")
        return shown

    return fig, draw, t


#: The lines of a figure, told apart by more than colour: the Okabe-Ito
#: colours, which readers with any common colour-vision deficiency still
#: tell apart (each at least 3:1 against the white background, WCAG 1.4.11),
#: each with its own dash pattern. A chapter that picks a colour for a line
