"""The grader against submissions that attack it (tests/adversarial/hw01_attacks.py, autograder/THREATS.md).

One batch of every attack is graded with the real command (``python -m
autograder grade``, nbgrader underneath, two students at a time, a 5 s cell
limit), with a decoy copy of the course (solutions and hidden tests in it)
in the grader's home folder. Each must get exactly its expected outcome, no
other submission's grade may change, nothing may be left behind outside the
sandbox, and a batch killed with ``kill -9`` half-way must resume and finish
with every grade once. From inside the sandbox, a walk of the whole
filesystem finds nothing readable outside the allow-list.

The sandbox is bubblewrap (Debian's ``bubblewrap``). Where it is missing the
tests that need it are skipped, unless ``RBD_REQUIRE_SANDBOX=1`` (as in CI),
where they fail saying so; without it, grading refuses to run unless asked
(``--no-sandbox``), and that is tested everywhere.
"""

import copy
import importlib.util
import json
import os
import signal
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.cli import main
from autograder.course import gradebook
from autograder.course.course import Course
from autograder.course.outcomes import FAILED, FLAGGED, GRADED, Outcomes
from autograder.sandbox import sandbox, student_process
from autograder.sandbox.processes import descendants
from tests.scratch import scratch_course

REPO = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("hw01_attacks", REPO / "tests" / "adversarial" / "hw01_attacks.py")
attacks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(attacks)
ATTACKS = {a["name"]: a for a in attacks.ATTACKS}
STATUS = {"graded": GRADED, "flagged for review": FLAGGED, "could not be graded": FAILED}
LEFT_BEHIND = [Path(p) / "left-behind.txt" for p in ("/", "/tmp", "/work", "/root", Path.home())]

pytestmark = pytest.mark.slow


def require_sandbox():
    """Skip without the sandbox, or fail when it is required (RBD_REQUIRE_SANDBOX=1, as in CI)."""
    problem = sandbox.available()
    if problem and os.environ.get("RBD_REQUIRE_SANDBOX") == "1":
        pytest.fail(f"RBD_REQUIRE_SANDBOX=1 but the grading sandbox is not available: {problem}", pytrace=False)
    if problem:
        pytest.skip(f"the grading sandbox is not available here ({problem}); set RBD_REQUIRE_SANDBOX=1 to require it")


@pytest.fixture(scope="module")
def decoy():
    """A copy of the course, solutions and hidden tests included, outside the course folder (an instructor's own)."""
    folder = Path.home() / f".rbd-decoy-course-{os.getpid()}"
    shutil.copytree(REPO / "exercises", folder / "exercises")
    (folder / "answers.txt").write_text("the decoy's answers")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def cli(root, *args):
    return main(["--root", str(root), *map(str, args)])


def solution_sources(source_nb):
    return {c.metadata.nbgrader["grade_id"]: "\n".join(l for l in c.source.splitlines() if "SOLUTION" not in l)
            for c in source_nb.cells if c.metadata.get("nbgrader", {}).get("solution")}


def build(released, answers, attack):
    nb = copy.deepcopy(released)
    replace = dict(answers) if attack["base"] == "reference" else {}
    replace.update(attack.get("replace", {}))
    for cell in nb.cells:
        name = cell.metadata.get("nbgrader", {}).get("grade_id")
        if name in replace:
            cell.source = replace[name]
    if "edit" in attack:
        attack["edit"](nb)
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    scratch_course(root, "hw01")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.setenv("RBD_CELL_TIMEOUT", "5")
        env.delenv("RBD_COURSE_ROOT", raising=False)
        assert cli(root, "release", "hw01") == 0
        yield Course(root)


@pytest.fixture(scope="module")
def source():
    return nbformat.read(str(REPO / "exercises" / "hw01" / "hw01.ipynb"), as_version=4)


