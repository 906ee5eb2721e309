"""Tests for lib.plotting: the animation player is self-contained and shows the motion asked for."""

import json
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import lib  # noqa: E402
from lib import plotting  # noqa: E402

FRAME = re.compile(r'frames\[(\d+)\] = "data:image/png;base64,([^"]+)"')


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def swing():
    """A short double-pendulum motion and its animation, shared by several tests."""
    dp = lib.DoublePendulum()
    traj = dp.simulate([np.pi / 2, 0.0], [0.0, 0.0], 1.0, num=41)
    html = plotting.animate_double_pendulum(dp, traj, frames=12, size=1.5, dpi=40)
    return dp, traj, html


def test_animation_embeds_the_requested_number_of_frames(swing):
    _, _, html = swing
    frames = FRAME.findall(html)
    assert html.frames == 12
    assert [int(i) for i, _ in frames] == list(range(12)), "one embedded PNG per frame, numbered 0..11"
    assert "new Array(12)" in html
    assert "new Animation(" in html, "the player's JavaScript must be embedded"


def test_frames_differ_when_the_pendulum_moves(swing):
    _, _, html = swing
    images = [data for _, data in FRAME.findall(html)]
    assert len(set(images)) == len(images), "a swinging pendulum gives a different picture every frame"


def test_animation_is_self_contained(swing):
    _, _, html = swing
    assert "http://" not in html and "https://" not in html, "nothing may be fetched from the network"
    assert "<link" not in html
    assert 'class="fa' not in html, "icons come from Font Awesome, which the offline page does not load"
    assert "<script" in html


def test_player_names_its_parts_for_assistive_technology(swing):
    """The picture has a text alternative, the frame control a visible label and a spoken time, the buttons names."""
    _, traj, html = swing
    uid = re.search(r'<img id="_anim_img(\w+)" alt="Animation from t = 0.00 s to 1.00 s" data-course-alt="">',
                    html).group(1)
    assert f'<label for="_anim_slider{uid}" class="anim-time-label">time</label>' in html
    assert re.search(rf'<input aria-valuetext="t = 0.00 s" id="_anim_slider{uid}" type="range"', html)
    assert f'<output id="_anim_time{uid}" for="_anim_slider{uid}" aria-live="off" class="anim-time">' in html
    assert '<div role="radiogroup" aria-label="Repetition mode">' in html
    buttons = re.findall(r'<button type="button" title="([^"]+)" aria-label="([^"]+)"', html)
    assert len(buttons) == 9 and all(t == a for t, a in buttons), "every button is named by what it does"
    assert "Pause" in dict(buttons), "a moving picture can be paused (WCAG 2.2.2)"
    glyphs = re.findall(r"<button[^>]*>\s*(.*?)</button>", html, re.DOTALL)
    assert all(g.startswith('<span aria-hidden="true">') for g in glyphs), "the glyphs are not read out"
    spoken = json.loads(re.search(r"times = (\[.*?\]);", html).group(1))
    assert len(spoken) == 12 and spoken[-1] == "t = 1.00 s", "the time of every frame is spoken"
    assert "play_animation()" not in html.split("new Animation(")[1].split("</script>")[0], \
        "the player does not start by itself"


def test_animation_displays_as_html_with_a_short_repr(swing):
    _, _, html = swing
    assert isinstance(html, str)
    assert html._repr_html_() == str(html)
    assert len(repr(html)) < 80 and "12 frames" in repr(html)


def test_animation_stays_light():
    dp = lib.DoublePendulum()
    traj = dp.simulate([2.0, 0.5], [0.0, 0.0], 4.0, num=401)
    html = plotting.animate_double_pendulum(dp, traj, frames=100, size=3.0, dpi=64)
    assert html.frames == 100
    assert len(html) < 3_000_000, f"a 100-frame animation should stay under 3 MB, got {len(html) / 1e6:.1f} MB"


def test_course_style_keeps_legends_and_ticks_readable_at_page_width():
    """9 pt at 100 dpi is 12.5 px in the PNG: shown at 80 % or more (the site test's bound) it stays >= 10 px."""
    with matplotlib.rc_context():
        plotting.use_style()
        rc = matplotlib.rcParams
        smallest = min(matplotlib.font_manager.FontProperties(size=rc[k]).get_size_in_points()
                       for k in ("legend.fontsize", "xtick.labelsize", "ytick.labelsize"))
        assert smallest >= plotting.MIN_FONT_PT
        assert smallest * rc["figure.dpi"] / 72 * 0.8 >= 10.0


