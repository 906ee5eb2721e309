"""Measure the built chapter pages as a reader sees them, at 1280 and 390 px.

    .venv/bin/python tools/site_audit.py [--shots DIR] [chapters/03_manipulator_equations.html ...]

For every chapter page (or the pages named) and both widths, headless Chromium
measures what makes a page read like a book rather than a notebook:

- display equations wider than the text column (at 1280 px they must fit; at
  390 px they may scroll but must not be cut off);
- raw ``$`` left in the prose (a formula MyST did not parse);
- the share of the page's height taken by visible code input;
- code blocks and printed outputs wider than the column;
- output figures (images, animations, sliders) without a numbered caption;
- figures shown at less than 80 % of their drawn size (the course style draws
  legends and ticks at 12.5 px, so at 80 % they are still 10 px on screen);
- widgets that need a kernel (they move on the static page but change nothing);
- whether the chapter title is numbered;
- and, at 1280 px, whether every range control on the page changes the
  picture it belongs to (``try_controls``).

It prints one row per page and width. ``audit_page`` and ``try_controls`` are
what tests/test_site.py asserts on. ``--shots DIR`` also saves a full-page
screenshot of every page at both widths.
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
  // inside a closed <details> (a hide-input cell) an element keeps a layout box but is not shown
  const visible = el => el.offsetParent !== null && el.getBoundingClientRect().height > 0
      && !el.closest("details:not([open])");
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
  // printed output wider than the column (it would scroll sideways at 1280 px)
  const wideOutput = Array.from(article.querySelectorAll(".cell_output pre")).filter(visible)
      .filter(p => p.scrollWidth > p.clientWidth + 1)
      .map(p => p.innerText.split("\\n").sort((a, b) => b.length - a.length)[0].slice(0, 60));
  // output figures and their captions
  const images = Array.from(article.querySelectorAll(".cell_output img, .cell_output .animation"))
      .filter(visible);
  const uncaptioned = images.filter(img => {
    const fig = img.closest("figure");
    const cap = fig && fig.querySelector("figcaption");
    return !(cap && /Fig\\. ?\\d/.test(cap.innerText));
  }).length;
  // drawn size against shown size (raster figures only; an animation player is drawn at its own size)
  const scales = Array.from(article.querySelectorAll(".cell_output img")).filter(visible)
      .filter(img => img.naturalWidth > 0)
      .map(img => img.getBoundingClientRect().width / img.naturalWidth);
  const shrunk = scales.filter(s => s < 0.8 - 1e-3).length;
  // ipywidgets views: they need a kernel to do anything
  const kernelWidgets = article.querySelectorAll(
      ".jupyter-widgets, script[type='application/vnd.jupyter.widget-view+json']").length;
  const h1 = article.querySelector("h1");
  return {
    column: Math.round(column),
    equations: eqs.length, wide_equations: wide.length, wide_examples: wide.slice(0, 3), cut_equations: cut,
    raw_dollars: dollars,
    code_cells_shown: inputs.length, code_share: pageHeight ? codeHeight / pageHeight : 0, wide_code: wideCode,
    wide_output: wideOutput.length, wide_output_examples: wideOutput.slice(0, 3),
    figures: images.length, uncaptioned_figures: uncaptioned,
    smallest_figure_scale: scales.length ? Math.min(...scales) : 1, shrunk_figures: shrunk,
    kernel_widgets: kernelWidgets,
    title_numbered: !!(h1 && h1.querySelector(".section-number")),
  };
}"""


# Moves every range control of the page (the keyboard's End key, or Home when
# it already stands at the end) and reports those whose picture did not change.
# The picture is the visible image of the control's slider or animation player.
SHOWN = """input => {
  const box = input.closest(".course-slider, .animation, .cell_output") || document.body;
  const img = Array.from(box.querySelectorAll("img")).find(i => i.offsetParent !== null);
  return img ? img.getAttribute("src").slice(-200) + img.getAttribute("src").length : "";
}"""


