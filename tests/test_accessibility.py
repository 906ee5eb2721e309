"""The website for every reader (WCAG 2.1 AA): axe-core on every page, text alternatives, keyboard use.

axe-core, the accessibility engine, is the npm package pinned in
package.json / package-lock.json (``make axe`` installs it with ``npm ci``);
it runs inside the headless Chromium of the site tests. Each page is checked
with the WCAG 2.0/2.1 A and AA rules and axe's best practices in the light
theme, for colour contrast again in the dark theme, and at 640 px (1280 px at
200 % zoom) for sideways scrolling. The text alternatives are checked in the
chapters' source and in the built pages, and the players and sliders are
worked with the keyboard.
"""

import html
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from tests.test_site import SITE, browser, require_site, server, visit  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import axe_audit  # noqa: E402


def all_pages():
    """Every HTML page of the build, the index and search pages included."""
    return axe_audit.site_pages() if SITE.is_dir() else ["index.html"]


# Every equation typeset with its MathML for screen readers; the widest thing
# that makes the page itself scroll sideways (equations and code scroll in
# their own boxes).
PAGE_FACTS = """() => {
  const eqs = document.querySelectorAll("mjx-container");
  const bare = Array.from(eqs).filter(e => !e.querySelector("mjx-assistive-mml math")).length;
  const width = window.innerWidth;
  const wide = Array.from(document.querySelectorAll("body *")).filter(el => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= width + 1) return false;
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden" || o === "clip") return false;
    }
    return true;
  }).slice(0, 3).map(el => el.tagName.toLowerCase() + "." + el.className.toString().slice(0, 40));
  return {equations: eqs.length, without_mathml: bare,
          scroll: document.documentElement.scrollWidth - width, wide: wide};
}"""


@pytest.mark.site
@pytest.mark.parametrize("page_path", all_pages())
def test_page_passes_axe_in_both_themes_and_at_200_percent_zoom(browser, server, page_path):  # noqa: F811
    """axe-core: no WCAG A/AA violation and no unlisted best-practice one; contrast in the dark theme too;
    every equation with assistive MathML; no sideways scrolling of the page at 640 px."""
    page, problems = visit(browser, server, page_path)
    try:
        assert not problems, "\n".join(problems)
        found = axe_audit.run_axe(page)
        failing = [v for v in found if axe_audit.is_wcag(v) or v["id"] not in axe_audit.KNOWN_BEST_PRACTICE]
        assert not failing, f"{page_path}, light theme:\n" + "\n".join(axe_audit.describe(v) for v in failing)

        facts = page.evaluate(PAGE_FACTS)
        assert facts["without_mathml"] == 0, \
            f"{page_path}: {facts['without_mathml']} of {facts['equations']} equations without assistive MathML"

        axe_audit.set_dark(page)
        dark = axe_audit.run_axe(page, rules=("color-contrast",))
        assert not dark, f"{page_path}, dark theme:\n" + "\n".join(axe_audit.describe(v) for v in dark)

        page.set_viewport_size({"width": 640, "height": 900})
        page.wait_for_timeout(300)
        facts = page.evaluate(PAGE_FACTS)
        assert facts["scroll"] <= 1, \
            f"{page_path} at 640 px (200 % zoom) scrolls sideways by {facts['scroll']} px: {facts['wide']}"
    finally:
        page.close()


# --- text alternatives ----------------------------------------------------------------------------------

FILE_NAME = re.compile(r"\.(png|jpe?g|gif|svg|webp)\b|_images/|^[0-9a-f]{16,}$|^data:", re.IGNORECASE)


def figure_cells():
    """(chapter, figure name, caption, alt) for every code cell of every chapter whose output is a figure."""
    cells = []
    for chapter in sorted((ROOT / "chapters").glob("*.md")):
        text = chapter.read_text(encoding="utf-8")
        for block in re.finditer(r"```\{code-cell\}[^\n]*\n---\n(.*?)\n---\n", text, re.DOTALL):
            mystnb = (yaml.safe_load(block.group(1)) or {}).get("mystnb") or {}
            if "figure" in mystnb:
                figure, image = mystnb["figure"] or {}, mystnb.get("image") or {}
                cells.append((chapter.name, figure.get("name"), figure.get("caption", ""), image.get("alt")))
    return cells


def test_every_figure_cell_says_what_its_figure_shows():
    """Each figure cell has `mystnb: image: alt:`: a sentence read aloud, not the caption, not a file name."""
    cells = figure_cells()
    assert len(cells) >= 60, f"only {len(cells)} figure cells found: the check would check little"
    bad = []
    for chapter, name, caption, alt in cells:
        alt = " ".join(str(alt or "").split())
        if not alt:
            bad.append(f"{chapter} {name}: no `image: alt:` beside the caption")
        elif len(alt.split()) < 6:
            bad.append(f"{chapter} {name}: alt text too short to say what the figure shows: {alt!r}")
        elif alt == " ".join(caption.split()):
            bad.append(f"{chapter} {name}: the alt text repeats the caption (say what the picture shows)")
        elif "$" in alt or "\\" in alt or "{" in alt:
            bad.append(f"{chapter} {name}: TeX in the alt text, which a screen reader reads out as typed: {alt!r}")
        elif FILE_NAME.search(alt):
            bad.append(f"{chapter} {name}: the alt text is a file name: {alt!r}")
    assert not bad, "\n".join(bad)


class _Images(HTMLParser):
    """Every <img> inside the page's <main>, with its attributes."""

    def __init__(self):
        super().__init__()
        self.depth, self.images = 0, []

    def handle_starttag(self, tag, attrs):
        if tag == "main":
            self.depth += 1
        elif tag == "img" and self.depth:
            self.images.append(dict(attrs))

    def handle_endtag(self, tag):
        if tag == "main":
            self.depth -= 1


def test_no_content_image_on_the_site_is_named_by_its_file_or_left_empty():
    """Every image in a page's content, the animation players' and sliders' frames included, carries
    the alt text of its chapter cell (a slider frame adds its parameter values): never empty, never a file name."""
    require_site()
    cell_texts = {" ".join(str(alt).split()) for *_, alt in figure_cells() if alt}
    checked, bad = 0, []
    for path in sorted(SITE.rglob("*.html")):
        if path.relative_to(SITE).parts[0].startswith("_"):
            continue
        parser = _Images()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        for img in parser.images:
            checked += 1
            alt = " ".join(html.unescape(img.get("alt") or "").split())
            where = f"{path.relative_to(SITE)}: <img src={str(img.get('src'))[:50]!r}>"
            if not alt:
                bad.append(f"{where} has no alt text")
            elif FILE_NAME.search(alt):
                bad.append(f"{where} has a file name as alt text: {alt[:60]!r}")
            elif ((str(img.get("src", "")).startswith(("data:image", "../_images/"))
                   or str(img.get("id", "")).startswith("_anim_img"))
                  and not any(alt.startswith(t) for t in cell_texts)):
                bad.append(f"{where}: alt text {alt[:60]!r} is not its cell's `image: alt:`")
    assert checked >= 100, f"only {checked} images found in the built pages"
    assert not bad, f"{len(bad)} of {checked} images:\n" + "\n".join(bad[:15])


# --- keyboard ------------------------------------------------------------------------------------------

FOCUS = """() => {
  const el = document.activeElement, style = getComputedStyle(el);
  return {name: el.getAttribute("aria-label") || (el.labels && el.labels[0] ? el.labels[0].innerText : ""),
          tag: el.tagName, outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2};
}"""


