"""Inside the sandbox, just before the student's process: drop to the student's user, set the limits, start it.

bubblewrap (see autograder/sandbox/sandbox.py) runs this as ``python -I -S confine.py
PLAN -- COMMAND...`` once the student's filesystem view is in place. When the
grader runs as root, bubblewrap leaves this process as root of the sandbox's
own user namespace (bubblewrap maps a single user; the grader maps two: root,
to set the sandbox up, and the student's user id), and this is where the
process becomes the student's user, with no capabilities left. Otherwise it
already is the instructor's user inside the namespaces. Only the standard
library is used, and no student code exists yet. PLAN is JSON:
``{"uid": n or null, "gid": n, "fds": [descriptors to keep open], "limits": {...}}``
(see :func:`apply_limits`), or, for the warm template (autograder/sandbox/template.py),
``{"template": true, "fds": [...]}``: it stays root of the sandbox's user
namespace, with the capabilities bubblewrap was told to keep, and drops to a
student's user only in each child it forks.
"""

import json
import os
import resource
import sys

WORK = "/tmp/work"   # the student's current and home folder, in the sandbox's private /tmp


def apply_limits(limits):
    """Cap this process (and what it starts): address space, processes, file size, CPU seconds; no core dumps.

    ``limits`` has ``memory_mb``, ``processes``, ``file_mb`` and ``cpu_s``.
    """
    mb = 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_mb"] * mb,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_mb"] * mb,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"],) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu_s"], limits["cpu_s"] + 5))


def main():
    separator = sys.argv.index("--")
    plan, command = json.loads(sys.argv[1]), sys.argv[separator + 1:]
    if plan.get("uid") is not None:
        # Still root of the sandbox's user namespace: forbid namespaces of its own, then become the student.
        with open("/proc/sys/user/max_user_namespaces", "w") as limit:
            limit.write("0")
        uid, gid = int(plan["uid"]), int(plan["gid"])
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)   # from root to another user: every capability is gone
        if os.getuid() != uid or os.geteuid() != uid or os.getgroups():
            sys.exit("confine: could not become the student's user")
    if plan.get("template"):   # root of the namespace, no namespaces of its own; the children drop
        with open("/proc/sys/user/max_user_namespaces", "w") as limit:
            limit.write("0")
    keep = sorted({0, 1, 2, *plan.get("fds", [])})   # the channel to the grader; nothing of bubblewrap's
    for low, high in zip(keep, keep[1:] + [os.sysconf("SC_OPEN_MAX")]):
        os.closerange(low + 1, high)
    if not plan.get("template"):
        os.mkdir(WORK, 0o700)
        os.chdir(WORK)
        os.environ["HOME"] = WORK
        apply_limits(plan["limits"])
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
