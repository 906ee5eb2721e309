"""Start a student's process in a sandbox, and talk to it.

The sandbox is bubblewrap (``bwrap``, Debian's ``bubblewrap`` package), the
tool Flatpak builds its sandboxes with. The student's process

* sees an allow-list and nothing else (:func:`allow_list`), read-only: the
  Python interpreter and its standard library, the environment's packages,
  ``lib/`` and the grader's student side (``autograder/``), the system's
  shared libraries; besides, its own ``/proc`` and ``/dev`` and a private,
  size-limited ``/tmp`` whose ``work`` folder is its current directory. No
  home folder, no ``/work``, ``/srv`` or ``/opt``, no course folder, no other
  copy of the course exists for it;
* has namespaces of its own (``--unshare-all``): no network, only its own
  processes in sight, and when it ends, or the grader dies, even by
  ``kill -9`` (``--die-with-parent``), everything it started ends;
* runs in a new session as an unprivileged user id of its own per grading
  worker (:data:`UID_BASE`), without capabilities and unable to make user
  namespaces, with limits on memory, processes, file size and CPU time
  (:data:`LIMITS`; autograder/confine.py applies them inside).

Fail closed: when the sandbox cannot be set up, :func:`mode` raises
:class:`SandboxMissing` saying why and what to install, and no student code
runs. Only an instructor who asks by name (``grade --no-sandbox``, which sets
``RBD_NO_SANDBOX=1`` for the grading processes) gets unconfined grading: the
limits still apply, and the student's code runs as another user id when the
grader is root and that user can reach the interpreter.
"""

import importlib.util
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from .confine import WORK, apply_limits

NOGROUP = 65534
UID_BASE = 100_000  # each grading worker's sandboxes run under a user id of their own, so that one student's process limit is not that of a student graded at the same time
LIMITS = {  # per student process
    "memory_mb": int(os.environ.get("RBD_STUDENT_MEMORY_MB", "3072")),
    "processes": int(os.environ.get("RBD_STUDENT_PROCESSES", "128")),
    "file_mb": 64,
    "tmp_mb": 256,
    "cpu_s": int(os.environ.get("RBD_STUDENT_CPU_S", "900")),
}
CONFINE = Path(__file__).resolve().with_name("confine.py")
SYSTEM_LIBRARIES = ("/usr/lib", "/usr/lib64", "/usr/lib32", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache")
INSTALL = ("install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), "
           "or, for trusted code only, grade without the sandbox: python -m autograder grade --no-sandbox ...")


def die_with_parent():
    """In a child process: be killed when the process that started it dies (even by kill -9)."""
    import ctypes
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class StudentDied(RuntimeError):
    """The student's process ended (os._exit, a crash, out of memory) or stopped answering."""


class SandboxMissing(RuntimeError):
    """The sandbox cannot be set up here, and unconfined grading was not asked for: nothing may be graded."""


def _package_dir(name):
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).resolve().parent if spec and spec.origin else None


def code_roots():
    """The folders to put first on the student's sys.path: where the grader's ``lib`` and ``autograder`` are.

    The same ``lib`` as the tests use, whatever the environment has installed
    (an editable install may point at a folder the sandbox does not show).
    """
    return sorted({str(d.parent) for d in (_package_dir("lib"), Path(__file__).resolve().parent) if d})