@pytest.fixture(scope="module")
def graded(course, source, decoy, tmp_path_factory):
    require_sandbox()
    released = nbformat.read(str(course.release_dir / "hw01" / "hw01.ipynb"), as_version=4)
    answers = solution_sources(source)
    folder = tmp_path_factory.mktemp("attacks")
    nbformat.write(build(released, answers, {"base": "reference"}), str(folder / "honest.ipynb"))
    for name, attack in ATTACKS.items():
        nb = build(released, answers, attack)
        (folder / f"{name}.ipynb").write_text(nbformat.writes(nb, version=4) if "edit" not in attack
                                              else json.dumps(nb, indent=1))
    for path in LEFT_BEHIND:
        path.unlink(missing_ok=True)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{course.root / 'gradebook.db'}")
        env.setenv("RBD_CELL_TIMEOUT", "5")
        assert cli(course.root, "grade", folder, "--assignment", "hw01", "--jobs", "2") == 0
    return {o["student"]: o for o in Outcomes(course).all("hw01")}


def test_the_honest_submission_among_them_gets_full_marks(graded, source):
    honest = graded["honest"]
    assert honest["status"] == GRADED and honest["score"] == attacks.FULL, honest


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_gets_its_expected_outcome(graded, name):
    expect, outcome = ATTACKS[name]["expect"], graded[name]
    assert outcome["status"] == STATUS[expect["status"]], outcome
    if outcome["status"] == FAILED:
        assert expect["reason"] in outcome["reason"] and outcome["score"] is None, outcome
        return
    points = {cell: score for cell, (score, _) in outcome["parts"].items() if cell.startswith("test-")}
    lost = sorted(cell for cell, score in points.items() if score == 0)
    assert lost == sorted(expect["lost"]), f"{name}: lost {lost}, expected {expect['lost']}; notes {outcome['notes']}"
    if "flag" in expect:
        assert any(expect["flag"] in note for note in outcome["notes"]), outcome["notes"]
    if "note" in expect:   # a part that scored 0 because the process ended says why
        assert any(expect["note"] in note for note in outcome["notes"]), outcome["notes"]


def test_the_student_sees_why_a_cell_scored_nothing(graded, course):
    """What the notes say is also under the student's cell, which the feedback shows."""
    for student, cell, says in (("os-exit", "answer-acceleration", "ended the student's Python process (it exited"),
                                ("memory-bomb", "answer-energy", "may use"),
                                ("segfault", "answer-acceleration", "killed by SIGSEGV")):
        nb = nbformat.read(str(course.student_folder("autograded", student, "hw01") / "hw01.ipynb"), as_version=4)
        outputs = [o for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == cell for o in c.outputs]
        assert any(says in o.get("evalue", "") for o in outputs), (student, outputs)


def test_nothing_is_left_behind_outside_the_sandbox(graded):
    assert not [str(p) for p in LEFT_BEHIND if p.exists()]


def test_every_submission_was_graded_in_the_sandbox(graded):
    for outcome in graded.values():
        assert not any("without the sandbox" in note for note in outcome.get("notes", [])), outcome


# --- the allow-list, seen from inside ---------------------------------------------------------
WALK = """
import json, os, sys
allowed = tuple({allowed!r})
seen, outside = 0, []
for top, dirs, files in os.walk("/"):
    if top in ("/proc", "/dev"):          # the sandbox's own, and nothing of the machine's
        dirs[:] = []
        continue
    for name in files:
        path = os.path.join(top, name)
        if os.access(path, os.R_OK):
            seen += 1
            real = os.path.realpath(path)
            if not any(real == a or real.startswith(a.rstrip("/") + "/") for a in allowed):
                outside.append(path)
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
print(json.dumps({{"seen": seen, "outside": outside[:50], "uid": os.getuid(), "euid": os.geteuid(),
                  "groups": os.getgroups(), "caps": status["CapEff"].strip(),
                  "no_new_privs": status["NoNewPrivs"].strip(),
                  "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
                  "exists": {{p: os.path.exists(p) for p in {probes!r}}}}}))
"""


