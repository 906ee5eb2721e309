"""The book as one PDF (``make pdf``): every chapter in it, math rendered, nothing secret.

The PDF is read back with poppler's ``pdfinfo`` and ``pdftotext`` (Debian's
poppler-utils). The test is skipped when the PDF or poppler is missing, unless
``RBD_REQUIRE_PDF=1`` (as in CI, where ``make test`` builds the PDF first).
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.course.leaks import find_leaks

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "_build" / "html" / "book.pdf"


@pytest.fixture(scope="module")
def pdf_text():
    missing = [what for what, ok in (("the PDF (make pdf)", PDF.is_file()),
                                     ("pdftotext (apt-get install poppler-utils)", shutil.which("pdftotext")))
               if not ok]
    if missing:
        if os.environ.get("RBD_REQUIRE_PDF") == "1":
            pytest.fail(f"missing {', '.join(missing)}, and RBD_REQUIRE_PDF=1")
        pytest.skip(f"missing {', '.join(missing)}; set RBD_REQUIRE_PDF=1 to require it")
    return subprocess.run(["pdftotext", "-layout", str(PDF), "-"], capture_output=True, text=True,
                          check=True).stdout


def chapter_titles():
    """The first heading of every chapter listed in _toc.yml."""
    titles = []
    for name in re.findall(r"file:\s*(chapters/\S+)", (ROOT / "_toc.yml").read_text()):
        text = (ROOT / f"{name}.md").read_text()
        titles.append(re.search(r"^# (.+)$", text, re.M).group(1).strip())
    return titles


def test_pdf_has_the_whole_book(pdf_text):
    pages = int(re.search(r"Pages:\s+(\d+)", subprocess.run(["pdfinfo", str(PDF)], capture_output=True,
                                                             text=True, check=True).stdout).group(1))
    assert pages >= 50, f"the book's PDF has only {pages} pages"
    assert pdf_text.count("\f") + 1 >= pages
    flat = " ".join(pdf_text.split())
    missing = [t for t in chapter_titles() if " ".join(t.split()) not in flat]
    assert not missing, f"chapters missing from the PDF: {missing}"
    assert "Bibliography" in flat and "Tedrake" in flat, "the bibliography is missing from the PDF"


def test_pdf_math_is_rendered_not_raw_tex(pdf_text):
    leftovers = [s for s in ("$$", "\\begin{", "\\frac{", "\\mathsf") if s in pdf_text]
    assert not leftovers, f"untypeset TeX in the PDF: {leftovers}"


def test_pdf_contains_no_solution_or_hidden_test(pdf_text):
    from tests.test_site import solution_lines

    secrets = solution_lines()
    assert secrets
    leaks = find_leaks(pdf_text, secrets)
    assert not leaks, f"solutions or hidden tests in the PDF: {sorted(leaks)[:10]}"


def test_pdf_is_tagged_with_headings_and_figure_alt_text(pdf_text):
    """The PDF carries the document's structure: tagged, headings, figures with their cells' alt text."""
    info = subprocess.run(["pdfinfo", str(PDF)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Tagged:\s+yes", info, re.M), "the PDF is not tagged (Chromium's tagged printing is off)"
    tree = subprocess.run(["pdfinfo", "-struct", str(PDF)], capture_output=True, text=True).stdout
    headings = re.findall(r"^\s*H[1-6]\b", tree, re.M)
    assert len(headings) >= 5 * len(chapter_titles()), f"only {len(headings)} headings in the structure tree"
    figures = re.findall(r"^\s*Figure\b", tree, re.M)
    assert len(figures) >= 50, f"only {len(figures)} figures in the structure tree"
    alts = re.findall(rb"/Alt\s*\(", PDF.read_bytes())
    assert len(alts) >= 50, f"only {len(alts)} figures carry alt text in the PDF"


def test_no_equation_runs_off_the_left_edge_of_the_text():
    """Every word of the text layer starts at or right of the text's left edge (the commonest first x of a
    word): a display equation wider than the column, centred, used to lose its left-hand side off that edge
    (eq. (1.2)'s u_{k+1}, (2.13)'s T, (10.6)'s δA), on paper and for a reader reading the text layer."""
    if not PDF.is_file() or not shutil.which("pdftotext"):
        if os.environ.get("RBD_REQUIRE_PDF") == "1":
            pytest.fail("missing the PDF or pdftotext, and RBD_REQUIRE_PDF=1")
        pytest.skip("missing the PDF or pdftotext")
    boxes = subprocess.run(["pdftotext", "-bbox", str(PDF), "-"], capture_output=True, text=True,
                           check=True).stdout
    words = []
    for number, page in enumerate(boxes.split("<page ")[1:], 1):
        words += [(number, float(x), w) for x, w in
                  re.findall(r'<word xMin="([-\d.]+)" yMin="[-\d.]+" xMax="[-\d.]+" yMax="[-\d.]+">([^<]*)</word>',
                             page)]
    assert len(words) > 10_000, f"only {len(words)} words in the PDF's text layer"
    starts = {}
    for _, x, _ in words:
        starts[round(x, 1)] = starts.get(round(x, 1), 0) + 1
    edge = max(starts, key=starts.get)
    cut = [f"p. {n}: {w!r} at x = {x:.1f} pt" for n, x, w in words if x < edge - 1.5]
    assert not cut, f"{len(cut)} words start left of the text's edge ({edge} pt):\n" + "\n".join(cut[:20])
