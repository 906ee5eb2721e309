"""Find solutions and hidden tests where students could see them.

The secrets of a source notebook are the lines of its solution regions (a
written-answer cell without markers is a solution as a whole) and of its
hidden-test regions. Lines that also appear outside those regions (an
``import``, a line the tests share) are public, and very short lines are too
common to count. A released notebook, or a student's feedback, leaks when it
contains a region marker or a secret line; in feedback, lines the student
wrote themselves are not leaks.
"""

import html
import re

import nbformat

MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
SHORTEST_SECRET = 12  # characters; shorter lines ("return M", "else:") prove nothing


def _regions(source, begin, end):
    """Split a cell source into (inside, outside) lines for the region begin ... end."""
    inside, outside, within = [], [], False
    for line in source.splitlines():
        if begin in line:
            within = True
        elif end in line:
            within = False
        elif within:
            inside.append(line)
        else:
            outside.append(line)
    return inside, outside


def secret_lines(source_nb):
    """The lines of a source notebook that only its solutions and hidden tests contain."""
    secret, public = set(), set()
    for cell in source_nb.cells:
        nbg = cell.metadata.get("nbgrader", {})
        source = cell.source
        if nbg.get("solution"):
            if "BEGIN SOLUTION" in source:
                inside, outside = _regions(source, "BEGIN SOLUTION", "END SOLUTION")
            else:
                inside, outside = source.splitlines(), []
        elif nbg.get("grade"):
            inside, outside = _regions(source, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
        else:
            inside, outside = [], source.splitlines()
        secret.update(line.strip() for line in inside)
        public.update(line.strip() for line in outside)
    return {line for line in secret - public if len(line) >= SHORTEST_SECRET}


def notebook_text(nb):
    """Everything a reader of a notebook sees: cell sources and text outputs."""
    parts = []
    for cell in nb.cells:
        parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            parts.extend(output.get("traceback", []))
            parts.append(output.get("evalue", ""))
            for value in output.get("data", {}).values():
                parts.append(value if isinstance(value, str) else "")
    return "\n".join(parts)


def html_text(page):
    """The text of an HTML page, tags removed and entities decoded (code stays line by line)."""
    page = re.sub(r"<(style|script)\b.*?</\1>", "", page, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def find_leaks(text, secrets, own_text=""):
    """Markers and secret lines found in ``text`` that are not in ``own_text`` (the student's own work)."""
    found = [f"marker '{marker}'" for marker in MARKERS if marker in text and marker not in own_text]
    found += [f"line '{line}'" for line in sorted(secrets) if line in text and line not in own_text]
    return found


def summary(where, found, shown=3):
    """One sentence about the leaks found in ``where``."""
    examples = "; ".join(found[:shown]) + ("; ..." if len(found) > shown else "")
    return f"{where} shows {len(found)} thing(s) it must not: {examples}"


def read_notebook(path):
    return nbformat.read(str(path), as_version=4)
