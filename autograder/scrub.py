"""Feedback without hidden tests.

Autograding writes the hidden tests back into each test cell (they have to
run), and nbgrader's feedback then shows them to the student. The
:class:`HideHiddenTests` preprocessor, listed first in
``GenerateFeedback.preprocessors`` (nbgrader_config.py), cuts each hidden
region out of the test cells before the HTML is written. In those cells an
error's traceback, which quotes the failing line, is shortened to the error's
name and message: the message, written to teach, stays.
"""

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Unicode


class HideHiddenTests(Preprocessor):
    """Remove hidden-test regions (and tracebacks quoting them) from test cells."""

    enabled = Bool(True, help="nbconvert runs only enabled preprocessors").tag(config=True)
    begin = Unicode("BEGIN HIDDEN TESTS", help="marker opening a hidden-test region").tag(config=True)
    end = Unicode("END HIDDEN TESTS", help="marker closing a hidden-test region").tag(config=True)
    placeholder = Unicode("# (more tests ran here during grading; they are not shown)",
                          help="what replaces a hidden-test region").tag(config=True)

    def hide(self, source):
        """The source with each hidden region replaced by the placeholder; and whether there was one."""
        kept, hidden, found = [], False, False
        for line in source.splitlines():
            if self.begin in line:
                hidden = found = True
                indent = line[: len(line) - len(line.lstrip())]
                kept.append(indent + self.placeholder)
            elif self.end in line:
                hidden = False
            elif not hidden:
                kept.append(line)
        return "\n".join(kept), found

    def preprocess_cell(self, cell, resources, index):
        nbgrader = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not nbgrader.get("grade") or nbgrader.get("solution"):
            return cell, resources
        cell.source, found = self.hide(cell.source)
        if found:
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources
