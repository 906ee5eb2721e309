"""Figures and animations for the chapters, one module a concern.

Numeric code elsewhere in :mod:`lib` never draws; the chapters call these
helpers instead, as ``plotting.<name>``:

* :mod:`~lib.plotting.style`: the course's look (:func:`use_style`) and the
  checks that a figure reads without colour (:func:`line_problems`,
  :func:`contrast_ratio`);
* :mod:`~lib.plotting.figures`: static plots of a trajectory
  (:func:`plot_angles`, :func:`phase_portrait`, :func:`plot_energy`);
* :mod:`~lib.plotting.players`: the page's :func:`player` for animations and
  :func:`slider` for parameter sweeps, self-contained HTML that the static
  website shows with no kernel and nothing from a CDN;
* :mod:`~lib.plotting.scenes`: animations of the course's systems
  (:func:`animate_pendulum`, :func:`box_scene`, :func:`balls_scene`, ...);
* :mod:`~lib.plotting.pages`: :func:`glue`, a number computed by a chapter put
  into its text.

A chapter sets up its figure, writes ``draw(k)`` and calls
``plotting.player(fig, draw, times)``; a sweep calls ``plotting.slider(draw,
parameter=values, ...)``.

Introduced in: chapter 1.
"""

from .figures import phase_portrait, plot_angles, plot_energy
from .pages import glue
from .players import SLIDER_MAX_FRAMES, AnimationHTML, SliderHTML, frame_indices, offline_player, player, slider
from .scenes import BOX_FACES, animate_double_pendulum, animate_pendulum, balls_scene, box_scene
from .style import LINE_COLORS, LINE_STYLES, MIN_FONT_PT, STYLE, contrast_ratio, line_problems, use_style

__all__ = ["AnimationHTML", "BOX_FACES", "LINE_COLORS", "LINE_STYLES", "MIN_FONT_PT", "SLIDER_MAX_FRAMES", "STYLE",
           "SliderHTML", "animate_double_pendulum", "animate_pendulum", "balls_scene", "box_scene", "contrast_ratio",
           "frame_indices", "glue", "line_problems", "offline_player", "phase_portrait", "plot_angles", "plot_energy",
           "player", "slider", "use_style"]