def test_playback_runs_in_real_time():
    t = np.linspace(0.0, 2.0, 201)
    positions = np.stack([np.sin(t), -np.cos(t)], axis=1)[:, None, :]
    html = plotting.animate_pendulum(positions, t, frames=21, size=1.0, dpi=30)
    # 21 frames spread over 2 s: 100 ms apart
    assert re.search(r"new Animation\(frames, img_id, slider_id, 100(\.0)?,", html)


def test_frame_indices_are_even_and_include_both_ends():
    idx = plotting.frame_indices(101, 11)
    assert idx[0] == 0 and idx[-1] == 100
    assert np.all(np.diff(idx) == 10)
    assert list(plotting.frame_indices(3, 10)) == [0, 1, 2]


@pytest.mark.parametrize("kwargs, name", [
    ({"positions": np.zeros((5, 2))}, "positions"),
    ({"positions": np.full((5, 1, 2), np.nan)}, "positions"),
    ({"t": np.linspace(0.0, 1.0, 4)}, "t"),
    ({"t": np.zeros(5)}, "t"),
    ({"frames": 0}, "frames"),
    ({"frames": 2.5}, "frames"),
    ({"dpi": -10}, "dpi"),
    ({"size": 0}, "size"),
    ({"trail": -1}, "trail"),
])
def test_bad_input_names_the_parameter(kwargs, name):
    args = {"positions": np.zeros((5, 1, 2)), "t": np.linspace(0.0, 1.0, 5)}
    args.update(kwargs)
    with pytest.raises(ValueError, match=rf"^{name} "):
        plotting.animate_pendulum(args.pop("positions"), args.pop("t"), **args)


def test_double_pendulum_animation_needs_positions():
    traj = lib.SimplePendulum().simulate([0.5], [0.0], 0.1, num=3)
    with pytest.raises(ValueError, match="positions"):
        plotting.animate_double_pendulum(lib.SimplePendulum(), traj)


def test_plot_angles_draws_one_line_per_coordinate(swing):
    _, traj, _ = swing
    ax = plotting.plot_angles(traj, labels=["a", "b"])
    lines = ax.get_lines()
    assert len(lines) == 2
    assert np.allclose(lines[1].get_ydata(), traj.q[:, 1])
    with pytest.raises(ValueError, match="labels"):
        plotting.plot_angles(traj, labels=["only one"])


def test_phase_portrait_plots_velocity_against_position(swing):
    _, traj, _ = swing
    ax = plotting.phase_portrait(traj, index=0)
    curve = ax.get_lines()[0]
    assert np.allclose(curve.get_xdata(), traj.q[:, 0])
    assert np.allclose(curve.get_ydata(), traj.v[:, 0])
    with pytest.raises(ValueError, match="index"):
        plotting.phase_portrait(traj, index=-1)


def test_energy_plot_shows_the_drift_from_the_start(swing):
    dp, traj, _ = swing
    ax, drift = plotting.plot_energy(dp, traj)
    assert drift[0] == 0.0
    expected = np.array([dp.energy(q, v) for q, v in zip(traj.q, traj.v)]) - dp.energy(traj.q[0], traj.v[0])
    assert np.allclose(drift, expected)
    assert np.allclose(ax.get_lines()[0].get_ydata(), drift)
    assert abs(drift).max() < 1e-8, "a conservative system simulated at rtol=1e-10 keeps its energy"


def test_plots_reject_something_that_is_not_a_trajectory():
    with pytest.raises(ValueError, match="traj"):
        plotting.plot_angles(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="system"):
        plotting.plot_energy(object(), lib.Trajectory(np.zeros(1), np.zeros((1, 1)), np.zeros((1, 1))))


def test_chapter_7_box_is_drawn_above_the_floor_in_every_frame():
    """The tumbling box of chapter 7: above the floor in the data, and visible (orange pixels) in every frame."""
    import matplotlib
    from matplotlib.colors import to_rgb

    from lib.box import Box, simulate_box
    from lib.plotting import box_scene
    from lib.rigid_body import rotation

    matplotlib.use("Agg")
    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    drop = simulate_box(box, [0.0, 0.0, 0.3], rotation([0.35, 0.25, 0.1]), [0.6, 0.0, 0.0], [0.0, 0.0, 1.5],
                        h=0.01, steps=120, mu=0.5)
    lowest = min(box.corners(p, R)[:, 2].min() for p, R in zip(drop.p, drop.R))
    assert lowest > -1e-6, f"the simulated box goes {-lowest:.2g} m into the floor"
    fig, draw, times = box_scene(box, drop, frames=25)
    orange = np.array(to_rgb("tab:orange"))
    for k in range(len(times)):
        draw(k)
        fig.canvas.draw()
        rgb = np.asarray(fig.canvas.buffer_rgba())[..., :3] / 255.0
        shown = np.sum(np.abs(rgb - orange).max(axis=-1) < 0.12)
        assert shown > 200, f"frame {k} (t = {times[k]:.2f} s): the box is hidden ({shown} orange pixels)"


