"""Measure the built chapter pages as a reader sees them, at 1280 and 390 px.

    .venv/bin/python tools/site_audit.py [chapters/03_manipulator_equations.html ...]

For every chapter page (or the pages named) and both widths, headless Chromium
measures what makes a page read like a book rather than a notebook:

- display equations wider than the text column (at 1280 px they must fit; at
  390 px they may scroll but must not be cut off);
- raw ``$`` left in the prose (a formula MyST did not parse);
- the share of the page's height taken by visible code input;
- code blocks wider than the column;
- output figures without a numbered caption;
- whether the chapter title is numbered.

It prints one row per page and width. ``audit_page`` is what
tests/test_site.py asserts on.
"""

import functools
import http.server
import shutil
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTHS = (1280, 390)

MEASURE = """() => {
  const main = document.querySelector("main") || document.body;
  const article = main.querySelector("article") || main;
  const column = article.getBoundingClientRect().width;
  const visible = el => el.offsetParent !== null && el.getBoundingClientRect().height > 0;
  // display equations: the typeset box against the space its block offers
  const eqs = Array.from(article.querySelectorAll("mjx-container[display='true']")).filter(visible);
  const wide = eqs.filter(e => {
    const box = e.querySelector("mjx-math") || e;
    return box.getBoundingClientRect().width > e.getBoundingClientRect().width + 1
        || e.getBoundingClientRect().right > article.getBoundingClientRect().right + 1;
  }).map(e => (e.textContent || "").slice(0, 40));
  const cut = eqs.filter(e => {
    const style = getComputedStyle(e);
    const box = e.querySelector("mjx-math") || e;
    return box.getBoundingClientRect().width > e.getBoundingClientRect().width + 1
        && style.overflowX !== "auto" && style.overflowX !== "scroll";
  }).length;
  // prose: raw dollars outside code and math
  const prose = article.cloneNode(true);
  prose.querySelectorAll("pre, code, .cell_input, .highlight, mjx-container, .math, script, style")
       .forEach(e => e.remove());
  const dollars = (prose.innerText.match(/\\$/g) || []).length;
  // code input shown, and code blocks wider than the column
  const inputs = Array.from(article.querySelectorAll(".cell_input")).filter(visible);
  const codeHeight = inputs.reduce((s, e) => s + e.getBoundingClientRect().height, 0);
  const pageHeight = article.getBoundingClientRect().height;
  const wideCode = Array.from(article.querySelectorAll(".cell_input pre")).filter(visible)
      .filter(p => p.scrollWidth > p.clientWidth + 1).length;
  // output figures and their captions
  const images = Array.from(article.querySelectorAll(".cell_output img, .cell_output .animation"))
      .filter(visible);
  const uncaptioned = images.filter(img => {
    const fig = img.closest("figure");
    const cap = fig && fig.querySelector("figcaption");
    return !(cap && /Fig\\. ?\\d/.test(cap.innerText));
  }).length;
  const h1 = article.querySelector("h1");
  return {
    column: Math.round(column),
    equations: eqs.length, wide_equations: wide.length, wide_examples: wide.slice(0, 3), cut_equations: cut,
    raw_dollars: dollars,
    code_cells_shown: inputs.length, code_share: pageHeight ? codeHeight / pageHeight : 0, wide_code: wideCode,
    figures: images.length, uncaptioned_figures: uncaptioned,
    title_numbered: !!(h1 && h1.querySelector(".section-number")),
  };
}"""


def chapter_pages():
    """Every chapter page of the built site."""
    return sorted(str(p.relative_to(SITE)) for p in (SITE / "chapters").glob("*.html"))


def audit_page(browser, base_url, page_path, width):
    """The measurements of one page at one width (a dict; see MEASURE)."""
    page = browser.new_page()                 # a browser or a persistent context (the site tests')
    try:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base_url}/{page_path}", wait_until="load")
        page.wait_for_function("() => !window.MathJax || (MathJax.startup && MathJax.startup.promise)")
        page.evaluate("() => window.MathJax ? MathJax.startup.promise.then(() => true) : null")
        page.wait_for_timeout(300)
        return page.evaluate(MEASURE)
    finally:
        page.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main(pages):
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    header = (f"{'page':38s} {'px':>4s} {'eqs':>4s} {'wide':>4s} {'cut':>4s} {'$':>3s} {'code':>5s} "
              f"{'code%':>6s} {'wide code':>9s} {'figs':>4s} {'no cap':>6s} {'no.':>4s}")
    print(header)
    totals = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for path in pages:
            for width in WIDTHS:
                m = audit_page(browser, base, path, width)
                for key in ("equations", "wide_equations", "cut_equations", "raw_dollars", "code_cells_shown",
                            "wide_code", "figures", "uncaptioned_figures"):
                    totals[(width, key)] = totals.get((width, key), 0) + m[key]
                print(f"{Path(path).stem[:38]:38s} {width:4d} {m['equations']:4d} {m['wide_equations']:4d} "
                      f"{m['cut_equations']:4d} {m['raw_dollars']:3d} {m['code_cells_shown']:5d} "
                      f"{100 * m['code_share']:5.1f}% {m['wide_code']:9d} {m['figures']:4d} "
                      f"{m['uncaptioned_figures']:6d} {'yes' if m['title_numbered'] else 'no':>4s}")
        browser.close()
    httpd.shutdown()
    for width in WIDTHS:
        t = {k: v for (w, k), v in totals.items() if w == width}
        print(f"total at {width} px: {t}")


if __name__ == "__main__":
    main(sys.argv[1:] or chapter_pages())