def test_a_walk_of_the_whole_filesystem_finds_only_the_allow_list(course, decoy, tmp_path):
    """Every readable file lies under the allow-list; the course, the decoy, /work, home folders do not exist."""
    require_sandbox()
    # /dev and /proc are the sandbox's own (and masked system files link to /dev/null)
    allowed = [*sandbox.allow_list(), "/tmp", "/dev", "/proc"]
    probes = [str(decoy), str(decoy / "exercises" / "hw01" / "hw01.ipynb"), str(course.root), str(REPO / "exercises"),
              str(REPO / ".git"), "/etc/passwd", "/srv", "/opt", "/home", "/work/shared",
              str(Path(sys.executable).parent)]
    process = student_process.StudentProcess([(0, WALK.format(allowed=allowed, probes=probes))], 300, str(course.root))
    try:
        result = process.start()[0]
    finally:
        process.stop()
    assert not result["error"], result
    seen = json.loads(result["stdout"])
    assert seen["seen"] > 1000, seen            # it did see the interpreter and the environment
    assert seen["outside"] == [], seen["outside"]
    assert seen["exists"] == {p: p == str(Path(sys.executable).parent) for p in probes}, seen["exists"]
    first, count = sandbox.warm_uids()
    assert seen["uid"] == seen["euid"] and seen["groups"] == [], seen
    assert (first <= seen["uid"] < first + count) if process.warm else seen["uid"] == sandbox.UID_BASE + os.getpid()
    assert int(seen["caps"], 16) == 0 and seen["no_new_privs"] == "1", seen
    assert len(seen["processes"]) <= 3, seen["processes"]   # the namespace's init and the student: no one else's


# --- the next student: a warm template's children are as apart as fresh sandboxes -------------------
@pytest.fixture(scope="module")
def neighbours(course, source, tmp_path_factory):
    """Each neighbour attack, then an honest submission that looks for its traces, by one worker in turn."""
    require_sandbox()
    released = nbformat.read(str(course.release_dir / "hw01" / "hw01.ipynb"), as_version=4)
    answers = solution_sources(source)
    probe = {"base": "reference", "replace": {"answer-mass-matrix": answers["answer-mass-matrix"] +
                                              attacks.NEIGHBOUR_PROBE}}
    folder = tmp_path_factory.mktemp("neighbours")
    pairs = []
    for k, attack in enumerate(attacks.NEIGHBOUR_ATTACKS):
        before, after = f"n{k}a-{attack['name']}", f"n{k}b-honest"   # graded in this order (names sorted)
        nbformat.write(build(released, answers, attack), str(folder / f"{before}.ipynb"))
        nbformat.write(build(released, answers, probe), str(folder / f"{after}.ipynb"))
        pairs.append((before, after))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{course.root / 'gradebook.db'}")
        env.setenv("RBD_CELL_TIMEOUT", "20")
        assert cli(course.root, "grade", folder, "--assignment", "hw01", "--jobs", "1") == 0
    outcomes = {o["student"]: o for o in Outcomes(course).all("hw01")}
    return pairs, outcomes


def _printed(course, student, cell):
    nb = nbformat.read(str(course.student_folder("autograded", student, "hw01") / "hw01.ipynb"), as_version=4)
    outputs = [o for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == cell for o in c.outputs]
    return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream"), outputs


@pytest.mark.parametrize("k", range(len(attacks.NEIGHBOUR_ATTACKS)))
def test_the_student_graded_after_a_neighbour_attack_is_untouched(neighbours, course, k):
    """Full marks, and the answer cell prints exactly what a process of its own sees: nothing of the attack's."""
    import lib
    (before, after), outcomes = neighbours[0][k], neighbours[1]
    assert outcomes[before]["status"] in (GRADED, FLAGGED), outcomes[before]
    honest = outcomes[after]
    assert honest["status"] == GRADED and honest["score"] == attacks.FULL, (before, honest)
    printed, outputs = _printed(course, after, "answer-mass-matrix")
    assert not [o for o in outputs if o.get("output_type") == "error"], outputs
    seen = json.loads(printed)
    assert seen.pop("processes") <= 3, (before, seen)   # the namespace's first process and the student's
    mass = lib.DoublePendulum(m1=1.0, m2=2.0, l1=1.0, l2=0.5).mass_matrix([0.3, 0.4])
    assert np.allclose(seen.pop("lib"), mass, rtol=1e-12, atol=0), (before, seen)
    assert seen == attacks.NEIGHBOUR_SEES, (before, seen)


