"""The page's players and sliders: self-contained HTML a static website shows with no kernel.

Every animation goes through one :func:`player`: the frames are rendered with
matplotlib's ``FuncAnimation`` and embedded as a self-contained
HTML/JavaScript player (``to_jshtml``), PNG images inside the page, so it works
in the static website with no server and nothing loaded from a CDN. A parameter
sweep goes through :func:`slider`: every frame is drawn once, when the chapter
is executed, and a range control switches between them in the reader's
browser. Both are made accessible here (labels, spoken values, text glyphs for
the icons).

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

from .. import checks

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

