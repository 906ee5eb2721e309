"""The built website, in a real headless Chromium, with the network closed.

Every page must load with no console error, no failed request and no request
that leaves this machine; every equation must be typeset by the MathJax the
site serves itself; the chapter animations must be present; and no solution
or hidden test may appear anywhere in the build.

The browser tests need Debian's ``chromium``. They are skipped when it is
missing, unless ``RBD_REQUIRE_BROWSER=1`` (as in CI), where its absence fails.
"""

import functools
import html
import http.server
import json
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import nbformat
import pytest

from autograder.course.leaks import find_leaks, secret_lines

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def site_pages():
    """Every page of the book (generated index pages of Sphinx aside)."""
    if not SITE.is_dir():
        return []
    skip = {"genindex.html", "search.html"}
    return sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
                  if p.name not in skip and not p.relative_to(SITE).parts[0].startswith("_"))


def require_site():
    if not (SITE / "index.html").is_file():
        pytest.fail("the website is not built: run `make book` first")


@pytest.fixture(scope="module")
def server():
    require_site()
    handler = functools.partial(QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        if os.environ.get("RBD_REQUIRE_BROWSER") == "1":
            pytest.fail(f"chromium not found at {CHROMIUM}, and RBD_REQUIRE_BROWSER=1")
        pytest.skip("chromium is not installed (apt-get install chromium); set RBD_REQUIRE_BROWSER=1 to require it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        profile = tmp_path_factory.mktemp("chromium-profile")
        context = pw.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, headless=True,
                                                        args=FLAGS)
        yield context
        context.close()


# The text a reader sees in prose and outputs: code (where "\\dot" is a Python string) is left out.
PROSE_TEXT = """() => {
  const main = document.querySelector("main").cloneNode(true);
  main.querySelectorAll("pre, code, .cell_input, .highlight").forEach(e => e.remove());
  return main.innerText;
}"""


REFRESH = re.compile(r'<meta http-equiv="Refresh" content="0; url=([^"]+)"', re.IGNORECASE)

# True once the document has loaded and MathJax (if the page uses it) has started.
MATHJAX_STARTED = """() => document.readyState === "complete"
  && (!window.MathJax || !!(window.MathJax.startup && window.MathJax.startup.promise))"""


def visit(browser, server, page_path, quiet_ms=500, limit_ms=30_000):
    """Load one page; return the page object and what went wrong on the way.

    A page that redirects (the book's index) is followed to its target. The
    page counts as settled once MathJax has typeset it and no request has been
    in flight for ``quiet_ms``; requests still pending after ``limit_ms`` are
    reported by URL rather than as a bare timeout.
    """
    problems, pending = [], {}
    page = browser.new_page()
    origin = urlparse(server).netloc

    def on_route(route):
        if urlparse(route.request.url).netloc not in (origin, ""):
            problems.append(f"request leaves the site: {route.request.url}")
            return route.abort()
        return route.continue_()

    def done(request):
        pending.pop(id(request), None)

    page.route("**/*", on_route)
    page.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: pending.__setitem__(id(r), r.url))
    page.on("requestfinished", done)
    page.on("requestfailed", lambda r: (done(r), problems.append(f"failed request: {r.url} ({r.failure})")))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))

    redirect = REFRESH.search((SITE / page_path).read_text(encoding="utf-8", errors="replace")[:2000])
    page.goto(f"{server}/{page_path}", wait_until="load")
    if redirect:
        target = (Path(page_path).parent / redirect.group(1)).as_posix()
        page.wait_for_url(f"{server}/{target}", wait_until="load", timeout=limit_ms)
    page.wait_for_function(MATHJAX_STARTED, timeout=limit_ms)
    page.evaluate("() => window.MathJax ? window.MathJax.startup.promise.then(() => true) : null")

    quiet_since, waited = None, 0
    while waited < limit_ms:
        if pending:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = waited
        elif waited - quiet_since >= quiet_ms:
            break
        page.wait_for_timeout(100)
        waited += 100
    else:
        problems.append(f"requests still pending after {limit_ms} ms: {sorted(set(pending.values()))}")
    return page, problems


