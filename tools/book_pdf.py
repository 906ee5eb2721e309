"""Print the whole book to one PDF: ``make pdf`` -> _build/html/book.pdf.

Sphinx's single-page HTML builder puts every chapter, in the order of
``_toc.yml``, into one page that reads the chapters' execution cache (nothing
is executed again). Debian's Chromium, driven by Playwright, opens that page
from the disk, waits until MathJax has typeset every equation and every image
has loaded, and prints it with the theme's print style. The result is the same
book as the website (numbering, captions, rendered math, bibliography), in A4,
as a tagged PDF (its structure tree holds the headings, paragraphs, lists,
tables and figures with their alt text, in reading order) with bookmarks from
the headings. README ("Accessibility") says what the tags do not carry.

We print the HTML rather than go through LaTeX: the site's MathJax, figures
and captions are printed as the reader sees them, and the only system package
needed is the Chromium the site tests already use (a TeX distribution is
several hundred MB of Debian packages and renders executed outputs less
faithfully).
"""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SINGLE = ROOT / "_build" / "singlehtml"
OUT = ROOT / "_build" / "html" / "book.pdf"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# True once the page has loaded, MathJax has finished and every image is decoded.
READY = """() => document.readyState === "complete"
  && window.MathJax && MathJax.startup && MathJax.startup.promise
  && Array.from(document.images).every(img => img.complete)"""

# Printed pages: no navigation, code and outputs wrap instead of running off the page.
PRINT_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm; }
.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer, .bd-footer-article,
.header-article, .prev-next-area, .headerlink, .copybtn, .toggle-button { display: none !important; }
.bd-main .bd-content .bd-article-container { max-width: 100% !important; }
pre { white-space: pre-wrap !important; word-break: break-word; font-size: 8pt !important; }
img { max-width: 100% !important; }
mjx-container[display="true"] { overflow: visible !important; }
"""


# A4's 210 mm less the page margins (15 mm each side), in CSS pixels (96 per inch).
COLUMN_PX = round((210 - 30) / 25.4 * 96)

# Every display equation whose drawing (its rows and its equation number) reaches
# past the column gets a smaller font size, MathJax's output scaling with it.
FIT_EQUATIONS = """() => {
  const reach = (eq) => {
    let lo = Infinity, hi = -Infinity;
    for (const part of [eq, ...eq.querySelectorAll("*")]) {
      const r = part.getBoundingClientRect();
      if (r.width === 0) continue;
      lo = Math.min(lo, r.left); hi = Math.max(hi, r.right);
    }
    return [lo, hi];
  };
  let shrunk = 0;
  for (const eq of document.querySelectorAll('mjx-container[display="true"]')) {
    const parent = eq.parentElement, style = getComputedStyle(parent), r = parent.getBoundingClientRect();
    // a margin of 4 % each side: Chromium's print layout differs from the screen's by a few pixels
    const inner = r.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const left = r.left + parseFloat(style.paddingLeft) + 0.04 * inner, right = left + 0.92 * inner;
    if (right <= left) continue;
    for (let pass = 0; pass < 3; pass++) {
      const [lo, hi] = reach(eq);
      if (lo >= left - 0.5 && hi <= right + 0.5) break;
      if (pass === 0) shrunk += 1;
      eq.style.marginLeft = eq.style.marginRight = "0";
      const size = parseFloat(getComputedStyle(eq).fontSize);
      eq.style.fontSize = (size * Math.min(1, (right - left) / (hi - lo)) * 0.98) + "px";
    }
  }
  return shrunk;
}"""


def build_single_page():
    """The whole book as one HTML page (``_build/singlehtml/intro.html``), from the execution cache."""
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT), "--builder", "singlehtml"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    page = SINGLE / "intro.html"
    if done.returncode != 0 or not page.is_file():
        sys.exit(f"the single-page build failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return page


def print_pdf(page, out, timeout_ms=180_000):
    """Open ``page`` in headless Chromium, wait for MathJax and the images, print it to ``out``."""
    if not Path(CHROMIUM).exists():
        sys.exit(f"chromium not found at {CHROMIUM}: install Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            tab = browser.new_page()
            # Nothing leaves the machine: the page and everything it loads are files.
            tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                      else route.abort())
            tab.goto(page.as_uri(), wait_until="load", timeout=timeout_ms)
            tab.wait_for_function(READY, timeout=timeout_ms)
            tab.evaluate("() => MathJax.startup.promise")
            source = tab.evaluate("() => document.querySelectorAll('.math').length")
            typeset = tab.evaluate("() => document.querySelectorAll('mjx-container').length")
            if typeset < source:
                sys.exit(f"MathJax typeset only {typeset} of the book's {source} equations; not printing")
            tab.add_style_tag(content=PRINT_CSS)
            tab.emulate_media(media="print")
            # Lay the page out at the printed column's width, then shrink every display
            # equation wider than it: centred and wider than the column, an equation ran
            # off the left edge, its left-hand side lost in print and in the text layer.
            tab.set_viewport_size({"width": COLUMN_PX, "height": 1000})
            shrunk = tab.evaluate(FIT_EQUATIONS)
            print(f"{shrunk} display equations shrunk to the printed column's width")
            out.parent.mkdir(parents=True, exist_ok=True)
            # A tagged PDF (Chromium's generateTaggedPDF): headings, paragraphs, lists,
            # tables and figures with their alt text in the structure tree, in reading
            # order; and an outline (bookmarks) from the headings.
            tab.pdf(path=str(out), format="A4", print_background=True, prefer_css_page_size=True,
                    tagged=True, outline=True,
                    display_header_footer=True, header_template="<span></span>",
                    footer_template='<div style="font-size:8px;width:100%;text-align:center;">'
                                    '<span class="pageNumber"></span></div>')
        finally:
            browser.close()


def main():
    page = build_single_page()
    print_pdf(page, OUT)
    print(f"The book as one PDF: {OUT} ({OUT.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