def _marked(marker):
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            pass
    return found


DAEMON = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "{marker}"])
    os._exit(0)
time.sleep(0.5)
print("started")
"""


def test_a_daemon_is_gone_when_its_student_is_done_and_the_next_one_starts(course):
    """Seen from the machine: nothing a student's process started, double-forked or not, outlives stop()."""
    require_sandbox()
    marker = f"rbd-daemon-{os.getpid()}"
    for _ in range(2):   # the second from the same template, if there is one
        process = student_process.StudentProcess([(0, DAEMON.format(marker=marker))], 60, str(course.root))
        try:
            assert process.start()[0] == {"stdout": "started\n", "error": ""}
            assert _marked(marker), "the daemon did not start: the test would prove nothing"
        finally:
            process.stop()
        assert _marked(marker) == []


def test_grading_falls_back_to_a_fresh_sandbox_when_the_template_cannot_start_or_dies(course, monkeypatch):
    require_sandbox()
    from autograder.sandbox import warm
    if not warm.wanted():
        pytest.skip("no warm template here (the grader is not root, or RBD_WARM_SANDBOX=0)")
    check = [(0, "import os; print(os.getuid())")]
    warm.stop()
    process = student_process.StudentProcess(check, 60, str(course.root))
    try:
        assert process.start()[0]["error"] == "" and process.warm
    finally:
        process.stop()
    for dies in ("between two students", "as the next child is asked for"):
        warm._template["current"].proc.kill()
        if dies == "between two students":
            warm._template["current"].proc.wait()
        process = student_process.StudentProcess(check, 60, str(course.root))
        try:
            assert process.start()[0]["error"] == "" and process.warm, dies   # from a new template
        finally:
            process.stop()
    warm.stop()
    monkeypatch.setattr(warm, "Template", lambda *args: (_ for _ in ()).throw(OSError("no room")))
    process = student_process.StudentProcess(check, 60, str(course.root))
    try:
        result = process.start()[0]
    finally:
        process.stop()
    assert result["error"] == "" and not process.warm and int(result["stdout"]) == sandbox.UID_BASE + os.getpid()
    assert "no room" in warm.refused()
    warm._template.update(refused="", failures=0)


CLONE_CHECK = """
import sys
sys.path.insert(0, sys.argv[1])
from autograder.sandbox import student_process, warm
cell = "import lib, autograder.sandbox.wire; open(lib.__file__).read(1); print(lib.__file__, autograder.sandbox.wire.__file__)"
process = student_process.StudentProcess([(0, cell)], 120, sys.argv[1])
try:
    result = process.start()[0]
finally:
    process.stop()
print(result["stdout"] + result["error"])
print("warm" if process.warm else "fresh", "wanted" if warm.wanted() else "unwanted", warm.refused() or "-")
"""


