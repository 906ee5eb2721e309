"""A real class's names and files: every bad entry sets aside its own student only, and nothing handed in changes.

One class is graded twice, as a folder and as a .zip: students whose names
are in Japanese, Greek and with a decomposed umlaut (as a Mac writes it), a
zip entry that unpacks past the size limit of one file (a bomb), one with
``../`` in its path, a symbolic link to another student's notebook, a
notebook over the size limit. The right notebooks are graded with full marks;
each bad one is "could not be graded" with its reason; no id collapses into
another. The limit is on each file, never on the class: the class together is
larger than one file may be. Zip entries with unsafe paths are set aside one
by one, each named, and no student is made of them. Another homework's
notebook handed in (or saved under this homework's name) is named for what
it is. ``grade --student`` grades one student; ``forget`` removes an outcome,
never a hand-in.
"""

import hashlib
import os
import shutil
import stat
import zipfile
from pathlib import Path

import nbformat
import pytest

from nbgrader.api import Gradebook

from autograder.cli import main
from autograder.course import gradebook
from autograder.course.course import Course
from autograder.course.outcomes import FAILED, GRADED, Outcomes
from autograder.grading import submissions
from autograder.grading.grade import grade
from tests.scratch import REPO as SOURCE, answered, scratch_course

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
    shutil.copytree(SOURCE / "exercises" / "hw04", root / "exercises" / "hw04")   # a second homework, not released
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
        zf.writestr("/tmp/hw01.ipynb", nbformat.writes(right))
        zf.writestr("../../tmp/x.ipynb", nbformat.writes(right))
        link = zipfile.ZipInfo("submissions/linky/hw01.ipynb")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "../plain/hw01.ipynb")
    assert archive.stat().st_size < LIMIT_MB * 1024**2 < 3 * LIMIT_MB * 1024**2
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    said = []
    outcomes = {o["student"]: o for o in grade(course, archive, "hw01", force=True, report=said.append)}
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == digest
    for student in GOOD.values():
        assert outcomes[student]["status"] == GRADED, outcomes[student]
    assert "unpacks to more than 1 MB" in outcomes["bomb"]["reason"]
    assert "symbolic link" in outcomes["linky"]["reason"]
    assert set(outcomes) == set(GOOD.values()) | {"bomb", "linky"}, "an unsafe entry was made a student"
    for entry in ("submissions/sneaky/../../../etc/hw01.ipynb", "/tmp/hw01.ipynb", "../../tmp/x.ipynb"):
        lines = [line for line in said if repr(entry) in line]
        assert len(lines) == 1 and "set aside" in lines[0] and "unsafe" in lines[0], (entry, said)


def test_ids_of_names_in_any_script_stay_apart_and_stable():
    names = ["名前", "学生", "Ωmega", "mega", "Jörg", "Jo\u0308rg", "★", "☆", "jo doe", "jo_doe", "jo-doe"]
    ids = [submissions.student_id(n) for n in names]
    assert ids[:5] == ["名前", "学生", "Ωmega", "mega", "Jörg"]
    assert ids[5] == ids[4], "one name typed two ways (composed, decomposed) is one student"
    assert ids[6:] == names[6:], "a name nbgrader's paths can carry is the id as it is"
    assert ids == [submissions.student_id(n) for n in names], "the same name always gives the same id"
    assert submissions.student_id("Jo\u0308rg", compose=False) == "Jo\u0308rg", "submitted/'s ids are kept exactly"


def test_names_nbgraders_paths_cannot_carry_map_back_and_never_collide():
    names = ["a*b", "a%2Ab", "a[1]", "q?", "50%", "50%25", "%2A", "*", " lead", "%20lead", "trail ", ".", "%2E",
             "..", "tab\tin", "back\\slash", "a/b"]
    folders = [submissions.student_id(n) for n in names]
    assert len(set(folders)) == len(names), "two names share a folder"
    assert [submissions.name_of(f) for f in folders] == names
    for folder in folders:
        assert not set(folder) & set("*?[]/\\\t") and folder.strip() == folder and folder not in (".", ".."), folder


