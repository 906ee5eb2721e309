"""A student's process: a submission's cells run in it, and the grader asks it for plain values.

:class:`StudentProcess` starts autograder/sandbox/student.py in the sandbox
(autograder/sandbox/sandbox.py; without it only when unconfined grading was asked
for), hands it the cells, restarts it past a cell that ends it, and carries
the judge's requests (a value, a call of the student's function) to it and
the answers back (autograder/sandbox/wire.py). Its limits are autograder/sandbox/limits.py's.
"""

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import warm, wire
from .confine import WORK, apply_limits
from .limits import GRACE_S, Limits
from .processes import die_with_parent, kill_group
from .sandbox import NOGROUP, code_roots, mode, start_sandboxed, unconfined_user


class StudentDied(RuntimeError):
    """The student's process ended (os._exit, a crash, out of memory) or stopped answering."""


def _student_argv(fd_in, fd_out, preload):
    """The student's side: autograder/sandbox/student.py, with the grader's lib and autograder first on its path."""
    boot = f"import sys; sys.path[:0] = {code_roots()!r}; from autograder.sandbox.student import main; main()"
    return [sys.executable, "-I", "-c", boot, str(fd_in), str(fd_out), json.dumps(list(preload))]


def _unconfined_setup(limits):
    def setup():
        die_with_parent()
        apply_limits(limits.student())
    return setup


