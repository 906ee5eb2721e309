"""DESIGN.md's coverage map ("Coverage of the notes (map)") is kept true.

The map has one row per item of the source notes: the notes file(s), the
item, the chapter section that treats it (``chapter_stem § heading``) and the
autograded homework parts that make the student do it (``hwNN:grade-id``,
several separated by commas, or "–"). This file checks the map against the
notebooks and the chapters themselves:

* every ``hwNN:grade-id`` is an autograded test of ``exercises/hwNN/hwNN.ipynb``
  (a code cell with nbgrader ``grade: true``, points > 0 and no solution), not
  a written answer graded by hand;
* every chapter named exists and the section named is one of its headings;
* the sentence "N of M items are practised by an autograded part" says what
  the table says;
* every autograded test of every homework appears in the map (a part that
  practises nothing listed is suspect);
* no item is listed twice.

The checks are functions of the text and the notebooks, so the same
functions are run on doctored copies to show that each of them fails.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Coverage of the notes (map)"
HEADER = ["notes", "item", "chapter (section)", "autograded parts"]
COUNT = re.compile(r"(\d+) of (\d+) items are practised by an autograded part")
PART = re.compile(r"^(hw\d\d):([A-Za-z0-9_.-]+)$")
NONE = {"–", "-"}


def coverage_section(design_text):
    """The text of the coverage section of DESIGN.md, up to the next ``## `` heading."""
    if SECTION not in design_text:
        raise AssertionError(f"DESIGN.md has no section {SECTION!r}")
    rest = design_text.split(SECTION, 1)[1]
    following = re.search(r"^## ", rest, flags=re.M)
    return rest[: following.start()] if following else rest


def parse_map(design_text):
    """(sentence counts or None, rows): each row a dict of the four columns, parts a list."""
    section = coverage_section(design_text)
    lines = [line.strip() for line in section.splitlines() if line.strip().startswith("|")]
    assert lines, "DESIGN.md's coverage section has no table"
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header == HEADER, f"coverage table header is {header}, expected {HEADER}"
    assert set(lines[1].replace("|", "").replace(" ", "")) <= set("-:"), \
        f"coverage table: second line {lines[1]!r} is not the header's rule"
    rows = []
    for number, line in enumerate(lines[2:], start=1):
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        assert len(cells) == 4, f"coverage table row {number} has {len(cells)} columns, not 4: {line!r}"
        notes, item, chapter, parts = cells
        if parts in NONE:
            part_list = []
        else:
            part_list = [p.strip() for p in parts.split(",")]
            bad = [p for p in part_list if not PART.match(p)]
            assert not bad, (f"coverage table row {number} ({item!r}): {bad} is not of the form "
                             "hwNN:grade-id (or '–' for no part)")
        assert " § " in chapter, (f"coverage table row {number} ({item!r}): chapter {chapter!r} is not "
                                  "'chapter_stem § section heading'")
        stem, heading = chapter.split(" § ", 1)
        rows.append({"number": number, "notes": notes, "item": item, "chapter": stem.strip(),
                     "heading": heading.strip(), "parts": part_list})
    counts = COUNT.search(section)
    return (tuple(int(n) for n in counts.groups()) if counts else None), rows


def autograded_ids(notebook_path):
    """The grade ids of the autograded tests of a notebook: graded code cells with points and no solution."""
    nb = json.loads(Path(notebook_path).read_text())
    ids = set()
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if (cell["cell_type"] == "code" and meta.get("grade") and not meta.get("solution")
                and float(meta.get("points", 0)) > 0):
            ids.add(meta["grade_id"])
    return ids


def chapter_headings(chapter_path):
    """The markdown headings of a chapter (outside code cells), without the leading #s."""
    headings, fence = set(), None
    for line in Path(chapter_path).read_text().splitlines():
        opening = re.match(r"^(`{3,}|~{3,})", line)
        if opening:
            if fence is None:
                fence = opening.group(1)
            elif line.strip() == fence:
                fence = None
            continue
        if fence is None:
            match = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
            if match:
                headings.add(match.group(1))
    return headings


def homework_ids(root):
    return {nb.parent.name: autograded_ids(nb)
            for nb in sorted((root / "exercises").glob("hw*/hw*.ipynb")) if nb.stem == nb.parent.name}


def problems_with_parts(rows, ids):
    """Cited parts that are not an autograded test of their homework."""
    found = []
    for row in rows:
        for part in row["parts"]:
            hw, grade_id = part.split(":", 1)
            if hw not in ids:
                found.append(f"row {row['number']} ({row['item']!r}): {part}: there is no "
                             f"exercises/{hw}/{hw}.ipynb")
            elif grade_id not in ids[hw]:
                found.append(f"row {row['number']} ({row['item']!r}): {part}: {hw}.ipynb has no "
                             f"autograded test cell (code, grade true, points > 0) with grade id "
                             f"{grade_id!r}; its autograded ids are {sorted(ids[hw])}")
    return found


def problems_with_chapters(rows, root):
    found, cache = [], {}
    for row in rows:
        path = root / "chapters" / f"{row['chapter']}.md"
        if not path.is_file():
            found.append(f"row {row['number']} ({row['item']!r}): chapter {row['chapter']!r} does not "
                         f"exist (no {path.relative_to(root)})")
            continue
        if path not in cache:
            cache[path] = chapter_headings(path)
        headings = cache[path]
        if row["heading"] not in headings:
            found.append(f"row {row['number']} ({row['item']!r}): {row['heading']!r} is not a heading "
                         f"of chapters/{row['chapter']}.md")
    return found


