"""What students must never see: solutions and hidden tests, found and cut out.

The secrets of a source notebook are the lines of its solution regions (a
written-answer cell without markers is a solution as a whole) and of its
hidden-test regions. Lines that also appear outside those regions (an
``import``, a line the tests share) are public, and very short lines are too
common to count. A released notebook, or a student's feedback, leaks when it
contains a region marker or a secret line; in feedback, lines the student
wrote themselves are not leaks.

Autograding writes the hidden tests back into each test cell (they have to
run), and nbgrader's feedback would show them: :class:`HideHiddenTests`,
listed first in ``GenerateFeedback.preprocessors`` (nbgrader_config.py), cuts
each hidden region out of the test cells before the HTML is written, and
shortens the tracebacks there, which quote the failing line, to the error's
name and message (the message, written to teach, stays). Release and
feedback then read their output back with :func:`find_leaks`.
"""

import html
import re

from nbconvert.preprocessors import Preprocessor
from nbgrader.utils import is_grade, is_solution
from traitlets import Bool, Unicode

from .cells import role

MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
SHORTEST_SECRET = 12  # characters; shorter lines ("return M", "else:") prove nothing


def _lines(source, begin, end):
    """Each line of ``source`` with where it lies: "begin" or "end" (a marker's line), "inside" or "outside".

    >>> [where for where, _ in _lines("a\\n# BEGIN\\nb\\n# END\\nc", "BEGIN", "END")]
    ['outside', 'begin', 'inside', 'end', 'outside']
    """
    within = False
    for line in source.splitlines():
        if begin in line:
            within = True
            yield "begin", line
        elif end in line:
            within = False
            yield "end", line
        else:
            yield ("inside" if within else "outside"), line


def _regions(source, begin, end):
    """Split a cell source into (inside, outside) lines for the region begin ... end."""
    inside, outside = [], []
    for where, line in _lines(source, begin, end):
        if where == "inside":
            inside.append(line)
        elif where == "outside":
            outside.append(line)
    return inside, outside


def secret_lines(source_nb):
    """The lines of a source notebook that only its solutions and hidden tests contain."""
    secret, public = set(), set()
    for cell in source_nb.cells:
        source = cell.source
        if is_solution(cell):
            if MARKERS[0] in source:
                inside, outside = _regions(source, MARKERS[0], MARKERS[1])
            else:
                inside, outside = source.splitlines(), []
        elif is_grade(cell):
            inside, outside = _regions(source, MARKERS[2], MARKERS[3])
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


class HideHiddenTests(Preprocessor):
    """Remove hidden-test regions (and tracebacks quoting them) from test cells."""

    enabled = Bool(True, help="nbconvert runs only enabled preprocessors").tag(config=True)
    begin = Unicode(MARKERS[2], help="marker opening a hidden-test region").tag(config=True)
    end = Unicode(MARKERS[3], help="marker closing a hidden-test region").tag(config=True)
    placeholder = Unicode("# (more tests ran here during grading; they are not shown)",
                          help="what replaces a hidden-test region").tag(config=True)

    def hide(self, source):
        """The source with each hidden region replaced by the placeholder; and whether there was one."""
        kept, found = [], False
        for where, line in _lines(source, self.begin, self.end):
            if where == "begin":
                found = True
                kept.append(line[: len(line) - len(line.lstrip())] + self.placeholder)
            elif where == "outside":
                kept.append(line)
        return "\n".join(kept), found

    def preprocess_cell(self, cell, resources, index):
        if role(cell) != "test":
            return cell, resources
        cell.source, found = self.hide(cell.source)
        if found:
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources
