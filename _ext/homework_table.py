"""The Homework page's table of notebooks, made from the homework folders themselves.

``homework.md`` holds the directive ``{homework-table}``; it becomes one row
per folder of ``exercises/`` that holds a notebook of its own name, in the
folders' order: the released notebook to download, the chapters it goes with
and what the student builds (the notebook's ``metadata.course``), and the
points, summed from the notebook's nbgrader cells (autograded: the code test
cells; by hand: the written answers). Nothing in the table is typed twice,
so a new homework folder shows up, with its points, at the next build
(exercises/README.md).

Run alone, it prints the table: ``python _ext/homework_table.py``.
"""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = ["| homework | chapter | what you build | points |", "| --- | --- | --- | --- |"]


def points(nb):
    """(autograded, by hand) points of a notebook given as its JSON: its nbgrader grade cells' points."""
    auto = manual = 0
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("grade"):
            continue
        if cell["cell_type"] == "code" and not meta.get("solution"):
            auto += meta.get("points", 0)
        else:
            manual += meta.get("points", 0)
    return auto, manual


def _number(value):
    return f"{value:g}"


def points_text(auto, manual):
    """How the table says the points: "18 (15 autograded, 3 by hand)"."""
    if not manual:
        return f"{_number(auto)} (autograded)"
    return f"{_number(auto + manual)} ({_number(auto)} autograded, {_number(manual)} by hand)"


def _chapters(chapters):
    links = [f"{{doc}}`{c}`" for c in chapters]
    return f"{links[0]} to {links[-1]}" if len(links) > 2 else ", ".join(links)


def homework(root=ROOT):
    """The homework folders, in order: [(name, notebook as JSON)]."""
    found = []
    for folder in sorted((Path(root) / "exercises").iterdir()):
        path = folder / f"{folder.name}.ipynb"
        if folder.is_dir() and path.is_file():
            found.append((folder.name, json.loads(path.read_text(encoding="utf-8"))))
    return found


def rows(root=ROOT):
    """The table as MyST markdown lines; a notebook without its chapters or summary is a clear error."""
    lines = list(HEADER)
    for name, nb in homework(root):
        course = nb.get("metadata", {}).get("course", {})
        if not course.get("chapters") or not str(course.get("summary", "")).strip():
            raise ValueError(f"exercises/{name}/{name}.ipynb: its metadata needs course.chapters (a list of "
                             "chapter paths as in _toc.yml) and course.summary (what the student builds); "
                             "see exercises/README.md")
        download = f"{{download}}`{name}.ipynb <release/{name}/{name}.ipynb>`"
        summary = " ".join(str(course["summary"]).split()).replace("|", "\\|")
        lines.append(f"| {download} | {_chapters(course['chapters'])} | {summary} | {points_text(*points(nb))} |")
    return lines


def setup(app):
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    class HomeworkTable(SphinxDirective):
        """``{homework-table}``: the table of :func:`rows`, parsed as the page's own markdown."""

        def run(self):
            for _, path in ((n, ROOT / "exercises" / n / f"{n}.ipynb") for n, _ in homework()):
                self.env.note_dependency(str(path))
            from docutils import nodes
            holder = nodes.container()
            self.state.nested_parse(StringList(rows(), source="exercises/"), self.content_offset, holder)
            return holder.children

    app.add_directive("homework-table", HomeworkTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    print("\n".join(rows()))
