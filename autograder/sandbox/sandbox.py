"""Set up the sandbox a student's process runs in (bubblewrap), or say why it cannot be.

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
  (autograder/sandbox/limits.py; autograder/sandbox/confine.py applies them inside).

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
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

from .limits import Limits
from .processes import kill_group

NOGROUP = 65534
WARM_UIDS = 16       # user ids a warm template's children take in turn (autograder/sandbox/template.py)
UID_BASE = 100_000  # each grading worker's sandboxes run under a user id of their own, so that one student's process limit is not that of a student graded at the same time
CONFINE = Path(__file__).resolve().with_name("confine.py")
AUTOGRADER = Path(__file__).resolve().parents[1]   # the whole package, which the student's side is imported from
SYSTEM_LIBRARIES = ("/usr/lib", "/usr/lib64", "/usr/lib32", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache")
UNCONFINED = "for trusted code only, grade without it: python -m autograder grade --no-sandbox ..."
INSTALL = f"install it (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or, {UNCONFINED}"


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
    return sorted({str(d.parent) for d in (_package_dir("lib"), AUTOGRADER) if d})


def allow_list():
    """What the student's process sees, read-only: the interpreter, its standard library, the environment, the code.

    >>> import sys
    >>> sys.base_prefix in allow_list() and sys.prefix in allow_list()
    True
    >>> any(p.endswith("/exercises") or p.endswith("/.git") for p in allow_list())
    False
    """
    found = {sys.base_prefix, sys.prefix, os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    found |= {str(d) for d in (_package_dir("lib"), AUTOGRADER) if d}
    found |= {p for p in SYSTEM_LIBRARIES if os.path.lexists(p)}
    return sorted(found)


def warm_uids(pid=None):
    """The first user id of a worker's warm template's children, and how many there are.

    Apart from every worker's own cold user id (``UID_BASE`` + a process id, below
    ``UID_BASE`` + 2**22, the largest process id Linux allows).
    """
    return UID_BASE + (1 << 22) + WARM_UIDS * (pid or os.getpid()), WARM_UIDS


def _bwrap_command(plan, handshake, limits):
    """The bubblewrap command line for one student's process (see the module's doc)."""
    args = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--unshare-user", "--die-with-parent",
            "--new-session", "--cap-drop", "ALL"]
    if handshake:   # the grader maps the users (root to set up, then the student's), confine.py switches
        info_w, block_r = handshake
        args += ["--userns-block-fd", str(block_r), "--info-fd", str(info_w)]
        caps = ("CAP_SETUID", "CAP_SETGID", "CAP_SYS_RESOURCE")
        if plan.get("template"):   # to give each child its own namespaces, and to end them
            caps += ("CAP_SYS_ADMIN", "CAP_KILL")
        args += [arg for cap in caps for arg in ("--cap-add", cap)]
    else:
        args += ["--disable-userns"]
    args += ["--size", str(limits.tmp_mb * 1024 * 1024), "--perms", "1777", "--tmpfs", "/tmp",
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


def _plan(as_root, fds, limits):
    return {"uid": UID_BASE + os.getpid() if as_root else None, "gid": NOGROUP, "fds": list(fds),
            "limits": limits.student()}


def start_sandboxed(argv, limits=None, template=False, **popen):
    """Start ``argv`` in the sandbox; the :class:`subprocess.Popen` of bubblewrap. Raises OSError if it cannot start.

    ``template``: start the warm template (autograder/sandbox/template.py, autograder/sandbox/warm.py),
    which stays root of the sandbox's namespaces; only when the grader is root.
    """
    limits = limits or Limits.from_environment()
    as_root = os.geteuid() == 0
    if template and not as_root:
        raise OSError("a warm template needs a grader that runs as root")
    if not as_root:   # bubblewrap's own way: the instructor's user id inside the namespaces
        command = _bwrap_command(_plan(False, popen.get("pass_fds", ()), limits), None, limits) + list(argv)
        return subprocess.Popen(command, start_new_session=True, **popen)
    handshake, release = os.pipe(), os.pipe()
    extra = (handshake[1], release[0])
    plan = {"template": True, "fds": list(popen.get("pass_fds", ()))} if template else \
        _plan(True, popen.get("pass_fds", ()), limits)
    command = _bwrap_command(plan, extra, limits) + list(argv)
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
        uid, count = warm_uids() if template else (UID_BASE + os.getpid(), 1)
        with open(f"/proc/{child}/uid_map", "w") as uid_map:
            uid_map.write(f"0 0 1\n{uid} {uid} {count}\n")
        with open(f"/proc/{child}/gid_map", "w") as gid_map:
            gid_map.write(f"0 0 1\n{NOGROUP} {NOGROUP} 1\n")
        os.write(release[1], b"1")
    except (OSError, ValueError, KeyError, TimeoutError) as error:
        kill_group(proc)
        said = proc.stderr.read().decode(errors="replace").strip().splitlines() if proc.stderr else []
        raise OSError(said[-1] if said else f"no word from bubblewrap ({error})") from None
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


@lru_cache(maxsize=1)
def available():
    """Whether the sandbox works here: '' if so, else why not and what to do."""
    if not shutil.which("bwrap"):
        return f"bubblewrap (bwrap) is not installed: {INSTALL}"
    check = (f"import sys; sys.path[:0] = {code_roots()!r}; import importlib.util, autograder.sandbox.student; "
             "assert importlib.util.find_spec('lib'), 'lib is not visible'")
    try:
        probe = start_sandboxed([sys.executable, "-I", "-c", check], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, stderr = probe.communicate(timeout=60)
        if probe.returncode == 0:
            return ""
        lines = stderr.decode(errors="replace").strip().splitlines()
        why = lines[-1][:300] if lines else f"exit status {probe.returncode}"
    except (OSError, subprocess.TimeoutExpired) as error:
        why = str(error)
    hint = (" (user namespaces must be allowed: sysctl user.max_user_namespaces > 0; in a container, a seccomp "
            "profile that permits them, or a VM)" if "namespace" in why.lower() else "")
    return f"bubblewrap cannot make the sandbox here: {why.rstrip('.')}{hint}; {UNCONFINED}"


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
