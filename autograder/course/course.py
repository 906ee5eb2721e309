"""The course folder: where its parts live, its limits, and running nbgrader inside it.

The layout is read from ``nbgrader_config.py`` at the course root, so the
command line, the judge and nbgrader itself always agree on the folders and
the gradebook; the limits of a grading run come from autograder/sandbox/limits.py.
:meth:`Course.work` says where one student's assignment lives at each stage
of grading.
"""

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from traitlets.config.loader import PyFileConfigLoader

from ..sandbox.limits import Limits
from ..sandbox.processes import child_setup, stop_process

CONFIG_FILE = "nbgrader_config.py"
COPIES = "_copies"   # autograded/_copies/<student>/<assignment>/: what the grader graded (never a hand-in)


class CourseError(Exception):
    """Something the instructor must fix; the message says what."""


def find_root(root=None):
    """The course root: ``root`` if given, else $RBD_COURSE_ROOT, else the current
    folder if it holds nbgrader_config.py, else the repository this package lives in."""
    if root is not None:
        if not (Path(root) / CONFIG_FILE).is_file():
            raise CourseError(f"{root} has no {CONFIG_FILE}: not a course folder")
        return Path(root).resolve()
    for candidate in (os.environ.get("RBD_COURSE_ROOT"), Path.cwd(), Path(__file__).resolve().parents[2]):
        if candidate and (Path(candidate) / CONFIG_FILE).is_file():
            return Path(candidate).resolve()
    raise CourseError(f"no {CONFIG_FILE} found; run from the course folder or pass --root")


@dataclass(frozen=True)
class NbgraderRun:
    """How one nbgrader command ended."""

    returncode: int
    log: str
    timed_out: bool


class Course:
    """A course folder: its layout (from its nbgrader configuration) and its limits (:class:`Limits`)."""

    def __init__(self, root=None):
        self.root = find_root(root)
        config = PyFileConfigLoader(CONFIG_FILE, path=str(self.root)).load_config()
        folders = config.CourseDirectory
        self.course_id = folders.get("course_id", "course")
        self.db_url = folders.get("db_url", f"sqlite:///{self.root / 'gradebook.db'}")
        self.limits = Limits.from_environment()
        self.source = self.root / folders.get("source_directory", "source")
        self.release_dir = self.root / folders.get("release_directory", "release")
        self.submitted = self.root / folders.get("submitted_directory", "submitted")
        self.autograded = self.root / folders.get("autograded_directory", "autograded")
        self.feedback_dir = self.root / folders.get("feedback_directory", "feedback")
        # The grader's own copies of the hand-ins, the ones it normalizes and grades. The hand-ins themselves
        # (wherever they are: submitted/, which nbgrader's collect fills, a class folder, a .zip) are only read.
        self.copies = self.autograded / COPIES
        self.exchange = Path(config.Exchange.get("root", "/usr/local/share/nbgrader/exchange"))

    def generated(self):
        """The folders the grader writes into (and may empty): a class folder must not lie inside one."""
        return [self.copies, self.autograded, self.feedback_dir, self.release_dir]

    # --- the assignments -------------------------------------------------
    def assignments(self):
        """Assignment ids: the folders of the source directory that hold a notebook."""
        if not self.source.is_dir():
            return []
        return sorted(p.name for p in self.source.iterdir()
                      if p.is_dir() and not p.name.startswith(".") and any(p.glob("*.ipynb")))

    def check_assignment(self, assignment):
        if assignment not in self.assignments():
            raise CourseError(f"no assignment {assignment!r} in {self.source} "
                              f"(there are: {', '.join(self.assignments()) or 'none'})")
        return assignment

    def default_assignment(self, assignment=None):
        """``assignment`` if given, else the only assignment there is."""
        if assignment:
            return self.check_assignment(assignment)
        found = self.assignments()
        if len(found) != 1:
            raise CourseError(f"say which assignment with --assignment (there are: {', '.join(found) or 'none'})")
        return found[0]

    def source_notebooks(self, assignment):
        """The source notebooks of an assignment, by name without .ipynb."""
        return {p.stem: p for p in sorted((self.source / assignment).glob("*.ipynb"))}

    def student_folder(self, kind, student, assignment):
        """submitted/, copies (autograded/_copies/), autograded/ or feedback/ folder of one student's assignment."""
        base = {"submitted": self.submitted, "copies": self.copies, "autograded": self.autograded,
                "feedback": self.feedback_dir}[kind]
        return base / student / assignment

    def work(self, assignment, student):
        """Where one student's assignment lives at each stage of grading (a :class:`Work`)."""
        return Work(self, assignment, student)

    # --- running nbgrader --------------------------------------------------
    def nbgrader(self, *args, log_path):
        """Run ``python -m nbgrader ARGS`` in the course root (release, feedback), its output going to ``log_path``.

        The command runs in its own process group, and dies with this process.
        """
        log_path = Path(log_path)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "w") as log:
            proc = subprocess.Popen([sys.executable, "-m", "nbgrader", *map(str, args)], cwd=self.root,
                                    env=nbgrader_environment(), stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=child_setup())
            try:
                proc.wait()
            except BaseException:
                stop_process(proc)
                raise
        return NbgraderRun(proc.returncode, log_path.read_text(errors="replace"), False)

    def logs(self):
        """Where nbgrader's output of each command is kept."""
        return self.autograded / "_logs"


@dataclass(frozen=True)
class Work:
    """One student's assignment, and where it lives at each stage of grading."""

    course: Course
    assignment: str
    student: str

    @property
    def names(self):
        """The assignment's notebooks, by name without .ipynb."""
        return list(self.course.source_notebooks(self.assignment))

    def copy(self, name=None):
        """autograded/_copies/<student>/<assignment>/ (the grader's copy of the hand-in, the one that is
        graded), or its notebook ``name``. The hand-in itself is never written to."""
        return self._in("copies", name)

    def autograded(self, name=None):
        """autograded/<student>/<assignment>/ (executed and scored), or its notebook ``name``."""
        return self._in("autograded", name)

    def released(self, name):
        """The released notebook ``name`` (what the student started from)."""
        return self.course.release_dir / self.assignment / f"{name}.ipynb"

    def judge_report(self, name):
        """The judge's report on notebook ``name`` (autograder/grading/judge.py), beside the graded notebook."""
        return self.autograded() / f"{name}.judge.json"

    @property
    def log(self):
        """nbgrader's output of this student's grading."""
        return self.course.logs() / f"{self.assignment}.{self.student}.log"

    def _in(self, kind, name):
        folder = self.course.student_folder(kind, self.student, self.assignment)
        return folder if name is None else folder / f"{name}.ipynb"


def nbgrader_environment():
    """The environment for a process that runs nbgrader: unbuffered, with this environment's tools on the PATH."""
    bin_dir = str(Path(sys.executable).parent)   # nbgrader calls tools of its environment (alembic) by name
    return dict(os.environ, PYTHONUNBUFFERED="1", PATH=os.pathsep.join([bin_dir, os.environ.get("PATH", "")]))
