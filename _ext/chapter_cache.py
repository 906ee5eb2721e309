"""Execute the chapters in parallel into Jupyter Book's execution cache, before Sphinx reads them.

myst-nb (``execute_notebooks: cache``) executes a chapter whose outputs are not
in the jupyter-cache while Sphinx reads it, so the chapters run one after
another. This extension runs first: when Sphinx has worked out which pages it
will read (``env-before-read-docs``), the notebooks among them that have no
cached outputs are executed by jupyter-cache's own parallel executor, one per
core, into the same cache. myst-nb then finds every chapter there and only
reads it.

The cache keys a notebook on its code cells only, so a change in ``lib`` would
leave every chapter's outputs stale. The sources the chapters import (the
``chapter_cache_depends`` paths: ``lib/`` and ``requirements.txt``) are hashed;
the hash is kept in the cache's settings table, and when it differs every
cached notebook is dropped before anything is executed. Sphinx re-reads every
notebook page in that case too (``env-get-outdated``), so the site shows what
the current lib computes.

The longest chapters are started first, so that no core waits alone for a
long one at the end: a chapter is expected to take as long as its last
execution (the seconds jupyter-cache records with each cached notebook, kept
in the settings table when the cache is dropped), or, never executed, one
second per 3000 characters of code.

A chapter that fails stops the build with the chapter, the cell (its number
among the code cells and its line in the source) and the error; the whole
traceback is written to ``<outdir>/reports/<page>.err.log``, where myst-nb
writes its own.

The same step runs without Sphinx, for ``make check``:

    python _ext/chapter_cache.py [--changed] CHAPTER.md ...

executes the chapters given (with ``--changed``, only those git reports as
changed or new) into the cache ``_config.yml`` names, with its timeout.
"""

import argparse
import fnmatch
import hashlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

DEPENDS = ["lib", "requirements.txt"]
HASH_KEY = "course_depends_sha256"  # a key of jupyter-cache's settings table (36 characters at most)
SECONDS_KEY = "course_execution_seconds"  # {uri: seconds of its last execution}, kept when the cache is dropped
CODE_CHARACTERS_PER_SECOND = 3000  # a chapter never executed: its code's length, at what the chapters take
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Each chapter's kernel is handed CurveZMQ keys, as the kit's jupyter_config.json has Jupyter do (DESIGN.md):
# ipykernel warns "Kernel is running over TCP without encryption" otherwise. nbclient reads no config file.
KERNEL_CONFIG = {"KernelManager": {"transport_encryption": "auto"}}
# nbclient's messages quote the cell: a failing cell in full, a timed-out one as a preview.
QUOTED_CELL = re.compile(r"(?:following cell:|preview of the cell contents:)\n-{10,}\n(.*?)\n-{10,}\n", re.DOTALL)


try:
    from sphinx.errors import SphinxError
except ImportError:  # the command line needs no Sphinx
    SphinxError = Exception


class ChapterExecutionError(SphinxError):
    """A chapter raised, timed out or could not be executed."""

    category = "Chapter execution failed"


def depends_hash(root, depends=DEPENDS):
    """SHA-256 of the files the chapters' outputs depend on besides their own code.

    Paths are relative to ``root``; a folder counts with every file in it
    (compiled files aside), so an added, removed or edited module changes it
    (tests/test_chapter_cache.py).
    """
    root = Path(root)
    digest = hashlib.sha256()
    for name in depends:
        top = root / name
        files = sorted(top.rglob("*")) if top.is_dir() else [top]
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
            elif not path.exists():
                digest.update(str(path.relative_to(root)).encode() + b"\0missing\0")
    return digest.hexdigest()


def follow_depends(cache, current, log):
    """Drop every cached notebook when the hash of the chapters' dependencies has changed."""
    from jupyter_cache.cache.db import Setting

    if Setting.get_value(HASH_KEY, cache.db, "") == current:
        return
    record_seconds(cache)  # the order of the next executions still knows how long each one took
    records = cache.list_cache_records()
    for record in records:
        try:
            cache.remove_cache(record.pk)
        except KeyError:  # the notebook file is gone already: drop the record alone
            from jupyter_cache.cache.db import NbCacheRecord
            NbCacheRecord.remove_records([record.pk], cache.db)
    if records:
        log(f"lib or requirements.txt changed: the cached outputs of {len(records)} notebook(s) are dropped")
    Setting.set_value(HASH_KEY, current, cache.db)


