"""Parallel chapter execution into the book's execution cache (_ext/chapter_cache.py).

The pieces first (the hash of lib, the description of a failed cell), then the
executor on two scratch notebooks with real kernels, then a scratch Jupyter
Book built three times: the site must show what the current "lib" computes
after lib changed though the chapter did not, and a failing chapter must stop
the build naming the chapter and the cell.
"""

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from jupyter_cache import get_cache
from myst_nb.core.read import read_myst_markdown_notebook
from nbclient.exceptions import CellExecutionError, CellTimeoutError

REPO = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("chapter_cache", REPO / "_ext" / "chapter_cache.py")
chapter_cache = importlib.util.module_from_spec(spec)
sys.modules["chapter_cache"] = chapter_cache   # as Sphinx imports it: the executor's workers unpickle from it
spec.loader.exec_module(chapter_cache)

HEADER = textwrap.dedent("""\
    ---
    jupytext:
      text_representation:
        extension: .md
        format_name: myst
    kernelspec:
      display_name: Python 3
      language: python
      name: python3
    ---
    """)


def chapter(title, *cells):
    body = "\n".join(f"```{{code-cell}} ipython3\n{c}\n```\n\nSome text.\n" for c in cells)
    return f"{HEADER}\n# {title}\n\n{body}"


GOOD = chapter("Good", "import runpy", 'print("value is", runpy.run_path("deps/value.py")["VALUE"])')
BAD = chapter("Bad", "x = 1", "y = 2\nraise ValueError('boom: the formula is wrong')", "z = 3")


