"""The grader's side of the warm template: a sandbox that forks each student's process already warm.

A fresh sandbox per student pays for Python, IPython, numpy, SymPy and lib
again each time (about a second of CPU for homework 1). A grading worker
instead starts one :class:`Template` (autograder/sandbox/template.py) in a sandbox set
up exactly as a student's (autograder/sandbox/sandbox.py), which imports all of that
once and forks a child per student, each in process and mount namespaces of
its own, with a new empty ``/tmp``, under a user id of its own, with the
student's limits. See autograder/THREATS.md for why a child is as isolated
from the one before it as a fresh sandbox would be.

On by default when the grader runs as root (the template needs to map a range
of user ids); ``RBD_WARM_SANDBOX=0`` (``grade --cold``) turns it off, and then
every student gets a fresh sandbox, as without root. When the template cannot
start or dies, the next student gets a fresh sandbox (:func:`child`
returns None), never an unconfined process.
"""

import json
import os
import selectors
import socket
import subprocess
import sys

from .limits import TEMPLATE_END_S
from .processes import kill_group
from .sandbox import allow_list, code_roots, start_sandboxed, warm_uids, NOGROUP


def wanted():
    """Whether students start from a warm template: root, and not turned off (``RBD_WARM_SANDBOX=0``)."""
    return os.environ.get("RBD_WARM_SANDBOX", "1") != "0" and os.geteuid() == 0


class Child:
    """A student's process forked by the template; what the grader needs of a :class:`subprocess.Popen`.

    Its status socket is the keeper's (autograder/sandbox/template.py): closing it or
    :meth:`end` ends the child's whole process namespace; the keeper answers
    with the exit status once nothing of it is left.
    """

    def __init__(self, status, template):
        self.status, self.template, self.returncode = status, template, None
        self.pid = None

    def _read(self, timeout):
        with selectors.DefaultSelector() as selector:
            selector.register(self.status, selectors.EVENT_READ)
            if not selector.select(timeout):
                return False
        try:
            said = self.status.recv(64)
        except OSError:
            said = b""
        try:
            self.returncode = int(said.decode().strip())
        except ValueError:   # the keeper died without a word: its template is gone, and the child with it
            self.returncode = -9
        self.status.close()
        return True

    def poll(self):
        if self.returncode is None:
            self._read(0)
        return self.returncode

    def wait(self, timeout=None):
        if self.returncode is None and not self._read(timeout):
            raise subprocess.TimeoutExpired("a warm child", timeout)
        return self.returncode

    def end(self):
        """Kill the child with everything it started; return once the keeper says all of it is gone."""
        if self.returncode is not None:
            return
        try:
            self.status.send(b"end")
        except OSError:
            pass
        if not self._read(TEMPLATE_END_S):
            self.template.stop()   # the whole sandbox goes, and every child in it
            self.returncode = -9
            self.status.close()


class Template:
    """A warm template in its sandbox (see the module's doc). Raises OSError if it cannot start."""

    def __init__(self, preload, limits, env):
        self.key = (tuple(preload), limits)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        first, count = warm_uids()
        plan = {"uids": [first, count], "gid": NOGROUP, "limits": limits.student(),
                "tmp_bytes": limits.tmp_mb * 1024 * 1024,
                # a checkout or environment under /tmp: each child's new /tmp shows it again, read-only
                "under_tmp": [path for path in allow_list() if path.startswith("/tmp/")]}
        boot = (f"import sys; sys.path[:0] = {code_roots()!r}; from autograder.sandbox.template import main; main()")
        argv = [sys.executable, "-I", "-c", boot, str(theirs.fileno()), json.dumps(plan), json.dumps(list(preload))]
        try:
            self.proc = start_sandboxed(argv, limits, template=True, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        pass_fds=(theirs.fileno(),))
        finally:
            theirs.close()
        self.control = ours

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def fork(self, to_child, from_child):
        """A new child whose channel is these two descriptors (the ends the student's side uses)."""
        mine, keepers = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.control, [b"fork"], [to_child, from_child, keepers.fileno()])
        finally:
            keepers.close()
        return Child(mine, self)

    def stop(self):
        if self.proc is not None:
            self.control.close()
            kill_group(self.proc)
            if self.proc.stderr:
                self.proc.stderr.close()
            self.proc = None


_template = {"current": None, "refused": "", "failures": 0}
TRIES = 2   # templates in a row that fail a child before it says a word: then fresh sandboxes only


def child(preload, limits, env, to_child, from_child):
    """A warm child for the next student, or None (then a fresh sandbox is used) saying why in :func:`refused`."""
    template = _template["current"]
    if template is not None and (template.key != (tuple(preload), limits) or not template.alive()):
        template.stop()
        template = _template["current"] = None
    if template is None:
        if _template["refused"]:
            return None
        try:
            template = _template["current"] = Template(preload, limits, env)
        except OSError as error:
            _template["refused"] = f"the warm template could not start ({error}); each student gets a fresh sandbox"
            return None
    try:
        return template.fork(to_child, from_child)
    except OSError as error:   # the template is gone: this student gets a fresh sandbox, the next a new template
        broken(f"it ended before it forked a child: {error}")
        return None


def broken(why):
    """The template failed a child before any student code ran in it: the next child comes from a new template,
    and after :data:`TRIES` such failures in a row, every student gets a fresh sandbox, saying why."""
    template = _template["current"]
    said = ""
    if template is not None and template.proc is not None:
        try:
            template.proc.wait(timeout=2)   # a template on its way out: let it end, to read why
        except subprocess.TimeoutExpired:
            pass
    if template is not None and template.proc is not None and template.proc.poll() is not None and template.proc.stderr:
        lines = template.proc.stderr.read().decode(errors="replace").strip().splitlines()
        said = f": {lines[-1][:300]}" if lines else ""
    stop()
    _template["failures"] += 1
    if _template["failures"] >= TRIES:
        _template["refused"] = f"the warm template failed ({why}{said}); each student gets a fresh sandbox"


def worked():
    """A child of the template answered: failures are counted afresh."""
    _template["failures"] = 0


def refused():
    """Why the warm template is not used in this process ('' if it is, or has not been tried)."""
    return _template["refused"]


def stop():
    """End the template (and every child it holds)."""
    if _template["current"] is not None:
        _template["current"].stop()
        _template["current"] = None

