"""Grading throughput on a generated class of homework 1, against the floor.

A scratch course (hw01 and nbgrader_config.py) is released, then a class of
``RBD_BENCH_CLASS`` submissions (default 200) is generated: a third right, a
third partly right (one or two answers replaced by a committed typical
mistake), a third broken (blank, an endless loop, a crash, a file that is not
a notebook). The class is graded with ``python -m autograder grade`` once with
one worker and once with one worker per core (all submissions each time,
``--force``), both ways side by side in the same run: each student's process
forked from the warm template (autograder/sandbox/warm.py, the default) and a fresh
sandbox per student (``RBD_WARM_SANDBOX=0``), the two interleaved so that the
machine's load falls on both alike. CPU is counted for every process a
grading command starts (this process is their subreaper, so that a sandbox
killed with its worker is still reaped and counted). The floor is plain execution of the reference notebook in a
fresh Jupyter kernel (nbclient), the cost of running the student's code once
with nothing else; a class of right submissions only (a quarter of the class
size, at least 20) compares like for like with it. Every submission is graded
in the sandbox (bubblewrap, autograder/sandbox/sandbox.py): without it the benchmark
stops, as grading does.
"""

import copy
import ctypes
import os
import resource
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

from autograder.course.assignment import Assignment

ROOT = Path(__file__).resolve().parents[1]
CLASS = int(os.environ.get("RBD_BENCH_CLASS", "200"))
# the floor's kernel gets CurveZMQ keys, as the kit's Jupyter gives them (DESIGN.md), so it does not warn
# "Kernel is running over TCP without encryption"
KERNEL_CONFIG = {"KernelManager": {"transport_encryption": "auto"}}


