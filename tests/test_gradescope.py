"""The Gradescope autograder: ``python -m autograder gradescope hw01`` writes the zip, and its
``run_autograder`` grades uploads in a simulated ``/autograder`` (RBD_GRADESCOPE_ROOT).

As Gradescope does it: the zip is unpacked into ``<root>/source``,
``run_autograder`` copied to ``<root>``, the upload put in
``<root>/submission``, and ``run_autograder`` run from a shell. setup.sh's
installs need the network; its last step (``python -m autograder.handback.gradescope
prepare``, the release) runs here as it would there. Each results.json is
checked against Gradescope's documented format
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): field names
and types, the scores adding up, visibilities from the documented set, and no
line of a solution or a hidden test in any text a student can see.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.cli import main
from autograder.course.course import Course
from autograder.course.leaks import MARKERS, secret_lines
from autograder.handback import lms
from tests.scratch import answered, reference_answers, scratch_course

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not (REPO / "exercises" / "hw01").is_dir(), reason="needs exercises/hw01")

# Gradescope's results.json, as its specification lists the fields.
TOP_FIELDS = {"score": (int, float), "execution_time": (int, float), "output": str, "visibility": str,
              "stdout_visibility": str, "extra_data": dict, "tests": list, "leaderboard": list}
TEST_FIELDS = {"score": (int, float), "max_score": (int, float), "name": str, "number": str, "output": str,
               "tags": list, "visibility": str, "extra_data": dict}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


def source_notebook():
    return nbformat.read(str(REPO / "exercises" / "hw01" / "hw01.ipynb"), as_version=4)


def autograded_cells():
    """hw01's autograded test cells, read from the source with nbformat alone: {grade id: (points, hidden?)}."""
    found = {}
    for cell in source_notebook().cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            found[meta["grade_id"]] = (float(meta["points"]), "BEGIN HIDDEN TESTS" in cell.source)
    return found


def check_format(results):
    """Every field of results.json is one Gradescope documents, of the documented type; the score adds up."""
    for key, value in results.items():
        assert key in TOP_FIELDS, f"results.json has a field Gradescope does not know: {key}"
        assert isinstance(value, TOP_FIELDS[key]) and not isinstance(value, bool), (key, value)
    assert "score" in results, "with tests that carry scores the top level may omit it, but ours always sets it"
    assert results["stdout_visibility"] == "hidden", "the grader's log is the instructor's"
    for test in results["tests"]:
        for key, value in test.items():
            assert key in TEST_FIELDS, f"a test has a field Gradescope does not know: {key}"
            assert isinstance(value, TEST_FIELDS[key]) and not isinstance(value, bool), (key, value)
        assert {"name", "score", "max_score", "visibility", "output"} <= set(test), test
        assert test["visibility"] in VISIBILITIES, test
        assert 0 <= test["score"] <= test["max_score"], test
    assert abs(results["score"] - sum(t["score"] for t in results["tests"])) < 1e-9, results


def check_nothing_leaks(results, own=""):
    """No marker and no line of a solution or hidden test (that the student did not write) in any text."""
    secrets = secret_lines(source_notebook())
    texts = [results.get("output", "")] + [t[k] for t in results["tests"] for k in ("name", "output")]
    for text in texts:
        assert not [m for m in MARKERS if m in text], text
        assert not [line for line in secrets if line in text and line not in own], text
        assert "Traceback" not in text and "File \"" not in text, text


@pytest.fixture(scope="module")
def autograder_root(tmp_path_factory):
    """The zip written by the command, unpacked as Gradescope does it, and prepared as setup.sh ends."""
    base = tmp_path_factory.mktemp("gradescope")
    root = scratch_course(base / "course")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.delenv("RBD_COURSE_ROOT", raising=False)
        assert main(["--root", str(root), "gradescope", "hw01", "--out", str(base / "hw01.zip")]) == 0
    autograder = base / "autograder"
    with zipfile.ZipFile(base / "hw01.zip") as zf:
        for info in zf.infolist():
            path = Path(zf.extract(info, autograder / "source"))
            mode = info.external_attr >> 16
            if mode:
                path.chmod(stat.S_IMODE(mode))
    shutil.copy2(autograder / "source" / "run_autograder", autograder / "run_autograder")
    env = environment(autograder)
    setup = subprocess.run([sys.executable, "-m", "autograder.handback.gradescope", "prepare"], env=env,
                           cwd=autograder / "source" / "course", capture_output=True, text=True)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    return autograder


