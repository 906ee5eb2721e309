"""Start a student's process in a sandbox, and talk to it.

The sandbox (Linux, when the grader runs as root and ``unshare`` works):

* its own mount, process and network namespaces (``unshare``): no network;
  when the process ends, everything it started ends with it;
* the filesystem read-only, except a private, size-limited ``/tmp`` whose
  ``work`` folder is the current directory; the course's solutions, hidden
  tests, gradebook, other students' work and the project's git history are
  covered by empty mounts (:func:`secret_paths`);
* an unprivileged user id of its own (group ``nogroup``), limits on memory, processes, file size
  and CPU time.

Where that is not possible (not root, no ``unshare``) the process still gets
the resource limits, and every outcome notes that the sandbox was missing.
"""

import json
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
NOBODY = 65534
UID_BASE = 100_000  # each grading worker's sandboxes run under a user id of their own, so that one student's process limit is not that of a student graded at the same time
LIMITS = {  # per student process
    "memory_mb": int(os.environ.get("RBD_STUDENT_MEMORY_MB", "3072")),
    "processes": int(os.environ.get("RBD_STUDENT_PROCESSES", "128")),
    "file_mb": 64,
    "tmp_mb": 256,
}
UNSHARE = ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--propagation", "private"]


def die_with_parent():
    """In a child process: be killed when the process that started it dies (even by kill -9)."""
    import ctypes
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class StudentDied(RuntimeError):
    """The student's process ended (os._exit, a crash, out of memory) or stopped answering."""


def secret_paths(course_root):
    """What a student's code must not see: solutions, hidden tests, grades, others' work, git history."""
    course_root = Path(course_root)
    found = [course_root / name for name in ("exercises", "autograded", "submitted", "feedback", "gradebook.db",
                                             ".git", "outcomes.json")]
    found += [PROJECT / name for name in ("exercises", ".git", "tests", "gradebook.db", "autograded",
                                          "submitted", "feedback")]
    return sorted({str(p) for p in found if p.exists()})


@lru_cache(maxsize=1)
def available():
    """Whether the namespace sandbox works here ('' if so, else why not)."""
    if os.geteuid() != 0:
        return "the grader does not run as root, so it cannot drop a student's process to another user"
    if not shutil.which("unshare") or not shutil.which("mount"):
        return "util-linux's unshare and mount are not installed"
    # The real thing, once: the sandbox set up as for a student, and the student's side able to start in it.
    check = "import importlib.util, autograder.student; assert importlib.util.find_spec('lib'), 'lib is not visible'"
    command = [*UNSHARE, sys.executable, "-I", "-m", "autograder.confine", json.dumps(plan(PROJECT)), "--",
               sys.executable, "-I", "-c", check]
    try:
        probe = subprocess.run(command, capture_output=True, timeout=60, cwd="/")
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the sandbox could not be set up: {error}"
    if probe.returncode != 0:
        lines = probe.stderr.decode(errors="replace").strip().splitlines()
        return f"the sandbox could not be set up: {lines[-1][:200] if lines else probe.returncode}"
    return ""


def plan(course_root):
    """What autograder.confine does for one student's process of this course."""
    return {"hide": secret_paths(course_root), "tmp_mb": LIMITS["tmp_mb"], "uid": UID_BASE + os.getpid(),
            "keep": sorted({sys.base_prefix, sys.prefix, str(PROJECT)})}


def _limits():
    mb = 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (LIMITS["memory_mb"] * mb,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMITS["file_mb"] * mb,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (LIMITS["processes"],) * 2)


def _student_limits():
    die_with_parent()
    _limits()


