"""Figures and animations for the chapters.

Numeric code elsewhere in :mod:`lib` never draws; the chapters call these
helpers instead. Every animation goes through one :func:`player`: the frames
are rendered with matplotlib's ``FuncAnimation`` and embedded as a
self-contained HTML/JavaScript player (``to_jshtml``), PNG images inside the
page, so it works in the static website with no server and nothing loaded from
a CDN. A chapter sets up its figure, writes ``draw(k)`` and calls
``plotting.player(fig, draw, times)``.

A parameter sweep on the page goes through :func:`slider`: every frame is
drawn once, when the chapter is executed, and a range control switches
between them in the reader's browser, with no kernel.

Introduced in: chapter 1.
"""

import base64
import hashlib
import html as _html
import io
import itertools
import json
import re

import numpy as np
from cycler import cycler

from . import checks

# Matplotlib's player draws its buttons with a Font Awesome style sheet fetched
# from a CDN. The website is read offline, so the link is dropped and each icon
# is replaced by a text glyph hidden from screen readers (every button keeps
# its title and aria-label, which name what it does).
_CDN_LINK = re.compile(r"<link[^>]*font-awesome[^>]*>", re.IGNORECASE)
_ICON = re.compile(r'<i class="fa ([a-z\- ]+)"></i>')
_PLAYER_IMG = re.compile(r'<img id="_anim_img(\w+)">')
_PLAYER_RANGE = re.compile(r'(<input id="_anim_slider(\w+)" type="range"[^>]*>)')
_PLAYER_FORM = re.compile(r'<form title="Repetition mode" aria-label="Repetition mode" '
                          r'(action="#n" name="_anim_loop_select\w+"\s+class="anim-state">)(.*?)</form>', re.DOTALL)
_ICON_TEXT = {
    "fa-minus": "&minus;",
    "fa-fast-backward": "|&#9664;&#9664;",
    "fa-step-backward": "|&#9664;",
    "fa-play fa-flip-horizontal": "&#9664;",
    "fa-pause": "&#10074;&#10074;",
    "fa-play": "&#9654;",
    "fa-step-forward": "&#9654;|",
    "fa-fast-forward": "&#9654;&#9654;|",
    "fa-plus": "+",
}


class _InlineHTML(str):
    """HTML that a notebook displays as itself: a ``str`` with ``_repr_html_`` and a short ``repr``."""

    def _repr_html_(self):
        return str(self)


class AnimationHTML(_InlineHTML):
    """The HTML of an animation player; a notebook displays it as the player itself.

    It is a plain ``str`` (write it to a file, search it, measure it) with a
    ``_repr_html_`` method for Jupyter and a short ``repr`` so that the page
    does not also carry the whole text as plain output.

    >>> html = AnimationHTML('<div class="animation"></div>', frames=1)
    >>> html, html._repr_html_() == str(html)
    (<animation: 1 frames, 0.00 MB of HTML>, True)
    """

    def __new__(cls, html, frames):
        obj = super().__new__(cls, html)
        obj.frames = int(frames)
        return obj

    def __repr__(self):
        return f"<animation: {self.frames} frames, {len(self) / 1e6:.2f} MB of HTML>"


def player(fig, draw, times, mode="loop"):
    """The animation of ``fig`` as a self-contained HTML/JavaScript player that plays offline: the one player of lib.

    ``draw(k)`` updates the figure's artists to frame k, for k = 0, …,
    len(times) − 1; ``times`` are the frames' times in seconds, and the
    player runs in real time, (t_last − t_first)/(frames − 1) apart (a
    single frame shows for 100 ms). ``mode`` is what it does at the end:
    "loop", "once" or "reflect". The frames are rendered with matplotlib's
    ``FuncAnimation`` into PNG images inside the page (``to_jshtml``); the
    Font Awesome style sheet it would fetch from a CDN is dropped and the
    buttons are drawn as text. The figure is closed.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(1.0, 1.0), dpi=30)
    >>> (dot,) = ax.plot([0.0], [0.0], "o")
    >>> html = player(fig, lambda k: dot.set_data([k], [k]), times=[0.0, 0.5, 1.0])
    >>> html.frames, html.count("data:image/png;base64"), "font-awesome" in html
    (3, 3, False)

    Introduced in: chapter 1.
    """
    from matplotlib.animation import FuncAnimation
    import matplotlib.pyplot as plt

    times = _times(times, np.size(times))
    if mode not in ("loop", "once", "reflect"):
        plt.close(fig)
        raise ValueError(f"mode must be 'loop', 'once' or 'reflect', got {mode!r}")
    frames = len(times)
    interval = 1000.0 * (times[-1] - times[0]) / (frames - 1) if frames > 1 else 100.0
    anim = FuncAnimation(fig, draw, frames=frames, interval=interval, repeat=mode != "once")
    # Saving a frame renders the whole figure anyway; the extra on-screen redraw
    # that FuncAnimation requests after each update would double the cost.
    fig.canvas.draw_idle = lambda *args, **kwargs: None
    try:
        html = anim.to_jshtml(default_mode=mode)
    finally:
        plt.close(fig)
    return offline_player(html, frames, times)


