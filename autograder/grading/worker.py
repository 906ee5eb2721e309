"""A long-lived grading process: ``nbgrader autograde`` for one student after another.

Starting ``python -m nbgrader autograde`` for every student costs a second or
two before any grading happens (Python, nbgrader, the course's libraries).
``grade`` instead keeps one worker per job: a process that has loaded all of
that once and then grades the students it is handed, one at a time, with
nbgrader's own ``Autograde`` converter, configured by the course's
``nbgrader_config.py`` exactly as the command line would be.

Sharing a process between students is safe because no student code ever runs
in it: the Judge runs each submission's cells in a fresh sandboxed process of
their own and takes only plain values back (autograder/grading/judge.py). What the
worker keeps is nbgrader, the instructor's tests and imported libraries.

The parent side, :class:`GradingWorker`, enforces what a separate process per
student enforced: a time limit for the whole submission and a memory cap
(the worker is killed, with its sandbox, and replaced), and a log per student.

Protocol, in the wire format (autograder/sandbox/wire.py): one request per line on a
pipe, ``{"assignment", "student", "log", "inbox"}`` (``inbox``: the folder of the grader's copies
of the hand-ins, which nbgrader reads in place of ``submitted/``), and one reply per line on another,
``{"ok": bool, "error": str}``.
"""

import logging
import os
import selectors
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

from ..course.course import NbgraderRun, nbgrader_environment
from ..sandbox import wire
from ..sandbox.processes import child_setup, stop_process


class GradingWorker:
    """The grader's handle on one worker process (see the module's doc)."""

    def __init__(self, course, memory_mb=None):
        self.course, self.memory_mb = course, memory_mb
        self.proc = None

    def _start(self):
        requests_read, self._requests = os.pipe()
        self._replies, replies_write = os.pipe()
        log_dir = self.course.logs()
        log_dir.mkdir(parents=True, exist_ok=True)
        with open(log_dir / "worker.log", "a") as stray:   # whatever a worker prints outside a student's log
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "autograder.grading.worker", str(self.course.root), str(requests_read),
                 str(replies_write)],
                cwd=self.course.root, env=nbgrader_environment(), stdin=subprocess.DEVNULL, stdout=stray,
                stderr=subprocess.STDOUT, pass_fds=(requests_read, replies_write), start_new_session=True,
                preexec_fn=child_setup(self.memory_mb))
        os.close(requests_read)
        os.close(replies_write)
        self._buffer = b""
        self._config_stamp = self._stamp()

    def _stamp(self):
        """When nbgrader_config.py last changed: a worker started before that is restarted, to read it again."""
        try:
            return (self.course.root / "nbgrader_config.py").stat().st_mtime_ns
        except OSError:
            return None

    def autograde(self, assignment, student, log_path, time_limit):
        """Autograde one student; an :class:`NbgraderRun`. A worker that overruns or dies is replaced next time."""
        if self.proc is None or self.proc.poll() is not None or self._config_stamp != self._stamp():
            self.stop()
            self._start()
        log_path = Path(log_path)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text("")
        request = wire.pack({"assignment": assignment, "student": student, "log": str(log_path),
                             "inbox": str(self.course.copies)})
        try:
            os.write(self._requests, request)
            reply = self._receive(time_limit)
        except TimeoutError:
            self.stop()
            return NbgraderRun(-signal.SIGKILL, _read(log_path), True)
        except (OSError, EOFError, wire.WireError):
            code = self.stop()
            return NbgraderRun(code if code else 1, _read(log_path) + "\nthe grading worker ended", False)
        except BaseException:
            self.stop()
            raise
        log = _read(log_path)
        if not reply.get("ok"):
            return NbgraderRun(1, log + "\n" + str(reply.get("error", "")), False)
        return NbgraderRun(0, log, False)

    def _receive(self, timeout):
        deadline = None if timeout is None else time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self._replies, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and (left <= 0 or not selector.select(left)):
                    raise TimeoutError
                chunk = os.read(self._replies, 1 << 16)
                if not chunk:
                    raise EOFError
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return wire.unpack(line)

    def stop(self):
        """Kill the worker and everything it started (its session: sandboxes included); its exit code."""
        if self.proc is None:
            return None
        stop_process(self.proc)
        for fd in (self._requests, self._replies):
            try:
                os.close(fd)
            except OSError:
                pass
        code, self.proc = self.proc.returncode, None
        return code


def _read(path):
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


# --- the worker process ---------------------------------------------------------------

def serve(root, requests_fd, replies_fd):
    """Grade requests until the pipe closes."""
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    os.chdir(root)
    sys.path.insert(0, str(root))
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.Judge.start_ahead = True   # the next student's sandbox starts while this one's grades are filed
    import autograder.grading.judge  # noqa: F401 (load the judge and what its tests import, once)
    import lib  # noqa: F401

    requests = os.fdopen(requests_fd, "rb")
    replies = os.fdopen(replies_fd, "wb")
    for line in requests:
        task = wire.unpack(line)
        coursedir = CourseDirectory(config=config)
        coursedir.assignment_id, coursedir.student_id = task["assignment"], task["student"]
        # nbgrader reads the grader's copy of the hand-in, never the hand-in in submitted/ (autograder/grading/grade.py)
        coursedir.submitted_directory = task["inbox"]
        app = Autograde(coursedir=coursedir, config=config)
        app.force, app.create_student = True, True
        handler = logging.FileHandler(task["log"], encoding="utf-8")
        handler.setFormatter(logging.Formatter("[%(name)s | %(levelname)s] %(message)s"))
        app.log.addHandler(handler)
        app.log.setLevel(logging.INFO)
        reply = {"ok": True}
        try:
            app.start()
        except (Exception, SystemExit) as error:  # noqa: BLE001 (this student's failure, reported; the worker goes on)
            app.log.error("%s", traceback.format_exc())
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        finally:
            app.log.removeHandler(handler)
            handler.close()
            os.chdir(root)
        replies.write(wire.pack(reply))
        replies.flush()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
