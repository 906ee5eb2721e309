"""Website build and chapter execution times.

- clean build: a copy of the book's sources (without _build/, so without
  the project's execution cache) built into a fresh folder: every chapter
  is executed, as on a fresh clone;
- cached rebuild: the same copy again, nothing changed (the execution cache);
- per chapter: the notebook executed alone in a fresh kernel.
"""

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
JB = str(Path(sys.executable).with_name("jupyter-book"))


def _build(source, out):
    t0 = time.perf_counter()
    subprocess.run([JB, "build", str(source), "--path-output", str(out)], check=True, cwd=source,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # the cache path is relative to the cwd
    return time.perf_counter() - t0


def execute_chapter(path):
    """Seconds to execute one chapter in a fresh kernel."""
    nb = jupytext.read(path)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return time.perf_counter() - t0


def run():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # The execution cache lives under _build/ (_config.yml): a copy without it starts cold.
        source = Path(tmp) / "book"
        shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
            ".git", ".venv", "_build", "autograded", "submitted", "feedback", "gradebook.db", "__pycache__"))
        out = Path(tmp) / "out"
        rows.append({"benchmark": "book: clean build (every chapter executed)", "value": _build(source, out),
                     "unit": "s", "note": "jupyter-book build of a copy without the execution cache"})
        rows.append({"benchmark": "book: cached rebuild (nothing changed)", "value": _build(source, out),
                     "unit": "s", "note": "execution cache hit"})
    for chapter in sorted((ROOT / "chapters").glob("*.md")):
        rows.append({"benchmark": f"chapter execution: {chapter.stem}", "value": execute_chapter(chapter),
                     "unit": "s", "note": "fresh kernel, nbclient"})
    return rows
