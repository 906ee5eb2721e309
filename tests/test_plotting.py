"""Tests for lib.plotting: the animation player is self-contained and shows the motion asked for."""

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
                        0.01, 120, mu=0.5)
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