def allow_list():
    """What the student's process sees, read-only: the interpreter, its standard library, the environment, the code.

    >>> import sys
    >>> sys.base_prefix in allow_list() and sys.prefix in allow_list()
    True
    >>> any(p.endswith("/exercises") or p.endswith("/.git") for p in allow_list())
    False
    """
    found = {sys.base_prefix, sys.prefix, os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    found |= {str(d) for d in (_package_dir("lib"), Path(__file__).resolve().parent) if d}
    found |= {p for p in SYSTEM_LIBRARIES if os.path.lexists(p)}
    return sorted(found)


def _bwrap_command(plan, handshake):
    """The bubblewrap command line for one student's process (see the module's doc)."""
    args = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--unshare-user", "--die-with-parent",
            "--new-session", "--cap-drop", "ALL"]
    if handshake:   # the grader maps the users (root to set up, then the student's), confine.py switches
        info_w, block_r = handshake
        args += ["--userns-block-fd", str(block_r), "--info-fd", str(info_w)]
        args += [arg for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SYS_RESOURCE") for arg in ("--cap-add", cap)]
    else:
        args += ["--disable-userns"]
    args += ["--size", str(LIMITS["tmp_mb"] * 1024 * 1024), "--perms", "1777", "--tmpfs", "/tmp",
             "--proc", "/proc", "--dev", "/dev"]
    made = {"/", "/tmp", "/proc", "/dev"}
    for path in allow_list():
        if os.path.islink(path) and os.path.dirname(path) == "/":    # /lib -> usr/lib on merged-/usr systems
            args += ["--symlink", os.readlink(path), path]
            continue
        for parent in reversed(Path(path).parents):
            if str(parent) not in made:   # bubblewrap would make it 0700, closed to the student's user
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", path, path]
    return args + ["--remount-ro", "/", "--chdir", "/", "--", sys.executable, "-I", "-S", str(CONFINE),
                   json.dumps(plan), "--"]


def _plan(as_root, fds):
    return {"uid": UID_BASE + os.getpid() if as_root else None, "gid": NOGROUP, "fds": list(fds),
            "limits": {k: v for k, v in LIMITS.items() if k != "tmp_mb"}}


def start_sandboxed(argv, **popen):
    """Start ``argv`` in the sandbox; the :class:`subprocess.Popen` of bubblewrap. Raises OSError if it cannot start."""
    as_root = os.geteuid() == 0
    if not as_root:   # bubblewrap's own way: the instructor's user id inside the namespaces
        command = _bwrap_command(_plan(False, popen.get("pass_fds", ())), None) + list(argv)
        return subprocess.Popen(command, start_new_session=True, **popen)
    handshake, release = os.pipe(), os.pipe()
    extra = (handshake[1], release[0])
    command = _bwrap_command(_plan(True, popen.get("pass_fds", ())), extra) + list(argv)
    popen["pass_fds"] = tuple(popen.get("pass_fds", ())) + extra
    try:
        proc = subprocess.Popen(command, start_new_session=True, **popen)
    except OSError:
        os.close(handshake[0])
        os.close(release[1])
        raise
    finally:
        for fd in extra:
            os.close(fd)
    try:
        info = _read_all(handshake[0], 30)
        child = json.loads(info)["child-pid"]
        uid = UID_BASE + os.getpid()
        with open(f"/proc/{child}/uid_map", "w") as uid_map:
            uid_map.write(f"0 0 1\n{uid} {uid} 1\n")
        with open(f"/proc/{child}/gid_map", "w") as gid_map:
            gid_map.write(f"0 0 1\n{NOGROUP} {NOGROUP} 1\n")
        os.write(release[1], b"1")
    except (OSError, ValueError, KeyError, TimeoutError) as error:
        _kill(proc)
        raise OSError(f"bubblewrap did not start the sandbox ({type(error).__name__}: {error})") from None
    finally:
        os.close(handshake[0])
        os.close(release[1])
    return proc


def _read_all(fd, timeout):
    deadline, data = time.monotonic() + timeout, b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                raise TimeoutError(f"no word from bubblewrap within {timeout} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return data
            data += chunk


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _student_argv(fd_in, fd_out, preload):
    """The student's side: autograder/student.py, with the grader's lib and autograder first on its path."""
    boot = f"import sys; sys.path[:0] = {code_roots()!r}; from autograder.student import main; main()"
    return [sys.executable, "-I", "-c", boot, str(fd_in), str(fd_out), json.dumps(list(preload))]


@lru_cache(maxsize=1)
def available():
    """Whether the sandbox works here: '' if so, else why not and what to do."""
    if not shutil.which("bwrap"):
        return f"bubblewrap (bwrap) is not installed; {INSTALL}"
    check = (f"import sys; sys.path[:0] = {code_roots()!r}; import importlib.util, autograder.student; "
             "assert importlib.util.find_spec('lib'), 'lib is not visible'")
    try:
        probe = start_sandboxed([sys.executable, "-I", "-c", check], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, stderr = probe.communicate(timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not set up the sandbox: {error}"
    if probe.returncode != 0:
        lines = stderr.decode(errors="replace").strip().splitlines()
        why = lines[-1][:300] if lines else f"exit status {probe.returncode}"
        hint = ("; user namespaces must be allowed (sysctl user.max_user_namespaces > 0; in a container, "
                "a seccomp profile that permits them)" if "namespace" in why.lower() or "bwrap" in why else "")
        return f"the sandbox could not be set up: {why}{hint}"
    return ""


def unconfined_asked():
    """Whether the instructor asked for grading without the sandbox (``--no-sandbox``, ``RBD_NO_SANDBOX=1``)."""
    return os.environ.get("RBD_NO_SANDBOX", "") == "1"


def mode():
    """'sandbox', or 'unconfined' when the sandbox is missing and that was asked for; else :class:`SandboxMissing`."""
    problem = available()
    if not problem:
        return "sandbox"
    if unconfined_asked():
        return "unconfined"
    raise SandboxMissing(f"the grading sandbox cannot be set up, so nothing is graded: {problem}")


def _reachable_by_others(path):
    """Whether a user other than the owner can reach ``path`` (every folder on the way open to others)."""
    path = Path(os.path.realpath(path))
    return all(os.stat(p).st_mode & 0o001 for p in [*reversed(path.parents), path] if p.is_dir()) and \
        bool(os.stat(path).st_mode & 0o004)


@lru_cache(maxsize=1)
def unconfined_user():
    """The user id the student's code runs as without the sandbox: another one if possible, else None (the grader's)."""
    if os.geteuid() != 0:
        return None
    needed = [os.path.realpath(sys.executable), *allow_list(), *code_roots()]
    if all(_reachable_by_others(p) for p in needed if os.path.exists(p) and not p.startswith(("/usr", "/lib", "/etc"))):
        return UID_BASE + os.getpid()
    return None


def _unconfined_setup():
    die_with_parent()
    apply_limits({k: v for k, v in LIMITS.items() if k != "tmp_mb"})


class StudentProcess:
    """One sandboxed Python process running a submission's cells; see autograder/student.py.

    ``preload``: modules to import before the cells arrive (what the
    assignment's setup cell imports). A process started ahead of time with
    :func:`prepare_spare` for the same course and preload is used if there is one.
    Raises :class:`SandboxMissing` when there is no sandbox and unconfined
    grading was not asked for.
    """

    def __init__(self, cells, cell_timeout, course_root, preload=()):
        self.cells, self.cell_timeout = cells, float(cell_timeout)
        self.course_root, self.preload = course_root, tuple(preload)
        self.results = {}      # cell index -> {"stdout", "error"}
        self.skip = set()      # cells that killed the process: not run again
        self.incidents = {}    # cell index -> how it ended the process or ran out of memory (for the notes)
        self.proc = None
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
            if self.mode == "sandbox":
                self.workdir = WORK
                self.proc = start_sandboxed(argv, env=env, **streams)
            else:
                self.scratch = self.workdir = tempfile.mkdtemp(prefix="rbd-student-")
                uid = unconfined_user()
                if uid is not None:
                    os.chown(self.scratch, uid, NOGROUP)
                    streams.update(user=uid, group=NOGROUP, extra_groups=[])
                self.proc = subprocess.Popen(argv, env=dict(env, HOME=self.scratch), cwd=self.scratch,
                                             start_new_session=True, preexec_fn=_unconfined_setup, **streams)
        except OSError as error:
            raise StudentDied(f"the student's process could not be started: {error}") from None
        finally:
            os.close(to_child)
            os.close(from_child)
        self.writer = os.fdopen(from_parent, "w", encoding="utf-8")
        self.reader = to_parent
        self.buffer = b""

    def _launch(self):
        job = {"cells": [[i, s] for i, s in self.cells if i not in self.skip],
               "cell_timeout": self.cell_timeout, "workdir": None}
        spare = _take_spare(self.course_root, self.preload, self.mode)
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
                    timeout = "no answer within" in str(died)
                    how = str(died) if timeout else self._ending()
                    died.args = (f"{'CellTimeout' if timeout else 'ProcessDied'}: this cell ended the student's "
                                 f"Python process ({how}); the other cells were run again without it",)
                raise
            if "cell" in message:
                running = message["cell"]
            elif "done" in message:
                error = str(message.get("error", ""))[:2000]
                if error.startswith("MemoryError"):
                    error = (f"MemoryError: {error.partition(': ')[2].strip() or 'the cell ran out of memory'} "
                             f"(the student's process may use {LIMITS['memory_mb']} MB)")
                    self.incidents[message["done"]] = f"it ran out of memory ({LIMITS['memory_mb']} MB)"
                self.results[message["done"]] = {"stdout": str(message.get("stdout", ""))[:200_000], "error": error}
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
               "SIGXCPU": f"its CPU time ran out ({LIMITS['cpu_s']} s)", "SIGXFSZ": "a file grew past the limit"}
        return f"killed by {name}, {why.get(name, 'a signal')}"

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
        except StudentDied as died:
            if "no answer within" not in str(died):
                died.args = (f"the student's Python process ended ({self._ending()})",)
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

