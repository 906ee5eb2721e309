"""The grader's processes: starting them so that they die with the grader, capping them, killing them.

Every process the grader starts goes through here: nbgrader's commands and
the grading workers (:func:`child_setup`, :func:`stop_process`), a student's
process (autograder/sandbox/student_process.py: :func:`die_with_parent`, :func:`kill_group`),
and the mutation check's forked children (:func:`run_forked`, :class:`ForkPool`).
The rules are the same for all:

* a child dies with the process that started it, even when that one is
  killed with ``kill -9`` (``PR_SET_PDEATHSIG``), so an interrupted batch
  leaves nothing running;
* its address space is capped where autograder/sandbox/limits.py says;
* it is killed with its whole tree: its process group, and every process
  started under it that made a session of its own (a kernel, a sandbox).

>>> run_forked(lambda: {"sum": 1 + 2})
{'sum': 3}
"""

import gc
import json
import os
import resource
import signal
import sys
import tempfile
import time
from pathlib import Path

import threadpoolctl


def die_with_parent():
    """In a child process: be killed when the process that started it dies (even by kill -9)."""
    import ctypes
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def cap_memory(memory_mb):
    """Keep this process's address space under ``memory_mb`` MB (nothing for 0 or None)."""
    if memory_mb:
        cap = int(memory_mb) * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        except (ValueError, OSError):
            pass


def child_setup(memory_mb=None):
    """What a grading process does before it starts (``preexec_fn``): die with the grader, taking its
    sandboxes along, and keep its address space under ``memory_mb`` MB if given."""
    def setup():
        die_with_parent()
        cap_memory(memory_mb)
    return setup


def descendants(pid):
    """Process ids started by ``pid``, directly or not (read from /proc; empty elsewhere)."""
    children = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_group(proc):
    """Kill a :class:`subprocess.Popen` started in a session of its own, with its process group; wait for it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def stop_process(proc):
    """Kill a process we started (an nbgrader run, a grading worker) with its process group and every
    process it started (a kernel or a student's sandbox has a session of its own)."""
    under = descendants(proc.pid)
    for kill in [lambda: os.killpg(proc.pid, signal.SIGKILL)] + [
            (lambda pid=pid: os.kill(pid, signal.SIGKILL)) for pid in under]:
        try:
            kill()
        except ProcessLookupError:
            pass
    proc.wait()


def one_thread_per_library():
    """Numerical libraries use one thread each: forked children share nothing, and cores are few.

    The variables reach the processes started from here; the libraries this
    process has already loaded (numpy's and scipy's BLAS, under pytest or the
    command line) are told through threadpoolctl, since they read the variables
    only when they load. Their threads would otherwise spin beside every
    forked child (three times the CPU of a mutation check, measured).
    """
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    os.environ.setdefault("MPLBACKEND", "Agg")
    threadpoolctl.threadpool_limits(limits=1)


def _fork(work, path, memory_mb):
    """Fork a child that writes ``work()`` as JSON to ``path`` and exits; returns its pid (in the parent)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    # What the parent built (the reference's state; under pytest, every collected test module) is never
    # garbage here: frozen, the child's collections skip it instead of walking, and copying, all of it.
    gc.freeze()
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        die_with_parent()
        cap_memory(memory_mb)
        data = work()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        tmp.rename(path)
    except BaseException:  # noqa: BLE001 (whatever happened, the parent reads "died")
        code = 1
    finally:
        os._exit(code)


def run_forked(work, memory_mb=None):
    """``work()`` in a forked child, so that nothing it changes (numpy, sympy, lib) stays behind here.

    Returns what it returned (a JSON-ready value); raises RuntimeError when the
    child died before it could say.
    """
    folder = Path(tempfile.mkdtemp(prefix="rbd-fork-"))
    path = folder / "result.json"
    try:
        os.waitpid(_fork(work, path, memory_mb), 0)
        if not path.is_file():
            raise RuntimeError("the forked process died before it returned")
        return json.loads(path.read_text())
    finally:
        path.unlink(missing_ok=True)
        folder.rmdir()


class ForkPool:
    """At most ``jobs`` forked children at once, each killed after ``timeout`` seconds.

    Each child runs one piece of work, writes what it returns to a file and
    exits; :attr:`results` maps each key to ``(outcome, value)``, the outcome
    being "ran", "timeout" or "died" (and the value None unless it ran).

    >>> pool = ForkPool(jobs=2, timeout=60, folder=tempfile.mkdtemp())
    >>> pool.start("a", lambda: 1)
    >>> pool.start("b", lambda: os._exit(3))
    >>> pool.wait()
    >>> sorted(pool.results.items())
    [('a', ('ran', 1)), ('b', ('died', None))]
    """

    def __init__(self, jobs, timeout, folder, memory_mb=None):
        self.jobs, self.timeout, self.folder = max(1, jobs), timeout, Path(folder)
        self.memory_mb = memory_mb
        self.running = {}   # pid -> (key, started, file)
        self.results = {}   # key -> (outcome, what the work returned, or None)
        self.seconds = {}   # key -> how long its child ran
        self.count = 0

    def start(self, key, work):
        """Fork a child for ``work`` as soon as fewer than ``jobs`` run."""
        while len(self.running) >= self.jobs:
            self._reap(block=True)
        self.count += 1
        path = self.folder / f"{self.count}.json"
        self.running[_fork(work, path, self.memory_mb)] = (key, time.monotonic(), path)

    def _reap(self, block):
        while True:
            for pid, (key, started, path) in list(self.running.items()):
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done == 0 and time.monotonic() - started > self.timeout:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    self._finish(pid, key, path, "timeout")
                elif done:
                    self._finish(pid, key, path, "ran" if path.is_file() else "died")
            if not block or len(self.running) < self.jobs:
                return
            time.sleep(0.005)

    def _finish(self, pid, key, path, outcome):
        self.seconds[key] = round(time.monotonic() - self.running.pop(pid)[1], 3)
        if outcome == "ran":
            self.results[key] = (outcome, json.loads(path.read_text()))
            path.unlink()
        else:
            self.results[key] = (outcome, None)

    def wait(self):
        """Until every child has ended."""
        while self.running:
            self._reap(block=False)
            time.sleep(0.005)
