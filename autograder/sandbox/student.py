"""The student's side: run a submission's cells, then answer the judge's questions.

Started by :mod:`autograder.sandbox.sandbox` inside the sandbox (its own filesystem
view, an unprivileged user, resource limits), with the modules the
assignment's setup imports (a JSON list) to load while it waits for its job.
It speaks the wire format (autograder/sandbox/wire.py: one JSON object a line) on
the descriptors it was started with; the cells' own prints and errors go to
per-cell captures, never to that channel. It reads one job:

    {"cells": [[index, source], ...], "cell_timeout": seconds, "output_chars": n, "workdir": path}

runs the cells in order in one IPython shell (so magics work), reporting
``{"cell": index}`` before each and ``{"done": index, "stdout": ..., "error": ...}``
after it, then ``{"ready": true}``. Then it answers requests until the channel
closes:

    {"op": "get", "name": n}                         -> {"ok": value} or {"callable": true}
    {"op": "call", "name": n, "args": [...], "kwargs": {...}, "without_lib": [...]}
                                                      -> {"ok": value} or {"error": "Type: message"}

Whatever this process says is only data to the judge: it can be wrong, never
trusted (see autograder/THREATS.md).
"""

import builtins
import importlib
import io
import json
import os
import signal
import sys
import warnings

from autograder.sandbox import wire
from autograder.sandbox.limits import Limits


class CellTimeout(BaseException):
    """Raised in the student's code when a cell runs past its limit."""


class Capped(io.TextIOBase):
    """A text sink that keeps the first ``limit`` characters and counts the rest."""

    limit = Limits.output_chars   # the job's output_chars

    def __init__(self):
        self.parts, self.size, self.dropped = [], 0, 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def text(self):
        tail = f"\n... {self.dropped} more characters of output were cut\n" if self.dropped else ""
        return "".join(self.parts) + tail


class Channel:
    """The line to the judge: messages in the wire format (autograder/sandbox/wire.py)."""

    def __init__(self, fd_in, fd_out):
        self.reader = os.fdopen(fd_in, "rb", closefd=True)
        self.fd_out = fd_out
        self.pid = os.getpid()

    def send(self, message):
        if os.getpid() != self.pid:  # a child the student's code forked came back here: it has nothing to say
            os._exit(0)
        view = memoryview(wire.pack(message))
        while view:
            view = view[os.write(self.fd_out, view):]

    def receive(self):
        line = self.reader.readline()
        return wire.unpack(line) if line else None


def _describe(error):
    return f"{type(error).__name__}: {error}"[:2000]


def _run_cell(shell, source, timeout):
    """Run one cell; returns (stdout text, error text or '')."""
    out, err = Capped(), Capped()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err

    def expire(signum, frame):
        raise CellTimeout(f"the cell ran past its {timeout} s limit and was stopped")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    error = ""
    try:
        result = shell.run_cell(source, store_history=False, silent=False)
        failure = result.error_before_exec or result.error_in_exec
        if failure is not None:
            error = _describe(failure)
    except CellTimeout as stop:
        error = f"CellTimeout: {stop}"
    except BaseException as failure:  # noqa: BLE001 (anything the cell throws is the cell's error)
        error = _describe(failure)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout, sys.stderr = saved
    return out.text() + err.text(), error


def answer(shell, request, timeout, switch):
    """The reply to one request of the tests' side (autograder/grading/examiner.py): a value, or a call of a
    function."""
    namespace = shell.user_ns
    name = request.get("name")
    if not isinstance(name, str) or name not in namespace:
        return {"error": f"NameError: name '{name}' is not defined (run the cell that defines it)"}
    value = namespace[name]
    if request.get("op") == "get":
        if callable(value) and not isinstance(value, type) and not hasattr(value, "free_symbols"):
            return {"callable": True}
        return {"ok": wire.encode(value)}
    args = wire.decode(request.get("args", []))
    kwargs = wire.decode(request.get("kwargs", {}))

    def expire(signum, frame):
        raise CellTimeout(f"{name}(...) ran past the {timeout} s limit and was stopped")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    sink = Capped()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = sink
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with switch.off(*request.get("without_lib", [])):
                result = value(*args, **kwargs)
        return {"ok": wire.encode(result)}
    except BaseException as failure:  # noqa: BLE001
        return {"error": _describe(failure)}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout, sys.stderr = saved


def warm_up(preload):
    """Load what every submission needs, before any student code exists: lib, IPython, the setup's modules."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import lib.homework  # noqa: F401
    import IPython.core.interactiveshell  # noqa: F401
    for module in preload:  # what the assignment's setup cell imports (the instructor's list, not the student's)
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 (the setup cell will report it)
            pass


def serve(channel):
    """Take one job on ``channel``, run its cells, then answer requests until the channel closes."""
    from lib.homework import LibSwitch
    switch = LibSwitch()  # lib as it is before any student code: what that code does to lib.homework changes nothing

    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance(colors="NoColor")
    job = channel.receive()
    if job is None:
        return
    os.chdir(job["workdir"])
    builtins.input = lambda prompt="": (print(f"{prompt}[input() is not available while grading]"), "")[1]
    timeout = float(job["cell_timeout"])
    Capped.limit = int(job.get("output_chars", Capped.limit))
    for index, source in job["cells"]:
        channel.send({"cell": index})
        stdout, error = _run_cell(shell, source, timeout)
        channel.send({"done": index, "stdout": stdout, "error": error})
    channel.send({"ready": True})
    while (request := channel.receive()) is not None:
        try:
            reply = answer(shell, request, timeout, switch)
        except BaseException as failure:  # noqa: BLE001
            reply = {"error": _describe(failure)}
        try:
            channel.send(reply)
        except wire.WireError as failure:  # not JSON-able, or too large: say so rather than die
            channel.send({"error": f"the result could not be sent: {failure}"})


def main():
    fd_in, fd_out = int(sys.argv[1]), int(sys.argv[2])
    preload = json.loads(sys.argv[3]) if len(sys.argv) > 3 else []
    channel = Channel(fd_in, fd_out)
    # Everything here happens before any student code exists in this process, so a process
    # can be started ahead of time and wait, ready, for the submission it will be given.
    warm_up(preload)
    serve(channel)

if __name__ == "__main__":
    main()