class StudentProcess:
    """One sandboxed Python process running a submission's cells; see autograder/student.py.

    ``preload``: modules to import before the cells arrive (what the
    assignment's setup cell imports). A process started ahead of time with
    :func:`prepare_spare` for the same course and preload is used if there is one.
    """

    def __init__(self, cells, cell_timeout, course_root, preload=()):
        self.cells, self.cell_timeout = cells, float(cell_timeout)
        self.course_root, self.preload = course_root, tuple(preload)
        self.results = {}      # cell index -> {"stdout", "error"}
        self.skip = set()      # cells that killed the process: not run again
        self.proc = None
        self.confined = not available()

    # --- life cycle ---------------------------------------------------------
    def start(self):
        """Run the cells (restarting past any cell that kills the process); returns per-cell results."""
        while True:
            try:
                self._launch()
                return self.results
            except StudentDied as died:
                self.stop()
                running = getattr(died, "cell", None)
                if running is None or running in self.skip:
                    raise
                self.skip.add(running)
                self.results[running] = {"stdout": "", "error": str(died)}

    def _spawn(self):
        """Start the process (sandbox, interpreter, preloaded modules); it then waits for its job."""
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        argv = [sys.executable, "-I", "-m", "autograder.student", str(to_child), str(from_child),
                json.dumps(list(self.preload))]
        env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp/work", "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1", "LANG": "C.UTF-8"}
        if self.confined:
            command = [*UNSHARE, sys.executable, "-I", "-m", "autograder.confine", json.dumps(plan(self.course_root)),
                       "--", *argv]
            self.workdir = "/tmp/work"
        else:
            command = argv
            self.scratch = tempfile.mkdtemp(prefix="rbd-student-")
            self.workdir = self.scratch
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(to_child, from_child),
                                     env=env, start_new_session=True,
                                     preexec_fn=die_with_parent if self.confined else _student_limits)
        os.close(to_child)
        os.close(from_child)
        self.writer = os.fdopen(from_parent, "w", encoding="utf-8")
        self.reader = to_parent
        self.buffer = b""

    def _launch(self):
        job = {"cells": [[i, s] for i, s in self.cells if i not in self.skip],
               "cell_timeout": self.cell_timeout, "workdir": None}
        spare = _take_spare(self.course_root, self.preload, self.confined)
        if spare is not None:
            self.proc, self.writer, self.reader, self.buffer = spare.proc, spare.writer, spare.reader, spare.buffer
            self.workdir, self.scratch = spare.workdir, getattr(spare, "scratch", None)
            try:
                self._send(dict(job, workdir=self.workdir))
            except StudentDied:      # the spare died while it waited: start one as usual
                self.stop()
                spare = None
        if spare is None:
            self._spawn()
            self._send(dict(job, workdir=self.workdir))
        running = None
        while True:
            try:
                message = self._receive(self.cell_timeout + 10 if running is not None else 120)
            except StudentDied as died:
                died.cell = running
                if running is not None:
                    kind = "CellTimeout" if "no answer within" in str(died) else "ProcessDied"
                    died.args = (f"{kind}: this cell stopped the Python process ({died}); "
                                 "the other cells were run again without it",)
                raise
            if "cell" in message:
                running = message["cell"]
            elif "done" in message:
                self.results[message["done"]] = {"stdout": str(message.get("stdout", ""))[:200_000],
                                                 "error": str(message.get("error", ""))[:2000]}
                running = None
            elif message.get("ready"):
                return

    def stop(self):
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
            for stream in (getattr(self, "writer", None),):
                try:
                    stream and stream.close()
                except OSError:
                    pass
            try:
                os.close(self.reader)
            except OSError:
                pass
            self.proc = None
        if getattr(self, "scratch", None):
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None

    # --- talking ---------------------------------------------------------------
    def _send(self, message):
        try:
            self.writer.write(json.dumps(message, allow_nan=False) + "\n")
            self.writer.flush()
        except (BrokenPipeError, OSError) as error:
            raise StudentDied(f"the student's process is gone ({error})") from None

    def _receive(self, timeout):
        deadline = time.monotonic() + timeout
        selector = selectors.DefaultSelector()
        selector.register(self.reader, selectors.EVENT_READ)
        try:
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise StudentDied(f"no answer within {timeout:g} s (an endless loop that ignores interrupts?)")
                chunk = os.read(self.reader, 1 << 20)
                if not chunk:
                    raise StudentDied("the Python process ended (os._exit, a crash, or out of memory)")
                self.buffer += chunk
                if len(self.buffer) > 64 * 1024 * 1024:
                    raise StudentDied("the student's process sent more than 64 MB at once")
        finally:
            selector.close()
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            raise StudentDied("the student's process sent something that is not JSON") from None
        if not isinstance(message, dict):
            raise StudentDied("the student's process sent something that is not a message")
        return message

    def ask(self, request):
        """Send one request; returns the reply (a dict). Restarts the process if it died earlier."""
        if self.proc is None:
            self.start()
        self._send(request)
        try:
            return self._receive(self.cell_timeout + 10)
        except StudentDied:
            self.stop()
            raise


# --- a process started ahead of time ---------------------------------------------------
# A grading worker (autograder/worker.py) grades one student after another. While
# nbgrader files one student's grades, the next student's process can already be
# starting: the sandbox set up, Python and the assignment's modules loaded. It
# holds no student's code until it is handed its job, and each one is used once.
_spares = {}


def prepare_spare(course_root, preload=()):
    """Start a process for the next submission of this course (replacing any spare there was)."""
    key = (str(course_root), tuple(preload))
    for old in _spares.values():
        old.stop()
    _spares.clear()
    spare = StudentProcess([], 60, course_root, preload)
    spare._spawn()
    _spares[key] = spare


def _take_spare(course_root, preload, confined):
    spare = _spares.pop((str(course_root), tuple(preload)), None)
    if spare is None or spare.confined != confined or spare.proc.poll() is not None:
        if spare is not None:
            spare.stop()
        return None
    return spare