def offline_player(html, frames, times=None):
    """Wrap the HTML of ``FuncAnimation.to_jshtml()`` so it plays offline in a static page and reads aloud (what :func:`player` does last).

    Matplotlib's player links a Font Awesome style sheet from a CDN; it is
    dropped and the buttons are drawn as text glyphs hidden from screen
    readers (each button is named by its aria-label: "Play", "Pause", …).
    The player's parts get what assistive technology needs: the picture a
    text alternative (a fallback here; on the website, the cell's
    ``mystnb: image: alt:`` text, see ``_ext/accessibility.py``), the frame
    control a visible label "time", the time it shows beside it and as its
    ``aria-valuetext`` (``times``: the frames' times in seconds), the
    repetition buttons a named radio group. Nothing plays until the reader
    presses Play, and Pause stops it. ``frames`` is the number of frames
    (for the short repr). Animations are made with :func:`player`.

    >>> offline_player('<link href="https://cdn/font-awesome.css"><i class="fa fa-play"></i>', 1)
    <animation: 1 frames, 0.00 MB of HTML>
    >>> str(offline_player('<i class="fa fa-play"></i>', 1))
    '<span aria-hidden="true">&#9654;</span>'

    Introduced in: chapter 2.
    """
    return AnimationHTML(_accessible_player(_offline(html), int(frames), times), int(frames))


class SliderHTML(_InlineHTML):
    """The HTML of a :func:`slider`: precomputed frames and the controls that switch them.

    >>> html = SliderHTML('<div class="course-slider"></div>', frames=4, names=("m",))
    >>> html, html._repr_html_() == str(html)
    (<slider over m: 4 frames, 0.00 MB of HTML>, True)
    """

    def __new__(cls, html, frames, names):
        obj = super().__new__(cls, html)
        obj.frames = int(frames)
        obj.names = tuple(names)
        return obj

    def __repr__(self):
        return f"<slider over {', '.join(self.names)}: {self.frames} frames, {len(self) / 1e6:.2f} MB of HTML>"


#: Largest number of frames a slider embeds (the page carries every one).
SLIDER_MAX_FRAMES = 40
_SLIDER_IDS = itertools.count(1)

# Switches the shown frame when a control moves: frame index = row-major index
# of the controls' positions; each control's <output> shows its value. The
# frames are hidden by inline style, which no style sheet of the theme overrides.
_SLIDER_JS = """(function () {
  var root = document.getElementById("%(id)s");
  var inputs = root.querySelectorAll("input[type=range]");
  var outputs = root.querySelectorAll("output");
  var frames = root.querySelectorAll("img[data-frame]");
  var values = %(values)s;
  function show() {
    var k = 0;
    for (var j = 0; j < inputs.length; j++) {
      var i = parseInt(inputs[j].value, 10);
      k = k * values[j].length + i;
      outputs[j].textContent = values[j][i];
      inputs[j].setAttribute("aria-valuetext", values[j][i]);
    }
    for (var f = 0; f < frames.length; f++) { frames[f].style.display = (f === k) ? "" : "none"; }
  }
  for (var j = 0; j < inputs.length; j++) { inputs[j].addEventListener("input", show); }
  show();
})();"""