def test_another_homeworks_notebook_is_named_for_what_it_is(course, right, tmp_path):
    """hw04's notebook handed in for hw01, and hw01's saved under hw04's name: the reason names the homework."""
    folder = tmp_path / "mixed"
    (folder / "mixup").mkdir(parents=True)
    shutil.copy(SOURCE / "exercises" / "hw04" / "hw04.ipynb", folder / "mixup" / "hw01.ipynb")
    outcomes = graded(course, [str(folder)])
    assert outcomes["mixup"]["status"] == FAILED
    assert outcomes["mixup"]["reason"].startswith("this is not a hw01 notebook: it looks like hw04's"), outcomes
    assert "NbGraderException" not in outcomes["mixup"]["reason"]
    with Gradebook(course.db_url, course.course_id) as gb:   # hw04 known to the gradebook, as after its release
        gb.update_or_create_assignment("hw04")
    renamed = tmp_path / "renamed"
    (renamed / "saver").mkdir(parents=True)
    nbformat.write(right, str(renamed / "saver" / "hw04.ipynb"))
    assert main(["--root", str(course.root), "grade", str(renamed), "--assignment", "hw04"]) == 0
    saver = Outcomes(course).get("hw04", "saver")
    assert saver["status"] == FAILED and saver["reason"].startswith("this is not a hw04 notebook: it looks like hw01's")


def test_one_student_graded_again_and_a_wrong_outcome_forgotten(course, right, tmp_path, capsys):
    folder = tmp_path / "pair"
    for name in ("jo doe", "jo_doe"):
        (folder / name).mkdir(parents=True)
        nbformat.write(right, str(folder / name / "hw01.ipynb"))
    graded(course, [str(folder)])
    book = Outcomes(course)
    first = {s: book.get("hw01", s)["graded_at"] for s in ("jo doe", "jo_doe")}
    assert book.get("hw01", "jo doe")["status"] == GRADED and book.get("hw01", "jo_doe")["status"] == GRADED
    before = hashes(folder)
    assert main(["--root", str(course.root), "grade", str(folder), "--assignment", "hw01", "--student", "jo doe",
                 "--force"]) == 0
    assert "hw01/jo doe: graded" in capsys.readouterr().out
    assert Outcomes(course).get("hw01", "jo_doe")["graded_at"] == first["jo_doe"], "only jo doe is graded again"
    assert main(["--root", str(course.root), "grade", str(folder), "--assignment", "hw01", "--student", "nobody"]) == 1
    assert "no hand-in of student 'nobody'" in capsys.readouterr().err
    # one student's folder named as the class: refused, not read as students hw01 and hw04
    one = tmp_path / "one-student"
    for hw in ("hw01", "hw04"):
        (one / hw).mkdir(parents=True)
        nbformat.write(right, str(one / hw / f"{hw}.ipynb"))
    assert main(["--root", str(course.root), "grade", str(one), "--assignment", "hw01"]) == 1
    assert "looks like one student's folder" in capsys.readouterr().err
    assert Outcomes(course).get("hw01", "hw01") is None and Outcomes(course).get("hw01", "hw04") is None
    # forget: the outcome and its grades go, the hand-in stays
    assert main(["--root", str(course.root), "forget", "--assignment", "hw01", "--student", "jo_doe"]) == 0
    assert Outcomes(course).get("hw01", "jo_doe") is None
    assert "jo_doe" not in gradebook.students(course, "hw01")
    assert not course.student_folder("autograded", "jo_doe", "hw01").exists()
    assert "jo doe" in gradebook.students(course, "hw01")
    assert hashes(folder) == before
    assert main(["--root", str(course.root), "forget", "--assignment", "hw01", "--student", "jo_doe"]) == 1
    assert "no outcome of hw01 for student 'jo_doe'" in capsys.readouterr().err