def try_controls(page):
    """Move each ``<input type=range>`` of the loaded page; return (controls, those that changed nothing)."""
    controls = page.locator("main input[type=range]")
    dead = []
    for k in range(controls.count()):
        control = controls.nth(k)
        if not control.is_visible():
            continue
        control.scroll_into_view_if_needed()
        before = control.evaluate(SHOWN)
        at_end = control.evaluate("i => i.value === i.max")
        control.focus()
        page.keyboard.press("Home" if at_end else "End")
        page.wait_for_timeout(100)
        after = control.evaluate(SHOWN)
        if not before or before == after:
            label = control.evaluate("i => (i.labels && i.labels[0] ? i.labels[0].innerText : i.id) || 'range'")
            dead.append(f"control {k} ({label})")
    return controls.count(), dead


def chapter_pages():
    """Every chapter page of the built site."""
    return sorted(str(p.relative_to(SITE)) for p in (SITE / "chapters").glob("*.html"))


def audit_page(browser, base_url, page_path, width, controls=False, shot=None):
    """The measurements of one page at one width (a dict; see MEASURE).

    With ``controls`` the dict also has ``controls`` (how many range inputs)
    and ``dead_controls`` (those that changed nothing, see ``try_controls``);
    ``shot`` is a PNG path for a full-page screenshot.
    """
    page = browser.new_page()                 # a browser or a persistent context (the site tests')
    try:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base_url}/{page_path}", wait_until="load")
        page.wait_for_function("() => !window.MathJax || (MathJax.startup && MathJax.startup.promise)")
        page.evaluate("() => window.MathJax ? MathJax.startup.promise.then(() => true) : null")
        page.wait_for_timeout(300)
        result = page.evaluate(MEASURE)
        if shot:
            page.screenshot(path=str(shot), full_page=True)
        if controls:
            result["controls"], result["dead_controls"] = try_controls(page)
        return result
    finally:
        page.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main(pages, shots=None):
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    header = (f"{'page':38s} {'px':>4s} {'eqs':>4s} {'wide':>4s} {'cut':>4s} {'$':>3s} {'code':>5s} "
              f"{'code%':>6s} {'wide code':>9s} {'figs':>4s} {'no cap':>6s} {'scale':>5s} {'widg':>4s} "
              f"{'ctrl':>4s} {'dead':>4s} {'no.':>4s}")
    print(header)
    totals = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for path in pages:
            for width in WIDTHS:
                shot = Path(shots) / f"{Path(path).stem}-{width}.png" if shots else None
                m = audit_page(browser, base, path, width, controls=width == WIDTHS[0], shot=shot)
                m.setdefault("controls", 0)
                m["dead"] = len(m.get("dead_controls", []))
                for key in ("equations", "wide_equations", "cut_equations", "raw_dollars", "code_cells_shown",
                            "wide_code", "wide_output", "figures", "uncaptioned_figures", "shrunk_figures", "kernel_widgets",
                            "controls", "dead"):
                    totals[(width, key)] = totals.get((width, key), 0) + m[key]
                print(f"{Path(path).stem[:38]:38s} {width:4d} {m['equations']:4d} {m['wide_equations']:4d} "
                      f"{m['cut_equations']:4d} {m['raw_dollars']:3d} {m['code_cells_shown']:5d} "
                      f"{100 * m['code_share']:5.1f}% {m['wide_code']:9d} {m['figures']:4d} "
                      f"{m['uncaptioned_figures']:6d} {m['smallest_figure_scale']:5.2f} {m['kernel_widgets']:4d} "
                      f"{m['controls']:4d} {m['dead']:4d} {'yes' if m['title_numbered'] else 'no':>4s}")
        browser.close()
    httpd.shutdown()
    for width in WIDTHS:
        t = {k: v for (w, k), v in totals.items() if w == width}
        print(f"total at {width} px: {t}")


if __name__ == "__main__":
    args = sys.argv[1:]
    shots = None
    if "--shots" in args:
        i = args.index("--shots")
        shots = Path(args[i + 1])
        shots.mkdir(parents=True, exist_ok=True)
        del args[i:i + 2]
    main(args or chapter_pages(), shots)
