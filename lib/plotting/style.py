"""The course's look, and the checks that a figure can be read without colour.

:func:`use_style` sets the figure sizes, fonts and line cycle every chapter
uses; :func:`line_problems` and :func:`contrast_ratio` say what makes a
figure's curves hard to tell apart (WCAG 1.4.11).

Introduced in: chapter 1.
"""

from cycler import cycler

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