def slider(draw, labels=None, **grids):
    """A figure over one or two parameters, switched by range controls that work on a static page.

    Each keyword names a parameter of ``draw`` and lists a few of its values;
    ``draw(**params)`` returns a matplotlib Figure. Every combination is
    drawn once, now, and the figure closed; the result displays as the
    frames (PNG images inside the page) and one ``<input type="range">`` per
    parameter, with a visible label and its current value, switched by a few
    lines of inline JavaScript: no kernel, no file and nothing from a
    network. The controls answer the keyboard (arrow keys) like any range
    input, and each slider gets its own ids, so several can share a page.
    ``labels`` maps a parameter to the text shown beside its control
    (default: its name). The values of the first parameter are the slower
    index of the frames.

    >>> import matplotlib.pyplot as plt
    >>> def draw(a):
    ...     fig, ax = plt.subplots(figsize=(1.0, 1.0), dpi=20)
    ...     ax.plot([0.0, 1.0], [0.0, a])
    ...     return fig
    >>> html = slider(draw, a=[0.5, 1.0, 2.0])
    >>> html.frames, html.count("data:image/png;base64"), html.count('type="range"')
    (3, 3, 1)
    >>> slider(draw, a=[])
    Traceback (most recent call last):
    ...
    ValueError: a must list at least one value, got []

    Introduced in: chapter 1.
    """
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    if not callable(draw):
        raise ValueError("draw must be a function of the parameters that returns a matplotlib Figure")
    if not 1 <= len(grids) <= 2:
        raise ValueError(f"a slider takes one or two parameters, got {len(grids)}: {sorted(grids)}")
    labels = dict(labels or {})
    unknown = set(labels) - set(grids)
    if unknown:
        raise ValueError(f"labels names parameters the slider does not have: {sorted(unknown)}")
    names = list(grids)
    values = []
    for name in names:
        grid = grids[name]
        grid = list(grid) if isinstance(grid, (list, tuple, np.ndarray, range)) else None
        if not grid:
            raise ValueError(f"{name} must list at least one value, got {grids[name]!r}")
        values.append(grid)
    total = int(np.prod([len(v) for v in values]))
    if total > SLIDER_MAX_FRAMES:
        raise ValueError(f"a slider embeds at most {SLIDER_MAX_FRAMES} frames, these values give {total}")

    images = []
    for combo in itertools.product(*values):
        params = dict(zip(names, combo))
        fig = draw(**params)
        if not isinstance(fig, Figure):
            plt.close("all")
            raise ValueError(f"draw({params}) must return a matplotlib Figure, got {type(fig).__name__}")
        buffer = io.BytesIO()
        try:
            fig.savefig(buffer, format="png")
        finally:
            plt.close(fig)
        images.append((params, base64.b64encode(buffer.getvalue()).decode("ascii")))

    digest = hashlib.sha1("".join(data for _, data in images).encode()).hexdigest()[:8]
    uid = f"course-slider-{next(_SLIDER_IDS)}-{digest}"
    shown = [[_value_text(x) for x in v] for v in values]
    hide = ' style="display: none"'
    # A frame's text alternative says which values it shows; on the website the
    # cell's alt text (mystnb: image: alt:) is put in front (_ext/accessibility.py).
    details = [_html.escape(", ".join(f"{labels.get(n, n)} = {_value_text(x)}" for n, x in params.items()))
               for params, _ in images]
    frames = "\n".join(
        f'<img data-frame="{k}" src="data:image/png;base64,{data}" '
        f'alt="{details[k]}" data-course-alt="{details[k]}"{hide if k else ""}>'
        for k, (_, data) in enumerate(images))
    # The <label> names the control; the value it stands at is announced from
    # aria-valuetext, so the <output> beside it (shown to the eye) is not also
    # a live region.
    controls = "\n".join(
        f'<div class="course-slider-control" style="display: flex; align-items: center; gap: 0.6em">'
        f'<label for="{uid}-{j}">{_html.escape(str(labels.get(name, name)))}</label> '
        f'<input type="range" id="{uid}-{j}" min="0" max="{len(v) - 1}" step="1" value="0" '
        f'style="flex: 0 1 16em; min-width: 6em" '
        f'aria-valuetext="{_html.escape(shown[j][0])}"> '
        f'<output for="{uid}-{j}" aria-live="off">{_html.escape(shown[j][0])}</output></div>'
        for j, (name, v) in enumerate(zip(names, values)))
    script = _SLIDER_JS % {"id": uid, "values": json.dumps(shown).replace("</", "<\\/")}
    page = (f'<div class="course-slider" id="{uid}">\n{frames}\n'
            f'<div class="course-slider-controls">\n{controls}\n</div>\n<script>\n{script}\n</script>\n</div>')
    return SliderHTML(page, total, names)


def _value_text(x):
    """A parameter's value as its control shows it (floats in short form: 0.1, 1e-05)."""
    return format(x, "g") if isinstance(x, (float, np.floating)) else str(x)


def _offline(html):
    """Drop the CDN style sheet from matplotlib's player and draw the buttons as text glyphs."""
    html = _CDN_LINK.sub("", html)
    return _ICON.sub(lambda m: f'<span aria-hidden="true">{_ICON_TEXT.get(m.group(1), "&#8226;")}</span>', html)


