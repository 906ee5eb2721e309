"""Homework round trips with real nbgrader, through ``python -m autograder``.

Everything happens in a temporary copy of the course (exercises/ and
nbgrader_config.py) with its own gradebook, so the developer's release/,
gradebook.db and grades are never touched. Every assignment in exercises/ is
released and one batch of submissions is graded, once, when the first of its
tests needs it (:class:`Lab`); an assignment's tests carry it in their id and
run together, beside the other assignments' (tests/conftest.py). The batch:

* ``reference``: the source's solutions; full marks on every autograded part;
* ``blank``: the released notebook as is; zero everywhere;
* a sample of the typical mistakes of exercises/<assignment>/mistakes.toml (one
  caught by the visible tests, one only by the hidden ones, and for hw01 the two
  whose feedback is read below): the reference with that one answer replaced;
  it loses exactly that part's points. Every mistake is run by the mutation
  check's runner, with every test it reaches (tests/test_mutants.py), which the
  sample and the mutants below show to agree with nbgrader;
* ``broken`` (not JSON) and ``empty`` (empty file): "could not be graded",
  never a 0, and the rest of the batch is still graded;
* ``crash`` (os._exit in an answer cell): graded, losing only what needs that
  cell (the cells after it run again without it);
* ``mutant-<k>``: a few mutants of the reference (autograder/mutation/mutants.py), whose
  lost points must be exactly the test cells that the mutation check's fast
  runner says they fail (its one pass over the assignment, tests/mutation_pass.py).

Then feedback (on a sample of the batch, written by ``feedback --student``) and
export are checked, and for hw01 a zip with other layouts, a
cell that runs past its time limit and a notebook of another course. The fast
tests at the end (no nbgrader run) check the pieces: submission layouts,
notebook checks, secret lines, the feedback scrubber.
"""

import copy
import csv
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.cli import main
from autograder.course import gradebook, leaks
from autograder.course.assignment import Assignment
from autograder.course.course import Course
from autograder.course.leaks import HideHiddenTests
from autograder.course.outcomes import FAILED, GRADED, Outcomes
from autograder.course.release import check_release
from autograder.grading import submissions
from autograder.handback.export import COLUMNS
from tests.mutation_pass import one_pass
from tests.scratch import scratch_course

REPO = Path(__file__).resolve().parent.parent
ASSIGNMENTS = sorted(p.name for p in (REPO / "exercises").iterdir() if (p / f"{p.name}.ipynb").is_file())
# RBD_ASSIGNMENTS=hw02,hw03 grades only those while one homework is being written (the full run grades all).
if os.environ.get("RBD_ASSIGNMENTS"):
    ASSIGNMENTS = [a for a in ASSIGNMENTS if a in os.environ["RBD_ASSIGNMENTS"].split(",")]


def nbgrader_cells(nb, **flags):
    """grade_id -> cell for the cells whose nbgrader flags match (e.g. grade=True)."""
    return {c.metadata.nbgrader["grade_id"]: c for c in nb.cells
            if "nbgrader" in c.metadata and all(bool(c.metadata.nbgrader.get(k)) == v for k, v in flags.items())}


class Source:
    """What the tests need to know about one assignment's source notebook."""

    def __init__(self, assignment):
        self.assignment = assignment
        self.path = REPO / "exercises" / assignment / f"{assignment}.ipynb"
        self.nb = nbformat.read(str(self.path), as_version=4)
        self.tests = {name: cell.metadata.nbgrader["points"]
                      for name, cell in nbgrader_cells(self.nb, grade=True, solution=False).items()}
        self.written = {name: cell.metadata.nbgrader["points"]
                        for name, cell in nbgrader_cells(self.nb, grade=True, solution=True).items()}
        # the answers, solution markers taken out
        self.answers = {name: "\n".join(line for line in cell.source.splitlines() if "SOLUTION" not in line)
                        for name, cell in nbgrader_cells(self.nb, solution=True).items()}
        self.code_answers = [name for name, cell in nbgrader_cells(self.nb, solution=True, grade=False).items()
                             if cell.cell_type == "code"]
        self.mistakes = Assignment(self.path).mistakes()   # exercises/<assignment>/mistakes.toml

