"""Inside the sandbox: a warm template that forks one fresh, confined child per student.

Started by autograder/sandbox/warm.py in a sandbox of its own (autograder/sandbox/sandbox.py,
``template=True``): the same allow-list, namespaces and read-only filesystem
as a student's sandbox, but it stays root of the sandbox's user namespace,
with only the capabilities it needs to make each child's namespaces and drop
to the child's user (``CAP_SYS_ADMIN``, ``CAP_SETUID``, ``CAP_SETGID``,
``CAP_SYS_RESOURCE``, ``CAP_KILL``; none of them reaches past the sandbox).
It imports lib, IPython and the assignment's setup modules once, then waits
on its control socket. It never runs student code and is never told anything
about a submission: each request is only the descriptors of a new child's
channel.

For each request, three processes are forked:

* the **keeper** (in the template's process namespace) makes a new process
  namespace for its next child and waits for the child, or for the grader's
  word to end it (the status socket closing or saying so). It then kills the
  child with ``SIGKILL`` and reaps it; the kernel kills every other process of
  that namespace when its first process dies and reaps them all before the
  keeper's ``waitpid`` returns, so when the keeper reports the status,
  nothing the student started, daemons that double-forked or changed their
  session included, is left;
* the **init**, process 1 of that namespace: it makes a mount namespace and an
  IPC namespace of its own (System V shared memory outlives its processes),
  mounts a new, empty, size-limited tmpfs on ``/tmp`` and a
  ``/proc`` that shows only this namespace's processes, then forks the student
  and reaps whatever ends in the namespace until the student ends, and exits
  with the student's status (128 + N for a signal, as bubblewrap reports);
* the **student**: drops to its own unprivileged user id (a different one for
  each child, from the range the grader mapped), which removes every
  capability, closes every descriptor but its channel, makes ``/tmp/work``
  its home, applies the limits, and serves its job (autograder/sandbox/student.py)
  in a copy of the template's memory, with lib, IPython and the setup's
  modules already loaded.

Only the standard library is used here, besides what is imported to warm up.
The command line: ``template.py CONTROL_FD PLAN PRELOAD`` with PLAN JSON
``{"uids": [first, count], "gid": n, "limits": {...}, "tmp_bytes": n}``.
"""

import ctypes
import json
import os
import select
import signal
import socket
import sys
from pathlib import Path

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_REC, MS_PRIVATE = 1 << 14, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
_libc = ctypes.CDLL(None, use_errno=True)


def _check(result, what):
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _mount(source, target, kind, flags, data=None):
    _check(_libc.mount(source.encode(), target.encode(), kind.encode() if kind else None, flags,
                       data.encode() if data else None), f"mount {target}")


def _die_with_parent():
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")


def _student(fds, uid, plan):
    """Process 2 of the child's namespace: become the student's user, confined, and serve the job."""
    from autograder.sandbox.confine import WORK, apply_limits
    from autograder.sandbox.student import Channel, serve
    _die_with_parent()
    gid = int(plan["gid"])
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)   # from root to another user: every capability is gone
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    if os.getuid() != uid or os.geteuid() != uid or os.getgroups() or int(status["CapEff"], 16) != 0:
        os._exit(111)
    _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "prctl")   # its own /proc/self, as after an exec
    quiet = os.open("/dev/null", os.O_RDWR)   # not the template's streams: what one child writes there, no other sees
    for standard in (0, 1, 2):
        os.dup2(quiet, standard)
    os.close(quiet)
    keep = sorted({0, 1, 2, *fds})
    for low, high in zip(keep, keep[1:] + [os.sysconf("SC_OPEN_MAX")]):
        os.closerange(low + 1, high)
    os.mkdir(WORK, 0o700)
    os.chdir(WORK)
    os.environ["HOME"] = WORK
    apply_limits(plan["limits"])
    serve(Channel(*fds))


def _init(fds, uid, plan):
    """Process 1 of the child's namespace: its own /tmp and /proc, then the student, reaped."""
    _die_with_parent()
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare(CLONE_NEWNS | CLONE_NEWIPC)")
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    kept = [(path, os.open(path, os.O_PATH)) for path in plan.get("under_tmp", [])]
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={int(plan['tmp_bytes'])},mode=1777")
    for path, fd in kept:   # what the sandbox showed under /tmp (a checkout there), shown again read-only
        for parent in reversed([*Path(path).parents][:-2]):   # below /tmp, open to the student's user
            if not parent.exists():
                parent.mkdir()
                parent.chmod(0o755)
        if not os.path.lexists(path):   # else it lies inside a folder kept before it
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.mkdir(path)
            else:
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        _mount("none", path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        os.close(fd)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    student = os.fork()
    if student == 0:
        try:
            _student(fds, uid, plan)
            code = 0
        except SystemExit as leaving:
            code = leaving.code if isinstance(leaving.code, int) else 1
        except BaseException:  # noqa: BLE001 (the grader reads a process that ended)
            code = 1
        os._exit(code)
    for fd in fds:
        os.close(fd)
    while True:   # process 1 reaps every orphan of the namespace until the student ends
        pid, status = os.wait()
        if pid == student:
            code = os.waitstatus_to_exitcode(status)
            os._exit(code if code >= 0 else 128 - code)


def _keeper(fds, status_fd, uid, plan):
    """In the template's namespace: start the child's namespace, end it when told, report its status."""
    _die_with_parent()
    _check(_libc.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    init = os.fork()
    if init == 0:
        os.close(status_fd)
        try:
            _init(fds, uid, plan)
        finally:
            os._exit(112)
    for fd in fds:
        os.close(fd)
    watch = os.pidfd_open(init)
    readable, _, _ = select.select([status_fd, watch], [], [])
    if status_fd in readable:   # the grader is done with this child (or gone): end it
        os.kill(init, signal.SIGKILL)
    _, status = os.waitpid(init, 0)   # returns once every process of the namespace is gone
    code = os.waitstatus_to_exitcode(status)
    try:
        os.write(status_fd, f"{code}\n".encode())
    except OSError:
        pass


def main():
    control_fd, plan, preload = int(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
    first, count = plan["uids"]
    from autograder.sandbox.student import warm_up
    warm_up(preload)
    control = socket.socket(fileno=control_fd)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    served = 0
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 64, 3)
        except OSError:
            return
        if not message:
            return   # the grader closed the socket
        while True:   # reap keepers that are done
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        uid = first + served % count
        served += 1
        keeper = os.fork()
        if keeper == 0:
            code = 113
            try:
                control.close()
                _keeper(fds[:2], fds[2], uid, plan)
                code = 0
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    main()