@pytest.mark.site
def test_animation_player_works_from_the_keyboard_with_visible_focus(browser, server):  # noqa: F811
    """Chapter 1's player: still until asked; the time control steps and speaks its time; Tab reaches
    Play and Pause, Enter plays and pauses, Next frame steps; the focused control shows its outline."""
    page, problems = visit(browser, server, "chapters/01_lagrangian.html")
    try:
        assert not problems, "\n".join(problems)
        control = page.locator("main input.anim-slider").first
        control.scroll_into_view_if_needed()
        value = lambda: int(control.input_value())  # noqa: E731
        page.wait_for_timeout(500)
        assert value() == 0, "the animation started by itself (nothing may move until the reader asks)"
        assert control.evaluate("i => i.labels[0].innerText") == "time"

        control.focus()
        page.keyboard.press("ArrowRight")
        assert value() == 1
        spoken = control.get_attribute("aria-valuetext")
        shown = control.evaluate("i => document.getElementById(i.id.replace('_anim_slider', '_anim_time')).textContent")
        assert spoken.startswith(shown) and re.fullmatch(r"t = \d+\.\d\d s", shown), (spoken, shown)
        assert page.evaluate(FOCUS)["outline"], "the focused time control shows no outline"

        names = []
        for _ in range(6):
            page.keyboard.press("Tab")
            names.append(page.evaluate(FOCUS))
        assert [n["name"] for n in names] == ["Decrease speed", "First frame", "Previous frame",
                                              "Play backwards", "Pause", "Play"], names
        assert all(n["outline"] for n in names), "a focused button shows no outline"

        page.keyboard.press("Enter")                                  # Play
        page.wait_for_function("i => parseInt(i.value) > 3", arg=control.element_handle(), timeout=10_000)
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(FOCUS)["name"] == "Pause"
        page.keyboard.press("Enter")                                  # Pause
        paused = value()
        page.wait_for_timeout(400)
        assert value() == paused, "Pause does not stop the animation"
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUS)["name"] == "Next frame"
        page.keyboard.press("Enter")
        assert value() == paused + 1
    finally:
        page.close()


@pytest.mark.site
def test_slider_is_named_and_announces_its_value(browser, server):  # noqa: F811
    """Chapter 1's slider: each control named by what it sets, its value spoken (aria-valuetext) and shown,
    and the picture's alt text saying which values it shows."""
    page, problems = visit(browser, server, "chapters/01_lagrangian.html")
    try:
        assert not problems, "\n".join(problems)
        controls = page.locator("main .course-slider input[type=range]")
        first = controls.first
        first.scroll_into_view_if_needed()
        assert first.evaluate("i => i.labels[0].innerText") == "mass ratio m2/m1"
        first.focus()
        assert page.evaluate(FOCUS)["outline"], "the focused slider shows no outline"
        page.keyboard.press("ArrowRight")
        spoken = first.get_attribute("aria-valuetext")
        shown = first.evaluate("i => i.parentElement.querySelector('output').textContent")
        assert spoken == shown == "0.5"
        alt = page.evaluate("""() => Array.from(document.querySelectorAll('main .course-slider img'))
            .find(i => i.offsetParent !== null).alt""")
        assert alt.startswith("Shoulder and elbow angles") and "mass ratio m2/m1 = 0.5" in alt, alt
    finally:
        page.close()


@pytest.mark.site
def test_every_range_control_is_named_by_what_it_sets(browser, server):  # noqa: F811
    """Every range control of every chapter has a visible label of at least one word, not a bare symbol."""
    bad = []
    for path in sorted(p for p in all_pages() if p.startswith("chapters/")):
        page, problems = visit(browser, server, path)
        try:
            assert not problems, "\n".join(problems)
            names = page.evaluate("""() => Array.from(document.querySelectorAll('main input[type=range]'))
                .map(i => i.labels && i.labels[0] ? i.labels[0].innerText : '')""")
            bad += [f"{path}: {name!r}" for name in names if not re.search(r"[A-Za-z]{4,}", name)]
        finally:
            page.close()
    assert not bad, "range controls without a name that says what they set:\n" + "\n".join(bad)


# --- speech, Tab order, focus and announcements (_static/reader.js) ------------------------------------

