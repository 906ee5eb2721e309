"""The gradebook on PostgreSQL: the homework round trip against a real server.

nbgrader takes any SQLAlchemy URL as its gradebook (``RBD_GRADEBOOK_URL``). A
module fixture starts a throw-away PostgreSQL server from Debian's packages
(``/usr/lib/postgresql/<version>/bin``) on 127.0.0.1 with a free port, its data
and socket in a temporary folder, as the ``postgres`` user (or ``nobody``) when
the tests run as root, since initdb refuses root. A copy of the course then
releases hw01, grades a small batch through ``python -m autograder``'s
``main`` (the reference, the blank release, one typical mistake, a file that is
not a notebook), writes the feedback, exports, and the scores are read back
from PostgreSQL itself; then the batch is graded again (nothing changes).
The server is stopped and its folder removed at the end.

Without PostgreSQL (or the psycopg2 driver) the tests are skipped, unless
RBD_REQUIRE_POSTGRES=1 (as in CI), when they fail saying what is missing.
"""

import copy
import csv
import glob
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.cli import main
from autograder.course.assignment import Assignment
from autograder.course.course import Course
from autograder.course.outcomes import FAILED, GRADED, Outcomes
from tests.scratch import scratch_course

REPO = Path(__file__).resolve().parent.parent
ASSIGNMENT = "hw01"
DATABASE, ROLE = "rbd_gradebook", "rbd"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (REPO / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file(),
                                 reason=f"no exercises/{ASSIGNMENT}")]


