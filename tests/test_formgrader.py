"""nbgrader's formgrader on the course, driven in headless Chromium as an instructor grades a written answer.

A scratch course grades one hw01 hand-in; a Jupyter server with nbgrader's
formgrader runs in the course folder. In the browser: open the submission,
type a score for the written answer, move on (the formgrader saves it), and
the course's ``export`` shows it. On the way: every formula is typeset by
the course's own MathJax (no request leaves the machine), and no page warns
that nbgrader's exchange folder cannot be created.
"""

import csv
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.cli import main
from autograder.course.course import Course
from autograder.course.outcomes import FAILED, GRADED, KEPT, Outcomes
from tests.scratch import answered, scratch_course
from tests.test_site import browser  # noqa: F401 (the fixture: Debian's Chromium, headless)

REPO = Path(__file__).resolve().parent.parent
WRITTEN = "answer-gear-friction"
pytestmark = pytest.mark.skipif(not (REPO / "exercises" / "hw01").is_dir(), reason="needs exercises/hw01")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = scratch_course(tmp_path_factory.mktemp("formgrader") / "course")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.delenv("RBD_EXCHANGE_ROOT", raising=False)
        env.delenv("RBD_COURSE_ROOT", raising=False)
        assert main(["--root", str(root), "release", "hw01"]) == 0
        nb = answered(root / "release" / "hw01" / "hw01.ipynb")
        hand_ins = root.parent / "hand-ins"
        hand_ins.mkdir()
        nbformat.write(nb, str(hand_ins / "ada.ipynb"))
        assert main(["--root", str(root), "grade", str(hand_ins), "--assignment", "hw01"]) == 0
        yield Course(root)