def environment(autograder):
    return dict(os.environ, RBD_GRADESCOPE_ROOT=str(autograder), RBD_GRADESCOPE_PYTHON=sys.executable,
                PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def run_autograder(autograder, write_upload, scored=True):
    """One Gradescope run on the upload ``write_upload(folder)`` puts in <root>/submission; results.json
    (with ``scored=False``, the finished process, for an upload that cannot be graded)."""
    for folder in ("submission", "results"):
        shutil.rmtree(autograder / folder, ignore_errors=True)
    (autograder / "submission").mkdir()
    (autograder / "results").mkdir()
    write_upload(autograder / "submission")
    before = {p: p.read_bytes() for p in (autograder / "submission").rglob("*") if p.is_file()}
    env = {k: v for k, v in environment(autograder).items() if k not in ("RBD_GRADEBOOK_URL", "RBD_COURSE_ROOT")}
    ran = subprocess.run(["bash", str(autograder / "run_autograder")], env=env, cwd=autograder,
                         capture_output=True, text=True)
    assert {p: p.read_bytes() for p in (autograder / "submission").rglob("*") if p.is_file()} == before, \
        "the upload was changed"
    if not scored:
        return ran
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return json.loads((autograder / "results" / "results.json").read_text())


def released(autograder):
    return autograder / "source" / "course" / "release" / "hw01" / "hw01.ipynb"


def test_the_zip_holds_what_gradescope_runs_and_nothing_it_should_not(autograder_root):
    source = autograder_root / "source"
    for script in ("setup.sh", "run_autograder"):
        assert os.access(source / script, os.X_OK), f"{script} is not executable"
        parsed = subprocess.run(["bash", "-n", str(source / script)], capture_output=True, text=True)
        assert parsed.returncode == 0, f"{script}: {parsed.stderr}"
    setup = (source / "setup.sh").read_text()
    assert "kit/requirements.txt" in setup and "bubblewrap" in setup and "autograder.handback.gradescope prepare" in setup
    assert (source / "kit" / "requirements.txt").read_text() == (REPO / "kit" / "requirements.txt").read_text()
    assert (source / "requirements.txt").read_text() == (REPO / "requirements.txt").read_text()
    names = {p.name for p in source.rglob("*")}
    assert not names & {"mistakes.toml", "mutants.toml", "__pycache__"}, names
    assert (source / "course" / "autograder" / "handback" / "gradescope.py").is_file() and (source / "course" / "lib").is_dir()


def test_a_right_notebook_scores_every_autograded_point(autograder_root):
    nb = answered(released(autograder_root))
    results = run_autograder(autograder_root, lambda folder: nbformat.write(nb, str(folder / "hw01.ipynb")))
    check_format(results)
    cells = autograded_cells()
    assert {t["name"].split(":")[0] for t in results["tests"]} == set(cells)
    for test in results["tests"]:
        points, hidden = cells[test["name"].split(":")[0]]
        assert test["max_score"] == points and test["score"] == points, test
        assert test["visibility"] == ("after_published" if hidden else "visible"), test
        assert test["output"] == "All checks passed.", test
    assert results["score"] == sum(p for p, _ in cells.values())
    written = sum(float(c.metadata["nbgrader"]["points"]) for c in source_notebook().cells
                  if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("grade"))
    assert written > 0 and f"written answers ({written:g} points)" in results["output"], results["output"]
    check_nothing_leaks(results, own="\n".join(reference_answers().values()))


def test_a_blank_notebook_scores_nothing_and_says_why(autograder_root):
    results = run_autograder(autograder_root,
                             lambda folder: shutil.copy(released(autograder_root), folder / "hw01.ipynb"))
    check_format(results)
    assert results["score"] == 0 and len(results["tests"]) == len(autograded_cells())
    assert all(t["score"] == 0 and t["output"] for t in results["tests"]), results["tests"]
    check_nothing_leaks(results)


def test_a_typical_mistake_loses_its_part_only_with_its_message(autograder_root):
    mistake = tomllib.loads((REPO / "exercises" / "hw01" / "mistakes.toml").read_text())["mistake"][0]
    nb = answered(released(autograder_root))
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == mistake["cell"]:
            cell.source = mistake["source"]
    results = run_autograder(autograder_root, lambda folder: nbformat.write(nb, str(folder / "my hw01 (2).ipynb")))
    check_format(results)
    lost = {t["name"].split(":")[0]: t for t in results["tests"] if t["score"] < t["max_score"]}
    assert set(lost) == {mistake["fails"]}, lost
    assert lost[mistake["fails"]]["score"] == 0
    if "message" in mistake:
        assert mistake["message"] in lost[mistake["fails"]]["output"], lost
    check_nothing_leaks(results, own="\n".join(reference_answers().values()) + mistake["source"])


def test_a_broken_notebook_gets_no_score_and_the_log_says_why(autograder_root):
    """No results.json: Gradescope then records no score (a 0 would be a grade the course never gave)."""
    ran = run_autograder(autograder_root, lambda folder: (folder / "hw01.ipynb").write_text('{"cells": ['),
                         scored=False)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert not (autograder_root / "results" / "results.json").exists()
    assert "This upload could not be graded: " in ran.stdout and "No results.json is written" in ran.stdout, \
        ran.stdout
    # an upload with no notebook in it
    ran = run_autograder(autograder_root, lambda folder: (folder / "notes.txt").write_text("no notebook"),
                         scored=False)
    assert ran.returncode == 1 and "no notebook was uploaded" in ran.stdout, ran.stdout
    assert not (autograder_root / "results" / "results.json").exists()


def test_two_notebooks_none_named_for_the_assignment_are_refused_by_name(autograder_root):
    def upload(folder):
        shutil.copy(released(autograder_root), folder / "a.ipynb")
        shutil.copy(released(autograder_root), folder / "b.ipynb")
    ran = run_autograder(autograder_root, upload, scored=False)
    assert ran.returncode == 1 and not (autograder_root / "results" / "results.json").exists()
    assert "upload hw01.ipynb; the upload holds a.ipynb, b.ipynb" in ran.stdout, ran.stdout


def test_export_points_to_the_gradescope_command(tmp_path):
    course = Course(scratch_course(tmp_path / "course"))
    with pytest.raises(ValueError, match="python -m autograder gradescope ASSIGNMENT"):
        lms.write(course, "gradescope", tmp_path / "gs.csv")