def chapter_6_backspin_scene():
    """The two spinning balls of chapter 6 ("Backspin"), simulated and drawn as the chapter does."""
    from lib import bouncing, hybrid, impulse

    ball = impulse.SpinningBall(r=0.1)
    runs = {name: hybrid.simulate_hybrid(bouncing.spinning_ball_modes(ball, 0.6), "free",
                                         [0.0, 0.5, 0.0, 1.0, 0.0, spin], t_final=1.6)
            for name, spin in {"light backspin": 10.0, "heavy backspin": 30.0}.items()}
    return ball, runs, plotting.balls_scene(runs, ball)


def chapter_7_box_scene():
    """The tumbling box of chapter 7, simulated and drawn as the chapter does."""
    from lib.box import Box, simulate_box
    from lib.rigid_body import rotation

    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    drop = simulate_box(box, [0.0, 0.0, 0.3], rotation([0.35, 0.25, 0.1]), [0.6, 0.0, 0.0], [0.0, 0.0, 1.5],
                        h=0.01, steps=120, mu=0.5)
    return box, drop, plotting.box_scene(box, drop)


def lowest_in_frame(scene, k):
    """How far the lowest body drawn in frame k is above its ground (metres; negative: below it)."""
    name, (body, _, (fig, draw, times)) = scene
    if name == "chapter 6 backspin":
        return min(circle.center[1] - body.r - floor for floor, circle, _ in draw(k))
    return float(draw(k)[:, 2].min())


@pytest.fixture(scope="module", params=["chapter 6 backspin", "chapter 7 box"])
def ground_scene(request):
    build = {"chapter 6 backspin": chapter_6_backspin_scene, "chapter 7 box": chapter_7_box_scene}
    yield request.param, build[request.param]()
    plt.close("all")


def test_no_body_is_drawn_below_the_ground_in_any_frame(ground_scene):
    """Every animation of chapters 6-10 that shows bodies over a ground: each frame's drawn bodies are above it."""
    name, (_, _, (fig, draw, times)) = ground_scene
    assert len(times) >= 25, f"{name}: only {len(times)} frames"
    below = [(round(float(times[k]), 3), lowest_in_frame(ground_scene, k)) for k in range(len(times))]
    below = [(t, gap) for t, gap in below if gap < -1e-3]
    assert not below, f"{name}: bodies drawn below the ground at (t in s, depth in m): {below[:5]}"
    touching = min(lowest_in_frame(ground_scene, k) for k in range(len(times)))
    assert touching < 0.02, f"{name}: no frame shows the body on the ground (closest {touching:.3f} m)"


def test_the_backspin_balls_bounce_apart():
    """Chapter 6's animation shows what the text says: the lightly spun ball goes on, the heavily spun one comes back."""
    _, runs, (fig, draw, times) = chapter_6_backspin_scene()
    last = draw(len(times) - 1)
    (_, light, _), (_, heavy, _) = last
    assert light.center[0] > 0.1, f"light backspin: the ball should end ahead of its start, at x = {light.center[0]:.2f}"
    assert heavy.center[0] < 0.0, f"heavy backspin: the ball should come back behind its start, at x = {heavy.center[0]:.2f}"


# --- the precomputed slider --------------------------------------------------------------
SLIDER_FRAME = re.compile(r'<img data-frame="(\d+)" src="data:image/png;base64,([^"]+)" alt="([^"]*)" '
                          r'data-course-alt="[^"]*"( style="display: none")?>')


def _line(a, b=0.0):
    fig, ax = plt.subplots(figsize=(1.2, 1.0), dpi=30)
    ax.plot([0.0, 1.0], [b, a], lw=3)
    ax.set_ylim(-3, 3)
    return fig


