"""No homework asks for much more work than the others.

The work a homework asks for is measured by its answer lines: the lines of
code a student writes, those inside the ``### BEGIN SOLUTION`` ...
``### END SOLUTION`` regions of the code cells of the source notebook
``exercises/hwNN/hwNN.ipynb``, not counting blank lines and comment lines.
Written answers (markdown cells graded by hand) are left out. No homework may
ask for more than 1.4 times the median over all homeworks.

The count and the rule are functions of the text, so they are also run on a
doctored notebook and on doctored counts, to show that each can fail.
"""

import json
import re
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 1.4
BEGIN = re.compile(r"^\s*### BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*### END SOLUTION\s*$")


def answer_lines(notebook):
    """The answer lines of a notebook (a dict as json.load gives it): code lines inside its solution regions."""
    count = 0
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        inside = False
        for line in "".join(cell["source"]).splitlines():
            if BEGIN.match(line):
                inside = True
            elif END.match(line):
                inside = False
            elif inside and line.strip() and not line.strip().startswith("#"):
                count += 1
    return count


def homework_answer_lines(root):
    """{"hwNN": answer lines} for every homework of the course."""
    return {nb.stem: answer_lines(json.loads(nb.read_text()))
            for nb in sorted((root / "exercises").glob("hw*/hw*.ipynb")) if nb.stem == nb.parent.name}


def problems_with_balance(counts, limit=LIMIT):
    """The homeworks whose answer lines exceed ``limit`` times the median, each with its numbers."""
    median = statistics.median(counts.values())
    return [f"{hw} asks for {n} answer lines, {n / median:.2f} times the median of {median:g} "
            f"(at most {limit} times, {limit * median:.0f} lines): give back bookkeeping that is not the item "
            "practised as given code, or split the homework"
            for hw, n in sorted(counts.items()) if n > limit * median]


def test_no_homework_asks_for_much_more_than_the_median():
    counts = homework_answer_lines(ROOT)
    assert len(counts) >= 3, f"expected the course's homeworks under exercises/, found {sorted(counts)}"
    problems = problems_with_balance(counts)
    assert not problems, "\n".join(problems)


def test_the_count_reads_solution_regions_only():
    cell = ("def f(x):\n    \"\"\"Doc.\"\"\"\n    ### BEGIN SOLUTION\n    # a comment\n\n    y = 2 * x\n"
            "    return y\n    ### END SOLUTION\nprint(f(1))\n")
    written = "### BEGIN SOLUTION\nA written answer is not code.\n### END SOLUTION\n"
    notebook = {"cells": [{"cell_type": "code", "source": cell.splitlines(keepends=True)},
                          {"cell_type": "markdown", "source": [written]},
                          {"cell_type": "code", "source": ["x = 1\n"]}]}
    assert answer_lines(notebook) == 2


def test_the_rule_fails_on_a_homework_above_the_limit():
    counts = {"hw01": 40, "hw02": 50, "hw03": 55, "hw04": 60, "hw05": 78}
    assert problems_with_balance(counts) == [
        "hw05 asks for 78 answer lines, 1.42 times the median of 55 (at most 1.4 times, 77 lines): give back "
        "bookkeeping that is not the item practised as given code, or split the homework"]
    counts["hw05"] = 77
    assert problems_with_balance(counts) == []
