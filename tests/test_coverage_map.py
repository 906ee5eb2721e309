"""DESIGN.md's coverage map ("Coverage of the notes (map)") is kept true.

The map has one row per item of the source notes: the notes file(s), the
item, the chapter section that treats it (``chapter_stem § heading``), the
autograded homework parts that touch it (``hwNN:grade-id``, several separated
by commas, or "–") and the step the student takes that the part's prompt does
not print, ending with the credited part(s) in parentheses, or "–" and the
reason no part qualifies. This file checks the map against the notebooks and
the chapters themselves:

* every ``hwNN:grade-id`` is an autograded test of ``exercises/hwNN/hwNN.ipynb``
  (a code cell with nbgrader ``grade: true``, points > 0 and no solution), not
  a written answer graded by hand;
* every chapter named exists and the section named is one of its headings;
* the sentence "N of M items are practised by an autograded part" counts the
  rows with a step, and the tally under it gives them by homework, chapter and
  notes file as the table does;
* a step names the part(s) it credits, each one listed in its row, and a "–"
  says why;
* no credited part is transcription: its prompt (the markdown cells of that
  part of the notebook) contains none of the display equations (``$$ ... $$``)
  of the row's chapter section, compared after removing whitespace and TeX
  spacing;
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
HEADER = ["notes", "item", "chapter (section)", "autograded parts", "step the student takes (not printed)"]
COUNT = re.compile(r"(\d+) of (\d+) items are practised by an autograded part")
PART = re.compile(r"^(hw\d\d):([A-Za-z0-9_.-]+)$")
NONE = {"–", "-"}
CREDITED = re.compile(r"\((hw\d\d:[A-Za-z0-9_.-]+(?:, hw\d\d:[A-Za-z0-9_.-]+)*)\)$")


def coverage_section(design_text):
    """The text of the coverage section of DESIGN.md, up to the next ``## `` heading."""
    if SECTION not in design_text:
        raise AssertionError(f"DESIGN.md has no section {SECTION!r}")
    rest = design_text.split(SECTION, 1)[1]
    following = re.search(r"^## ", rest, flags=re.M)
    return rest[: following.start()] if following else rest


def parse_map(design_text):
    """(sentence counts or None, rows): each row a dict of the five columns, parts a list.

    The step column is either "– reason" (no part qualifies: ``step`` is None)
    or a step ending with the credited parts in parentheses, ``(hw01:test-a,
    hw02:test-b)`` (``credited`` lists them; empty when the parentheses are missing).
    """
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
        assert len(cells) == len(HEADER), (f"coverage table row {number} has {len(cells)} columns, not "
                                           f"{len(HEADER)}: {line!r}")
        notes, item, chapter, parts, step = cells
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
        if step[:1] in NONE:
            reason, step, credited = step[1:].strip(), None, []
        else:
            found = CREDITED.search(step)
            reason, credited = None, ([p.strip() for p in found.group(1).split(",")] if found else [])
        rows.append({"number": number, "notes": notes, "item": item, "chapter": stem.strip(),
                     "heading": heading.strip(), "parts": part_list, "step": step, "reason": reason,
                     "credited": credited})
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
    practised = sum(1 for row in rows if row["step"] is not None)
    if counts is None:
        return ["the coverage section has no sentence 'N of M items are practised by an autograded part'"]
    if counts != (practised, len(rows)):
        return [f"the coverage section says {counts[0]} of {counts[1]} items are practised, the table "
                f"has {practised} rows with a step (not '–') out of {len(rows)} rows"]
    return []


def problems_with_steps(rows):
    """A step credits parts of its own row; a '–' gives its reason."""
    found = []
    for row in rows:
        where = f"row {row['number']} ({row['item']!r})"
        if row["step"] is None:
            if not row["reason"]:
                found.append(f"{where}: the step column says '–' without saying why no part qualifies")
            continue
        if not row["parts"]:
            found.append(f"{where}: has a step but names no autograded part")
        if not row["credited"]:
            found.append(f"{where}: the step {row['step']!r} does not end with the part(s) it credits, "
                         "'(hwNN:grade-id)'")
        for part in row["credited"]:
            if part not in row["parts"]:
                found.append(f"{where}: the step credits {part}, which the row's parts "
                             f"{row['parts'] or '–'} do not list")
    return found


SPACING = re.compile(r"\\[,;:! ]|\\q?quad\b|\s+")


def normalised_tex(text):
    """TeX with whitespace and spacing commands (``\\,`` ``\\;`` ``\\!`` ``\\:`` ``\\ `` ``\\quad``) removed."""
    return SPACING.sub("", text)


