"""Every number and every trend a figure's alt text or caption states is asserted by a cell.

A figure's words are claims like any sentence of the chapter: "crosses the
1 mm budget near ten to the six", "the normal force falls below the weight".
Written by hand beside the code, they drift from what the figure plots unless
a cell tests them. The convention, which README.md ("A chapter") states for
authors:

* the cells that check a figure are the cell that draws it (the one whose
  ``mystnb: figure: name:`` is the figure's) and any cell that names the
  figure in a comment, ``# checks: fig-some-name``;
* every number the alt text or caption states (outside math, or inside math
  after ``=``, ``\\approx``, ``<``, ``>``, or a power of ten such as ``10^6``
  or "ten to the six") appears in an ``assert`` statement of those cells, as
  a literal or in its message (a number in seconds may appear in
  milliseconds and the like: a factor of 1000 either way is accepted);
* every trend word ("rises", "falls", "crosses", "grows", "jumps", "peaks",
  "stays", ...) appears, in some form, in the message of an ``assert`` of
  those cells, whose condition tests it on the plotted data.

The test is mechanical: it finds a claim without an assert that mentions
it; whether the assert tests the words is for the reader of the cell.
"""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((REPO / "chapters").glob("[0-9]*.md"))

# trend words, by family: a claim of one form is asserted by a message with any form
TRENDS = {
    "rise": r"ris(?:e|es|ing|en)|rose",
    "fall": r"fall(?:s|ing|en)?|fell",
    "cross": r"cross(?:es|ing|ed)?",
    "grow": r"grow(?:s|ing|n)?|grew",
    "drop": r"drops|dropping",        # "dropped from 5 cm" and "the drop" state no trend
    "dip": r"dip(?:s|ping|ped)?",
    "jump": r"jump(?:s|ing|ed)?",
    "diverge": r"diverg(?:e|es|ing|ed)",
    "decay": r"decay(?:s|ing|ed)?",
    "peak": r"peak(?:s|ing|ed)?",
    "shrink": r"shrink(?:s|ing)?|shrank",
    "converge": r"converg(?:e|es|ing|ed)",
    "steep": r"steep(?:er|ly|est)?",
    "flat": r"flat",
    "stay": r"stay(?:s|ing|ed)?",
    "settle": r"settl(?:e|es|ing|ed)",
    "vanish": r"vanish(?:es|ing|ed)?",
    "coincide": r"coincid(?:e|es|ing|ed)",
    "straighten": r"straighten(?:s|ed)?|straighter",
    "deepen": r"deeper",               # "the deepest penetration" names a quantity
    "longer": r"longer",
    "earlier": r"earlier",
    "higher": r"higher",               # "lower" also names a place ("the lower floor"): left out
    "thinner": r"thinner",
}
TREND = re.compile(r"\b(" + "|".join(f"(?:{v})" for v in TRENDS.values()) + r")\b", re.IGNORECASE)
WORD_POWERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "twelve": 12}
TEN_TO_THE = re.compile(r"\bten to the (minus )?(" + "|".join(WORD_POWERS) + r")\b", re.IGNORECASE)
POWER = re.compile(r"10\s*(?:\^|\*\*)\s*\{?\s*(-?\d+)\s*\}?")
SCI = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)\b")
PLAIN = re.compile(r"(?<![\w.^_\\])(\d+(?:\.\d+)?)(?![\w.]*\^)")
MATH = re.compile(r"\$([^$]+)\$")
# inside math, a number is a claim after a relation: x = 0.05, alpha dt \approx 0.83, h < 2
RELATION = re.compile(r"(?:=|\\approx|\\sim|<|>|\\le|\\ge|\\leq|\\geq)\s*(-?\d+(?:\.\d+)?)(?![\d.]*\s*\^)")


@dataclass
class Figure:
    name: str
    line: int
    alt: str
    caption: str
    checks: list          # sources of the cells that check it


def _number_claims(text):
    """The numbers a figure text states, as floats (see the module docstring)."""
    found = []
    for sign, word in TEN_TO_THE.findall(text):
        found.append(10.0 ** (-WORD_POWERS[word.lower()] if sign else WORD_POWERS[word.lower()]))
    text = re.sub(r"\b1/s\b|\b[23]-?D\b|\bchapters? \d+", " ", TEN_TO_THE.sub(" ", text))  # units, "3-D", "chapter 6": no claims
    for formula in MATH.findall(text):
        found += [10.0 ** int(e) for e in POWER.findall(formula)]
        found += [float(x) for x in RELATION.findall(POWER.sub(" ", formula))]
    prose = MATH.sub(" ", text)
    found += [10.0 ** int(e) for e in POWER.findall(prose)]
    prose = POWER.sub(" ", prose)
    found += [float(a) * 10.0 ** int(b) for a, b in SCI.findall(prose)]
    found += [float(x) for x in PLAIN.findall(SCI.sub(" ", prose))]
    return [x for x in found if x != 0]          # zero is a reference point ("at v = 0"), not a claim


def _trend_claims(text):
    return sorted({family for word in TREND.findall(text) for family, pattern in TRENDS.items()
                   if re.fullmatch(pattern, word, re.IGNORECASE)})


def _asserted_numbers(source):
    numbers = [10.0 ** int(e) for e in POWER.findall(source)]
    numbers += [float(a) * 10.0 ** int(b) for a, b in SCI.findall(source)]
    numbers += [float(x) for x in re.findall(r"(?<![\w.])(\d+(?:\.\d+)?)", SCI.sub(" ", source))]
    for sign, word in TEN_TO_THE.findall(source):
        numbers.append(10.0 ** (-WORD_POWERS[word.lower()] if sign else WORD_POWERS[word.lower()]))
    return numbers


def assert_sources(cell_source):
    """(whole statement, message) of every assert statement of a code cell, as source text."""
    lines = [line for line in cell_source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    code = "\n".join(lines)
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        raise ValueError(f"a figure cell does not parse: {error}") from error
    return [(ast.get_source_segment(code, node), ast.get_source_segment(code, node.msg) if node.msg else "")
            for node in ast.walk(tree) if isinstance(node, ast.Assert)]


def cells(text):
    """(first line, metadata dict, source) of each code cell of a MyST chapter."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        if lines[i].startswith("```{code-cell}"):
            start, meta, i = i + 1, {}, i + 1
            if i < len(lines) and lines[i] == "---":
                end = lines.index("---", i + 1)
                meta = yaml.safe_load("\n".join(lines[i + 1:end])) or {}
                i = end + 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append((start, meta, "\n".join(body)))
        i += 1
    return out


def figures(text):
    """The figures of a chapter with the sources of the cells that check each."""
    all_cells = cells(text)
    found = []
    for start, meta, source in all_cells:
        mystnb = meta.get("mystnb") or {}
        figure, image = mystnb.get("figure") or {}, mystnb.get("image") or {}
        if not figure.get("name"):
            continue
        name = figure["name"]
        mark = re.compile(r"#\s*checks:.*\b" + re.escape(name) + r"\b")
        checking = [source] + [s for _, _, s in all_cells if s is not source and mark.search(s)]
        found.append(Figure(name, start, " ".join(str(image.get("alt") or "").split()),
                            " ".join(str(figure.get("caption") or "").split()), checking))
    return found


def _matches(claim, numbers):
    claim = abs(claim)                       # "u = -2 N" is asserted as "-2.0", whose digits read 2
    return any(abs(claim - n * scale) <= 1e-9 * max(1.0, claim)
               for n in numbers for scale in (1.0, 1e3, 1e-3))


def problems(text, chapter="chapter"):
    """One line per number or trend word of a figure text that no assert of its cells mentions."""
    out = []
    for fig in figures(text):
        asserts = [a for source in fig.checks for a in assert_sources(source)]
        numbers = [n for statement, _ in asserts for n in _asserted_numbers(statement)]
        words = {family for _, message in asserts for family in _trend_claims(message)}
        for kind, words_of in (("alt text", fig.alt), ("caption", fig.caption)):
            for claim in _number_claims(words_of):
                if not _matches(claim, numbers):
                    out.append(f"{chapter}:{fig.line}: {fig.name}'s {kind} states {claim:g}, "
                               "which no assert of the figure's cells mentions")
            for family in _trend_claims(words_of):
                if family not in words:
                    out.append(f"{chapter}:{fig.line}: {fig.name}'s {kind} says '{family}' (in some form), "
                               "which no assert of the figure's cells mentions")
    return sorted(set(out))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_figure_texts_state_only_asserted_numbers_and_trends(path):
    found = problems(path.read_text(encoding="utf-8"), path.relative_to(REPO).as_posix())
    assert not found, "figure texts with claims no cell asserts:\n" + "\n".join(found)


PLANTED = '''
```{code-cell} ipython3
---
mystnb:
  image:
    alt: >-
      Two curves; the first rises and crosses the dotted line near ten to the four.
  figure:
    name: fig-planted
    caption: |-
      The step $h = 0.02$ s; after 3 s the curve falls.
---
assert np.all(np.diff(y) > 0), "the first curve rises"
plt.plot(t, y)
```

```{code-cell} ipython3
# checks: fig-planted
assert 1e4 / 3 < crossing < 3e4, "it crosses near ten to the four"
assert h == 20e-3 and t[-1] == 3.0
```
'''


def test_a_checked_figure_passes():
    assert problems(PLANTED) == ["chapter:2: fig-planted's caption says 'fall' (in some form), which no assert "
                                 "of the figure's cells mentions"]


def test_an_unchecked_number_in_an_alt_text_is_caught():
    planted = PLANTED.replace("near ten to the four.", "near ten to the four, at 0.37.")
    found = problems(planted)
    assert any("alt text states 0.37" in line for line in found), found


def test_an_unchecked_power_and_trend_are_caught():
    planted = PLANTED.replace('"it crosses near ten to the four"', '"it is there"').replace(
        "1e4 / 3", "2 / 3").replace("3e4", "3")
    found = problems(planted)
    assert any("alt text states 10000" in line for line in found), found
    assert any("alt text says 'cross'" in line for line in found), found


def test_numbers_inside_math_count_after_a_relation_only():
    assert _number_claims(r"the layer $z = h\mu v_x$ for $\alpha\,dt \approx 0.83$, $k^{-1/2}$") == [0.83]
    assert _number_claims(r"of order $10^6$ N/m, and 10^{-5} m") == [1e6, 1e-5]
    assert _number_claims("near ten to the minus five, after 2.5 s") == [1e-5, 2.5]


def test_comparisons_and_settling_are_trend_claims():
    assert _trend_claims("both starts settle on the fixed point; the curves coincide") == ["coincide", "settle"]
    assert _trend_claims("it rests deeper, brakes earlier, and the bounces get higher") == ["deepen", "earlier",
                                                                                            "higher"]
    assert _trend_claims("the deepest penetration of the lower ball") == []
    planted = PLANTED.replace("near ten to the four.", "near ten to the four, and the layer is thinner.")
    assert any("alt text says 'thinner'" in line for line in problems(planted)), problems(planted)