def forget_menu_settings(page):
    """MathJax keeps the menu's settings in the browser profile, which the tests share: forget them."""
    try:
        page.evaluate("localStorage.removeItem('MathJax-Menu-Settings')")
    finally:
        page.close()


SPEECH_PAGES = ["chapters/01_lagrangian.html", "chapters/09_trajopt_contact.html", "notation.html"]


@pytest.mark.site
@pytest.mark.parametrize("page_path", SPEECH_PAGES)
def test_switching_speech_on_from_the_menu_keeps_every_equation_and_speaks_it(browser, server, page_path):  # noqa: F811
    """Equation menu > Accessibility > Activate, as a reader does it: every equation is still on the page
    afterwards and each carries its spoken text (aria-label), loaded from the site itself."""
    page, problems = visit(browser, server, page_path)
    try:
        assert not problems, "\n".join(problems)
        assert page.evaluate("localStorage.getItem('MathJax-Menu-Settings')") is None, "MathJax settings left over"
        before = page.evaluate("document.querySelectorAll('mjx-container').length")
        assert before >= 20, f"{page_path}: only {before} equations typeset"
        page.locator("mjx-container").first.click(button="right")
        page.locator(".CtxtMenu_MenuItem", has_text=re.compile(r"^Accessibility")).first.hover()
        page.locator(".CtxtMenu_MenuItem", has_text=re.compile(r"^Activate")).first.click()
        # the explorer marks the equations it has enriched; then wait for the re-render to finish
        page.wait_for_function("document.querySelector('mjx-container[sre-explorer-id]') !== null", timeout=180_000)
        page.evaluate("MathJax.startup.promise")
        after = page.evaluate("document.querySelectorAll('mjx-container').length")
        assert after == before, f"{page_path}: {before} equations before speech was switched on, {after} after"
        spoken = page.evaluate("""() => Array.from(document.querySelectorAll('mjx-container'))
            .filter(e => e.getAttribute('aria-label')).length""")
        assert spoken == before, f"{page_path}: {before - spoken} of {before} equations have no spoken text"
        first = page.locator("mjx-container").first.get_attribute("aria-label")
        assert re.search(r"[a-z]{3,}", first or ""), f"{page_path}: the first equation's spoken text is {first!r}"
        assert not problems, "\n".join(problems)
    finally:
        forget_menu_settings(page)


def chapters_with_controls():
    if not SITE.is_dir():
        return ["chapters/01_lagrangian.html"]
    return [p for p in all_pages() if p.startswith("chapters/")
            and re.search(r'type="range"|anim-buttons', (SITE / p).read_text(encoding="utf-8", errors="replace"))]


ACTIVE = """() => { const e = document.activeElement;
  return {tag: e.tagName, range: e.matches('input[type=range], .anim-buttons button'),
          text: (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 60),
          equation: !!e.closest('mjx-container')}; }"""


# Display equations that fit but are Tab stops, and ones that scroll sideways but are not.
EQUATION_STOPS = """() => {
  const eqs = Array.from(document.querySelectorAll('mjx-container'));
  const scrolls = (e) => e.getAttribute("display") === "true" && e.scrollWidth > e.clientWidth + 1;
  return {fits_but_stop: eqs.filter(e => e.tabIndex >= 0 && !scrolls(e)).length,
          scrolls_unreachable: eqs.filter(e => e.tabIndex < 0 && scrolls(e)).length};
}"""