def record_seconds(cache):
    """Keep the execution seconds of every cached notebook in the settings table; returns {uri: seconds}."""
    from jupyter_cache.cache.db import Setting

    seconds = dict(Setting.get_value(SECONDS_KEY, cache.db, {}) or {})
    for record in sorted(cache.list_cache_records(), key=lambda r: r.created):  # the latest execution wins
        if isinstance((record.data or {}).get("execution_seconds"), (int, float)):
            seconds[record.uri] = float(record.data["execution_seconds"])
    Setting.set_value(SECONDS_KEY, seconds, cache.db)
    return seconds


def expected_seconds(cache, uris):
    """{uri: seconds} each notebook is expected to take: its last execution, else from the length of its code."""
    seconds = record_seconds(cache)
    expected = {}
    for uri in uris:
        if uri in seconds:
            expected[uri] = seconds[uri]
            continue
        try:
            cells = cache.get_project_notebook(uri).nb.cells
        except Exception:  # unreadable: it fails soon anyway
            cells = []
        expected[uri] = sum(len(c.source) for c in cells if c.cell_type == "code") / CODE_CHARACTERS_PER_SECOND
    return expected


def describe(nb, traceback_text):
    """Which cell failed and how, from a failed execution's traceback (the chapter is named by the caller)."""
    text = ANSI.sub("", traceback_text or "")
    quoted = QUOTED_CELL.search(text)
    where = "a cell"
    source = quoted.group(1) if quoted else ""
    if nb is not None and source:
        code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
        first = source.strip().splitlines()[0] if source.strip() else ""
        match = ([k for k, (_, c) in enumerate(code) if c.source == source]
                 or [k for k, (_, c) in enumerate(code) if first and c.source.strip().startswith(first.strip("[]'\""))])
        if match:
            index, cell = code[match[0]]
            where = f"code cell {match[0] + 1}"
            lines = nb.metadata.get("source_map")
            if lines and index < len(lines):
                where += f" (line {lines[index] + 1})"
            source = cell.source
    lines = [l for l in text.strip().splitlines() if l.strip()]
    error = next((l.strip() for l in reversed(lines) if re.match(r"^\w*(Error|Exception|Interrupt|Exit)\b", l.strip())),
                 lines[-1].strip() if lines else "no traceback was recorded (see the log above)")
    if "timed out" in text:
        error = next((l.strip() for l in lines if "timed out" in l), error)
    quoted_source = "\n".join("    " + l for l in source.strip().splitlines()[:12])
    return f"{where} failed: {error}" + (f"\n{quoted_source}" if quoted_source else "")


def _execute_one(project_nb, data, in_temp):
    """jupyter-cache's execution of one notebook (its ``ExecutionWorker*MProc.execute``), with KERNEL_CONFIG."""
    import tempfile

    from jupyter_cache.executors.utils import copy_assets, single_nb_execution
    from traitlets.config import Config

    def execute(cwd):
        return single_nb_execution(project_nb.nb, cwd=cwd, timeout=data.timeout, allow_errors=data.allow_errors,
                                   config=Config(KERNEL_CONFIG))
    if not in_temp:
        return execute(str(Path(project_nb.uri).parent))
    with tempfile.TemporaryDirectory() as cwd:
        copy_assets(project_nb.uri, project_nb.assets, cwd)
        return execute(cwd)


try:   # module-level, so that the pool's workers can unpickle them
    from jupyter_cache.executors.basic import ExecutionWorkerLocalMProc, ExecutionWorkerTempMProc

    class _InPlace(ExecutionWorkerLocalMProc):
        execute = staticmethod(lambda project_nb, data: _execute_one(project_nb, data, False))

    class _InTemp(ExecutionWorkerTempMProc):
        execute = staticmethod(lambda project_nb, data: _execute_one(project_nb, data, True))
except ImportError:   # no jupyter-cache: nothing is executed here
    pass


