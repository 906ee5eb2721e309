"""Website build and chapter execution times.

All builds use a copy of the book's sources (without _build/, so without the
project's execution cache), built in that copy, as on a fresh clone:

- clean build, serial: the chapters executed one after another by myst-nb
  while Sphinx reads them (the copy's _config.yml without the chapter_cache
  extension: how the book was built before);
- clean build, parallel: the chapters executed one per core into the cache
  first (_ext/chapter_cache.py), then read from it;
- rebuild with nothing changed (the execution cache and Sphinx's environment);
- rebuild after one chapter's code changed (only that chapter runs);
- rebuild after lib changed (every chapter runs again, in parallel);
- per chapter: the notebook executed alone in a fresh kernel.

The serial and the parallel clean build run back to back, so they see the
same load; the load average and the CPU seconds of each build (its processes
and theirs) are noted beside it: on a busy machine the wall time grows, the CPU
time much less.
"""

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jupytext
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
JB = str(Path(sys.executable).with_name("jupyter-book"))
EXTENSION_LINE = "    chapter_cache: _ext\n"


def _cpu():
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return children.ru_utime + children.ru_stime


def _build(source, note):
    """One build of ``source``: a row's value (wall seconds) and its note (the CPU seconds and the load)."""
    load = "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    t0, cpu0 = time.perf_counter(), _cpu()
    subprocess.run([JB, "build", str(source)], check=True, cwd=source,  # the cache path is relative to the cwd
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return {"value": time.perf_counter() - t0, "unit": "s", "note": f"{note}; CPU {_cpu() - cpu0:.0f} s; {load}"}


def _copy(folder):
    source = Path(folder) / "book"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "_build", "autograded", "submitted", "feedback", "gradebook.db", "__pycache__"))
    return source


def execute_chapter(path):
    """Seconds to execute one chapter in a fresh kernel."""
    nb = jupytext.read(path)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return time.perf_counter() - t0


def run():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        serial = _copy(Path(tmp) / "serial")
        config = serial / "_config.yml"
        assert EXTENSION_LINE in config.read_text(), "the chapter_cache extension is not where bench/book.py expects it"
        config.write_text(config.read_text().replace(EXTENSION_LINE, ""))
        rows.append({"benchmark": "book: clean build, chapters executed serially",
                     **_build(serial, "myst-nb executes each chapter while Sphinx reads it (before)")})
        shutil.rmtree(serial)

        source = _copy(Path(tmp) / "parallel")
        rows.append({"benchmark": "book: clean build, chapters executed in parallel",
                     **_build(source, f"_ext/chapter_cache.py, {os.cpu_count()} at a time")})
        rows.append({"benchmark": "book: rebuild, nothing changed", **_build(source, "execution cache hit")})
        chapter = source / "chapters" / "04_constrained_dynamics.md"
        chapter.write_text(chapter.read_text() + "\n```{code-cell} ipython3\n1 + 1\n```\n")
        rows.append({"benchmark": "book: rebuild, one chapter's code changed",
                     **_build(source, "chapter 4 executed again")})
        with open(source / "lib" / "__init__.py", "a") as f:
            f.write("\n# changed\n")
        rows.append({"benchmark": "book: rebuild, lib changed", **_build(source, "every chapter executed again")})
    for chapter in sorted((ROOT / "chapters").glob("*.md")):
        rows.append({"benchmark": f"chapter execution: {chapter.stem}", "value": execute_chapter(chapter),
                     "unit": "s", "note": "fresh kernel, nbclient"})
    return rows
