"""Shared test set-up: the grading sandbox, and how the suite is spread over the cores.

Grading refuses to run without its sandbox (bubblewrap, autograder/sandbox/sandbox.py)
unless asked. Where bubblewrap is not installed and not required, the tests
that grade homework to check something else (scores, feedback, the gradebook)
grade the course's own notebooks as ``grade --no-sandbox`` would; the tests of
the sandbox itself (tests/test_adversarial.py) skip. With
``RBD_REQUIRE_SANDBOX=1`` (as in CI) nothing is relaxed: every test grades in
the sandbox, and fails when there is none.

``make test`` runs pytest-xdist, ``-n auto --dist loadgroup``.

The tests are dealt out in groups; a group runs on one worker, in order:

* a file is a group of its own: a module's fixtures are built once, and a
  template chapter's cells (nbval) share one kernel;
* the homework round trips, the mutation check and the copy check of the
  visible tests go by assignment: every test of tests/test_homework.py,
  tests/test_mutants.py and tests/test_giveaways.py whose id names an
  assignment (``[hw03]``, ``[hw03-some-mistake]``) is in that assignment's
  group, ``hw03``, and runs with the others there: its release, its
  ``nbgrader validate`` check, its graded batch and feedback, its mutation
  check and the copies of its visible tests (one pass of the runner,
  tests/mutation_pass.py). The thirteen assignments' groups run beside each other and beside
  the rest (lib, the chapters, the website, the attack corpus, the grading
  worker, PostgreSQL).

Every test that grades (marked ``grading``) grades with worker processes of
its own, one per core; two of them at once put two students per core on the
machine, which the time limits of grading allow for: a cell may take 60 s
(5 s in the attack corpus), and the slowest cell of a right hw01, Part 4's
test cell, takes about 1 s of CPU (BENCHMARKS.md; its imports are loaded
before its clock starts).

xdist 3.8's own ``loadgroup`` reads ``xdist_group`` marks by rewriting node
ids, which pytest 9.2 no longer honours (pytest-xdist issue #1386: every test
would be dealt out alone, a chapter's cells to both workers). So the groups
are computed here from the node ids, by xdist's own scope scheduler.

Each run ends with two reports of where its time went: pytest's thirty
slowest tests (``--durations=30`` in the Makefile) and the groups that took
the most CPU seconds, the figure a busy machine stretches least (below).

Scratch folders, ports and databases are never shared: every test takes its
folders from ``tmp_path``/``tmp_path_factory`` (each xdist worker has a base
folder of its own), the servers (the website, PostgreSQL, Dask, Jupyter
kernels) take a free port the system picks, and every gradebook lives in its
test's folder. A new test module that grades (``autograder grade``, a
``GradingWorker``, ``nbgrader autograde``) belongs in ``GRADING``.
"""

import os
import re
import resource
import shutil

import pytest

if os.environ.get("RBD_REQUIRE_SANDBOX") != "1" and not shutil.which("bwrap"):
    os.environ.setdefault("RBD_NO_SANDBOX", "1")

GRADING = {"test_homework.py", "test_adversarial.py", "test_worker.py", "test_postgres.py", "test_grade_setup.py",
           "test_exchange.py", "test_class.py", "test_formgrader.py", "test_lms_term.py",
           "test_mutants.py"}
BY_ASSIGNMENT = {"test_homework.py", "test_mutants.py", "test_giveaways.py"}
ASSIGNMENT = r"hw\d+"  # an assignment's name, and so its group's
ASSIGNMENT_ID = re.compile(rf"\[({ASSIGNMENT})\b")
CPU_BY_GROUP = pytest.StashKey[dict]()


def group_of(nodeid):
    """The group a test runs in, from its node id (``path::name[params]``).

    >>> group_of("tests/test_lcp.py::test_lemke[2]"), group_of("_build/nbval-template/_template.ipynb::Cell 3")
    ('tests/test_lcp.py', '_build/nbval-template/_template.ipynb')
    >>> group_of("tests/test_homework.py::test_release_fails_every_test[hw02]")
    'hw02'
    >>> group_of("tests/test_homework.py::test_mistake_loses_exactly_its_part[hw11-ddot-sign]")
    'hw11'
    >>> group_of("tests/test_mutants.py::test_declared_equivalents_and_stale_declarations")
    'tests/test_mutants.py'
    """
    path, _, name = nodeid.partition("::")
    found = ASSIGNMENT_ID.search(name)
    if path.rsplit("/", 1)[-1] in BY_ASSIGNMENT and found:
        return found.group(1)
    return path