class StudentProcess:
    """One sandboxed Python process running a submission's cells; see autograder/sandbox/student.py.

    ``cell_timeout``: seconds per cell (default: ``limits.cell_s``);
    ``preload``: modules to import before the cells arrive (what the
    assignment's setup cell imports); ``limits``: the rest of what the process
    may use (default: :meth:`Limits.from_environment`). A process started ahead
    of time with :func:`prepare_spare` for the same course and preload is used
    if there is one. Raises :class:`SandboxMissing` when there is no sandbox
    and unconfined grading was not asked for.
    """

    def __init__(self, cells, cell_timeout, course_root, preload=(), limits=None):
        self.limits = limits or Limits.from_environment()
        self.cells = cells
        self.cell_timeout = float(cell_timeout if cell_timeout is not None else self.limits.cell_s)
        self.course_root, self.preload = course_root, tuple(preload)
        self.results = {}      # cell index -> {"stdout", "error"}
        self.skip = set()      # cells that killed the process: not run again
        self.incidents = {}    # cell index -> how it ended the process or ran out of memory (for the notes)
        self.proc = None
        self.warm = False      # whether the process is a child of the warm template (autograder/sandbox/warm.py)
        self.mode = mode()

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
                self.incidents[running] = str(died).partition(": ")[2]

    def _spawn(self):
        """Start the process (sandbox, interpreter, preloaded modules); it then waits for its job."""
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        argv = _student_argv(to_child, from_child, self.preload)
        env = {"PATH": "/usr/bin:/bin", "HOME": WORK, "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1",
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "LANG": "C.UTF-8"}
        streams = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       pass_fds=(to_child, from_child))
        try:
            self.warm = False
            if self.mode == "sandbox":
                self.workdir = WORK
                if warm.wanted():   # a child of the warm template, or None: then a fresh sandbox
                    self.proc = warm.child(self.preload, self.limits, env, to_child, from_child)
                    self.warm = self.proc is not None
                if not self.warm:
                    self.proc = start_sandboxed(argv, self.limits, env=env, **streams)
            else:
                self.scratch = self.workdir = tempfile.mkdtemp(prefix="rbd-student-")
                uid = unconfined_user()
                if uid is not None:
                    os.chown(self.scratch, uid, NOGROUP)
                    streams.update(user=uid, group=NOGROUP, extra_groups=[])
                self.proc = subprocess.Popen(argv, env=dict(env, HOME=self.scratch), cwd=self.scratch,
                                             start_new_session=True, preexec_fn=_unconfined_setup(self.limits),
                                             **streams)
        except OSError as error:
            raise StudentDied(f"the student's process could not be started: {error}") from None
        finally:
            os.close(to_child)
            os.close(from_child)
        self.writer = os.fdopen(from_parent, "wb")
        self.reader = to_parent
        self.buffer = b""

    def _launch(self):
        job = {"cells": [[i, s] for i, s in self.cells if i not in self.skip],
               "cell_timeout": self.cell_timeout, "output_chars": self.limits.output_chars, "workdir": None}
        spare = _take_spare(self.course_root, self.preload, self.mode)
        if spare is not None:
            self.proc, self.writer, self.reader, self.buffer = spare.proc, spare.writer, spare.reader, spare.buffer
            self.warm = spare.warm
            self.workdir, self.scratch = spare.workdir, getattr(spare, "scratch", None)
            try:
                self._send(dict(job, workdir=self.workdir))
            except StudentDied:      # the spare died while it waited: start one as usual
                self.stop()
                spare = None
        if spare is None:
            self._spawn()
            self._send(dict(job, workdir=self.workdir))
        running, heard = None, False
        while True:
            try:
                message = self._receive(self.cell_timeout + GRACE_S if running is not None else 120)
            except StudentDied as died:
                if self.warm and not heard:   # no student code ran yet: the template failed, not the submission
                    warm.broken(str(died))
                    self.stop()
                    self._spawn()
                    self._send(dict(job, workdir=self.workdir))
                    continue
                died.cell = running
                if running is not None:
                    timeout = "no answer within" in str(died)
                    how = str(died) if timeout else self._ending()
                    died.args = (f"{'CellTimeout' if timeout else 'ProcessDied'}: this cell ended the student's "
                                 f"Python process ({how}); the other cells were run again without it",)
                raise
            if self.warm and not heard:
                warm.worked()
            heard = True
            if "cell" in message:
                running = message["cell"]
            elif "done" in message:
                error = str(message.get("error", ""))[:2000]
                if error.startswith("MemoryError"):
                    error = (f"MemoryError: {error.partition(': ')[2].strip() or 'the cell ran out of memory'} "
                             f"(the student's process may use {self.limits.student_mb} MB)")
                    self.incidents[message["done"]] = f"it ran out of memory ({self.limits.student_mb} MB)"
                self.results[message["done"]] = {"stdout": str(message.get("stdout", ""))[:self.limits.output_chars],
                                                  "error": error}
                running = None
            elif message.get("ready"):
                return

    def _ending(self):
        """How the student's process ended, in words: its exit status, or the signal that killed it."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        if self.mode == "sandbox" and code > 128:   # bubblewrap reports death by signal N as 128 + N
            code = -(code - 128)
        if code >= 0:
            return f"it exited with status {code}: os._exit, or a crash in compiled code"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = {"SIGKILL": "killed: out of memory, or by its own code", "SIGSEGV": "a crash: segmentation fault",
               "SIGBUS": "a crash: bus error", "SIGABRT": "aborted", "SIGFPE": "a crash: arithmetic error",
               "SIGXCPU": f"its CPU time ran out ({self.limits.cpu_s} s)", "SIGXFSZ": "a file grew past the limit"}
        return f"killed by {name}, {why.get(name, 'a signal')}"

    def stop(self):
        if self.proc is not None:
            if isinstance(self.proc, warm.Child):
                self.proc.end()   # returns once nothing the child started is left
            else:
                kill_group(self.proc)
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
            self.writer.write(wire.pack(message))
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
                if len(self.buffer) > wire.MAX_BYTES:
                    raise StudentDied(f"the student's process sent more than {wire.MAX_BYTES >> 20} MB at once")
        finally:
            selector.close()
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            return wire.unpack(line)
        except wire.WireError as error:
            raise StudentDied(f"the student's process sent something the grader cannot read: {error}") from None

    def ask(self, request):
        """Send one request; returns the reply (a dict). Restarts the process if it died earlier."""
        if self.proc is None:
            self.start()
        self._send(request)
        try:
            return self._receive(self.cell_timeout + GRACE_S)
        except StudentDied as died:
            if "no answer within" not in str(died):
                died.args = (f"the student's Python process ended ({self._ending()})",)
            self.stop()
            raise


# --- a process started ahead of time ---------------------------------------------------
# A grading worker (autograder/grading/worker.py) grades one student after another. While
# nbgrader files one student's grades, the next student's process can already be
# starting: the sandbox set up, Python and the assignment's modules loaded. It
# holds no student's code until it is handed its job, and each one is used once.
_spares = {}


def prepare_spare(course_root, preload=(), limits=None):
    """Start a process for the next submission of this course (replacing any spare there was)."""
    key = (str(course_root), tuple(preload))
    for old in _spares.values():
        old.stop()
    _spares.clear()
    spare = StudentProcess([], None, course_root, preload, limits)
    try:
        spare._spawn()
    except StudentDied:   # the next submission starts its own, and says why if that fails too
        return
    _spares[key] = spare


def _take_spare(course_root, preload, how):
    spare = _spares.pop((str(course_root), tuple(preload)), None)
    if spare is None or spare.mode != how or spare.proc.poll() is not None:
        if spare is not None:
            spare.stop()
        return None
    return spare