@pytest.fixture(scope="module")
def formgrader(course):
    """A Jupyter server with nbgrader's formgrader in the course folder, open on 127.0.0.1 only; its address."""
    port = free_port()
    env = dict(os.environ, RBD_GRADEBOOK_URL=course.db_url, JUPYTER_PLATFORM_DIRS="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    log = open(course.root.parent / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "jupyter", "server", "--no-browser", f"--port={port}",
                             "--ip=127.0.0.1", "--allow-root", "--IdentityProvider.token=",  # open to this machine only (127.0.0.1)
                             f"--ServerApp.root_dir={course.root}"],
                            cwd=course.root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    address = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{address}/api/status", timeout=2)
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("the Jupyter server did not start: " + (course.root.parent / "server.log").read_text())
                time.sleep(0.5)
        yield address
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def open_page(browser, url):
    """A page at ``url``, with every request that would leave this machine stopped and listed."""
    left = []
    page = browser.new_page()

    def on_route(route):
        if urlparse(route.request.url).hostname not in ("127.0.0.1", "localhost", None):
            left.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/*", on_route)
    page.set_default_navigation_timeout(180_000)   # the formgrader renders the notebook first; a busy machine
    page.goto(url)
    return page, left


def test_a_written_answer_scored_in_the_formgrader_reaches_the_export(course, formgrader, browser):
    with Gradebook(course.db_url, course.course_id) as gb:
        submission = gb.find_submission_notebook("hw01", "hw01", "ada").id
    page, left = open_page(browser, f"{formgrader}/formgrader/submissions/{submission}/")
    said = []
    page.on("response", lambda r: said.append(f"{r.request.method} {r.status} {urlparse(r.url).path}")
            if "/api/" in r.url else None)
    page.on("console", lambda m: said.append(f"console: {m.text}"))
    score = page.locator(f"input.score#{WRITTEN}")
    score.wait_for(timeout=180_000)
    page.wait_for_function("() => document.querySelectorAll('mjx-container').length > 0", timeout=180_000)
    assert left == [], f"the formgrader's page asked the network for {left}"
    score.click()
    score.fill("2.5")
    score.press("Tab")
    for _ in range(240):   # the formgrader saves in the background
        with Gradebook(course.db_url, course.course_id) as gb:
            grade = gb.find_grade(WRITTEN, "hw01", "hw01", "ada")
            if grade.manual_score == 2.5:
                break
        time.sleep(0.5)
    assert grade.manual_score == 2.5, said
    out = course.root / "grades.csv"
    assert main(["--root", str(course.root), "export", "--out", str(out)]) == 0
    with open(out, newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["student_id"] == "ada")
    assert row["needs_manual_grading"] == "no" and float(row["score"]) == float(row["max_score"]) - 3 + 2.5, row
    page.close()


def test_the_formgrader_finds_the_course_exchange(course, formgrader, browser):
    page, left = open_page(browser, f"{formgrader}/formgrader/manage_assignments")
    page.wait_for_selector("text=hw01", timeout=180_000)
    text = page.inner_text("body")
    assert "could not be created" not in text and "exchange directory" not in text, text[:2000]
    assert (course.root / "exchange").is_dir(), "the course's exchange root (nbgrader_config.py) was not used"
    assert left == []
    page.close()


def test_a_failed_regrade_keeps_the_scores_entered_by_hand(course, tmp_path):
    """A hand-in that cannot be graded shows no score, but what a person entered stays in the gradebook
    and counts again once a gradable hand-in is graded."""
    with Gradebook(course.db_url, course.course_id) as gb:
        grade = gb.find_grade(WRITTEN, "hw01", "hw01", "ada")
        grade.manual_score, grade.needs_manual_grade = 2.0, False
        gb.db.commit()
    good = course.copies / "ada" / "hw01" / "hw01.ipynb"
    broken, again = tmp_path / "broken", tmp_path / "again"
    broken.mkdir()
    again.mkdir()
    (broken / "ada.ipynb").write_text('{"cells": [')
    shutil.copy(good, again / "ada.ipynb")
    assert main(["--root", str(course.root), "grade", str(broken), "--assignment", "hw01", "--force"]) == 0
    failed = Outcomes(course).get("hw01", "ada")
    assert failed["status"] == FAILED and failed["score"] is None and KEPT in failed["notes"], failed
    with Gradebook(course.db_url, course.course_id) as gb:
        assert gb.find_grade(WRITTEN, "hw01", "hw01", "ada").manual_score == 2.0
    assert main(["--root", str(course.root), "grade", str(again), "--assignment", "hw01"]) == 0
    regraded = Outcomes(course).get("hw01", "ada")
    assert regraded["status"] == GRADED and regraded["score"] == regraded["max_score"] - 3 + 2.0, regraded
    assert not regraded["needs_manual_grade"], "an unchanged written answer scored by hand is not asked for again"


def test_nbgrader_calls_no_mathjax_2_name_the_shim_lacks():
    """nbgrader's formgrader scripts call MathJax 2's Hub; every name they call is one autograder/handback/mathjax.py
    provides on top of MathJax 3 (a newer nbgrader calling another would throw in the page)."""
    import re

    import nbgrader.server_extensions.formgrader as formgrader_package

    from autograder.handback.mathjax import HUB_CALLS, mathjax_html
    scripts = Path(formgrader_package.__file__).parent / "static" / "js"
    called = {m for path in scripts.glob("*.js") for m in re.findall(r"MathJax\.Hub\.([\w.]+)\(", path.read_text())}
    assert called == {"Startup.signal.Interest"}, f"nbgrader's formgrader now calls MathJax.Hub.{called}"
    assert called <= set(HUB_CALLS)
    html = mathjax_html()
    assert "Interest: function (callback)" in html and 'callback("End")' in html


def test_the_formgraders_keys_work_with_mathjax_3(course, formgrader, browser):
    """With the course's MathJax 3 the formgrader starts in full: no error in the page, Tab moves from one
    score or comment box to the next, Ctrl+Shift+F flags the submission and unflags it again, and the
    gradebook keeps each."""
    with Gradebook(course.db_url, course.course_id) as gb:
        submission = gb.find_submission_notebook("hw01", "hw01", "ada").id
    page, left = open_page(browser, f"{formgrader}/formgrader/submissions/{submission}/")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.reload()
    page.locator(f"input.score#{WRITTEN}").wait_for(timeout=180_000)
    page.wait_for_function("() => window.formgrader && formgrader.loaded && MathJax.loaded === true"
                           " && document.querySelectorAll('mjx-container').length > 0", timeout=180_000)
    assert errors == [], f"the formgrader's page threw: {errors}"
    boxes = page.evaluate("() => $('.tabbable').map((i, e) => e.id || e.className).get()")
    assert len(boxes) >= 3, boxes
    page.locator(f"input.score#{WRITTEN}").click()
    start = page.evaluate("() => $('.tabbable').index(document.activeElement)")
    assert boxes[start] == WRITTEN, (start, boxes)
    for step in (1, 2):
        page.keyboard.press("Tab")
        page.wait_for_function(f"() => $('.tabbable').index(document.activeElement) === {start + step}",
                               timeout=30_000)
    page.keyboard.press("Shift+Tab")
    page.wait_for_function(f"() => $('.tabbable').index(document.activeElement) === {start + 1}", timeout=30_000)

    def flagged():
        with Gradebook(course.db_url, course.course_id) as gb:
            return gb.find_submission_notebook("hw01", "hw01", "ada").flagged

    assert not flagged()
    for expected, message in ((True, "Submission flagged"), (False, "Submission unflagged")):
        page.keyboard.press("Control+Shift+F")
        page.wait_for_function(f"() => $('#statusmessage').text() === {message!r}", timeout=60_000)
        assert flagged() is expected, f"after Ctrl+Shift+F the gradebook says flagged={flagged()}"
    assert errors == [] and left == [], (errors, left)
    page.close()


# Text outside code and formulas that still holds a TeX delimiter: a formula MathJax did not typeset.
RAW_TEX = """() => {
  const left = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (!n.parentElement.closest("pre, code, script, style, mjx-container") && /\\$|\\\\\\(|\\\\\\[/.test(n.textContent)) {
      left.push(n.textContent.slice(0, 80));
    }
  }
  return left;
}"""
PAGE_BOUND = 1_400_000   # bytes: MathJax compressed (0.9 MB) and the notebook; inlined as it came, 2.4 MB


def test_a_feedback_page_is_small_and_typesets_offline(course, browser):
    """Each feedback page carries MathJax compressed (it must travel alone: nbgrader's release_feedback
    hands back the .html only), stays under PAGE_BOUND, and typesets its formulas with every request
    that would leave the file refused."""
    assert main(["--root", str(course.root), "feedback", "--assignment", "hw01", "--allow-ungraded"]) == 0
    pages = sorted(course.feedback_dir.glob("*/hw01/*.html"))
    assert pages, "no feedback page was written"
    for path in pages:
        assert path.stat().st_size < PAGE_BOUND, f"{path.name} is {path.stat().st_size} bytes"
        html = path.read_text()
        assert "window.MathJax" in html and "<script src=" not in html
    lone = course.root.parent / "handed-back"   # as a student gets it: the page alone, in a folder of its own
    lone.mkdir(exist_ok=True)
    shutil.copy(pages[0], lone / "hw01.html")
    errors, asked = [], []
    page = browser.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))

    def on_route(route):
        if not route.request.url.startswith("file://"):
            asked.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/*", on_route)
    page.goto((lone / "hw01.html").as_uri())
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=120_000)
    page.evaluate("() => MathJax.startup.promise")
    typeset = page.evaluate("() => document.querySelectorAll('mjx-container svg').length")
    raw = page.evaluate(RAW_TEX)
    page.close()
    assert errors == [] and asked == [], (errors, asked)
    assert typeset > 5 and raw == [], f"{typeset} formulas typeset; TeX left in the text: {raw}"