# long in wall time: the website and the browser, the chapters, and the kit, which mostly waits on the package index
LONG = ("tests/test_site.py", "tests/test_accessibility.py", "tests/test_chapter_cache.py", "tests/test_kit.py",
        "_build/nbval-template/")


def order_of(group, size):
    """Where a group comes in the order the workers take them: those that grade, then the other long ones
    (the website, the chapters, the kit), then the rest; more tests first within each.

    >>> sorted(["tests/test_lcp.py", "_build/nbval-template/_template.ipynb", "hw02", "tests/test_worker.py"],
    ...        key=lambda group: order_of(group, 1))
    ['hw02', 'tests/test_worker.py', '_build/nbval-template/_template.ipynb', 'tests/test_lcp.py']
    """
    grades = re.fullmatch(ASSIGNMENT, group) or group.rsplit("/", 1)[-1] in GRADING
    return (0 if grades else 1 if group.startswith(LONG) else 2, -size)


def pytest_configure(config):
    config.addinivalue_line("markers", "grading: grades with worker processes of its own (tests/conftest.py)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.partition("::")[0].rsplit("/", 1)[-1] in GRADING:
            item.add_marker(pytest.mark.grading)
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup``: xdist's scope scheduler, with ``group_of`` as the scope."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return group_of(nodeid)

        def _assign_work_unit(self, node):
            # the longest groups first, so that no worker is left with a long one at the end
            longest = min(self.workqueue, key=lambda group: order_of(group, len(self.workqueue[group])))
            self.workqueue.move_to_end(longest, last=False)
            super()._assign_work_unit(node)

    return ByGroup(config, log)


# --- where the CPU went ------------------------------------------------------------------------
# Each worker adds up, by group, the CPU seconds (user + system) of its own process and of the
# children it has waited for (grading workers, kernels, nbgrader, Chromium) while running each
# group's tests; the report at the end lists the groups that took the most. CPU seconds are
# what a busy machine stretches least, so runs on different days can be compared by them.
CPU_REPORT_ROWS = 15


def _cpu_seconds():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    started = _cpu_seconds()
    yield
    spent = item.config.stash.setdefault(CPU_BY_GROUP, {})
    group = group_of(item.nodeid)
    spent[group] = spent.get(group, 0.0) + _cpu_seconds() - started


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):  # an xdist worker: hand the sums to the controller
        session.config.workeroutput["cpu_by_group"] = session.config.stash.get(CPU_BY_GROUP, {})


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    spent = node.config.stash.setdefault(CPU_BY_GROUP, {})
    for group, seconds in getattr(node, "workeroutput", {}).get("cpu_by_group", {}).items():
        spent[group] = spent.get(group, 0.0) + seconds


def cpu_report(spent, rows=CPU_REPORT_ROWS):
    """The lines of the report: the total, then the groups that took the most CPU.

    >>> print("\\n".join(cpu_report({"hw01": 120.0, "tests/test_lcp.py": 3.5, "hw02": 80.25}, rows=2)))
    CPU seconds (user + system, tests and the processes they waited for): 203.8 in all
       120.0  hw01
        80.2  hw02
    """
    lines = [f"CPU seconds (user + system, tests and the processes they waited for): {sum(spent.values()):.1f} in all"]
    for group, seconds in sorted(spent.items(), key=lambda kv: -kv[1])[:rows]:
        lines.append(f"{seconds:8.1f}  {group}")
    return lines


def pytest_terminal_summary(terminalreporter, config):
    spent = config.stash.get(CPU_BY_GROUP, {})
    if spent and not hasattr(config, "workeroutput"):
        terminalreporter.section(f"the {min(CPU_REPORT_ROWS, len(spent))} groups that took the most CPU")
        for line in cpu_report(spent):
            terminalreporter.write_line(line)
