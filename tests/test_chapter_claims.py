"""Every formula a chapter states in display math is checked by one of its cells.

intro.md promises that "every formula the text states is checked by a cell
that would stop the build if it were wrong". This test holds the chapters to
it, by reading their source (pure text, no execution). The convention, which
README.md ("A chapter") states for authors:

* every display equation carries a label, ``$$ ... $$ (eq-some-name)``, unique
  across the book;
* a code cell of the same chapter that checks it names the label, in a
  comment (``# checks: eq-some-name``) or in an assert message, and contains
  at least one ``assert``;
* an equation that no cell can check (a definition, a problem statement) says
  why on the line right after it, as a MyST comment, which the website does
  not show: ``% unchecked: <reason>``.

The failure lists every offending equation with its file and line.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((REPO / "chapters").glob("*.md"))
LABEL = re.compile(r"\beq-[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\b")
CLOSING = re.compile(r"^\$\$\s*(?:\((eq-[A-Za-z0-9-]+)\))?\s*$")
UNCHECKED = re.compile(r"^%\s*unchecked:\s*(.*)$")


@dataclass
class Equation:
    label: str | None
    line: int                   # line of the opening $$, 1-based
    unchecked: str | None = None


@dataclass
class Chapter:
    name: str
    equations: list = field(default_factory=list)
    cells: list = field(default_factory=list)     # (first line, source) of each code cell


def parse(text, name="chapter"):
    """The display equations and the code cells of a MyST-markdown chapter."""
    chapter = Chapter(name)
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):                       # a fenced block: a code cell or another directive
            start, body = i, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if line.startswith("```{code-cell}"):
                chapter.cells.append((start + 1, "\n".join(body)))
        elif line.strip() == "$$":                       # a display equation, closed by "$$" or "$$ (eq-...)"
            start = i
            i += 1
            while i < len(lines) and not lines[i].startswith("$$"):
                i += 1
            if i == len(lines):
                raise ValueError(f"{name}:{start + 1}: display equation never closed")
            closing = CLOSING.match(lines[i])
            if closing is None:
                raise ValueError(f"{name}:{i + 1}: a display equation closes with '$$' or '$$ (eq-label)', "
                                 f"not {lines[i]!r}")
            equation = Equation(closing.group(1), start + 1)
            after = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
            if after is not None and UNCHECKED.match(lines[after].strip()):
                equation.unchecked = UNCHECKED.match(lines[after].strip()).group(1).strip()
            chapter.equations.append(equation)
        i += 1
    return chapter


def checked_labels(chapter):
    """label -> line of the first code cell with an assert that names it."""
    found = {}
    for start, source in chapter.cells:
        if re.search(r"\bassert\b", source):
            for label in LABEL.findall(source):
                found.setdefault(label, start)
    return found


def problems(chapter, known_labels):
    """What breaks the convention in one chapter, one line per problem."""
    out = []
    checked = checked_labels(chapter)
    for eq in chapter.equations:
        where = f"{chapter.name}:{eq.line}"
        if eq.label is None:
            out.append(f"{where}: display equation without a label (close it with '$$ (eq-...)')")
        elif eq.unchecked is not None:
            if len(eq.unchecked.split()) < 3:
                out.append(f"{where}: {eq.label} is marked unchecked without a reason")
            if eq.label in checked:
                out.append(f"{where}: {eq.label} is marked unchecked, but the cell at line "
                           f"{checked[eq.label]} checks it: drop the mark")
        elif eq.label not in checked:
            out.append(f"{where}: no cell checks {eq.label} (name it in a cell with an assert, "
                       "or mark it '% unchecked: <reason>')")
    for start, source in chapter.cells:
        for label in sorted(set(LABEL.findall(source)) - known_labels):
            out.append(f"{chapter.name}:{start}: a cell names {label}, which no equation of the book carries")
    return out


def book():
    return [parse(path.read_text(encoding="utf-8"), path.relative_to(REPO).as_posix()) for path in CHAPTERS]


def test_every_display_equation_is_labelled_checked_or_excused():
    chapters = book()
    known = {eq.label for ch in chapters for eq in ch.equations if eq.label}
    found = [p for ch in chapters for p in problems(ch, known)]
    assert not found, "formulas stated in display math that no cell checks:\n" + "\n".join(found)


def test_labels_are_unique_across_the_book():
    seen, duplicates = {}, []
    for ch in book():
        for eq in ch.equations:
            if eq.label in seen:
                duplicates.append(f"{ch.name}:{eq.line}: {eq.label} already used at {seen[eq.label]}")
            elif eq.label:
                seen[eq.label] = f"{ch.name}:{eq.line}"
    assert not duplicates, "\n".join(duplicates)


def test_the_chapters_state_formulas():
    """The parser finds the book's equations (a parser that saw none would pass everything)."""
    chapters = book()
    assert len(chapters) >= 10
    assert sum(len(ch.equations) for ch in chapters) > 90
    assert all(ch.cells for ch in chapters)


# --- the parser itself, on small made-up chapters ---------------------------------------
SAMPLE = """\
Text with $inline$ math.

$$
a = b
$$ (eq-ab)

$$
c = d
$$

$$
e = f
$$ (eq-ef)
% unchecked: a definition, nothing to compute

$$
g = h
$$ (eq-gh)
% unchecked: ok

```{code-cell} ipython3
# checks: eq-ab
assert 1 == 1
```

```{code-cell} ipython3
print("eq-gh")  # a print alone does not count
```

```{code-cell} ipython3
assert True, "eq-nowhere"
```
"""


def test_parser_reports_each_kind_of_problem():
    chapter = parse(SAMPLE, "sample.md")
    assert [eq.label for eq in chapter.equations] == ["eq-ab", None, "eq-ef", "eq-gh"]
    assert chapter.equations[2].unchecked == "a definition, nothing to compute"
    found = problems(chapter, {"eq-ab", "eq-ef", "eq-gh"})
    assert any("sample.md:7" in p and "without a label" in p for p in found), found
    assert any("eq-gh is marked unchecked without a reason" in p for p in found), found
    assert any("eq-nowhere" in p for p in found), found
    assert not any("eq-ab" in p or "eq-ef" in p for p in found), found
    assert len(found) == 3, found


def test_parser_sees_an_unchecked_label_and_a_checked_mark():
    text = "$$\nx\n$$ (eq-x)\n\n$$\ny\n$$ (eq-y)\n% unchecked: stated for the record only\n" \
           "```{code-cell} ipython3\nassert x, 'eq-y'\n```\n"
    found = problems(parse(text, "t.md"), {"eq-x", "eq-y"})
    assert any("no cell checks eq-x" in p for p in found), found
    assert any("eq-y is marked unchecked, but the cell" in p for p in found), found


def test_parser_rejects_a_malformed_closing():
    with pytest.raises(ValueError, match="closes with"):
        parse("$$\nx\n$$ eq-x\n", "t.md")
    with pytest.raises(ValueError, match="never closed"):
        parse("$$\nx\n", "t.md")