def test_slider_draws_every_combination_once_and_closes_the_figures():
    calls = []

    def draw(a, b):
        calls.append((a, b))
        return _line(a, b)

    html = plotting.slider(draw, a=[1.0, 2.0, 3.0], b=[-1.0, 1.0])
    assert calls == [(1.0, -1.0), (1.0, 1.0), (2.0, -1.0), (2.0, 1.0), (3.0, -1.0), (3.0, 1.0)], \
        "first parameter is the slower index"
    frames = SLIDER_FRAME.findall(html)
    assert [int(k) for k, *_ in frames] == list(range(6))
    assert len({data for _, data, *_ in frames}) == 6, "different parameters draw different pictures"
    assert frames[3][2] == "a = 2, b = 1", "each frame's alt text names its parameters"
    assert [hidden != "" for *_, hidden in frames] == [False] + [True] * 5, "only the first frame is shown"
    assert plt.get_fignums() == [], "every figure drawn for the slider is closed"
    assert html.frames == 6 and html.names == ("a", "b")


def test_slider_has_labelled_keyboard_controls_and_no_outside_file():
    html = plotting.slider(_line, labels={"a": "slope a (1/s)"}, a=[0.5, 1.5])
    assert html.count('<input type="range"') == 1
    control = re.search(r'<label for="([^"]+)">slope a \(1/s\)</label> <input type="range" id="([^"]+)" '
                        r'min="0" max="1" step="1" value="0"[^>]*>', html)
    assert control and control.group(1) == control.group(2), "the label names its control"
    assert '<output for="%s" aria-live="off">0.5</output>' % control.group(1) in html, "the current value is shown"
    assert 'aria-valuetext="0.5"' in control.group(0), "the value is announced with the control's name"
    assert 'alt="slope a (1/s) = 1.5" data-course-alt="slope a (1/s) = 1.5"' in html, \
        "a frame's text alternative names the values it shows by their labels (the site adds the cell's text)"
    assert "http://" not in html and "https://" not in html and "<link" not in html and " src=\"http" not in html
    assert "<script>" in html and 'addEventListener("input"' in html
    assert html._repr_html_() == str(html) and len(repr(html)) < 80


def test_two_sliders_on_one_page_have_different_ids():
    first, second = plotting.slider(_line, a=[1.0, 2.0]), plotting.slider(_line, a=[1.0, 2.0])
    ids = [set(re.findall(r'id="([^"]+)"', h)) for h in (first, second)]
    assert ids[0] and not ids[0] & ids[1], "ids must not clash between two sliders"


@pytest.mark.parametrize("call, message", [
    (lambda: plotting.slider(_line), "one or two parameters"),
    (lambda: plotting.slider(_line, a=[1], b=[1], c=[1]), "one or two parameters"),
    (lambda: plotting.slider(_line, a=[]), "^a must list at least one value"),
    (lambda: plotting.slider(_line, a=3.0), "^a must list at least one value"),
    (lambda: plotting.slider(_line, a=list(range(41))), "at most 40 frames"),
    (lambda: plotting.slider(lambda a: None, a=[1.0]), "must return a matplotlib Figure"),
    (lambda: plotting.slider(_line, labels={"z": "zed"}, a=[1.0]), "labels names parameters"),
    (lambda: plotting.slider("not a function", a=[1.0]), "^draw must be"),
])
def test_slider_rejects_bad_input_with_a_clear_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()
    assert plt.get_fignums() == []


def test_glue_without_the_book_builder_shows_the_value(monkeypatch, capsys):
    """In the course kit (no myst-nb) a chapter's glue cell runs and shows its value, as on the website's Jupyter."""
    import sys

    monkeypatch.setitem(sys.modules, "myst_nb", None)   # import myst_nb now raises ImportError
    plotting.glue("settle_rad", 0.1234)
    assert "0.1234" in capsys.readouterr().out
    plotting.glue("quiet", 5.678, display=False)
    assert "5.678" not in capsys.readouterr().out


def test_glue_with_the_book_builder_stores_the_value_for_the_text(capsys):
    """On the website glue is myst-nb's: the value leaves a display output named for {glue}`name`."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    outputs = []
    shell.display_pub.publish = lambda data, metadata=None, **kw: outputs.append((data, metadata))
    try:
        plotting.glue("theta_4s", 0.4321, display=False)
    finally:
        InteractiveShell.clear_instance()
    assert outputs and outputs[0][1]["scrapbook"]["name"] == "theta_4s"
    plain = [v for k, v in outputs[0][0].items() if k.endswith("text/plain")]
    assert plain and "0.4321" in plain[0]