@pytest.mark.site
@pytest.mark.parametrize("page_path", site_pages() or ["index.html"])
def test_page_loads_cleanly_and_typesets_math(browser, server, page_path):
    page, problems = visit(browser, server, page_path)
    try:
        assert not problems, f"{page_path}:\n" + "\n".join(problems)
        text = page.evaluate(PROSE_TEXT)
        leftovers = [s for s in ("$$", "\\begin{", "\\frac", "\\dot") if s in text]
        assert not leftovers, f"{page_path}: untypeset TeX left in the page: {leftovers}"
        raw_math = page.evaluate("() => document.querySelectorAll('.math, div.math, span.math').length")
        if raw_math:
            typeset = page.evaluate("() => document.querySelectorAll('mjx-container').length")
            assert typeset >= raw_math, f"{page_path}: {raw_math} equations but only {typeset} typeset by MathJax"
    finally:
        page.close()


@pytest.mark.site
def test_chapter_one_animation_is_embedded_and_plays(browser, server):
    page, problems = visit(browser, server, "chapters/01_lagrangian.html")
    try:
        assert not problems, "\n".join(problems)
        frames = page.evaluate("() => document.querySelectorAll('.animation img, .anim-state').length")
        assert frames > 0, "the double-pendulum animation (matplotlib to_jshtml) is missing from chapter 1"
    finally:
        page.close()


def solution_lines():
    """Distinctive lines of every reference solution and hidden test in exercises/ (as the autograder sees them)."""
    lines, public = set(), set()
    for nb_path in (ROOT / "exercises").glob("*/*.ipynb"):
        lines |= secret_lines(nbformat.read(nb_path, as_version=4))
    # A line that is public somewhere (a chapter, lib, any released notebook) gives nothing away.
    for path in [*(ROOT / "chapters").glob("*.md"), *(ROOT / "lib").rglob("*.py")]:
        public.update(line.strip() for line in path.read_text().splitlines())
    for nb_path in (ROOT / "release").glob("*/*.ipynb"):
        for cell in nbformat.read(nb_path, as_version=4).cells:
            public.update(line.strip() for line in cell.source.splitlines())
    public = "\n".join(public)
    # Short or comment lines ("for _ in range(5):") prove nothing either.
    return {line for line in lines if line not in public and len(line) >= 20 and not line.startswith("#")}


def test_site_contains_no_solution_or_hidden_test():
    require_site()
    secrets = solution_lines()
    assert secrets, "no solution lines found in exercises/: the leak check would check nothing"
    leaks = []
    for path in SITE.rglob("*"):
        if path.suffix not in {".html", ".ipynb", ".txt", ".js", ".json", ".md", ".py"} or not path.is_file():
            continue
        if "mathjax" in path.parts:
            continue
        text = path.read_text(errors="ignore")
        if path.suffix == ".html":  # highlighted code is split into spans: compare the text (scripts kept)
            text = html.unescape(re.sub(r"<[^>]+>", "", text))
        leaks += [f"{path.relative_to(SITE)}: {found}" for found in find_leaks(text, secrets)]
    assert not leaks, "solutions or hidden tests on the website:\n" + "\n".join(sorted(leaks)[:20])