def _executor(in_temp, expected=None):
    """jupyter-cache's parallel executor, handing the notebooks out one at a time, the longest first.

    Its ``run_and_cache`` uses ``Pool.map``, which deals ten notebooks to two
    processes in chunks of two, so one core can sit idle while the other runs
    the last two chapters; ``imap_unordered`` with chunks of one keeps both
    busy, and the work list is in decreasing order of ``expected`` seconds
    ({uri: seconds}), so the short ones fill the gaps at the end. The workers
    (execute, cache, record the traceback) are jupyter-cache's.
    """
    expected = expected or {}
    import multiprocessing

    from jupyter_cache.executors.base import ExecutorRunResult
    from jupyter_cache.executors.basic import (REPORT_LEVEL, JupyterExecutorLocalMproc, JupyterExecutorTempMproc,
                                               ProcessData)

    class OneAtATime(JupyterExecutorTempMproc if in_temp else JupyterExecutorLocalMproc):
        _EXECUTION_WORKER = _InTemp if in_temp else _InPlace

        def run_and_cache(self, *, filter_uris=None, filter_pks=None, timeout=30, allow_errors=False, force=False):
            records = self.get_records(filter_uris, filter_pks, clear_tracebacks=True, force=force)
            records = sorted(records, key=lambda r: (-expected.get(r.uri, 0.0), r.uri))
            work = [ProcessData(r.pk, r.uri, self.cache, timeout, allow_errors) for r in records]
            if not work:
                return ExecutorRunResult()
            multiprocessing.log_to_stderr(REPORT_LEVEL)  # one line per notebook started and finished
            with multiprocessing.Pool(min(len(work), os.cpu_count() or 1)) as pool:
                results = list(pool.imap_unordered(self._EXECUTION_WORKER(), work, chunksize=1))
            return ExecutorRunResult(succeeded=[uri for code, uri in results if code == 0],
                                     excepted=[uri for code, uri in results if code == 1],
                                     errored=[uri for code, uri in results if code == 2])

    return OneAtATime


def execute(paths, cache_path, root, *, timeout=120, allow_errors=False, in_temp=False, log=print,
            notebooks=None, depends=DEPENDS):
    """Execute the notebooks among ``paths`` that are not in the cache, one per core.

    ``notebooks`` maps a path to its jupyter-cache reader (``read_data``); by
    default a ``.md`` file is read as a MyST notebook and anything else as
    ``.ipynb``. Returns ``{path: description}`` for the notebooks that failed
    (and writes nothing for them into the cache).
    """
    from jupyter_cache import get_cache
    from jupyter_cache.cache.db import NbProjectRecord

    cache = get_cache(str(cache_path))
    follow_depends(cache, depends_hash(root, depends), log)
    notebooks = notebooks or {p: None for p in paths}
    uris = {}
    for path, read_data in notebooks.items():
        if read_data is None:
            read_data = ({"name": "myst_nb_md", "type": "plugin"} if str(path).endswith(".md")
                         else {"name": "nbformat", "type": "plugin"})
        record = cache.add_nb_to_project(str(path), read_data=read_data)
        if record.read_data != read_data:  # added earlier with another reader: replace it
            cache.remove_nb_from_project(record.uri)
            record = cache.add_nb_to_project(str(path), read_data=read_data)
        uris[record.uri] = path
    pending = cache.list_unexecuted(filter_uris=list(uris))
    if not pending:
        return {}
    expected = expected_seconds(cache, [r.uri for r in pending])
    pending = sorted(pending, key=lambda r: (-expected[r.uri], r.uri))
    names = ", ".join(Path(r.uri).stem for r in pending)
    log(f"executing {len(pending)} notebook(s), {min(len(pending), os.cpu_count() or 1)} at a time, "
        f"the longest first: {names}")
    started = time.perf_counter()
    result = _executor(in_temp, expected)(cache).run_and_cache(filter_uris=[r.uri for r in pending], timeout=timeout,
                                                     allow_errors=allow_errors)
    log(f"{len(result.succeeded)} of {len(pending)} notebook(s) executed and cached in "
        f"{time.perf_counter() - started:.1f} s")
    record_seconds(cache)
    failures = {}
    for uri in result.excepted + result.errored:
        path = uris[uri]
        try:
            nb = cache.get_project_notebook(uri).nb
        except Exception:  # the notebook cannot even be read: the traceback says why
            nb = None
        traceback_text = NbProjectRecord.record_from_uri(uri, cache.db).traceback or ""
        failures[path] = (describe(nb, traceback_text), traceback_text)
    return failures


# --- the Sphinx extension --------------------------------------------------------------------------
def _notebook_docs(app, env, docnames):
    """docname -> (path, notebook as myst-nb reads it, its reader) for the pages myst-nb executes."""
    from myst_nb.core.read import create_nb_reader

    config = env.mystnb_config
    found = {}
    for docname in docnames:
        path = Path(env.doc2path(docname))
        if any(fnmatch.fnmatch(str(path), pattern) or fnmatch.fnmatch(docname, pattern)
               for pattern in config.execution_excludepatterns):
            continue
        text = path.read_text(encoding="utf8")
        reader = create_nb_reader(str(path), env.myst_config, config, text)
        if reader is None:
            continue
        nb = reader.read(text)
        if nb.metadata.get(config.metadata_key, {}).get("execution_mode", "cache") != "cache":
            continue
        found[docname] = (path, nb, reader.read_fmt)
    return found