def test_the_sandbox_works_for_a_fresh_clone_under_tmp_with_the_environment_elsewhere(tmp_path):
    """The code under /tmp (the sandbox's own /tmp is private), the environment installed from another folder.

    A child of the warm template mounts a /tmp of its own; the checkout under /tmp is shown in it again, so the
    student still starts warm (and reads the grader's lib), instead of every student falling back to a fresh sandbox.
    """
    require_sandbox()
    clone = tmp_path / "clone"
    for part in ("lib", "autograder"):
        shutil.copytree(REPO / part, clone / part, ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-c", CLONE_CHECK, str(clone)], cwd=clone, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    printed, how = done.stdout.strip().splitlines()[:-1], done.stdout.strip().splitlines()[-1].split(" ", 2)
    assert " ".join(printed).split() == [str(clone / "lib" / "__init__.py"), str(clone / "autograder" / "sandbox" / "wire.py")], \
        done.stdout + done.stderr
    assert how[0] == "warm" or how[1] == "unwanted", f"a warm template was wanted but the student started fresh: {how}"


# --- fail closed -------------------------------------------------------------------------------
def _grade_without_bwrap(course, folder, *extra, path="/nonexistent"):
    env = {k: v for k, v in os.environ.items() if k != "RBD_NO_SANDBOX"}
    env.update(PATH=path, RBD_GRADEBOOK_URL=f"sqlite:///{course.root / 'gradebook.db'}", RBD_CELL_TIMEOUT="20")
    return subprocess.run([sys.executable, "-m", "autograder", "--root", str(course.root), "grade", str(folder),
                           "--assignment", "hw01", *extra], env=env, capture_output=True, text=True, timeout=900)


def test_without_the_sandbox_nothing_is_graded_unless_asked(course, source, tmp_path):
    released = nbformat.read(str(course.release_dir / "hw01" / "hw01.ipynb"), as_version=4)
    folder = tmp_path / "batch"
    folder.mkdir()
    nbformat.write(build(released, solution_sources(source), {"base": "reference"}), str(folder / "trusted.ipynb"))
    refused = _grade_without_bwrap(course, folder)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "nothing was graded" in refused.stderr and "apt-get install bubblewrap" in refused.stderr, refused.stderr
    assert "--no-sandbox" in refused.stderr
    assert Outcomes(course).get("hw01", "trusted") is None
    asked = _grade_without_bwrap(course, folder, "--no-sandbox")
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert "WITHOUT the sandbox" in asked.stdout, asked.stdout
    outcome = Outcomes(course).get("hw01", "trusted")
    assert outcome["status"] == GRADED and outcome["score"] == attacks.FULL, outcome
    assert any("graded without the sandbox" in note for note in outcome["notes"]), outcome["notes"]


# --- kill -9 half-way, then resume ----------------------------------------------------------
def test_a_batch_killed_half_way_resumes_with_every_grade_once(course, source, tmp_path):
    """The batch is killed once a first student is graded, while the last two are still running: their
    hand-ins sleep far past anything the test waits for (the first run's limits are an hour or more), so
    the kill lands half-way whatever the machine's speed. They are handed in again, finished, before the
    second run, which grades each student once: the first run's grades stand, the rest are graded."""
    require_sandbox()
    released = nbformat.read(str(course.release_dir / "hw01" / "hw01.ipynb"), as_version=4)
    answers = solution_sources(source)
    folder = tmp_path / "batch"
    folder.mkdir()
    students = [f"resume{i}" for i in range(6)]
    sleepers = students[-2:]   # graded last: the batch takes its students in the order of their names
    hand_in = {student: build(released, answers, {"base": "reference" if i % 2 == 0 else "blank"})
               for i, student in enumerate(students)}
    for student, nb in hand_in.items():
        sleeping = {"base": "reference", "replace": {"answer-energy": "import time\ntime.sleep(100000)"}}
        nbformat.write(build(released, answers, sleeping) if student in sleepers else nb,
                       str(folder / f"{student}.ipynb"))
    env = dict(os.environ, RBD_GRADEBOOK_URL=f"sqlite:///{course.root / 'gradebook.db'}", RBD_CELL_TIMEOUT="20")
    command = [sys.executable, "-m", "autograder", "--root", str(course.root), "grade", str(folder),
               "--assignment", "hw01", "--jobs", "2"]
    first = subprocess.Popen(command, env=dict(env, RBD_CELL_TIMEOUT="7200", RBD_GRADE_TIME_LIMIT="7200"),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True, text=True)
    give_up = time.monotonic() + 1200   # only a grader that never grades anyone gets this far
    while not [o for o in Outcomes(course).all("hw01") if o["student"] in students]:
        assert first.poll() is None and time.monotonic() < give_up, "the first run graded no one"
        time.sleep(0.5)
    batch = descendants(first.pid)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    done_before = {o["student"] for o in Outcomes(course).all("hw01") if o["student"] in students}
    assert 0 < len(done_before) and not done_before & set(sleepers), done_before
    give_up = time.monotonic() + 600
    while any(Path(f"/proc/{pid}").exists() for pid in batch):   # its grading workers and sandboxes die with it
        assert time.monotonic() < give_up, f"processes of the killed batch live on: {[p for p in batch if Path(f'/proc/{p}').exists()]}"
        time.sleep(0.1)
    for student in sleepers:
        nbformat.write(hand_in[student], str(folder / f"{student}.ipynb"))
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1200)
    assert second.returncode == 0, second.stdout + second.stderr
    outcomes = {o["student"]: o for o in Outcomes(course).all("hw01") if o["student"] in students}
    assert sorted(outcomes) == students
    for i, student in enumerate(students):
        assert outcomes[student]["status"] == GRADED, outcomes[student]
        assert outcomes[student]["score"] == (attacks.FULL if i % 2 == 0 else 0), outcomes[student]
    skipped = second.stdout.count("unchanged since last time")
    assert skipped == len(done_before), second.stdout
    in_book = [s for s in gradebook.students(course, "hw01") if s in students]
    assert sorted(in_book) == students  # each once


