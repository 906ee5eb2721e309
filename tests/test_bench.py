"""``python -m bench``'s command line: a wrong name is told, not a traceback (the benchmarks themselves are not run)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def bench(*args):
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=REPO, capture_output=True, text=True, timeout=60)


def test_help_lists_the_benchmarks():
    run = bench("--help")
    assert run.returncode == 0 and "benchmarks: book, " in run.stdout and "grading" in run.stdout, run


def test_an_unknown_benchmark_is_named_in_one_line():
    run = bench("grading", "nope")
    assert run.returncode == 2 and run.stdout == "", run
    assert run.stderr.strip().splitlines() == [run.stderr.strip()] and "no benchmark named nope;" in run.stderr