def _depends(app):
    if not hasattr(app, "_chapter_cache_hash"):
        app._chapter_cache_hash = depends_hash(app.srcdir, app.config.chapter_cache_depends)
    return app._chapter_cache_hash


def reread_after_lib_change(app, env, added, changed, removed):
    """Every notebook page is read again when lib (or requirements.txt) changed since the last build."""
    current = _depends(app)
    if getattr(env, "chapter_cache_depends", None) == current:
        return []
    env.chapter_cache_depends = current
    if getattr(env.mystnb_config, "execution_mode", None) != "cache":
        return []
    return sorted(_notebook_docs(app, env, sorted(env.found_docs - set(added) - set(changed))))


def execute_before_reading(app, env, docnames):
    from sphinx.util import logging as sphinx_logging
    from sphinx.util.console import bold

    config = env.mystnb_config
    if config.execution_mode != "cache" or not docnames:
        return
    logger = sphinx_logging.getLogger(__name__)
    docs = _notebook_docs(app, env, docnames)
    if not docs:
        return
    by_path = {path: docname for docname, (path, _, _) in docs.items()}
    failures = execute(list(by_path), config.execution_cache_path, app.srcdir,
                       timeout=config.execution_timeout, allow_errors=config.execution_allow_errors,
                       in_temp=config.execution_in_temp, depends=app.config.chapter_cache_depends,
                       notebooks={path: read_fmt for path, _, read_fmt in docs.values()},
                       log=lambda message: logger.info(bold("chapter_cache: ") + message))
    if failures:
        messages = []
        for path, (message, traceback_text) in sorted(failures.items()):
            report = Path(app.outdir, "reports", *(by_path[path] + ".err.log").split("/"))
            report.parent.mkdir(parents=True, exist_ok=True)
            report.write_text(ANSI.sub("", traceback_text), encoding="utf8")
            messages.append(f"{Path(path).relative_to(app.srcdir)}: {message}\n    (whole traceback: {report})")
        raise ChapterExecutionError("\n".join(messages))
    # myst-nb matches a page to the cache by its own reading of it: check that it will find each one.
    from jupyter_cache import get_cache

    cache = get_cache(config.execution_cache_path)
    for docname, (path, nb, _) in docs.items():
        try:
            cache.match_cache_notebook(nb)
        except KeyError:
            logger.warning(f"chapter_cache: {docname} was executed but myst-nb will not find it in the cache "
                           "(its reading differs); it will be executed again, serially")


def setup(app):
    app.add_config_value("chapter_cache_depends", DEPENDS, "env")
    app.connect("env-get-outdated", reread_after_lib_change)
    app.connect("env-before-read-docs", execute_before_reading)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --- without Sphinx (make check) -------------------------------------------------------------------
def _changed(paths, root):
    """The paths git reports as modified, added or untracked (all of them outside a git checkout)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    try:
        top = git("rev-parse", "--show-toplevel").strip()  # porcelain paths are relative to it
        out = git("status", "--porcelain", "--untracked-files=all", "--", *map(str, paths))
    except (OSError, subprocess.CalledProcessError):
        return list(paths)
    changed = {Path(top, line[3:].split(" -> ")[-1].strip('"')).resolve() for line in out.splitlines()}
    return [p for p in paths if Path(p).resolve() in changed]


def main(argv=None):
    import yaml

    parser = argparse.ArgumentParser(description="Execute chapters in parallel into the book's execution cache.")
    parser.add_argument("chapters", nargs="*", type=Path)
    parser.add_argument("--changed", action="store_true", help="only the chapters git reports as changed or new")
    args = parser.parse_args(argv)
    root = Path.cwd()
    config = yaml.safe_load((root / "_config.yml").read_text()).get("execute", {})
    chapters = [p.resolve() for p in args.chapters]
    if missing := [str(p) for p in chapters if not p.is_file()]:
        parser.error(f"no such chapter: {', '.join(missing)}")
    if args.changed:
        chapters = _changed(chapters, root)
    if not chapters:
        print("chapters: none changed")
        return 0
    failures = execute(chapters, config.get("cache") or "_build/.jupyter_cache", root,
                       timeout=config.get("timeout", 30), allow_errors=config.get("allow_errors", False),
                       in_temp=config.get("run_in_temp", False))
    for path, (message, _) in sorted(failures.items()):
        print(f"{Path(path).relative_to(root) if Path(path).is_relative_to(root) else path}: {message}",
              file=sys.stderr)
    names = ", ".join(p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p) for p in chapters)
    print(f"chapters: {len(chapters) - len(failures)} of {len(chapters)} ran without error ({names})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