def test_a_bubblewrap_that_cannot_make_namespaces_stops_grading_and_says_why(course, tmp_path):
    """As in a container whose seccomp profile forbids user namespaces: bwrap is there, and fails."""
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel "
                    "does not allow non-privileged user namespaces.' >&2\nexit 1\n")
    fake.chmod(0o755)
    (tmp_path / "batch").mkdir()
    refused = _grade_without_bwrap(course, tmp_path / "batch", path=f"{fake.parent}:/usr/bin:/bin")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "nothing was graded" in refused.stderr and "No permissions to creating new namespace" in refused.stderr
    assert "user namespaces must be allowed" in refused.stderr and "--no-sandbox" in refused.stderr, refused.stderr


def test_a_template_that_cannot_boot_costs_no_student_and_says_why(course, monkeypatch):
    """A deliberately broken template (in its sandbox, it fails as it boots): every student still runs, in a
    fresh sandbox, and after warm.TRIES failures in a row the grader stops trying and says why."""
    require_sandbox()
    from autograder.sandbox import warm
    if not warm.wanted():
        pytest.skip("no warm template here (the grader is not root, or RBD_WARM_SANDBOX=0)")
    warm.stop()
    warm._template.update(refused="", failures=0)
    real = warm.start_sandboxed

    def broken_boot(argv, *args, **kwargs):
        boot = "import sys; sys.stderr.write('ImportError: the template is broken on purpose\\n'); sys.exit(3)"
        return real([argv[0], "-I", "-c", boot, *argv[4:]], *args, **kwargs)

    monkeypatch.setattr(warm, "start_sandboxed", broken_boot)
    check = [(0, "import os; print(os.getuid())")]
    try:
        for student in range(warm.TRIES + 1):
            process = student_process.StudentProcess(check, 60, str(course.root))
            try:
                result = process.start()[0]
            finally:
                process.stop()
            assert result["error"] == "" and int(result["stdout"]) == sandbox.UID_BASE + os.getpid(), \
                f"student {student} was not run in a fresh sandbox: {result}"
            assert not process.warm, f"student {student} ran in a child of a template that cannot boot"
        assert "warm template failed" in warm.refused() and "broken on purpose" in warm.refused(), warm.refused()
    finally:
        warm.stop()
        warm._template.update(refused="", failures=0)
