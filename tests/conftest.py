"""Shared test set-up: the grading sandbox, and how the suite is spread over the cores.

Grading refuses to run without its sandbox (bubblewrap, autograder/sandbox.py)
unless asked. Where bubblewrap is not installed and not required, the tests
that grade homework to check something else (scores, feedback, the gradebook)
grade the course's own notebooks as ``grade --no-sandbox`` would; the tests of
the sandbox itself (tests/test_adversarial.py) skip. With
``RBD_REQUIRE_SANDBOX=1`` (as in CI) nothing is relaxed: every test grades in
the sandbox, and fails when there is none.

``make test`` runs pytest-xdist, ``-n auto --dist loadgroup``.

The tests are dealt out in groups; a group runs on one worker, in order:

* a file is a group of its own: a module's fixtures are built once, and a
  chapter's cells (nbval) share one kernel;
* the tests that grade with worker processes of their own -- the nbgrader
  round trips, the attack corpus, the grading worker, PostgreSQL with a Dask
  cluster, the mutation check of the homework tests -- form one group (and are marked ``grading``): each of them grades
  on every core, so they run one after another, never two at once, while the
  other worker takes the rest (lib, the chapters, the website);
* the ``nbgrader validate`` checks of the homework round trip grade nothing
  (one kernel each), so they leave that group and run beside it.

xdist 3.8's own ``loadgroup`` reads ``xdist_group`` marks by rewriting node
ids, which pytest 9.2 no longer honours (pytest-xdist issue #1386: every test
would be dealt out alone, a chapter's cells to both workers). So the groups
are computed here from the node ids, by xdist's own scope scheduler.

Scratch folders, ports and databases are never shared: every test takes its
folders from ``tmp_path``/``tmp_path_factory`` (each xdist worker has a base
folder of its own), the servers (the website, PostgreSQL, Dask, Jupyter
kernels) take a free port the system picks, and every gradebook lives in its
test's folder. A new test module that grades (``autograder grade``, a
``GradingWorker``, ``nbgrader autograde``) belongs in ``GRADING``.
"""

import os
import shutil

import pytest

if os.environ.get("RBD_REQUIRE_SANDBOX") != "1" and not shutil.which("bwrap"):
    os.environ.setdefault("RBD_NO_SANDBOX", "1")

GRADING = {"test_homework.py", "test_adversarial.py", "test_worker.py", "test_postgres.py", "test_grade_setup.py",
           "test_mutants.py"}
VALIDATE = {"test_source_passes_nbgrader_validate", "test_release_fails_every_test"}


def group_of(nodeid):
    """The group a test runs in, from its node id (``path::name[params]``).

    >>> group_of("tests/test_lcp.py::test_lemke[2]"), group_of("_build/nbval/01_lagrangian.ipynb::Cell 3")
    ('tests/test_lcp.py', '_build/nbval/01_lagrangian.ipynb')
    >>> group_of("tests/test_worker.py::test_one"), group_of("tests/test_homework.py::test_release_fails_every_test[hw02]")
    ('grading', 'nbgrader-validate')
    """
    path, _, name = nodeid.partition("::")
    if path.rsplit("/", 1)[-1] in GRADING:
        return "nbgrader-validate" if name.split("[")[0] in VALIDATE else "grading"
    return path


def pytest_configure(config):
    config.addinivalue_line("markers", "grading: grades with worker processes of its own (tests/conftest.py)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if group_of(item.nodeid) == "grading":
            item.add_marker(pytest.mark.grading)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup``: xdist's scope scheduler, with ``group_of`` as the scope."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return group_of(nodeid)

    return ByGroup(config, log)
