"""Set up the sandbox from inside fresh namespaces, then drop to an unprivileged user and run the student's process.

Run by :mod:`autograder.sandbox` as ``unshare --mount --pid --fork ... python -m
autograder.confine PLAN -- COMMAND...``, as root inside the new mount
namespace (nothing done here is seen outside it). PLAN is JSON:
``{"hide": [paths], "keep": [paths], "tmp_mb": n}``.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from autograder.sandbox import NOBODY, _limits

SPECIAL = ("/proc", "/sys", "/dev")


def mount(*args):
    subprocess.run(["mount", *args], check=True, capture_output=True)


def traversable(path):
    return bool(os.stat(path).st_mode & 0o001)


def expose(paths):
    """Make ``paths`` reachable for nobody when a parent folder is closed (as /root often is).

    Each closed parent is covered by an empty, open folder, and the needed
    subtrees are bound back into it (read-only, like everything else, later).
    """
    staged, closed = [], set()
    for number, keep in enumerate(sorted({Path(p).resolve() for p in paths})):
        parent = next((p for p in reversed(keep.parents) if p != Path("/") and not traversable(p)), None)
        if parent is None:
            continue
        stage = Path("/tmp/.stage") / str(number)
        stage.mkdir(parents=True)
        mount("--bind", str(keep), str(stage))
        staged.append((stage, keep))
        closed.add(parent)
    for parent in sorted(closed):
        mount("-t", "tmpfs", "-o", "mode=0755,size=1m", "none", str(parent))
    for stage, keep in staged:
        keep.mkdir(parents=True, exist_ok=True)
        mount("--move", str(stage), str(keep))


def main():
    separator = sys.argv.index("--")
    plan, command = json.loads(sys.argv[1]), sys.argv[separator + 1:]
    mount("-t", "tmpfs", "-o", f"mode=1777,size={int(plan['tmp_mb'])}m", "none", "/tmp")
    for extra in ("/var/tmp", "/dev/shm"):
        if os.path.isdir(extra):
            mount("-t", "tmpfs", "-o", "mode=1777,size=16m", "none", extra)
    expose(plan["keep"])
    for secret in plan["hide"]:
        if os.path.isdir(secret):
            mount("-t", "tmpfs", "-o", "mode=0755,size=1m,ro", "none", secret)
        elif os.path.exists(secret):
            mount("--bind", "/dev/null", secret)
    writable = {"/tmp", "/var/tmp", "/dev/shm"}
    points = sorted({line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()})
    for point in points:
        if point in writable or point.startswith(SPECIAL):
            continue
        try:
            mount("-o", "remount,bind,ro", point)
        except subprocess.CalledProcessError:
            if point == "/":
                raise
    uid = int(plan.get("uid", NOBODY))
    work = Path("/tmp/work")
    work.mkdir(mode=0o700)
    os.chown(work, uid, NOBODY)
    os.chmod("/tmp", 0o1777)
    _limits()
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(uid)
    os.chdir(work)
    os.environ["HOME"] = str(work)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