SOURCES = {a: Source(a) for a in ASSIGNMENTS}
needs_hw01 = pytest.mark.skipif("hw01" not in ASSIGNMENTS, reason="RBD_ASSIGNMENTS leaves hw01 out")
# Tests of one assignment only carry it in their id ("[hw01]"), which puts them in that assignment's group.
FIRST = ASSIGNMENTS[:1]
HW01 = [a for a in ASSIGNMENTS if a == "hw01"]
FEEDBACK_READ = {"hw01": ("mass-matrix-missing-factor-2", "cartpole-wind-lever-constant")}


def graded_mistakes(assignment):
    """The typical mistakes nbgrader grades too: those whose feedback a test reads, the first one the visible
    tests catch and the first one only the hidden tests catch."""
    every = SOURCES[assignment].mistakes
    chosen = ([m for m in every if m["name"] in FEEDBACK_READ.get(assignment, ())]
              + [m for m in every if m.get("visible", True)][:1] + [m for m in every if not m.get("visible", True)][:1])
    return list({m["name"]: m for m in chosen}.values())


MISTAKES = [(a, m) for a in ASSIGNMENTS for m in graded_mistakes(a)]


def feedback_sample(assignment):
    """The students of the batch whose feedback pages are written and read: the reference (every answer, no
    test failing), the blank release (every test failing) and the graded mistakes (one part failing, visible or
    hidden; for hw01 those whose messages are read). The other students' pages would show nothing these do not."""
    return ["reference", "blank"] + [m["name"] for m in graded_mistakes(assignment)]
BAD = {"broken": "not valid JSON", "empty": "empty"}


def cli(course_root, *args):
    return main(["--root", str(course_root), *map(str, args)])


def submission(released, replace):
    """The released notebook with some answer cells replaced, as a student would hand it in."""
    nb = copy.deepcopy(released)
    for cell in nb.cells:
        name = cell.metadata.get("nbgrader", {}).get("grade_id")
        if name in replace:
            cell.source = replace[name]
    return nb


def tree_digest(folder):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


# --- the course and the graded batches (real nbgrader) -------------------------


class Lab:
    """A temporary copy of the course in which each assignment is released, graded and given feedback once,
    when a test first needs it.

    The tests of one assignment run together, one after another (one group of
    tests/conftest.py), while the other assignments' groups run beside them in
    other processes, each in a course copy of its own.
    """

    def __init__(self, root):
        self.root, self.course = root, Course(root)

    @functools.cache
    def release(self, assignment):
        assert cli(self.root, "release", assignment) == 0
        return self.course

    @functools.cache
    def spot_mutants(self, assignment):
        """A few mutants of the assignment, with the mutation check's verdict on every test cell they reach.

        From the assignment's one pass of the runner (tests/mutation_pass.py);
        the sample always holds a declared equivalent mutant when the
        assignment has one (it must keep full marks when graded).
        """
        found = one_pass(assignment).spot
        assert len(found) >= 2, f"{assignment}: the sample left too few mutants"
        return found

    @functools.cache
    def batch(self, assignment):
        """Hand in and grade the assignment's batch: (folder, digests before grading, outcomes by student)."""
        source, course = SOURCES[assignment], self.release(assignment)
        folder = self.root.parent / f"handed-in-{assignment}"
        blank = released(course, assignment)

        def write(nb, *parts):
            path = folder.joinpath(*parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, str(path))

        notebook = f"{assignment}.ipynb"
        write(submission(blank, source.answers), "reference", assignment, notebook)  # nbgrader's layout
        write(blank, "blank.ipynb")                                                   # one file per student
        for mistake in graded_mistakes(assignment):                                   # one folder per student
            write(submission(blank, {**source.answers, mistake["cell"]: mistake["source"]}),
                  mistake["name"], notebook)
        (folder / "broken.ipynb").write_text('{"cells": [{"cell_type": "code", ')
        (folder / "empty.ipynb").write_text("")
        write(submission(blank, {**source.answers, source.code_answers[0]: "import os\nos._exit(1)"}),
              "crash", assignment, notebook)
        for k, mutant in enumerate(self.spot_mutants(assignment)):
            write(submission(blank, {**source.answers, mutant["cell"]: mutant["source"]}),
                  f"mutant-{k}", assignment, notebook)
        before = tree_digest(folder)
        assert cli(self.root, "grade", folder, "--assignment", assignment) == 0
        return folder, before, {o["student"]: o for o in Outcomes(course).all(assignment)}

    @functools.cache
    def feedback(self, assignment):
        """The feedback pages of the sample (:func:`feedback_sample`), written by ``feedback --student``."""
        graded = self.batch(assignment)
        chosen = [arg for student in feedback_sample(assignment) for arg in ("--student", student)]
        assert cli(self.root, "feedback", "--assignment", assignment, "--allow-ungraded", *chosen) == 0
        return graded


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab") / "course"
    for assignment in ASSIGNMENTS:
        scratch_course(root, assignment)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.delenv("RBD_COURSE_ROOT", raising=False)
        env.delenv("RBD_CELL_TIMEOUT", raising=False)
        yield Lab(root)