def _autograder(root, *args, env=None):
    subprocess.run([sys.executable, "-m", "autograder", "--root", str(root), *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def _reap_orphans(seconds=30):
    """Wait for the processes that outlived their parent (they were handed to this subreaper), so their CPU counts."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.05)
        except ChildProcessError:
            return


class CpuCount:
    """CPU seconds of this process and everything it starts: a control group of its own where one can be made
    (cgroup v1 cpuacct, or v2), which counts killed sandboxes too; else what the kernel hands back when
    processes are reaped (this process is their subreaper), which misses the ones killed with their parent."""

    def __init__(self):
        self.group, self.how = None, "reaped processes' rusage"
        for base, usage, scale in (("/sys/fs/cgroup/cpuacct", "cpuacct.usage", 1e-9),
                                   ("/sys/fs/cgroup/unified", "cpu.stat", 1e-6), ("/sys/fs/cgroup", "cpu.stat", 1e-6)):
            group = Path(base) / f"rbd-bench-{os.getpid()}"
            try:
                group.mkdir()
                (group / "cgroup.procs").write_text(str(os.getpid()))
                self.group, self.usage, self.scale, self.base = group, group / usage, scale, Path(base)
                self.how = f"a control group of its own ({base})"
                break
            except OSError:
                try:
                    group.rmdir()
                except OSError:
                    pass

    def seconds(self):
        if self.group is not None:
            text = self.usage.read_text()
            value = int(text.split()[1]) if text.startswith("usage_usec") else int(text.split()[0])
            return value * self.scale
        usage = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
        return sum(u.ru_utime + u.ru_stime for u in usage)

    def close(self):
        if self.group is not None:
            (self.base / "cgroup.procs").write_text(str(os.getpid()))
            _reap_orphans(5)
            try:
                self.group.rmdir()
            except OSError:
                pass


def _measured(work, count):
    """(wall seconds, CPU seconds of this process and every process it started) of ``work()``."""
    before = count.seconds()
    t0 = time.perf_counter()
    work()
    elapsed = time.perf_counter() - t0
    _reap_orphans()
    return elapsed, count.seconds() - before


def _class(released, source, folder, only_right=False):
    mistakes = Assignment(ROOT / "exercises" / "hw01" / "hw01.ipynb").mistakes()
    answers = {c.metadata.nbgrader["grade_id"]: "\n".join(l for l in c.source.splitlines() if "SOLUTION" not in l)
               for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")}
    broken = [{}, {"answer-energy": "while True:\n    pass"}, {"answer-acceleration": "import os\nos._exit(1)"}, None]
    rng = random.Random(7)
    for k in range(max(20, CLASS // 4) if only_right else CLASS):
        kind = 0 if only_right else k % 3
        if kind == 0:
            replace = dict(answers)
        elif kind == 1:
            replace = dict(answers)
            for m in rng.sample(mistakes, rng.choice([1, 2])):
                replace[m["cell"]] = m["source"]
        else:
            replace = broken[(k // 3) % len(broken)]
        path = folder / f"student{k:03d}.ipynb"
        if replace is None:
            path.write_text("{ not a notebook")
            continue
        nb = copy.deepcopy(released)
        for cell in nb.cells:
            name = cell.metadata.get("nbgrader", {}).get("grade_id")
            if name in replace:
                cell.source = replace[name]
        nbformat.write(nb, str(path))


def run():
    from autograder.sandbox import sandbox
    problem = sandbox.available()
    if problem:
        raise SystemExit(f"bench grading: the grading sandbox is not available, so nothing can be graded: {problem}")
    source_path = ROOT / "exercises" / "hw01" / "hw01.ipynb"
    source = nbformat.read(source_path, as_version=4)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp) / "course"
        shutil.copytree(ROOT / "exercises" / "hw01", course / "exercises" / "hw01")
        shutil.copy(ROOT / "nbgrader_config.py", course)
        env = dict(os.environ, RBD_GRADEBOOK_URL=f"sqlite:///{course / 'gradebook.db'}", RBD_CELL_TIMEOUT="10")
        _autograder(course, "release", "hw01", env=env)
        released = nbformat.read(course / "release" / "hw01" / "hw01.ipynb", as_version=4)
        folder = Path(tmp) / "class"
        folder.mkdir()
        _class(released, source, folder)
        right = Path(tmp) / "right"
        right.mkdir()
        _class(released, source, right, only_right=True)

        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)   # PR_SET_CHILD_SUBREAPER
        count_cpu = CpuCount()
        try:
            _compare(course, folder, right, source_path, env, rows, count_cpu)
        finally:
            count_cpu.close()
    return rows


def _compare(course, folder, right, source_path, env, rows, count_cpu):
    """The floor, then each class graded both ways, one way right after the other."""
    floors = []
    for _ in range(3):
        nb = nbformat.read(source_path, as_version=4)
        client = NotebookClient(nb, timeout=600, kernel_name="python3", config=Config(KERNEL_CONFIG),
                                resources={"metadata": {"path": str(source_path.parent)}})
        floors.append(_measured(client.execute, count_cpu))
    floor, floor_cpu = sorted(floors)[1]
    rows.append({"benchmark": "hw01: plain execution of the reference, fresh kernel (floor)", "value": floor,
                 "unit": "s", "note": f"nbclient, median of 3; {floor_cpu:.2f} s of CPU ({count_cpu.how})"})
    jobs = os.cpu_count() or 1
    ways = {"warm template": "1", "fresh sandbox": "0"}
    count = len(list(right.iterdir()))
    for folder_, workers, size, what in ((folder, jobs, CLASS, "mixed class"), (right, 1, count, "right")):
        for way, flag in ways.items():
            way_env = dict(env, RBD_WARM_SANDBOX=flag)
            elapsed, cpu = _measured(lambda: _autograder(
                course, "grade", str(folder_), "--assignment", "hw01", "--force", "--jobs", str(workers),
                env=way_env), count_cpu)
            each = elapsed / size
            load = os.getloadavg()[0]
            if what == "mixed class":
                rows.append({"benchmark": f"hw01: class of {size}, {workers} worker(s), {way}",
                             "value": size / elapsed * 60, "unit": "submissions/min",
                             "note": f"{each:.2f} s per submission = {each / floor:.2f}x the floor; "
                                     f"{cpu / size:.2f} s CPU per submission; load {load:.1f}"})
            else:
                rows.append({"benchmark": f"hw01: {size} right submissions, 1 worker, {way}", "value": each,
                             "unit": "s per submission",
                             "note": f"{each / floor:.2f}x the floor (the same notebook run plainly); "
                                     f"{cpu / size:.2f} s CPU per submission; load {load:.1f}"})