# Keeps the time the player shows beside its frame control, and the control's
# aria-valuetext, in step with the frame: matplotlib's Animation object
# (created a moment after the page loads) gets its set_frame wrapped.
_PLAYER_JS = """<script>
(function () {
  var id = "%(id)s", times = %(times)s;
  var control = document.getElementById("_anim_slider" + id);
  var shown = document.getElementById("_anim_time" + id);
  function say(k) {
    shown.textContent = times[k];
    control.setAttribute("aria-valuetext", times[k] + ", frame " + (k + 1) + " of " + times.length);
  }
  setTimeout(function () {
    var anim = window["anim" + id];
    if (!anim) { return; }
    var setFrame = anim.set_frame;
    anim.set_frame = function (k) { setFrame.call(anim, k); say(k); };
    say(anim.current_frame);
  }, 0);
})();
</script>"""


def _accessible_player(html, frames, times=None):
    """Name every part of matplotlib's player for assistive technology (see :func:`offline_player`)."""
    match = _PLAYER_IMG.search(html)
    if not match:
        return html
    uid = match.group(1)
    if times is not None and len(times) == frames:
        spoken = [f"t = {float(t):.2f} s" for t in times]
        fallback = f"Animation from t = {float(times[0]):.2f} s to {float(times[-1]):.2f} s"
    else:
        spoken = [f"frame {k + 1}" for k in range(frames)]
        fallback = f"Animation of {frames} frames"
    html = _PLAYER_IMG.sub(f'<img id="_anim_img{uid}" alt="{fallback}" data-course-alt="">', html, count=1)
    html = _PLAYER_RANGE.sub(
        lambda m: (f'<label for="_anim_slider{uid}" class="anim-time-label">time</label>\n'
                   + m.group(1).replace("<input ", f'<input aria-valuetext="{spoken[0]}" ', 1)
                   + f'\n<output id="_anim_time{uid}" for="_anim_slider{uid}" aria-live="off" '
                     f'class="anim-time">{spoken[0]}</output>'),
        html, count=1)
    html = _PLAYER_FORM.sub(
        lambda m: (f'<form {m.group(1)}<div role="radiogroup" aria-label="Repetition mode">'
                   f'{m.group(2)}</div></form>'), html, count=1)
    html = html.replace("<button title=", '<button type="button" title=')
    return html + "\n" + _PLAYER_JS % {"id": uid, "times": json.dumps(spoken)}


def _times(t, n_samples):
    t = checks.array("t", np.atleast_1d(np.asarray(t, dtype=float)) if np.ndim(t) == 0 else t, (n_samples,))
    if n_samples < 1 or np.any(np.diff(t) <= 0):
        raise ValueError(f"t must be strictly increasing, got {t}")
    return t


def frame_indices(n_samples, frames):
    """Indices of at most ``frames`` samples, evenly spread from the first to the last.

    Animations show a subset of a long trajectory so that the page stays light.

    >>> frame_indices(11, 3)
    array([ 0,  5, 10])
    >>> frame_indices(4, 100)
    array([0, 1, 2, 3])

    Introduced in: chapter 1.
    """
    n_samples = checks.count("n_samples", n_samples)
    frames = checks.count("frames", frames)
    if frames == 1:
        return np.array([0])
    return np.unique(np.linspace(0, n_samples - 1, min(frames, n_samples)).round().astype(int))


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
#: still gets the next dash pattern.
LINE_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000")
LINE_STYLES = ("-", "--", "-.", ":", (0, (6, 2, 1, 2, 1, 2)))

#: The course's matplotlib settings (:func:`use_style`). A figure is drawn at
#: 100 dpi and at most 7.2 in wide, so its PNG is shown at 80 % of its size or
#: more in the 1280 px page (tests/test_site.py measures the scale); a 9 pt
#: legend or tick label is 12.5 px in the PNG, hence at least 10 px on screen.
STYLE = {
    "axes.prop_cycle": cycler(color=LINE_COLORS, linestyle=LINE_STYLES),
    "figure.dpi": 100,
    "savefig.dpi": "figure",
    "figure.figsize": (6.4, 3.0),
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.title_fontsize": 9,
    "figure.titlesize": 11,
}

#: The smallest text size (points) the chapters may ask for: ``STYLE``'s legend and ticks.
MIN_FONT_PT = 9


