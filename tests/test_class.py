"""A real class's names and files: every bad entry sets aside its own student only, and nothing handed in changes.

One class is graded twice, as a folder and as a .zip: students whose names
are in Japanese, Greek and with a decomposed umlaut (as a Mac writes it), a
zip entry that unpacks past the size limit of one file (a bomb), one with
``../`` in its path, a symbolic link to another student's notebook, a
notebook over the size limit. The right notebooks are graded with full marks;
each bad one is "could not be graded" with its reason; no id collapses into
another. The limit is on each file, never on the class: the class together is
larger than one file may be.
"""

import hashlib
import os
import stat
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder import submissions
from autograder.cli import main
from autograder.course import Course
from autograder.outcomes import FAILED, GRADED, Outcomes
from tests.scratch import answered, scratch_course

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not (REPO / "exercises" / "hw01").is_dir(), reason="needs exercises/hw01")
LIMIT_MB = 1   # RBD_HANDIN_FILE_MB in these tests: the padded notebooks are 0.6 MB each, the class several MB
GOOD = {"名前": "名前", "Ωmega": "Ωmega", "Jo\u0308rg": "Jörg", "学生": "学生", "plain": "plain"}


def padded(nb, mb):
    """A notebook grown to about ``mb`` MB by a markdown cell a student might have pasted (still valid)."""
    nb = nbformat.from_dict(nb)
    nb.cells.append(nbformat.v4.new_markdown_cell("x" * int(mb * 1024 * 1024)))
    return nbformat.writes(nb)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = scratch_course(tmp_path_factory.mktemp("class-course"))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RBD_GRADEBOOK_URL", f"sqlite:///{root / 'gradebook.db'}")
        env.setenv("RBD_HANDIN_FILE_MB", str(LIMIT_MB))
        env.delenv("RBD_COURSE_ROOT", raising=False)
        assert main(["--root", str(root), "release", "hw01"]) == 0
        yield Course(root)


@pytest.fixture(scope="module")
def right(course):
    return answered(course.release_dir / "hw01" / "hw01.ipynb")


def hashes(folder):
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def graded(course, argv):
    assert main(["--root", str(course.root), "grade", *argv, "--assignment", "hw01", "--force"]) == 0
    return {o["student"]: o for o in Outcomes(course).all("hw01")}


def test_a_class_folder_with_bad_entries(course, right, tmp_path):
    folder = tmp_path / "class"
    for name in GOOD:
        (folder / name).mkdir(parents=True)
        (folder / name / "hw01.ipynb").write_text(padded(right, 0.6))
    (folder / "huge").mkdir()
    (folder / "huge" / "hw01.ipynb").write_text(padded(right, 1.5))
    (folder / "copycat").mkdir()
    os.symlink(folder / "plain" / "hw01.ipynb", folder / "copycat" / "hw01.ipynb")
    os.symlink(folder / "plain", folder / "shadow")
    before = hashes(folder)
    assert sum(p.stat().st_size for p in (folder / n / "hw01.ipynb" for n in GOOD)) > 2 * LIMIT_MB * 1024**2
    outcomes = graded(course, [str(folder)])
    assert hashes(folder) == before
    for name, student in GOOD.items():
        assert outcomes[student]["status"] == GRADED, outcomes[student]
        assert outcomes[student]["score"] == outcomes[student]["max_score"] - 3, outcomes[student]
    assert outcomes["huge"]["status"] == FAILED and "over the 1 MB limit" in outcomes["huge"]["reason"]
    for linked in ("copycat", "shadow"):
        assert outcomes[linked]["status"] == FAILED and "symbolic link" in outcomes[linked]["reason"], linked


def test_a_zip_with_a_bomb_an_unsafe_path_and_a_link(course, right, tmp_path):
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in GOOD:
            zf.writestr(f"submissions/{name}/hw01.ipynb", padded(right, 0.6))
        zf.writestr("submissions/bomb/hw01.ipynb", b"\0" * (3 * LIMIT_MB * 1024**2))   # 3 MB out, a few kB in
        zf.writestr("submissions/sneaky/../../../etc/hw01.ipynb", nbformat.writes(right))
        link = zipfile.ZipInfo("submissions/linky/hw01.ipynb")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "../plain/hw01.ipynb")
    assert archive.stat().st_size < LIMIT_MB * 1024**2 < 3 * LIMIT_MB * 1024**2
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    outcomes = graded(course, [str(archive)])
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == digest
    for student in GOOD.values():
        assert outcomes[student]["status"] == GRADED, outcomes[student]
    assert "unpacks to more than 1 MB" in outcomes["bomb"]["reason"]
    assert "symbolic link" in outcomes["linky"]["reason"]
    unsafe = [o for o in outcomes.values() if "unsafe path" in o.get("reason", "")]
    assert len(unsafe) == 1 and unsafe[0]["status"] == FAILED, outcomes


def test_ids_of_names_in_any_script_stay_apart_and_stable():
    names = ["名前", "学生", "Ωmega", "mega", "Jörg", "Jo\u0308rg", "★", "☆"]
    ids = [submissions.student_id(n) for n in names]
    assert ids[:5] == ["名前", "学生", "Ωmega", "mega", "Jörg"]
    assert ids[5] == ids[4], "one name typed two ways (composed, decomposed) is one student"
    assert ids[6] != ids[7] and all(ids[6:8])
    assert ids == [submissions.student_id(n) for n in names], "the same name always gives the same id"