@pytest.fixture
def course(lab, assignment):
    """The course copy, with ``assignment`` released."""
    return lab.release(assignment)


@pytest.fixture
def batch(lab, assignment):
    return lab.batch(assignment)


@pytest.fixture
def feedback(lab, assignment):
    return lab.feedback(assignment)


def released(course, assignment):
    return nbformat.read(str(course.release_dir / assignment / f"{assignment}.ipynb"), as_version=4)


def autograded_points(source, outcome):
    return {name: score for name, (score, _) in outcome["parts"].items() if name in source.tests}


# --- nbgrader validate: the release fails every test ---------------------------
def nbgrader_validate(course, notebook, *flags):
    result = subprocess.run([sys.executable, "-m", "nbgrader", "validate", str(notebook), *flags],
                            cwd=course.root, capture_output=True, text=True, timeout=900)
    return result.stdout + result.stderr


# nbgrader validate, the student's own command, runs once, on the first assignment's release. That every
# release fails every test is shown for each assignment by grading its blank release
# (test_blank_scores_zero_everywhere: 0 on every part); that the source passes every test, by real grading
# (test_reference_scores_full_marks) and by the mutation check, which stops when the reference fails one of
# its own tests (tests/test_mutants.py).
@pytest.mark.slow
@pytest.mark.parametrize("assignment", FIRST)
def test_release_fails_every_test(course, assignment):
    output = nbgrader_validate(course, course.release_dir / assignment / f"{assignment}.ipynb", "--invert")
    assert "Success! The notebook does not pass any tests." in output, output[-3000:]


# --- the release -------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_gives_nothing_away(course, assignment):
    source, blank = SOURCES[assignment], released(course, assignment)
    assert check_release(course, assignment) == []
    text = (course.release_dir / assignment / f"{assignment}.ipynb").read_text()
    for marker in leaks.MARKERS:
        assert marker not in text, f"the release still contains '{marker}'"
    for name, answer in source.answers.items():
        kept = [line.strip() for line in answer.splitlines()
                if len(line.strip()) >= leaks.SHORTEST_SECRET and line.strip() in text]
        secret = [line for line in kept if line in leaks.secret_lines(source.nb)]
        assert not secret, f"lines of the solution of {name} are in the release: {secret}"
    assert not any(cell.get("outputs") for cell in blank.cells), "the release has outputs"
    shipped = sorted(p.name for p in (course.release_dir / assignment).iterdir())
    assert shipped == [f"{assignment}.ipynb"], f"the release holds more than the notebook: {shipped}"
    assert set(nbgrader_cells(blank, grade=True)) == set(source.tests) | set(source.written)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", FIRST)
def test_release_check_catches_a_leak(course, assignment, tmp_path):
    """check_release finds a solution line slipped into a released notebook."""
    leaky = tmp_path / "course"
    shutil.copytree(course.root, leaky, ignore=shutil.ignore_patterns("submitted", "autograded", "feedback"))
    secret = sorted(leaks.secret_lines(SOURCES[assignment].nb))[0]
    notebook = leaky / "release" / assignment / f"{assignment}.ipynb"
    nb = nbformat.read(str(notebook), as_version=4)
    nb.cells[-1].source += "\n# " + secret
    nbformat.write(nb, str(notebook))
    problems = check_release(Course(leaky), assignment)
    assert len(problems) == 1 and secret in problems[0]