def use_style():
    """Apply the course's matplotlib settings (:data:`STYLE`); each chapter's setup cell calls it.

    Figures are drawn at 100 dpi, 6.4 in wide unless a chapter asks
    otherwise (at most 7.2 in), with legends and tick labels at 9 pt: on the
    1280 px page that is at least 10 px of text. A chapter does not pass
    smaller font sizes of its own. Successive lines differ in colour (a
    colour-blind-safe set) and in dash pattern (:data:`LINE_STYLES`).

    >>> import matplotlib
    >>> with matplotlib.rc_context():
    ...     use_style()
    ...     matplotlib.rcParams["legend.fontsize"], matplotlib.rcParams["figure.dpi"]
    ...     [s["linestyle"] for s in matplotlib.rcParams["axes.prop_cycle"]][:3]
    (9.0, 100.0)
    ['-', '--', '-.']

    Introduced in: chapter 1.
    """
    import matplotlib.pyplot as plt

    plt.rcParams.update(STYLE)


def _luminance(rgb):
    """WCAG 2.1 relative luminance of an sRGB colour (components in [0, 1])."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_ratio(colour, background="white"):
    """WCAG 2.1 contrast ratio of a matplotlib colour against ``background``, its alpha blended in.

    >>> round(contrast_ratio("black"), 1), round(contrast_ratio("tab:orange"), 2)
    (21.0, 2.53)
    """
    from matplotlib.colors import to_rgba

    r, g, b, a = to_rgba(colour)
    back = to_rgba(background)[:3]
    seen = [a * c + (1 - a) * k for c, k in zip((r, g, b), back)]
    light, dark = sorted((_luminance(seen), _luminance(back)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def line_problems(fig, min_contrast=3.0):
    """What makes a figure's curves hard to tell apart without colour, one sentence each.

    The curves are the lines a legend names (a label not starting with
    ``_``). In each axes, two curves must differ in dash pattern or marker,
    not in colour alone, and each must stand out from the axes' background
    by at least ``min_contrast`` : 1 (WCAG 1.4.11, graphical objects).
    An empty list means the figure passes.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], "o-", color="k", label="a")
    >>> _ = ax.plot([1, 0], "o-", color="#0072B2", label="b")
    >>> line_problems(fig)
    ["axes 1: 'a' and 'b' differ in colour only (line style '-', marker 'o')"]
    >>> _ = ax.plot([1, 1], ":", color="tab:orange", label="c")
    >>> line_problems(fig)[1:]
    ["axes 1: 'c' has contrast 2.53:1 against the background, below 3:1"]
    >>> plt.close(fig)
    """
    from matplotlib.colors import to_rgba

    problems = []
    for n, ax in enumerate(fig.axes, start=1):
        background = to_rgba(ax.get_facecolor())
        if background[3] == 0:
            background = to_rgba(fig.get_facecolor())
        curves = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
        looks = {}
        for line in curves:
            name = line.get_label()
            style = line.get_linestyle() if line.get_linestyle() not in ("None", "none", "", " ") else "none"
            dashes = tuple(getattr(line, "_unscaled_dash_pattern", (0, None))[1] or ()) if style != "none" else ()
            marker = str(line.get_marker()) if line.get_marker() not in ("None", "none", "", " ", None) else "none"
            look = (style, dashes, marker)
            if look in looks:
                problems.append(f"axes {n}: {looks[look]!r} and {name!r} differ in colour only "
                                f"(line style {style!r}, marker {marker!r})")
            looks.setdefault(look, name)
            colour = to_rgba(line.get_color(), line.get_alpha())
            ratio = contrast_ratio(colour, background[:3])
            if ratio < min_contrast:
                problems.append(f"axes {n}: {name!r} has contrast {ratio:.2f}:1 against the background, "
                                f"below {min_contrast:g}:1")
    return problems


def glue(name, value, display=True):
    """Keep ``value`` under ``name`` for the chapter's text, which shows it with ``{glue}`name```.

    On the website this is myst-nb's ``glue``. The course kit that students
    install has no myst-nb (it holds what the computing needs, not the book's
    builder), so a chapter's notebook downloaded from the website and run
    there only shows ``value`` below its cell when ``display`` is true, as
    myst-nb's ``glue`` also does in Jupyter; nothing else reads the name then.

    Introduced in: chapter 1.
    """
    try:
        from myst_nb import glue as myst_glue
    except ImportError:  # the course kit: no book builder
        if display:
            from IPython.display import display as show
            show(value)
        return
    myst_glue(name, value, display=display)
