"""Website build and chapter execution times.

- clean build: a fresh output folder, so every chapter is executed;
- cached rebuild: the same folder again, nothing changed (the execution cache);
- per chapter: the notebook executed alone in a fresh kernel.
"""

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


def _build(out):
    t0 = time.perf_counter()
    subprocess.run([JB, "build", str(ROOT), "--path-output", str(out)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
        rows.append({"benchmark": "book: clean build (every chapter executed)", "value": _build(tmp), "unit": "s",
                     "note": "jupyter-book build, fresh output folder"})
        rows.append({"benchmark": "book: cached rebuild (nothing changed)", "value": _build(tmp), "unit": "s",
                     "note": "execution cache hit"})
    for chapter in sorted((ROOT / "chapters").glob("*.md")):
        rows.append({"benchmark": f"chapter execution: {chapter.stem}", "value": execute_chapter(chapter),
                     "unit": "s", "note": "fresh kernel, nbclient"})
    return rows
