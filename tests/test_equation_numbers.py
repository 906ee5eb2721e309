"""Equations are cited by the number the website shows, never by a raw label.

The website numbers each labelled display equation of a chapter, "(9.3)",
and never shows the label (``eq-rimless-collocation``) a chapter's source
gives it. So a homework's text and an assert message cite "equation (9.3)",
and the cell says which equation it means in a comment, where no reader sees
it: ``<!-- eq-rimless-collocation -->`` in a markdown cell, a Python comment
(``# eq-dp-eom``, or a chapter's ``# checks: eq-...``) in a code cell. These
tests hold every such number to the one the built site gives that label, so a
number goes stale the moment a chapter gains an equation before it, and the
test says which.
"""

import io
import re
import tokenize
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
LABEL = re.compile(r"\beq-[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\b")
# "equation (9.3)", "Equation (9.3)", "by (6.12)", "(1.8)–(1.9)": any chapter-numbered pair in
# parentheses that does not close a call or an index (np.cos(0.7), f(1.0), a[2](0.5)).
CITED = re.compile(r"(?<![\w.)\]])\(([1-9]\d?\.\d+)\)")
EQNO = re.compile(r'<span class="eqno">\((\d+\.\d+)\)<a class="headerlink" href="#equation-([^"]+)"')
HTML_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)


def site_numbers(site=SITE):
    """label -> the number the built site shows for it, from every chapter page."""
    pages = sorted((site / "chapters").glob("*.html"))
    if not pages:
        pytest.fail("the website is not built: run `make book` first")
    numbers = {}
    for page in pages:
        numbers.update({label: number for number, label in EQNO.findall(page.read_text(encoding="utf-8"))})
    return Numbers(numbers)


class Numbers(dict):
    """label -> number, where Sphinx's HTML anchors carry the label in lower case (eq-dp-M is #equation-eq-dp-m)."""

    def get(self, label, default=None):
        return super().get(label.lower(), default)

    def __contains__(self, label):
        return super().__contains__(label.lower())


def code_parts(source):
    """(comments, strings) of a code cell's Python, each a list of texts; IPython magics are skipped."""
    python = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    comments, strings = [], []
    for token in tokenize.generate_tokens(io.StringIO(python).readline):
        if token.type == tokenize.COMMENT:
            comments.append(token.string)
        elif token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            strings.append(token.string)
    return comments, strings


def cell_problems(cell, where, numbers):
    """What is wrong with the equation citations of one cell, one line each."""
    if cell.cell_type == "markdown":
        named = set(LABEL.findall(" ".join(HTML_COMMENT.findall(cell.source))))
        shown = [HTML_COMMENT.sub("", cell.source)]
    elif cell.cell_type == "code":
        comments, shown = code_parts(cell.source)
        named = set(LABEL.findall(" ".join(comments)))
    else:
        return []
    out = []
    for text in shown:
        for label in LABEL.findall(text):
            out.append(f"{where}: the reader sees the raw label {label}; cite equation "
                       f"({numbers.get(label, '?')}) and name the label in a comment")
        for number in CITED.findall(text):
            meant = sorted(label for label in named if numbers.get(label) == number)
            if not meant:
                named_numbers = {label: numbers.get(label, "not on the site") for label in sorted(named)}
                out.append(f"{where}: cites equation ({number}), but the labels its comments name are numbered "
                           f"{named_numbers or 'nothing (name the label in a comment)'}")
    for label in sorted(label for label in named if label not in numbers):
        out.append(f"{where}: names {label}, which no equation of the site carries")
    return out


def homework_cells():
    for path in sorted((ROOT / "exercises").glob("hw*/hw*.ipynb")):
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            yield f"{path.name} cell {index}", cell


def chapter_cells():
    import jupytext

    for path in sorted((ROOT / "chapters").glob("*.md")):
        if path.name.startswith("_"):
            continue
        for index, cell in enumerate(jupytext.read(path).cells):
            if cell.cell_type == "code":
                yield f"{path.name} cell {index}", cell


def test_homework_cites_equations_by_the_numbers_the_site_shows():
    numbers = site_numbers()
    bad = [p for where, cell in homework_cells() for p in cell_problems(cell, where, numbers)]
    assert not bad, "\n".join(bad)


def test_chapter_code_cites_equations_by_the_numbers_the_site_shows():
    numbers = site_numbers()
    bad = [p for where, cell in chapter_cells() for p in cell_problems(cell, where, numbers)]
    assert not bad, "\n".join(bad)


def test_the_homework_does_cite_equations():
    """The homework does refer to the chapters' equations (so the test above has something to check)."""
    cited = [where for where, cell in homework_cells() if CITED.search(HTML_COMMENT.sub("", cell.source))]
    assert len(cited) >= 20, f"only {len(cited)} homework cells cite an equation by number"


def test_a_stale_number_a_raw_label_and_an_unnamed_citation_are_each_reported():
    numbers = Numbers({"eq-hamilton": "10.7", "eq-dp-eom": "1.10", "eq-dp-m": "1.11"})
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    assert cell_problems(md("equation (10.7)<!-- eq-hamilton -->"), "ok", numbers) == []
    assert cell_problems(code('assert x, "see equation (1.10)"  # eq-dp-eom'), "ok", numbers) == []
    stale = cell_problems(md("equation (10.6)<!-- eq-hamilton -->"), "stale", numbers)
    assert len(stale) == 1 and "(10.6)" in stale[0] and "10.7" in stale[0]
    raw = cell_problems(md("equation `eq-hamilton`"), "raw", numbers)
    assert len(raw) == 1 and "raw label eq-hamilton" in raw[0] and "(10.7)" in raw[0]
    unnamed = cell_problems(code('assert x, "equation (1.10)"'), "unnamed", numbers)
    assert len(unnamed) == 1 and "name the label in a comment" in unnamed[0]
    in_message = cell_problems(code('assert x, "stance time (eq-dp-eom)"  # checks: eq-dp-eom'), "msg", numbers)
    assert len(in_message) == 1 and "raw label eq-dp-eom" in in_message[0]
    assert cell_problems(code('assert x, "equation (1.11)"  # eq-dp-M'), "case", numbers) == []
    capital = cell_problems(md("Equation (1.10) gives it, and so does (1.11)<!-- eq-dp-eom -->"), "bare", numbers)
    assert len(capital) == 1 and "(1.11)" in capital[0], capital
    assert len(cell_problems(md("Equation (1.10) says so"), "capital", numbers)) == 1
    assert cell_problems(code('assert x, f"{np.cos(1.0)} and a[0](2.5) by (1.10)"  # eq-dp-eom'), "calls", numbers) == []
    unknown = cell_problems(code("# checks: eq-nowhere\nx = 1"), "unknown", numbers)
    assert len(unknown) == 1 and "eq-nowhere" in unknown[0]