# --- grading outcomes ----------------------------------------------------------
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_autograded_part_has_a_typical_mistake(assignment):
    source = SOURCES[assignment]
    covered = {m["fails"] for m in source.mistakes}
    assert covered >= set(source.tests), (f"exercises/{assignment}/mistakes.toml has no mistake for "
                                          f"{sorted(set(source.tests) - covered)}")
    for mistake in source.mistakes:
        assert mistake["cell"] in source.answers and mistake["fails"] in source.tests, mistake["name"]


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_reference_scores_full_marks(batch, assignment):
    source, reference = SOURCES[assignment], batch[2]["reference"]
    assert reference["status"] == GRADED, reference
    assert autograded_points(source, reference) == source.tests
    assert reference["score"] == sum(source.tests.values())
    assert all(reference["parts"][name][0] is None for name in source.written), "written answers wait for a human"
    assert reference["needs_manual_grade"] == bool(source.written)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_blank_scores_zero_everywhere(batch, assignment):
    blank = batch[2]["blank"]
    assert blank["status"] == GRADED, blank
    assert all(score == 0 for score, _ in blank["parts"].values()), blank["parts"]
    assert blank["score"] == 0 and not blank["needs_manual_grade"]


@pytest.mark.slow
@pytest.mark.parametrize("assignment, mistake", MISTAKES, ids=[f"{a}-{m['name']}" for a, m in MISTAKES])
def test_mistake_loses_exactly_its_part(batch, assignment, mistake):
    source, outcome = SOURCES[assignment], batch[2][mistake["name"]]
    assert outcome["status"] == GRADED, outcome
    expected = dict(source.tests, **{mistake["fails"]: 0})
    assert autograded_points(source, outcome) == expected, f"{mistake['what']}: {outcome['parts']}"
    runner = one_pass(assignment).mistakes[mistake["name"]]   # the runner that checks every mistake agrees
    assert set(runner["failed"]) == {name for name, score in expected.items() if score == 0}, runner


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_mutation_check_agrees_with_nbgrader(lab, batch, assignment):
    """The mutation check's fast runner and real grading take the points of the same test cells."""
    source, outcomes = SOURCES[assignment], batch[2]
    for k, mutant in enumerate(lab.spot_mutants(assignment)):
        verdict = mutant["verdict"]
        assert verdict["outcome"] == "ran", mutant
        outcome = outcomes[f"mutant-{k}"]
        assert outcome["status"] == GRADED, outcome
        lost = {name for name, score in autograded_points(source, outcome).items() if score == 0}
        assert lost == set(verdict["failed"]), (
            f"{mutant['id']} ({mutant['change']}): grading took the points of {sorted(lost)}, the mutation check "
            f"says it fails {sorted(verdict['failed'])}")


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_crashing_cell_costs_only_what_depends_on_it(batch, assignment):
    """os._exit in one answer cell: that answer is lost, the cells after it still run and earn their points."""
    source, crash = SOURCES[assignment], batch[2]["crash"]
    assert crash["status"] == GRADED, crash
    points = autograded_points(source, crash)
    assert 0 < sum(points.values()) < sum(source.tests.values()), points
    assert sum(v == 0 for v in points.values()) <= 2, f"the crash cost more than its own part: {points}"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_bad_submissions_are_reported_not_zeroed(course, batch, assignment):
    outcomes = batch[2]
    for student, words in BAD.items():
        outcome = outcomes[student]
        assert outcome["status"] == FAILED and words in outcome["reason"], outcome
        assert outcome["score"] is None
        assert not course.student_folder("autograded", student, assignment).exists()
    graded = {s for s, o in outcomes.items() if o["status"] == GRADED}
    assert graded == ({"reference", "blank", "crash"} | {m["name"] for m in graded_mistakes(assignment)}
                      | {s for s in outcomes if s.startswith("mutant-")})
    in_gradebook = set(gradebook.students(course, assignment))
    assert graded <= in_gradebook and not in_gradebook & set(BAD), "no 0 in the gradebook for them either"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_grading_never_modifies_the_submissions(batch, assignment):
    folder, before, _ = batch
    assert tree_digest(folder) == before


