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


STAGE_AT = ("/mnt", "/media", "/srv")  # an empty, unneeded folder to park mounts on for a moment


def scratch_and_keep(paths, tmp_mb):
    """Give the process fresh, private /tmp, /var/tmp and /dev/shm, and keep ``paths`` visible.

    ``paths`` (the interpreter, the course's environment and code) may lie
    under /tmp (a clone in a temporary folder) or below a folder closed to
    other users (/root): each is bound aside first, then the scratch folders
    and the closed parents are covered by empty ones, then each path is bound
    back where it was (read-only, like everything else, later).
    """
    keeps = sorted({Path(p).resolve() for p in paths}, key=lambda p: len(p.parts))
    stage_root = next(Path(d) for d in STAGE_AT if os.path.isdir(d))
    mount("-t", "tmpfs", "-o", "mode=0700,size=1m", "none", str(stage_root))
    staged = []
    for number, keep in enumerate(keeps):
        stage = stage_root / str(number)
        stage.mkdir()
        mount("--bind", str(keep), str(stage))
        staged.append((stage, keep))
    mount("-t", "tmpfs", "-o", f"mode=1777,size={int(tmp_mb)}m", "none", "/tmp")
    for extra in ("/var/tmp", "/dev/shm"):
        if os.path.isdir(extra):
            mount("-t", "tmpfs", "-o", "mode=1777,size=16m", "none", extra)
    closed = {next((p for p in reversed(keep.parents) if p != Path("/") and p.exists() and not traversable(p)), None)
              for keep in keeps}
    for parent in sorted(p for p in closed if p is not None):
        mount("-t", "tmpfs", "-o", "mode=0755,size=1m", "none", str(parent))
    for stage, keep in staged:
        keep.mkdir(parents=True, exist_ok=True)
        mount("--move", str(stage), str(keep))


def main():
    separator = sys.argv.index("--")
    plan, command = json.loads(sys.argv[1]), sys.argv[separator + 1:]
    scratch_and_keep(plan["keep"], plan["tmp_mb"])
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
