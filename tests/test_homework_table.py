"""The Homework page's table is made from the homework folders (_ext/homework_table.py).

Its points are checked against nbgrader's own reading of each notebook (an
independent sum), every folder of exercises/ is in it in order, a copied
folder shows up with its own points, a notebook that does not say its
chapters is a clear error, and the built page shows what the notebooks say.
"""

import importlib.util
import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import is_grade, is_solution

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("homework_table", ROOT / "_ext" / "homework_table.py")
homework_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(homework_table)
FOLDERS = sorted(p.name for p in (ROOT / "exercises").iterdir() if (p / f"{p.name}.ipynb").is_file())


def nbgrader_points(path):
    """(autograded, by hand) as nbgrader reads the cells: grade code cells without a solution are tests."""
    nb = nbformat.read(str(path), as_version=4)
    auto = sum(float(c.metadata.nbgrader["points"]) for c in nb.cells
               if is_grade(c) and not is_solution(c) and c.cell_type == "code")
    manual = sum(float(c.metadata.nbgrader["points"]) for c in nb.cells if is_grade(c) and is_solution(c))
    return auto, manual


def row_of(lines, name):
    found = [line for line in lines if f"<release/{name}/{name}.ipynb>" in line]
    assert len(found) == 1, f"{name}: {len(found)} rows"
    return [cell.strip() for cell in found[0].strip().strip("|").split(" | ")]


def test_every_homework_folder_has_a_row_with_its_notebooks_points():
    lines = homework_table.rows()
    names = [re.search(r"release/(\w+)/", line).group(1) for line in lines[2:]]
    assert names == FOLDERS
    for name in FOLDERS:
        auto, manual = nbgrader_points(ROOT / "exercises" / name / f"{name}.ipynb")
        assert auto > 0, name
        total = row_of(lines, name)[3]
        expected = f"{auto + manual:g} ({auto:g} autograded, {manual:g} by hand)" if manual else f"{auto:g} (autograded)"
        assert total == expected, (name, total)


def test_the_page_types_no_row_by_hand():
    text = (ROOT / "homework.md").read_text()
    assert "```{homework-table}" in text
    assert "{download}`hw" not in text, "homework.md lists a notebook by hand: the table is made from exercises/"


def test_a_copied_folder_shows_up_with_its_own_points(tmp_path):
    (tmp_path / "exercises").mkdir()
    shutil.copytree(ROOT / "exercises" / "hw01", tmp_path / "exercises" / "hw01")
    copy = tmp_path / "exercises" / "hw99"
    copy.mkdir()
    nb = json.loads((ROOT / "exercises" / "hw01" / "hw01.ipynb").read_text())
    test = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade") and c["cell_type"] == "code")
    test["metadata"]["nbgrader"]["points"] += 5
    nb["metadata"]["course"] = {"chapters": ["chapters/07_time_stepping_lcp", "chapters/08_convex_relaxations",
                                             "chapters/09_trajopt_contact"], "summary": "a copy | with a bar"}
    (copy / "hw99.ipynb").write_text(json.dumps(nb))
    lines = homework_table.rows(tmp_path)
    first, copied = row_of(lines, "hw01"), row_of(lines, "hw99")
    assert copied[3] == "24 (21 autograded, 3 by hand)" and first[3] == "19 (16 autograded, 3 by hand)"
    assert copied[1] == "{doc}`chapters/07_time_stepping_lcp` to {doc}`chapters/09_trajopt_contact`"
    assert copied[2] == "a copy \\| with a bar"


def test_a_notebook_that_does_not_say_its_chapters_is_a_clear_error(tmp_path):
    folder = tmp_path / "exercises" / "hw01"
    shutil.copytree(ROOT / "exercises" / "hw01", folder)
    nb = json.loads((folder / "hw01.ipynb").read_text())
    del nb["metadata"]["course"]
    (folder / "hw01.ipynb").write_text(json.dumps(nb))
    with pytest.raises(ValueError, match=r"exercises/hw01/hw01.ipynb: its metadata needs course.chapters"):
        homework_table.rows(tmp_path)


@pytest.mark.site
def test_the_built_page_shows_the_notebooks_points():
    page = ROOT / "_build" / "html" / "homework.html"
    if not page.is_file():
        pytest.fail("the website is not built: run `make book` first")
    text = re.sub(r"<[^>]+>", "", page.read_text())
    for name in FOLDERS:
        auto, manual = nbgrader_points(ROOT / "exercises" / name / f"{name}.ipynb")
        assert homework_table.points_text(auto, manual) in text, name
        assert f"{name}.ipynb" in text, name