@pytest.mark.slow
@pytest.mark.parametrize("assignment", FIRST)
def test_grading_again_changes_nothing(course, batch, assignment, tmp_path):
    """Unchanged graded submissions are skipped; the outcomes and scores stay as they were."""
    folder, _, outcomes = batch
    again = tmp_path / "again"
    again.mkdir()
    shutil.copytree(folder / "reference", again / "reference")
    shutil.copy(folder / "blank.ipynb", again)
    shutil.copy(folder / "broken.ipynb", again)
    assert cli(course.root, "grade", again, "--assignment", assignment) == 0
    now = {o["student"]: o for o in Outcomes(course).all(assignment)}
    for student in ("reference", "blank"):
        assert now[student] == outcomes[student]
    assert now["broken"]["status"] == FAILED and now["broken"]["reason"] == outcomes["broken"]["reason"]


# --- feedback -------------------------------------------------------------------
def feedback_text(course, assignment, student):
    page = course.student_folder("feedback", student, assignment) / f"{assignment}.html"
    return leaks.html_text(page.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_feedback_has_no_hidden_tests_or_solutions(course, feedback, assignment):
    source, outcomes = SOURCES[assignment], feedback[2]
    secrets = leaks.secret_lines(source.nb)
    sample = feedback_sample(assignment)
    for student, outcome in outcomes.items():
        page = course.student_folder("feedback", student, assignment) / f"{assignment}.html"
        assert page.is_file() == (student in sample), f"{student}: feedback --student wrote the sample's pages only"
        if not page.is_file():
            continue
        assert outcome["status"] == GRADED, student
        text = feedback_text(course, assignment, student)
        own = leaks.notebook_text(nbformat.read(
            str(course.student_folder("copies", student, assignment) / f"{assignment}.ipynb"), as_version=4))
        assert leaks.find_leaks(text, secrets, own) == [], student
        assert "BEGIN HIDDEN TESTS" not in text and "more tests ran here during grading" in text
    blank = feedback_text(course, assignment, "blank")
    shown = [line for line in secrets if line in blank]
    assert not shown, f"the blank submission's feedback shows lines of the solutions or hidden tests: {shown}"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", HW01)
def test_hw01_feedback_keeps_the_teaching_messages(course, feedback, assignment):
    """A visible test's message and a hidden test's message both reach the student."""
    factor = feedback_text(course, "hw01", "mass-matrix-missing-factor-2")
    assert "with m1, m2, l1, l2 = 0.5, 2.0, 1.5, 0.8 has M[0,0] = 7.99363, expected 9.08226" in factor
    lever = feedback_text(course, "hw01", "cartpole-wind-lever-constant")
    assert "Q_theta must be the torque of F about the pivot: F times its lever arm" in lever
    assert "check_force_on_bob" not in lever


@pytest.mark.slow
@pytest.mark.parametrize("assignment", FIRST)
def test_feedback_for_one_student_leaves_the_others_pages_alone(course, feedback, assignment, capsys):
    """``feedback --student crash`` writes crash's page; the sample's pages stay byte for byte; an id with no
    graded submission is named, not invented."""
    pages = {s: course.student_folder("feedback", s, assignment) / f"{assignment}.html" for s in feedback_sample(assignment)}
    before = {s: page.read_bytes() for s, page in pages.items()}
    assert cli(course.root, "feedback", "--assignment", assignment, "--allow-ungraded",
               "--student", "crash", "--student", "nobody") == 0
    said = capsys.readouterr().out
    assert "no graded submission of nobody" in said and "feedback for 1 student(s)" in said, said
    assert (course.student_folder("feedback", "crash", assignment) / f"{assignment}.html").is_file()
    assert {s: page.read_bytes() for s, page in pages.items()} == before, "another student's page changed"
    assert not course.student_folder("feedback", "nobody", assignment).exists()


# --- export and status ----------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_export_csv(course, batch, assignment, tmp_path, capsys):
    out = tmp_path / "grades.csv"
    assert cli(course.root, "export", "--out", out) == 0
    with open(out, newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == COLUMNS
        rows = {(r["assignment"], r["student_id"]): r for r in reader}
    source = SOURCES[assignment]
    auto = sum(source.tests.values())
    most = auto + sum(source.written.values())
    assert rows[(assignment, "reference")] == {
        "student_id": "reference", "assignment": assignment, "status": GRADED, "score": f"{auto:g}",
        "max_score": f"{most:g}", "needs_manual_grading": "yes" if source.written else "no",
        "formgrader_flag": "no", "late": "no", "late_penalty": "0", "timestamp": "", "name": "", "reason": "", "notes": ""}
    assert rows[(assignment, "blank")]["score"] == "0"
    assert rows[(assignment, "blank")]["needs_manual_grading"] == "no"
    for mistake in graded_mistakes(assignment):
        assert rows[(assignment, mistake["name"])]["score"] == f"{auto - source.tests[mistake['fails']]:g}"
    for student in BAD:
        row = rows[(assignment, student)]
        assert row["status"] == FAILED and row["score"] == "" and row["reason"], row
    assert cli(course.root, "status") == 0
    table = capsys.readouterr().out
    assert "could not be graded: the file is not valid JSON" in table


# --- hw01: a zip with other layouts, a slow cell, a notebook of another course ---
@pytest.mark.slow
@pytest.mark.parametrize("assignment", HW01)
def test_hw01_zip_batch(course, assignment, tmp_path, monkeypatch):
    answers = SOURCES["hw01"].answers
    archive = tmp_path / "downloaded.zip"
    slow = submission(released(course, "hw01"), {**answers, "answer-energy": "import time\ntime.sleep(600)"})
    stranger = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('hello')")])
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("submissions/slow/hw01 (1).ipynb", nbformat.writes(slow))
        zf.writestr("submissions/stranger.ipynb", nbformat.writes(stranger))
        zf.writestr("submissions/zed.ipynb", "not a notebook")
        zf.writestr("__MACOSX/submissions/._zed.ipynb", "junk")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    monkeypatch.setenv("RBD_CELL_TIMEOUT", "5")
    assert cli(course.root, "grade", archive, "--assignment", "hw01") == 0
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == digest
    outcomes = {o["student"]: o for o in Outcomes(course).all("hw01")}
    assert (course.student_folder("copies", "slow", "hw01") / "hw01.ipynb").is_file()
    assert not course.submitted.exists(), "grading a .zip writes nothing into submitted/ (the hand-ins of collect)"
    slow_outcome = outcomes["slow"]
    assert slow_outcome["status"] == GRADED, slow_outcome
    assert slow_outcome["parts"]["test-energy"][0] == 0
    assert slow_outcome["parts"]["test-mass-matrix"][0] == 2
    assert any("answer-energy ran past the 5 s limit" in note for note in slow_outcome["notes"])
    assert outcomes["stranger"]["status"] == FAILED and "not a hw01 notebook" in outcomes["stranger"]["reason"]
    assert outcomes["zed"]["status"] == FAILED and "not valid JSON" in outcomes["zed"]["reason"]


@pytest.mark.slow
@pytest.mark.parametrize("assignment", FIRST)
def test_whole_notebook_time_limit(course, assignment, tmp_path):
    folder = tmp_path / "late"
    folder.mkdir()
    nbformat.write(submission(released(course, assignment), SOURCES[assignment].answers),
                   str(folder / "tortoise.ipynb"))
    assert cli(course.root, "grade", folder, "--assignment", assignment, "--time-limit", "1") == 0
    outcome = Outcomes(course).get(assignment, "tortoise")
    assert outcome["status"] == FAILED and "longer than 1 s" in outcome["reason"], outcome
    assert not course.student_folder("autograded", "tortoise", assignment).exists()


# --- fast checks of the pieces (no nbgrader run) ----------------------------------
def test_submission_layouts(tmp_path):
    base = tmp_path / "wrapper" / "batch"
    for parts in [("ann", "hw01", "hw01.ipynb"), ("bob", "hw01 (2).ipynb"), ("cy.ipynb",),
                  ("dee", "hw01.ipynb"), ("dee", "notes.ipynb"), ("eve", "a.ipynb"), ("eve", "b.ipynb"),
                  ("fay", "README.txt"), ("ann.ipynb",), (".ipynb_checkpoints", "x.ipynb")]:
        path = base.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    found = {s.student: s for s in submissions.find(tmp_path / "wrapper", "hw01", ["hw01"])}
    assert set(found) == {"ann", "bob", "cy", "dee", "eve", "fay"}
    assert "several submissions for student ann" in found["ann"].problem
    assert found["bob"].files == {"hw01": base / "bob" / "hw01 (2).ipynb"}
    assert found["cy"].files == {"hw01": base / "cy.ipynb"}
    assert found["dee"].files == {"hw01": base / "dee" / "hw01.ipynb"}
    assert "2 notebooks" in found["eve"].problem
    assert "no notebook" in found["fay"].problem
    assert submissions.student_id("Jo Doe (late)") == "Jo Doe (late)"
    assert {"ann", "hw01", "bob", "hw01 (2)", "README.txt"} <= submissions.names_inside(tmp_path / "wrapper")


@needs_hw01
def test_notebook_checks(tmp_path):
    ids = set(nbgrader_cells(SOURCES["hw01"].nb))
    cases = {"empty": "", "json": "{nope", "format": json.dumps({"cells": 3}),
             "binary": b"\xff\xfe\x00".decode("latin-1")}
    expected = {"empty": "empty", "json": "not valid JSON", "format": "not a valid Jupyter notebook",
                "binary": "not text"}
    for name, content in cases.items():
        path = tmp_path / f"{name}.ipynb"
        path.write_bytes(content.encode("latin-1"))
        assert expected[name] in submissions.check_notebook(path, "hw01", ids), name
    assert submissions.check_notebook(SOURCES["hw01"].path, "hw01", ids) == ""


@needs_hw01
def test_secret_lines_of_the_source():
    secrets = leaks.secret_lines(SOURCES["hw01"].nb)
    assert "Q_cartpole = sp.Matrix([f - b * xd + F, F * l * sp.cos(theta)])" in secrets
    assert "def check_mass_matrix_everywhere():" in secrets
    assert "import numpy as np" not in secrets and "def mass_matrix(q, m1, m2, l1, l2):" not in secrets


def test_self_check_names_written_answers_left_blank(tmp_path, monkeypatch, capsys):
    """The last cell's summary names a written answer that still holds the release's stub, and only that one."""
    from lib.homework import self_check

    source = SOURCES[ASSIGNMENTS[0]]
    written = sorted(source.written)
    assert written, "the first assignment has no written answer to test with"
    nb = copy.deepcopy(source.nb)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == written[0]:
            cell.source = "YOUR ANSWER HERE"
    monkeypatch.chdir(tmp_path)
    nbformat.write(nb, "hw.ipynb")
    self_check({1: 2}, {1: True}, written=3, notebook="hw.ipynb")
    printed = capsys.readouterr().out
    assert f"The written answer {written[0]} still says YOUR ANSWER HERE" in printed
    assert "save the notebook" in printed, "the summary reads the file as saved: it must tell the student to save first"
    nbformat.write(source.nb, "hw.ipynb")
    self_check({1: 2}, {1: True}, written=3, notebook="hw.ipynb")
    self_check({1: 2}, {1: True}, written=3, notebook="missing.ipynb")
    assert "YOUR ANSWER HERE" not in capsys.readouterr().out


def test_scrubber_hides_hidden_tests_keeps_messages():
    cell = nbformat.v4.new_code_cell(
        '"""Checks x."""\nassert x == 1, "x must be 1"\n### BEGIN HIDDEN TESTS\nassert x != 7, "secret"\n'
        "### END HIDDEN TESTS",
        metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "t", "points": 1}})
    cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue="x must not be 7",
                                           traceback=['----> 4 assert x != 7, "secret"'])]
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb, _ = HideHiddenTests().preprocess(nb, {})
    source, output = nb.cells[0].source, nb.cells[0].outputs[0]
    assert "secret" not in source and "BEGIN HIDDEN" not in source and 'assert x == 1, "x must be 1"' in source
    assert output["traceback"] == ["AssertionError: x must not be 7"]