def section_text(chapter_path, heading):
    """The text under ``heading`` of a chapter, up to the next heading of the same or a higher level."""
    lines, inside, level, fence = Path(chapter_path).read_text().splitlines(), False, 0, None
    kept = []
    for line in lines:
        opening = re.match(r"^(`{3,}|~{3,})", line)
        if opening:
            fence = opening.group(1) if fence is None else (None if line.strip() == fence else fence)
        match = None if fence is not None or opening else re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if match:
            if inside and len(match.group(1)) <= level:
                break
            if match.group(2) == heading:
                inside, level = True, len(match.group(1))
                continue
        if inside:
            kept.append(line)
    return "\n".join(kept)


def display_equations(text):
    """The bodies of the ``$$ ... $$`` blocks of a text (a MyST label after the closing $$ is not part of it)."""
    return [body.strip() for body in re.findall(r"\$\$(.+?)\$\$", text, flags=re.S) if body.strip()]


def equation_pieces(equation):
    """What a prompt must not print of a display equation, normalised: the whole of it and each line of
    length 25 or more of a multi-line block (alignment ``&`` and a final comma or full stop left out)."""
    body = re.sub(r"\\(begin|end)\{(aligned|align\*?|gathered|split)\}", "", equation).replace("&", "")
    pieces = [normalised_tex(body).rstrip(",.;")]
    lines = [normalised_tex(line).rstrip(",.;") for line in re.split(r"\\\\", body)]
    if len(lines) > 1:
        pieces += [line for line in lines if len(line) >= 25]
    return [piece for piece in pieces if piece]


def homework_prompts(root):
    """{"hwNN:grade-id": the markdown the student reads for that autograded part}.

    The prompt of a test cell is every markdown cell since the previous autograded
    test cell (the first part's includes the introduction), written answers left out.
    """
    prompts = {}
    for nb_path in sorted((root / "exercises").glob("hw*/hw*.ipynb")):
        if nb_path.stem != nb_path.parent.name:
            continue
        markdown = []
        for cell in json.loads(nb_path.read_text())["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown" and not meta.get("grade"):
                markdown.append(source)
            elif (cell["cell_type"] == "code" and meta.get("grade") and not meta.get("solution")
                  and float(meta.get("points", 0)) > 0):
                prompts[f"{nb_path.stem}:{meta['grade_id']}"] = "\n\n".join(markdown)
                markdown = []
    return prompts


def problems_with_transcription(rows, root, prompts):
    """A credited part whose prompt prints a display equation of the row's chapter section is transcription."""
    found, cache = [], {}
    for row in rows:
        if row["step"] is None:
            continue
        path = root / "chapters" / f"{row['chapter']}.md"
        key = (path, row["heading"])
        if key not in cache:
            cache[key] = display_equations(section_text(path, row["heading"])) if path.is_file() else []
        for part in row["credited"]:
            prompt = normalised_tex(prompts.get(part, "")).replace("&", "")
            for equation in cache[key]:
                if any(piece in prompt for piece in equation_pieces(equation)):
                    found.append(f"row {row['number']} ({row['item']!r}): the prompt of {part} prints the "
                                 f"equation {equation[:80]!r} of chapters/{row['chapter']}.md § "
                                 f"{row['heading']!r}: that is transcription, not a step the student takes")
                    break
    return found


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


def all_problems(design_text, root, ids, prompts):
    counts, rows = parse_map(design_text)
    return (problems_with_parts(rows, ids) + problems_with_chapters(rows, root)
            + problems_with_counts(counts, rows) + problems_with_steps(rows)
            + problems_with_transcription(rows, root, prompts) + problems_with_unmapped(rows, ids)
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


@pytest.fixture(scope="module")
def prompts():
    found = homework_prompts(ROOT)
    assert found, "no autograded part found in exercises/hwNN/hwNN.ipynb"
    return found


def test_every_cited_part_is_an_autograded_test(table, ids):
    problems = problems_with_parts(table[1], ids)
    assert not problems, "coverage map cites parts that are not autograded tests:\n" + "\n".join(problems)


def test_every_chapter_section_exists(table):
    problems = problems_with_chapters(table[1], ROOT)
    assert not problems, "coverage map names missing chapters or headings:\n" + "\n".join(problems)


def test_the_sentence_counts_what_the_table_says(table):
    problems = problems_with_counts(*table)
    assert not problems, "\n".join(problems)


def test_every_step_credits_a_part_of_its_row(table):
    problems = problems_with_steps(table[1])
    assert not problems, "coverage map steps that credit no listed part:\n" + "\n".join(problems)


def test_no_credited_part_prints_its_sections_equation(table, prompts):
    problems = problems_with_transcription(table[1], ROOT, prompts)
    assert not problems, "coverage map credits transcription:\n" + "\n".join(problems)


def test_the_transcription_check_reads_the_prompts_and_the_chapters(prompts):
    """The check has something to compare: hw03's Part 2 prints chapter 3's C_notes (3.4), a display of the
    Christoffel section."""
    assert set(prompts) == {f"{hw}:{grade_id}" for hw, found in homework_ids(ROOT).items() for grade_id in found}
    equations = display_equations(section_text(ROOT / "chapters" / "03_manipulator_equations.md",
                                               "Coriolis forces from Christoffel symbols"))
    assert equations, "no display equation found under chapter 3's Christoffel section"
    prompt = normalised_tex(prompts["hw03:test-skew"]).replace("&", "")
    assert any(piece in prompt for equation in equations for piece in equation_pieces(equation)), \
        "hw03's Part 2 prints C_notes, yet no piece of the Christoffel section's equations is found in it"
    assert "## Part 1" not in prompts["hw03:test-skew"] and "## Part 2" in prompts["hw03:test-skew"]


def test_spacing_does_not_hide_a_printed_equation():
    assert normalised_tex(r"M(q)\,\dot v + C\;v \! = \quad u") == normalised_tex(r"M(q)\dot v+C v=u")
    assert equation_pieces("a = b ,") == ["a=b"]
    lines = equation_pieces(r"\begin{aligned} x &= a_1 + a_2 + a_3 + a_4 + a_5 + a_6, \\ y &= 1 \end{aligned}")
    assert "x=a_1+a_2+a_3+a_4+a_5+a_6" in lines and "y=1" not in lines


def credited_counts(rows):
    """How many counted rows credit each homework, and how many counted rows each chapter and notes file has."""
    homework, chapters, notes = {}, {}, {}
    for row in rows:
        if row["step"] is None:
            continue
        for hw in {part.split(":")[0] for part in row["credited"]}:
            homework[hw] = homework.get(hw, 0) + 1
        chapters[row["chapter"]] = chapters.get(row["chapter"], 0) + 1
        for name in (n.strip() for n in row["notes"].split(",")):
            notes[name] = notes.get(name, 0) + 1
    return homework, chapters, notes


TALLY = re.compile(r"By homework: (?P<homework>[^;]*); by chapter: (?P<chapters>[^;]*); by notes file: (?P<notes>[^.]*)\.")


def parse_tally(section):
    """The tally under the count, as three dicts (homework, chapter, notes file -> rows with a step), or None.

    >>> parse_tally("By homework: hw01 2, hw02 0; by chapter: 01_lagrangian 2; by notes file: 000 1, 002 1.")
    ({'hw01': 2, 'hw02': 0}, {'01_lagrangian': 2}, {'000': 1, '002': 1})
    """
    found = TALLY.search(section)
    if not found:
        return None
    return tuple({name: int(n) for name, n in (item.strip().rsplit(" ", 1) for item in found.group(key).split(","))}
                 for key in ("homework", "chapters", "notes"))


def tally_problems(section, rows, homeworks):
    """Where the tally under the count disagrees with the table: every homework, every chapter and every notes
    file of the table must be listed with its number of rows with a step."""
    stated = parse_tally(section)
    if stated is None:
        return ["no tally 'By homework: ...; by chapter: ...; by notes file: ...' under the count"]
    homework, chapters, notes = credited_counts(rows)
    table = ({hw: homework.get(hw, 0) for hw in homeworks},
             {row["chapter"]: chapters.get(row["chapter"], 0) for row in rows if row["chapter"] not in NONE},
             {n.strip(): notes.get(n.strip(), 0) for row in rows for n in row["notes"].split(",")})
    return [f"by {what}: the text says {said}, the table {actual}"
            for what, said, actual in zip(("homework", "chapter", "notes file"), stated, table) if said != actual]


def homework_names():
    return sorted(p.name for p in (ROOT / "exercises").glob("hw[0-9][0-9]") if p.is_dir())


def test_the_tally_under_the_count_says_what_the_table_says(design, table):
    """The rows with a step, by homework, chapter and notes file, as the paragraph under the count states them."""
    section = " ".join(coverage_section(design).split())
    problems = tally_problems(section, table[1], homework_names())
    assert not problems, "\n".join(problems)
    assert why_not_sentence(table[1]) in section


def why_not_sentence(rows):
    """The sentence under the count that says why the rows without a step have none."""
    without = [row for row in rows if row["step"] is None]
    no_part = [row for row in without if not row["parts"]]
    prints = [row for row in without if row["parts"] and "prints" in (row["reason"] or "")]
    return (f"Of the {len(without)} rows without a step, {len(no_part)} have no autograded part, "
            f"{len(prints)} credit none because a part's prompt prints the item's formula, and "
            f"{len(without) - len(no_part) - len(prints)} credit none for another reason given in the row.")


def test_the_tally_check_sees_a_wrong_number_or_none(design, table):
    section = " ".join(coverage_section(design).split())
    stated = parse_tally(section)
    wrong = section.replace(f"hw09 {stated[0]['hw09']}", f"hw09 {stated[0]['hw09'] + 1}", 1)
    assert any(problem.startswith("by homework") for problem in tally_problems(wrong, table[1], homework_names()))
    assert tally_problems("no tally here", table[1], homework_names())


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


def a_counted_row(design):
    """The first table row with a step (not '–')."""
    for line in coverage_section(design).splitlines():
        if line.startswith("|") and CREDITED.search(line.rstrip(" |")):
            return line
    raise AssertionError("no row of the coverage map has a step")


@pytest.mark.parametrize("case", ["wrong id", "written answer", "stale count", "missing heading",
                                  "missing chapter", "duplicate row", "unmapped part", "inflated count",
                                  "step without part", "step crediting another part", "step crediting nothing",
                                  "dash without reason", "transcription"])
def test_each_check_can_fail(case, design, ids, prompts):
    row = a_row(design, "hw03:test-christoffel")
    counted = a_counted_row(design)
    credited = CREDITED.search(counted.rstrip(" |")).group(1).split(", ")[0]
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
            "rows with a step"
    elif case == "missing heading":
        text, expected = doctored(design, "§ Coriolis forces from Christoffel symbols",
                                  "§ Coriolis forces by Christoffel symbols"), "is not a heading"
    elif case == "missing chapter":
        text, expected = doctored(design, "| 03_manipulator_equations §", "| 03_manipulator §"), \
            "does not exist"
    elif case == "duplicate row":
        text, expected = doctored(design, row, row + "\n" + row), "both list item"
    elif case == "unmapped part":
        text = design
        for line in coverage_section(design).splitlines():
            if line.startswith("|") and "hw09:test-defects" in line:
                text = text.replace(line, line.replace("hw09:test-defects", "–"))
        expected = "hw09:test-defects"
    elif case == "inflated count":
        # a row whose parts do not qualify is given a step: the sentence no longer counts the table
        cells = row.rstrip(" |").split(" | ")
        inflated = " | ".join(cells[:-1] + ["transcribe (3.3) (hw03:test-christoffel)"]) + " |"
        text, expected = doctored(design, row, inflated), "rows with a step"
    elif case == "step without part":
        cells = counted.rstrip(" |").split(" | ")
        text, expected = doctored(design, counted, " | ".join(cells[:3] + ["–", cells[4]]) + " |"), \
            "names no autograded part"
    elif case == "step crediting another part":
        text = doctored(design, counted, counted.replace(f"({credited}", "(hw03:test-christoffel", 1))
        expected = "which the row's parts"
    elif case == "step crediting nothing":
        text = doctored(design, counted, counted.replace(f"({credited}", f"[{credited}", 1).replace(") |", "] |"))
        expected = "does not end with the part(s) it credits"
    elif case == "dash without reason":
        cells = row.rstrip(" |").split(" | ")
        text, expected = doctored(design, row, " | ".join(cells[:-1] + ["–"]) + " |"), "without saying why"
    else:
        # a credited part's prompt prints one of its section's display equations (spaced differently)
        number = next(r for r in parse_map(design)[1] if r["step"] is not None)
        equations = display_equations(section_text(ROOT / "chapters" / f"{number['chapter']}.md",
                                                   number["heading"]))
        assert equations, f"the section of row {number['number']} has no display equation to plant"
        planted = dict(prompts)
        part = number["credited"][0]
        planted[part] += "\n\n$$\n" + equations[0].replace(" ", "  ").replace("\\,", "\\;") + "\n$$\n"
        problems = all_problems(design, ROOT, ids, planted)
        assert any("transcription" in p and part in p for p in problems), \
            f"a planted equation in the prompt of {part} is not caught: {problems}"
        return
    problems = all_problems(text, ROOT, ids, prompts)
    assert any(expected in p for p in problems), f"{case}: no problem mentions {expected!r}: {problems}"