def problems_with_counts(counts, rows):
    practised = sum(1 for row in rows if row["parts"])
    if counts is None:
        return ["the coverage section has no sentence 'N of M items are practised by an autograded part'"]
    if counts != (practised, len(rows)):
        return [f"the coverage section says {counts[0]} of {counts[1]} items are practised, the table "
                f"has {practised} rows with a part out of {len(rows)} rows"]
    return []


def problems_with_unmapped(rows, ids):
    cited = {part for row in rows for part in row["parts"]}
    return [f"{hw}:{grade_id} (autograded in exercises/{hw}/{hw}.ipynb) practises no item of the map"
            for hw in sorted(ids) for grade_id in sorted(ids[hw]) if f"{hw}:{grade_id}" not in cited]


def problems_with_duplicates(rows):
    seen, found = {}, []
    for row in rows:
        key = (row["notes"], row["item"].casefold())
        if key in seen:
            found.append(f"rows {seen[key]} and {row['number']} both list item {row['item']!r} "
                         f"(notes {row['notes']})")
        seen.setdefault(key, row["number"])
    return found


def all_problems(design_text, root, ids):
    counts, rows = parse_map(design_text)
    return (problems_with_parts(rows, ids) + problems_with_chapters(rows, root)
            + problems_with_counts(counts, rows) + problems_with_unmapped(rows, ids)
            + problems_with_duplicates(rows))


@pytest.fixture(scope="module")
def design():
    return (ROOT / "DESIGN.md").read_text()


@pytest.fixture(scope="module")
def ids():
    found = homework_ids(ROOT)
    assert found, "no exercises/hwNN/hwNN.ipynb found"
    return found


@pytest.fixture(scope="module")
def table(design):
    return parse_map(design)


def test_every_cited_part_is_an_autograded_test(table, ids):
    problems = problems_with_parts(table[1], ids)
    assert not problems, "coverage map cites parts that are not autograded tests:\n" + "\n".join(problems)


def test_every_chapter_section_exists(table):
    problems = problems_with_chapters(table[1], ROOT)
    assert not problems, "coverage map names missing chapters or headings:\n" + "\n".join(problems)


def test_the_sentence_counts_what_the_table_says(table):
    problems = problems_with_counts(*table)
    assert not problems, "\n".join(problems)


def test_every_autograded_part_is_in_the_map(table, ids):
    problems = problems_with_unmapped(table[1], ids)
    assert not problems, "autograded parts missing from DESIGN.md's coverage map:\n" + "\n".join(problems)


def test_no_item_is_listed_twice(table):
    problems = problems_with_duplicates(table[1])
    assert not problems, "\n".join(problems)


def test_the_map_is_not_empty(table):
    counts, rows = table
    assert len(rows) >= 100, f"the coverage map has only {len(rows)} rows"
    assert all(row["notes"] for row in rows), "a coverage map row names no notes file"


def test_written_answers_are_not_autograded(ids):
    """A written part (markdown, graded by hand) is never counted: hw01's gear answer is not an id."""
    assert "answer-gear-friction" not in ids["hw01"]
    assert "test-motor-side" in ids["hw01"]


# The checks above must be able to fail: each doctored copy of DESIGN.md below
# breaks one thing a careless edit would break, and the check must say so.

def doctored(design, old, new):
    assert old in design, f"the doctored copy needs {old!r} in DESIGN.md"
    return design.replace(old, new, 1)


def a_row(design, part):
    """The first table row that cites ``part`` (the intro's example is not a row)."""
    for line in coverage_section(design).splitlines():
        if line.startswith("|") and part in line:
            return line
    raise AssertionError(f"no row cites {part}")


@pytest.mark.parametrize("case", ["wrong id", "written answer", "stale count", "missing heading",
                                  "missing chapter", "duplicate row", "unmapped part"])
def test_each_check_can_fail(case, design, ids):
    row = a_row(design, "hw03:test-christoffel")
    if case == "wrong id":
        wrong = row.replace("hw03:test-christoffel", "hw03:test-christofel")
        text, expected = doctored(design, row, wrong), "test-christofel"
    elif case == "written answer":
        written = row.replace("hw03:test-christoffel", "hw03:answer-identifiability")
        text, expected = doctored(design, row, written), "answer-identifiability"
    elif case == "stale count":
        counts = COUNT.search(coverage_section(design))
        stale = f"{int(counts.group(1)) + 1} of {counts.group(2)} items"
        text, expected = doctored(design, counts.group(0), stale + " are practised by an autograded part"), \
            "rows with a part"
    elif case == "missing heading":
        text, expected = doctored(design, "§ Coriolis forces from Christoffel symbols",
                                  "§ Coriolis forces by Christoffel symbols"), "is not a heading"
    elif case == "missing chapter":
        text, expected = doctored(design, "| 03_manipulator_equations §", "| 03_manipulator §"), \
            "does not exist"
    elif case == "duplicate row":
        text, expected = doctored(design, row, row + "\n" + row), "both list item"
    else:
        text = design
        for line in coverage_section(design).splitlines():
            if line.startswith("|") and "hw09:test-defects" in line:
                text = text.replace(line, line.replace("hw09:test-defects", "–"))
        expected = "hw09:test-defects"
    problems = all_problems(text, ROOT, ids)
    assert any(expected in p for p in problems), f"{case}: no problem mentions {expected!r}: {problems}"