# --- the hash of what the chapters import ------------------------------------------------------
def test_the_hash_follows_every_file_of_lib_and_nothing_else(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.py").write_text("A = 1\n")
    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\n")
    depends = ["lib", "requirements.txt"]
    seen = {chapter_cache.depends_hash(tmp_path, depends)}

    (lib / "__pycache__").mkdir()
    (lib / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0compiled")
    (tmp_path / "notes.md").write_text("not a dependency")
    assert chapter_cache.depends_hash(tmp_path, depends) in seen, "compiled files and other files must not count"

    (lib / "a.py").write_text("A = 2\n")
    edited = chapter_cache.depends_hash(tmp_path, depends)
    states = [*seen, edited]
    for change in (lambda: (lib / "sub").mkdir() or (lib / "sub" / "b.py").write_text("B = 1\n"),
                   lambda: (lib / "sub" / "b.py").rename(lib / "sub" / "c.py"),
                   lambda: (tmp_path / "requirements.txt").write_text("numpy==2.4.7\n")):
        change()
        states.append(chapter_cache.depends_hash(tmp_path, depends))
    assert len(set(states)) == len(states), "an edited, added or renamed file must change the hash"
    (lib / "sub" / "c.py").unlink()
    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\n")
    assert chapter_cache.depends_hash(tmp_path, depends) == edited, "the same files, the same hash"


def test_the_hash_does_not_depend_on_where_the_book_is(tmp_path):
    for place in ("one", "two"):
        (tmp_path / place / "lib").mkdir(parents=True)
        (tmp_path / place / "lib" / "a.py").write_text("A = 1\n")
    assert (chapter_cache.depends_hash(tmp_path / "one", ["lib"])
            == chapter_cache.depends_hash(tmp_path / "two", ["lib"]))


# --- naming the failed cell ---------------------------------------------------------------------
def test_a_failed_cell_is_named_by_number_line_and_error():
    nb = read_myst_markdown_notebook(BAD, add_source_map=True)
    cell = [c for c in nb.cells if c.cell_type == "code"][1]
    error = CellExecutionError.from_cell_and_msg(cell, {
        "ename": "ValueError", "evalue": "boom: the formula is wrong",
        "traceback": ["\x1b[0;31m---------\x1b[0m", "\x1b[0;31mValueError\x1b[0m: boom: the formula is wrong"]})
    text = f"Traceback (most recent call last):\n  File \"x.py\", line 1\n{type(error).__module__}.CellExecutionError: {error}"
    line = BAD.splitlines().index("raise ValueError('boom: the formula is wrong')")  # 0-based: its cell starts a line above
    message = chapter_cache.describe(nb, text)
    assert message.startswith(f"code cell 2 (line {line}) failed: ValueError: boom: the formula is wrong"), message
    assert "raise ValueError" in message and "x = 1" not in message


def test_a_timed_out_cell_is_named_too():
    nb = read_myst_markdown_notebook(BAD, add_source_map=True)
    cell = [c for c in nb.cells if c.cell_type == "code"][2]
    error = CellTimeoutError.error_from_timeout_and_cell("Cell execution timed out", 120, cell)
    message = chapter_cache.describe(nb, f"nbclient.exceptions.CellTimeoutError: {error}")
    assert message.startswith("code cell 3 "), message
    assert "timed out" in message and "120 seconds" in message


def test_a_failure_without_a_traceback_still_says_something():
    assert "no traceback" in chapter_cache.describe(None, "")


# --- the executor, with real kernels --------------------------------------------------------------
@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "deps").mkdir()
    (tmp_path / "deps" / "value.py").write_text("VALUE = 1\n")
    (tmp_path / "good.md").write_text(GOOD)
    (tmp_path / "bad.md").write_text(BAD)
    return tmp_path


def cached_output(cache, path):
    """The printed output of the cached execution of ``path`` (KeyError when it is not in the cache)."""
    nb = read_myst_markdown_notebook(path.read_text(), add_source_map=True, path=str(path))
    record = cache.match_cache_notebook(nb)
    executed = cache.get_cache_bundle(record.pk).nb
    return "".join(o.get("text", "") for c in executed.cells if c.cell_type == "code" for o in c.outputs)


@pytest.mark.slow
def test_execute_caches_the_good_reports_the_bad_and_follows_the_dependencies(scratch, capfd):
    cache_path = scratch / "_build" / ".jupyter_cache"
    log = []
    run = lambda: chapter_cache.execute([scratch / "good.md", scratch / "bad.md"], cache_path, scratch,  # noqa: E731
                                        timeout=120, log=log.append, depends=["deps"])
    failures = run()
    assert list(failures) == [scratch / "bad.md"]
    message, traceback_text = failures[scratch / "bad.md"]
    assert message.startswith("code cell 2 (line ") and "ValueError: boom: the formula is wrong" in message, message
    assert "ValueError" in traceback_text
    cache = get_cache(str(cache_path))
    assert cached_output(cache, scratch / "good.md") == "value is 1\n"
    with pytest.raises(KeyError):
        cached_output(cache, scratch / "bad.md")  # a failed chapter leaves nothing in the cache

    log.clear()
    (scratch / "bad.md").write_text(BAD.replace("raise ValueError('boom: the formula is wrong')", "pass"))
    assert run() == {}
    assert any("executing 1 notebook(s)" in line and "bad" in line for line in log), log  # the good one was cached

    log.clear()
    assert run() == {} and not any("executing" in line for line in log), log  # nothing changed: nothing runs

    (scratch / "deps" / "value.py").write_text("VALUE = 2\n")
    log.clear()
    assert run() == {}
    assert any("dropped" in line for line in log) and any("executing 2 notebook(s)" in line for line in log), log
    assert cached_output(get_cache(str(cache_path)), scratch / "good.md") == "value is 2\n"
    # the kernels were handed CurveZMQ keys (chapter_cache.KERNEL_CONFIG): none warned of plain TCP
    assert "without encryption" not in capfd.readouterr().err


@pytest.mark.slow
def test_the_longest_chapter_starts_first_and_its_time_survives_a_lib_change(scratch):
    """Never executed, a chapter is expected to take as long as its code is long; then as long as it took."""
    cache_path = scratch / "_build" / ".jupyter_cache"
    (scratch / "slow.md").write_text(chapter("Slow", "import time\ntime.sleep(1.5)"))
    (scratch / "bad.md").unlink()
    log = []
    run = lambda: chapter_cache.execute([scratch / "good.md", scratch / "slow.md"], cache_path, scratch,  # noqa: E731
                                        timeout=120, log=log.append, depends=["deps"])
    assert run() == {}
    assert any("the longest first: good, slow" in line for line in log), log  # good.md has the longer code
    cache = get_cache(str(cache_path))
    uris = {Path(r.uri).stem: r.uri for r in cache.list_project_records()}
    expected = chapter_cache.expected_seconds(cache, list(uris.values()))
    assert expected[uris["slow"]] >= 1.5, expected  # what it took, its sleep included

    # The times as recorded decide the order from now on, whatever the machine measured: set them apart.
    from jupyter_cache.cache.db import NbCacheRecord, session_context
    with session_context(cache.db) as session:
        for record in session.query(NbCacheRecord).all():
            record.data = {"execution_seconds": 9.0 if Path(record.uri).stem == "slow" else 1.0}
        session.commit()
    (scratch / "deps" / "value.py").write_text("VALUE = 2\n")
    log.clear()
    assert run() == {}
    assert any("dropped" in line for line in log), log
    assert any("the longest first: slow, good" in line for line in log), log  # as recorded before the drop
    again = {Path(r.uri).stem: r.data["execution_seconds"] for r in cache.list_cache_records()}
    assert chapter_cache.expected_seconds(cache, [uris["slow"]]) == {uris["slow"]: again["slow"]}  # the new time


@pytest.mark.slow
def test_check_executes_only_the_chapters_git_reports_as_changed(scratch, monkeypatch, capsys):
    """What `make check` runs: the chapters changed or new since the last commit, named with the failing cell."""
    (scratch / "_config.yml").write_text("execute:\n  cache: _build/.jupyter_cache\n  timeout: 120\n")
    (scratch / "bad.md").write_text(GOOD)
    git = lambda *args: subprocess.run(["git", *args], cwd=scratch, check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start")
    git("add", "good.md", "bad.md", "deps")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "chapters")
    monkeypatch.chdir(scratch)
    chapters = ["good.md", "bad.md"]

    assert chapter_cache.main(["--changed", *chapters]) == 0
    assert capsys.readouterr().out.strip() == "chapters: none changed"
    assert not (scratch / "_build").exists(), "nothing changed, so nothing was executed"

    (scratch / "bad.md").write_text(BAD)
    (scratch / "new.md").write_text(GOOD)
    assert chapter_cache._changed([scratch / c for c in (*chapters, "new.md")], scratch) == [scratch / "bad.md",
                                                                                              scratch / "new.md"]
    assert chapter_cache.main(["--changed", *chapters]) == 1
    out, err = capsys.readouterr()
    assert "bad.md: code cell 2 (line " in err and "ValueError: boom" in err, err
    assert "chapters: 0 of 1 ran without error (bad.md)" in out, out


# --- a whole (scratch) book ------------------------------------------------------------------------
def build(book):
    return subprocess.run([str(Path(sys.executable).with_name("jupyter-book")), "build", str(book), "--warningiserror"],
                          cwd=book, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_the_book_shows_what_the_current_lib_computes_and_stops_at_a_failing_chapter(scratch):
    (scratch / "bad.md").unlink()
    (scratch / "intro.md").write_text("# Intro\n\nThe scratch book.\n")
    (scratch / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: good\n")
    (scratch / "_config.yml").write_text(textwrap.dedent(f"""\
        title: Scratch
        only_build_toc_files: true
        exclude_patterns: [deps/*]
        execute:
          execute_notebooks: cache
          cache: _build/.jupyter_cache
          timeout: 120
        sphinx:
          local_extensions:
            chapter_cache: {REPO / "_ext"}
          config:
            nb_execution_raise_on_error: true
            chapter_cache_depends: [deps]
        """))
    page = scratch / "_build" / "html" / "good.html"

    first = build(scratch)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "value is 1" in page.read_text()
    assert "executing 1 notebook(s)" in first.stdout and "Using cached notebook" in first.stdout + first.stderr

    (scratch / "deps" / "value.py").write_text("VALUE = 2\n")  # the chapter itself is unchanged
    second = build(scratch)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "value is 2" in page.read_text() and "value is 1" not in page.read_text()

    (scratch / "good.md").write_text(GOOD + "\n```{code-cell} ipython3\n1 / 0\n```\n")
    third = build(scratch)
    output = third.stdout + third.stderr
    assert third.returncode != 0
    assert "good.md: code cell 3 (line " in output and "ZeroDivisionError" in output, output[-3000:]
    assert (scratch / "_build" / "html" / "reports" / "good.err.log").is_file()
