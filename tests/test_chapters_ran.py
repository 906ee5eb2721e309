"""Every chapter of the book ran without an error, at its current source and the current ``lib``.

``make test`` builds the book first (``make book``), and the build executes
each chapter whose outputs are not in the execution cache, the checks in its
cells included, and stops at the first cell that raises (_ext/chapter_cache.py;
its own tests, tests/test_chapter_cache.py, show that it does). The cache keys
a chapter on its code cells and drops every entry when ``lib`` or
``requirements.txt`` change. So the chapters' checks have run once for the
sources being tested when, and only when, the cache holds an entry for each
chapter of the table of contents, made under the current hash of ``lib``, with
no error among its outputs. That is checked here, instead of executing every
chapter a second time. The chapter template, which is not part of the book,
is executed by nbval (``make test``).

The check fails, naming the chapter, when the book was not rebuilt after a
chapter or ``lib`` changed: run ``make book``.
"""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "_build" / ".jupyter_cache"
CHAPTERS = [ROOT / f"{name}.md" for name in re.findall(r"chapters/[A-Za-z0-9_]+", (ROOT / "_toc.yml").read_text())]

spec = importlib.util.spec_from_file_location("chapter_cache", ROOT / "_ext" / "chapter_cache.py")
chapter_cache = sys.modules.get("chapter_cache") or importlib.util.module_from_spec(spec)
if "chapter_cache" not in sys.modules:
    sys.modules["chapter_cache"] = chapter_cache
    spec.loader.exec_module(chapter_cache)


def stale_chapters(cache, chapters, root=ROOT):
    """The chapters among ``chapters`` whose current source and lib have no clean execution in ``cache``: a
    list of (chapter, why)."""
    from jupyter_cache.cache.db import Setting

    if Setting.get_value(chapter_cache.HASH_KEY, cache.db, "") != chapter_cache.depends_hash(root):
        return [(chapter, "lib or requirements.txt changed since the chapters were executed") for chapter in chapters]
    records = {Path(r.uri).resolve(): r for r in cache.list_project_records()}
    stale = []
    for chapter in chapters:
        record = records.get(chapter.resolve())
        if record is None:
            stale.append((chapter, "never executed into the book's cache"))
            continue
        cached = cache.get_cached_project_nb(record.uri)
        if cached is None:
            stale.append((chapter, "its code changed since it was executed"))
            continue
        errors = [output for cell in cache.get_cache_bundle(cached.pk).nb.cells if cell.cell_type == "code"
                  for output in cell.get("outputs", []) if output.get("output_type") == "error"]
        if errors:
            stale.append((chapter, f"its cached outputs hold an error: {errors[0].get('ename')}"))
    return stale


@pytest.fixture(scope="module")
def cache():
    from jupyter_cache import get_cache

    if not (CACHE / "global.db").is_file():
        pytest.fail(f"the book's execution cache {CACHE.relative_to(ROOT)} is missing: run `make book` first")
    return get_cache(str(CACHE))


def test_the_table_of_contents_lists_the_chapters():
    assert len(CHAPTERS) >= 10 and all(chapter.is_file() for chapter in CHAPTERS), CHAPTERS


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda path: path.name)
def test_chapter_ran_without_error_at_its_current_source_and_lib(cache, chapter):
    stale = stale_chapters(cache, [chapter])
    assert not stale, (f"{chapter.relative_to(ROOT)}: {stale[0][1]}; `make book` executes it "
                       "(and stops at a cell that raises)")


def test_a_changed_chapter_or_lib_is_seen_as_not_run(tmp_path):
    """The check on a scratch book: clean after execution, stale after its code or its lib changes; a
    chapter never executed, or cached with an error (as ``allow_errors`` would let it be), is named."""
    header = (ROOT / "chapters" / "_template.md").read_text().split("---", 2)[1]
    book = tmp_path / "book"
    (book / "lib").mkdir(parents=True)
    (book / "lib" / "value.py").write_text("VALUE = 2\n")
    (book / "requirements.txt").write_text("")
    ran = book / "ran.md"
    ran.write_text(f"---{header}---\n# Ran\n\n```{{code-cell}} ipython3\nassert 1 + 1 == 2\n```\n")
    never = book / "never.md"
    never.write_text(ran.read_text().replace("# Ran", "# Never"))
    from jupyter_cache import get_cache

    scratch = get_cache(str(book / "cache"))
    assert chapter_cache.execute([ran], book / "cache", book, timeout=60, log=lambda *_: None) == {}
    assert stale_chapters(scratch, [ran], book) == []
    assert [why for _, why in stale_chapters(scratch, [never], book)] == ["never executed into the book's cache"]
    ran.write_text(ran.read_text().replace("1 + 1 == 2", "2 + 2 == 4"))
    assert [why for _, why in stale_chapters(scratch, [ran], book)] == ["its code changed since it was executed"]
    ran.write_text(ran.read_text().replace("2 + 2 == 4", "1 + 1 == 2"))
    assert stale_chapters(scratch, [ran], book) == []
    raises = book / "raises.md"
    raises.write_text(ran.read_text().replace("assert 1 + 1 == 2", "raise ValueError('a failing check')"))
    chapter_cache.execute([raises], book / "cache", book, timeout=60, allow_errors=True, log=lambda *_: None)
    assert [why for _, why in stale_chapters(scratch, [raises], book)] == [
        "its cached outputs hold an error: ValueError"]
    (book / "lib" / "value.py").write_text("VALUE = 3\n")
    assert [why for _, why in stale_chapters(scratch, [ran], book)] == [
        "lib or requirements.txt changed since the chapters were executed"]