def test_course_kit_holds_what_a_homework_needs():
    """course-kit.zip (linked from the Homework page): every lib module, the kit's own pins, a README for every system."""
    import zipfile

    require_site()
    kit = SITE / "course-kit.zip"
    assert kit.is_file(), "course-kit.zip is missing beside the pages (written by _ext/course_site.py)"
    with zipfile.ZipFile(kit) as z:
        names = set(z.namelist())
        assert z.read("course-kit/requirements.txt") == (ROOT / "kit" / "requirements.txt").read_bytes()
        readme = z.read("course-kit/README.txt")
        assert b".venv/bin/python -m pip install ." in readme and b".venv\\Scripts\\python -m pip install ." in readme
    modules = {f"course-kit/{p.relative_to(ROOT).as_posix()}" for p in (ROOT / "lib").rglob("*.py")}
    assert modules <= names, f"lib modules missing from the kit: {sorted(modules - names)}"
    assert not [n for n in names if "exercises" in n or "autograder" in n], "the kit must hold no grading material"


LINK = re.compile(r"""\b(?:href|src|action|data-url)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


def allowed_hosts():
    """tests/allowed_hosts.txt, and the host of _config.yml's repository.url when an instructor has set it."""
    import yaml

    hosts = {line.strip() for line in (ROOT / "tests" / "allowed_hosts.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")}
    repository = (yaml.safe_load((ROOT / "_config.yml").read_text()).get("repository") or {}).get("url") or ""
    if repository:
        hosts.add(urlparse(repository).hostname)
    return hosts


def test_site_links_only_hosts_it_can_vouch_for():
    """Every absolute address in a built page's href or src is on a host of tests/allowed_hosts.txt."""
    require_site()
    allowed, strays = allowed_hosts(), set()
    pages = [p for p in SITE.rglob("*.html") if "mathjax" not in p.parts]
    for page in pages:
        for url in LINK.findall(page.read_text(errors="ignore")):
            url = html.unescape(url).strip()
            if url.startswith("//"):
                url = "https:" + url
            parsed = urlparse(url)
            if parsed.scheme in ("http", "https") and parsed.hostname not in allowed:
                strays.add(f"{page.relative_to(SITE)}: {url}")
    assert len(pages) > 10, f"only {len(pages)} pages found"
    assert not strays, ("links to hosts the project cannot vouch for (add a real one to tests/allowed_hosts.txt):\n"
                        + "\n".join(sorted(strays)[:30]))


def test_no_repository_buttons_unless_one_is_set():
    """With _config.yml's repository.url empty, no page has a repository or Binder button; chapters keep the .ipynb."""
    import yaml

    require_site()
    if (yaml.safe_load((ROOT / "_config.yml").read_text()).get("repository") or {}).get("url"):
        pytest.skip("an instructor has set repository.url: the buttons are wanted")
    chapter = (SITE / "chapters" / "01_lagrangian.html").read_text()
    for page in SITE.rglob("*.html"):
        text = page.read_text(errors="ignore")
        assert "mybinder" not in text and "Launch interactive content" not in text, \
            f"{page.relative_to(SITE)} has a Binder (launch) button"
        assert "repository-button" not in text, f"{page.relative_to(SITE)} has a repository button"
    assert "_sources/chapters/01_lagrangian.ipynb" in chapter, "chapter 1 lost its .ipynb download"
    assert (SITE / "_sources" / "chapters" / "01_lagrangian.ipynb").is_file()


@pytest.mark.site
def test_homework_table_fits_a_phone(browser, server):
    """At 390 px every cell of the homework table (the points included) lies inside the screen."""
    page, problems = visit(browser, server, "homework.html")
    try:
        assert not problems, "\n".join(problems)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(200)
        overflow = page.evaluate("""() => Array.from(document.querySelectorAll('.homework-table td'))
            .filter(td => td.getBoundingClientRect().right > window.innerWidth + 1)
            .map(td => td.innerText.slice(0, 40))""")
        cells = page.evaluate("() => document.querySelectorAll('.homework-table td').length")
        assert cells >= 40, f"the homework table has only {cells} cells"
        assert not overflow, f"homework table cells off-screen at 390 px: {overflow[:5]}"
    finally:
        page.close()


@pytest.mark.site
def test_search_snippets_read_as_text_not_tex(browser, server):
    """The snippets under search results show equations as text ("M", "τ", "[equation]"), never TeX source."""
    page = browser.new_page()
    try:
        page.goto(f"{server}/search.html?q=Coriolis+matrix", wait_until="load")
        page.wait_for_function("() => document.querySelectorAll('p.context').length >= 3", timeout=30_000)
        snippets = page.evaluate("() => Array.from(document.querySelectorAll('p.context')).map(p => p.textContent)")
        tex = [s[:120] for s in snippets if re.search(r"\\\(|\\\[|\\dot|\\begin|\\tau|\\mathsf", s)]
        assert not tex, f"search snippets show raw TeX: {tex}"
    finally:
        page.close()


def chapter_page_paths():
    return [p for p in site_pages() if p.startswith("chapters/")] or ["chapters/01_lagrangian.html"]


def _audit():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import site_audit

    return site_audit


@pytest.mark.site
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("page_path", chapter_page_paths())
def test_chapter_reads_like_a_book(browser, server, page_path, width):
    """What tools/site_audit.py measures, held to the book's standard on every chapter at both widths.

    Numbered title; no raw $; display equations inside the column at 1280 px
    and none cut off (scrolling is fine on a phone); visible code at most 20 %
    of the page; every figure, animation and slider captioned and numbered;
    no widget that needs a kernel; and at 1280 px no code block wider than
    the column and no figure shown below 80 % of its drawn size (legends and
    ticks stay >= 10 px). On a phone code blocks scroll sideways.
    """
    m = _audit().audit_page(browser, server, page_path, width)
    where = f"{page_path} at {width} px"
    assert m["title_numbered"], f"{page_path}: the chapter title carries no number"
    assert m["raw_dollars"] == 0, f"{where}: {m['raw_dollars']} raw $ in the prose (unparsed math)"
    assert m["cut_equations"] == 0, f"{where}: {m['cut_equations']} display equations cut off"
    if width >= 1280:
        assert m["wide_equations"] == 0, \
            f"{where}: {m['wide_equations']} display equations wider than the column, e.g. {m['wide_examples']}"
        assert m["shrunk_figures"] == 0, \
            f"{where}: {m['shrunk_figures']} figures shown at {m['smallest_figure_scale']:.0%} of their size " \
            "(legend and tick text below 10 px): draw them at most 7.2 in wide"
        assert m["wide_code"] == 0, f"{where}: {m['wide_code']} code blocks wider than the column"
        assert m["wide_output"] == 0, \
            f"{where}: {m['wide_output']} printed outputs wider than the column, e.g. {m['wide_output_examples']}"
    assert m["code_share"] <= 0.20, \
        f"{where}: visible code is {m['code_share']:.0%} of the page (at most 20 %: tag plumbing hide-input)"
    assert m["figures"] > 0, f"{where}: no figure found (the measure would check nothing)"
    assert m["uncaptioned_figures"] == 0, \
        f"{where}: {m['uncaptioned_figures']} of {m['figures']} figures without a numbered caption"
    assert m["kernel_widgets"] == 0, \
        f"{where}: {m['kernel_widgets']} ipywidgets, which change nothing without a kernel (use lib.plotting.slider)"


@pytest.mark.site
@pytest.mark.parametrize("page_path", chapter_page_paths())
def test_every_control_changes_what_it_shows(browser, server, page_path):
    """Each range control of a chapter (sliders, animation players), moved by the keyboard, changes its picture."""
    page, problems = visit(browser, server, page_path)
    try:
        assert not problems, "\n".join(problems)
        count, dead = _audit().try_controls(page)
        assert not dead, f"{page_path}: controls that change nothing on the page: {dead}"
        sliders = page.evaluate("() => document.querySelectorAll('main .course-slider').length")
        if sliders:
            ranges = page.evaluate("() => document.querySelectorAll('main .course-slider input[type=range]').length")
            assert ranges >= sliders and count >= ranges, "every slider has its controls"
    finally:
        page.close()


FONT_SIZE = re.compile(r"\b(?:fontsize|labelsize)\s*=\s*(\d+(?:\.\d+)?)")


@pytest.mark.parametrize("chapter", sorted((ROOT / "chapters").glob("*.md")), ids=lambda p: p.stem)
def test_chapter_uses_the_course_style(chapter):
    """The setup cell applies lib.plotting.use_style() and no cell asks for text smaller than it allows."""
    from lib.plotting import MIN_FONT_PT

    text = chapter.read_text(encoding="utf-8")
    assert "plotting.use_style()" in text, f"{chapter.name}: the setup cell must call plotting.use_style()"
    small = [(text[:m.start()].count("\n") + 1, m.group(0)) for m in FONT_SIZE.finditer(text)
             if float(m.group(1)) < MIN_FONT_PT]
    assert not small, f"{chapter.name}: text below {MIN_FONT_PT} pt (lines {small}); leave sizes to the style"


CODE_COLUMNS = 79   # a 14 px monospace line of the 1280 px column holds about 81 characters


@pytest.mark.parametrize("chapter", sorted((ROOT / "chapters").glob("*.md")), ids=lambda p: p.stem)
def test_shown_code_fits_the_column(chapter):
    """No line of a code cell the page shows open is longer than CODE_COLUMNS characters.

    The same rule the browser test measures in pixels (no code block wider than
    the column at 1280 px), checked on the source so that it fails without a build.
    """
    import jupytext

    long = []
    for cell in jupytext.read(chapter).cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "code" or {"hide-input", "remove-input", "remove-cell"} & set(tags):
            continue
        long += [line for line in cell.source.splitlines() if len(line) > CODE_COLUMNS]
    assert not long, f"{chapter.name}: shown code lines over {CODE_COLUMNS} characters: {long}"


# A paragraph that ends in mid-sentence right before a list: the source broke a line
# before "1." or "-" inside a paragraph, and Markdown started a list there.
SENTENCE_END = re.compile(r"[.:!?)\]]\s*$|[.:!?][\"'”’)]\s*$")
DANGLING = re.compile(r"\b(?:not|and|or|the|a|an|of|to|than|with|by|is|are|at|in|for)\s*$", re.IGNORECASE)


def lists_inside_sentences(page_html):
    """(paragraph end, list start) for each <ol>/<ul> right after a <p> that ends mid-sentence."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page_html, "html.parser")
    body = soup.find("article") or soup          # the page's text, not the navigation
    found = []
    for block in body.find_all(["ol", "ul"]):
        before = block.find_previous_sibling()
        if (before is None or before.name != "p" or before.get("role") == "heading"
                or "admonition-title" in (before.get("class") or [])):
            continue                                 # a toctree's caption or a box's title heads its list
        text = " ".join(before.get_text(" ").split())
        if text and (not SENTENCE_END.search(text) or DANGLING.search(text)):
            found.append((text[-60:], " ".join(block.get_text(" ").split())[:60]))
    return found


def test_a_list_inside_a_sentence_is_caught():
    broken = "<p>the limit is about 0.828, not</p><ol><li><p>The pendulum's error equation</p></li></ol>"
    assert lists_inside_sentences(broken) == [("the limit is about 0.828, not", "The pendulum's error equation")]
    fine = ("<p>Three checks:</p><ol><li>one</li></ol><p>It ends.</p><ul><li>two</li></ul>"
            '<p class="admonition-title">The properties, and what each is for</p><ul><li>three</li></ul>')
    assert lists_inside_sentences(fine) == []


def test_no_paragraph_runs_into_a_list():
    """No page renders a list that starts inside a sentence (a line beginning "1." in a paragraph)."""
    require_site()
    found = {page: hits for page in site_pages()
             if (hits := lists_inside_sentences((SITE / page).read_text(encoding="utf-8")))}
    assert not found, f"lists that start inside a sentence: {found}"