@pytest.mark.site
@pytest.mark.parametrize("page_path", chapters_with_controls())
def test_the_first_control_is_a_few_keys_away_and_equations_are_not_tab_stops(browser, server, page_path):  # noqa: F811
    """No equation is a Tab stop unless the reader asks (the button at the top of the page puts them all in)
    or it scrolls sideways (a region that scrolls must be reachable from the keyboard, at any width);
    the second skip link is the second Tab stop and takes the focus to the page's first slider or player."""
    page, problems = visit(browser, server, page_path)
    try:
        assert not problems, "\n".join(problems)
        stops = page.evaluate(EQUATION_STOPS)
        assert stops["fits_but_stop"] == 0, \
            f"{page_path}: {stops['fits_but_stop']} equations are Tab stops before the reader asks"
        assert stops["scrolls_unreachable"] == 0, \
            f"{page_path}: {stops['scrolls_unreachable']} equations scroll sideways but are no Tab stop"
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(300)
        narrow = page.evaluate(EQUATION_STOPS)
        assert narrow["scrolls_unreachable"] == 0, \
            f"{page_path} at 390 px: {narrow['scrolls_unreachable']} equations scroll sideways but are no Tab stop"
        page.set_viewport_size({"width": 1280, "height": 720})
        page.wait_for_timeout(300)
        seen = []
        for _ in range(2):
            page.keyboard.press("Tab")
            seen.append(page.evaluate(ACTIVE))
        assert seen[1]["text"] == "Skip to the first interactive figure", seen
        page.keyboard.press("Enter")
        landed = page.evaluate(ACTIVE)
        assert landed["range"], f"{page_path}: the skip link put the focus on {landed}"

        button = page.locator("button.course-equation-tab")
        assert button.get_attribute("aria-pressed") == "false"
        button.click()
        assert button.get_attribute("aria-pressed") == "true"
        counts = page.evaluate("""() => [document.querySelectorAll('mjx-container').length,
            Array.from(document.querySelectorAll('mjx-container')).filter(e => e.tabIndex >= 0).length]""")
        assert counts[0] == counts[1] > 0, f"{page_path}: {counts[1]} of {counts[0]} equations in the Tab order"
        button.click()
        assert button.get_attribute("aria-pressed") == "false"
    finally:
        forget_menu_settings(page)


@pytest.mark.site
def test_header_buttons_show_focus_keep_it_and_name_the_colour_mode(browser, server):  # noqa: F811
    """The sidebar toggle, the download menu and the colour mode show a focus outline; after Color mode
    the focus is still on it and its name says which mode is on; the change is announced."""
    page, problems = visit(browser, server, "chapters/04_constrained_dynamics.html")
    try:
        assert not problems, "\n".join(problems)
        for selector in ("button.primary-toggle", "button.dropdown-toggle", "button.theme-switch-button"):
            page.locator(selector).first.focus()
            page.keyboard.press("Shift+Tab")
            page.keyboard.press("Tab")
            style = page.evaluate(FOCUS)
            assert style["outline"], f"{selector} shows no focus outline"
        switch = page.locator("button.theme-switch-button").first
        switch.focus()
        names = set()
        for _ in range(3):
            before = switch.get_attribute("aria-label")
            page.keyboard.press("Enter")
            page.wait_for_timeout(200)
            after = switch.get_attribute("aria-label")
            names.add(after)
            mode = page.evaluate("document.documentElement.dataset.mode")
            assert after != before and mode.split()[0][:4] in after, (before, after, mode)
            assert page.evaluate("document.activeElement.classList.contains('theme-switch-button')"), \
                "after Color mode the focus left the button"
        assert len(names) == 3, names
        page.wait_for_function("document.getElementById('course-announce').textContent.startsWith('Color mode')")
    finally:
        page.close()


@pytest.mark.site
def test_copy_button_result_is_announced(browser, server):  # noqa: F811
    """A copy button's "Copied!" (a tooltip only) is also written into the page's polite live region."""
    page, problems = visit(browser, server, "chapters/04_constrained_dynamics.html")
    try:
        assert not problems, "\n".join(problems)
        region = page.locator("#course-announce")
        assert region.get_attribute("aria-live") == "polite"
        button = page.locator("main button.copybtn:visible").first
        button.scroll_into_view_if_needed()
        button.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("/cop(y|ied)/i.test(document.getElementById('course-announce').textContent)",
                               timeout=10_000)
        assert region.text_content() == button.get_attribute("data-tooltip")
    finally:
        page.close()
