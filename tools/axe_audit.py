"""Check the built website with axe-core, the accessibility engine, in headless Chromium.

    .venv/bin/python tools/axe_audit.py [--dark] [--width PX] [page.html ...]

axe-core comes from the npm registry, pinned in ``package.json`` and
``package-lock.json`` and installed by ``make axe`` (``npm ci``) into
``node_modules/``; nothing is fetched from a CDN. Every page of the site (or
the pages named) is loaded, MathJax is left to finish, axe's script is added
to the page and run with the rules of WCAG 2.0 and 2.1, levels A and AA, and
axe's best practices. It prints one row per page and a line per violation.
``run_axe`` is what tests/test_accessibility.py asserts on.

``--dark`` checks the pages in the theme's dark mode (colour contrast
differs), ``--width`` sets the window's width (640 px is 1280 px at 200 %
zoom).
"""

import functools
import http.server
import json
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
from book_pdf import CHROMIUM, FLAGS  # noqa: E402 (Debian's Chromium and its headless flags, set down once)

#: The WCAG rule sets the site must pass without a single violation.
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
#: axe's best practices: passed wherever the theme's templates and options allow.
TAGS = WCAG_TAGS + ("best-practice",)

#: Best-practice findings that remain, by rule, with the reason (README, "Accessibility").
#: A violation of a rule listed here is reported but does not fail the tests.
KNOWN_BEST_PRACTICE = {}

RUN = """async ([kind, values]) => {
  const result = await axe.run(document, {
    runOnly: {type: kind, values: values},
    resultTypes: ["violations"],
  });
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, tags: v.tags, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(" "), html: n.html.slice(0, 200),
                              summary: (n.failureSummary || "").slice(0, 300)})),
  }));
}"""


def axe_source():
    """The text of axe-core's script (``make axe`` installs it)."""
    if not AXE.is_file():
        raise FileNotFoundError(f"{AXE.relative_to(ROOT)} is missing: run `make axe` (npm ci)")
    return AXE.read_text(encoding="utf-8")


def set_dark(page):
    """Switch the theme to its dark mode, as its own button does (pydata-sphinx-theme's data-theme).

    The theme fades colours from one mode to the other; transitions are
    switched off first, so that contrast is measured on the final colours.
    """
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
    page.evaluate("""() => {
      document.documentElement.dataset.mode = "dark";
      document.documentElement.dataset.theme = "dark";
      localStorage.setItem("mode", "dark"); localStorage.setItem("theme", "dark");
    }""")
    page.wait_for_timeout(100)


def run_axe(page, tags=TAGS, rules=None):
    """Run axe-core on the loaded ``page`` (the rules of ``tags``, or only ``rules``); a list of violations."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source())
    return page.evaluate(RUN, ["rule", list(rules)] if rules else ["tag", list(tags)])


def is_wcag(violation):
    """True when a violation breaks a WCAG 2.0/2.1 A or AA success criterion (not only a best practice)."""
    return any(tag in WCAG_TAGS for tag in violation["tags"])


def describe(violation, limit=3):
    """A violation in a few lines: rule, impact, help, and the first offending elements."""
    lines = [f"{violation['id']} ({violation['impact']}): {violation['help']} "
             f"[{len(violation['nodes'])} element(s)]"]
    for node in violation["nodes"][:limit]:
        lines.append(f"    {node['target']}: {node['html'][:120]}")
        if node["summary"]:
            lines.append("      " + node["summary"].replace("\n", " ")[:240])
    return "\n".join(lines)


def site_pages():
    """Every HTML page of the build, Sphinx's index and search pages included."""
    return sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
                  if not p.relative_to(SITE).parts[0].startswith("_"))


def load(page, base_url, page_path, limit_ms=60_000):
    """Open a page and wait for MathJax to finish typesetting (if the page uses it)."""
    page.goto(f"{base_url}/{page_path}", wait_until="load", timeout=limit_ms)
    page.wait_for_function("() => !window.MathJax || (MathJax.startup && MathJax.startup.promise)",
                           timeout=limit_ms)
    page.evaluate("() => window.MathJax ? MathJax.startup.promise.then(() => true) : null")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main(pages, dark=False, width=1280):
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    totals = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for path in pages:
            page = browser.new_page(viewport={"width": width, "height": 900})
            load(page, base, path)
            if dark:
                set_dark(page)
            violations = run_axe(page, rules=("color-contrast",) if dark else None)
            page.close()
            print(f"{path}: {len(violations)} rule(s) violated")
            for v in violations:
                print("  " + describe(v).replace("\n", "\n  "))
                pages_, nodes = totals.get(v["id"], (0, 0))
                totals[v["id"]] = (pages_ + 1, nodes + len(v["nodes"]))
        browser.close()
    httpd.shutdown()
    print(json.dumps({rule: {"pages": p, "elements": n} for rule, (p, n) in sorted(totals.items())}, indent=1))


if __name__ == "__main__":
    args = sys.argv[1:]
    dark = "--dark" in args
    args = [a for a in args if a != "--dark"]
    width = 1280
    if "--width" in args:
        i = args.index("--width")
        width = int(args[i + 1])
        del args[i:i + 2]
    main(args or site_pages(), dark=dark, width=width)