def unavailable(why):
    """Skip, or fail when PostgreSQL is required (RBD_REQUIRE_POSTGRES=1)."""
    if os.environ.get("RBD_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"RBD_REQUIRE_POSTGRES=1 but {why}", pytrace=False)
    pytest.skip(why)


def postgres_bin():
    """The bin folder of the newest PostgreSQL installed from Debian's packages, or None."""
    found = [Path(p) for p in glob.glob("/usr/lib/postgresql/*/bin") if Path(p, "initdb").is_file()]
    numeric = [p for p in found if p.parent.name.split(".")[0].isdigit()]
    return max(numeric, key=lambda p: [int(x) for x in p.parent.name.split(".") if x.isdigit()], default=None)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A PostgreSQL server in a temporary folder, for the duration of the module."""

    def __init__(self, bindir):
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="rbd-postgres-"))
        self.data, self.sockets, self.log = self.folder / "data", self.folder / "sockets", self.folder / "server.log"
        self.sockets.mkdir()
        self.as_user = {}
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            for name in ("postgres", "nobody"):
                try:
                    account = pwd.getpwnam(name)
                except KeyError:
                    continue
                self.as_user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
                for path in (self.folder, self.sockets):
                    os.chown(path, account.pw_uid, account.pw_gid)
                break
            else:
                raise RuntimeError("running as root and no 'postgres' or 'nobody' account to run PostgreSQL as")
        self.port = None

    def run(self, tool, *args, timeout=120):
        result = subprocess.run([str(self.bindir / tool), *map(str, args)], cwd=self.folder, capture_output=True,
                                text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
                                **self.as_user)
        if result.returncode != 0:
            log = self.log.read_text(errors="replace")[-3000:] if self.log.is_file() else ""
            raise RuntimeError(f"{tool} {' '.join(map(str, args))} failed ({result.returncode}):\n"
                               f"{result.stdout}{result.stderr}\n{log}")
        return result.stdout

    def start(self):
        self.run("initdb", "-D", self.data, "-U", ROLE, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
        for attempt in range(3):  # the free port can be taken in between: try another
            self.port = free_port()
            options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.sockets} "
                       "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40")
            try:
                self.run("pg_ctl", "-D", self.data, "-l", self.log, "-o", options, "-w", "-t", "60", "start")
                break
            except RuntimeError:
                if attempt == 2:
                    raise
        self.run("createdb", "-h", "127.0.0.1", "-p", self.port, "-U", ROLE, DATABASE)
        return self

    @property
    def url(self):
        return f"postgresql+psycopg2://{ROLE}@127.0.0.1:{self.port}/{DATABASE}"

    def stop(self):
        try:
            if (self.data / "postmaster.pid").is_file():
                self.run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "60", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres():
    bindir = postgres_bin()
    if bindir is None:
        unavailable("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; "
                    "apt-get install postgresql)")
    if importlib.util.find_spec("psycopg2") is None:
        unavailable("the PostgreSQL driver psycopg2 is not installed (pip install psycopg2-binary)")
    server = Server(bindir)
    try:
        yield server.start()
    finally:
        server.stop()


# --- the course, the batch, the grading (once for the module) --------------------
def answers_of(source):
    """grade_id -> the reference answer (solution markers taken out)."""
    return {c.metadata.nbgrader["grade_id"]:
            "\n".join(line for line in c.source.splitlines() if "SOLUTION" not in line)
            for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")}


def autograded_tests(source):
    """grade_id -> points of the autograded test cells."""
    return {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader["points"] for c in source.cells
            if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata.nbgrader.get("solution")}


def first_mistake():
    return Assignment(REPO / "exercises" / "hw01" / "hw01.ipynb").mistakes()[0]


def with_answers(released, replace):
    nb = copy.deepcopy(released)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") in replace:
            cell.source = replace[cell.metadata.nbgrader["grade_id"]]
    return nb


@pytest.fixture(scope="module")
def graded(postgres, tmp_path_factory):
    """Release, grade and export hw01 with the gradebook on the PostgreSQL server."""
    root = tmp_path_factory.mktemp("pg-course")
    scratch_course(root, ASSIGNMENT)
    source = nbformat.read(str(root / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    mistake = first_mistake()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", postgres.url)
        env.delenv("RBD_COURSE_ROOT", raising=False)
        env.delenv("RBD_CELL_TIMEOUT", raising=False)
        assert main(["--root", str(root), "release", ASSIGNMENT]) == 0
        course = Course(root)
        assert course.db_url == postgres.url
        blank = nbformat.read(str(course.release_dir / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
        batch = tmp_path_factory.mktemp("pg-handed-in")
        answers = answers_of(source)
        nbformat.write(with_answers(blank, answers), str(batch / "reference.ipynb"))
        nbformat.write(blank, str(batch / "blank.ipynb"))
        nbformat.write(with_answers(blank, {**answers, mistake["cell"]: mistake["source"]}),
                       str(batch / f"{mistake['name']}.ipynb"))
        (batch / "broken.ipynb").write_text('{"cells": [{"cell_type": "code", ')
        assert main(["--root", str(root), "grade", str(batch), "--assignment", ASSIGNMENT]) == 0
        assert main(["--root", str(root), "feedback", "--allow-ungraded"]) == 0  # nbgrader reads the scores back from PostgreSQL
        out = root / "grades.csv"
        assert main(["--root", str(root), "export", "--out", str(out)]) == 0
        with open(out, newline="") as f:
            rows = {r["student_id"]: r for r in csv.DictReader(f)}
        yield {"course": course, "source": source, "mistake": mistake, "rows": rows,
               "outcomes": {o["student"]: o for o in Outcomes(course).all(ASSIGNMENT)}}


def scores_in_postgres(url):
    """student -> {test cell: auto score}, read from PostgreSQL with SQLAlchemy (not through nbgrader)."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as db:
            assert db.dialect.name == "postgresql"
            result = db.execute(sqlalchemy.text(
                "SELECT sa.student_id, bc.name, g.auto_score FROM grade g "
                "JOIN submitted_notebook sn ON g.notebook_id = sn.id "
                "JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
                "JOIN assignment a ON sa.assignment_id = a.id "
                "JOIN base_cell bc ON g.cell_id = bc.id WHERE a.name = :name"), {"name": ASSIGNMENT})
            found = {}
            for student, cell, score in result:
                found.setdefault(student, {})[cell] = score
            return found
    finally:
        engine.dispose()


# --- the checks -----------------------------------------------------------------
def test_scores_are_in_postgres(postgres, graded):
    tests, mistake = autograded_tests(graded["source"]), graded["mistake"]
    stored = scores_in_postgres(postgres.url)
    assert set(stored) == {"reference", "blank", mistake["name"]}, "broken must have no grade at all"
    auto = {student: {cell: score for cell, score in cells.items() if cell in tests}
            for student, cells in stored.items()}
    assert auto["reference"] == {cell: float(points) for cell, points in tests.items()}
    assert auto["blank"] == {cell: 0.0 for cell in tests}
    assert auto[mistake["name"]] == {cell: 0.0 if cell == mistake["fails"] else float(points)
                                     for cell, points in tests.items()}


def test_outcomes_and_export_match_the_sqlite_expectations(graded):
    tests, mistake, rows, outcomes = (autograded_tests(graded["source"]), graded["mistake"], graded["rows"],
                                      graded["outcomes"])
    full = sum(tests.values())
    assert outcomes["reference"]["status"] == GRADED and outcomes["reference"]["score"] == full
    assert rows["reference"]["status"] == GRADED and rows["reference"]["score"] == f"{full:g}"
    assert outcomes["blank"]["score"] == 0 and rows["blank"]["score"] == "0"
    assert rows[mistake["name"]]["score"] == f"{full - tests[mistake['fails']]:g}"
    broken = rows["broken"]
    assert broken["status"] == FAILED and broken["score"] == "" and "not valid JSON" in broken["reason"], broken
    assert outcomes["broken"]["status"] == FAILED


def test_feedback_and_no_sqlite_gradebook(graded):
    course = graded["course"]
    for student in ("reference", "blank", graded["mistake"]["name"], "broken"):
        page = course.student_folder("feedback", student, ASSIGNMENT) / f"{ASSIGNMENT}.html"
        assert page.is_file() == (student != "broken"), student
    assert not (course.root / "gradebook.db").exists()


def test_grading_again_keeps_the_grades(postgres, graded, tmp_path):
    """Re-running the batch on PostgreSQL skips the unchanged submission and keeps its grade."""
    course = graded["course"]
    again = tmp_path / "again"
    again.mkdir()
    blank = nbformat.read(str(course.release_dir / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    nbformat.write(with_answers(blank, answers_of(graded["source"])), str(again / "reference.ipynb"))
    before = scores_in_postgres(postgres.url)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", postgres.url)
        assert main(["--root", str(course.root), "grade", str(again), "--assignment", ASSIGNMENT]) == 0
    assert Outcomes(course).get(ASSIGNMENT, "reference") == graded["outcomes"]["reference"]
    assert scores_in_postgres(postgres.url) == before


def test_a_dask_cluster_grades_into_the_same_postgres_gradebook(postgres, graded, tmp_path, capsys):
    """Fan a batch out over a local Dask distributed cluster (two worker processes) sharing the PostgreSQL gradebook."""
    from distributed import LocalCluster

    course, source = graded["course"], graded["source"]
    tests = autograded_tests(source)
    blank = nbformat.read(str(course.release_dir / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    answers = answers_of(source)
    batch = tmp_path / "dask-batch"
    batch.mkdir()
    students = {"dask-right": answers, "dask-blank": {},
                "dask-crash": {**answers, "answer-acceleration": "import os\nos._exit(1)"}}
    for student, replace in students.items():
        nbformat.write(with_answers(blank, replace), str(batch / f"{student}.ipynb"))
    (batch / "dask-broken.ipynb").write_text("{")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", postgres.url)
        assert main(["--root", str(course.root), "grade", str(batch), "--assignment", ASSIGNMENT,
                     "--dask", cluster.scheduler_address]) == 0
    assert f"grading on the Dask cluster at {cluster.scheduler_address} (2 workers)" in capsys.readouterr().out
    outcomes = {o["student"]: o for o in Outcomes(course).all(ASSIGNMENT)}
    full = sum(tests.values())
    assert outcomes["dask-right"]["status"] == GRADED and outcomes["dask-right"]["score"] == full
    assert outcomes["dask-blank"]["score"] == 0
    assert outcomes["dask-crash"]["status"] == GRADED and outcomes["dask-crash"]["score"] == full - tests["test-acceleration"]
    assert outcomes["dask-broken"]["status"] == FAILED and outcomes["dask-broken"]["score"] is None
    stored = scores_in_postgres(postgres.url)
    assert {"dask-right", "dask-blank", "dask-crash"} <= set(stored) and "dask-broken" not in stored
    assert sum(v for cell, v in stored["dask-right"].items() if cell in tests) == full
