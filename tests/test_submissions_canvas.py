"""Canvas's bulk download ("Download Submissions"): file names mapped to students (fast, no grading).

Canvas names each file ``<name>_<userid>_<submissionid>_<uploaded file>`` and
``<name>_LATE_<userid>_<submissionid>_<uploaded file>``; a re-uploaded file gets
``-1``, ``-2``... before ``.ipynb``. The student id is the Canvas user id.
"""

import zipfile

import pytest

from autograder.grading import submissions
from autograder.grading.canvas import canvas_file


def hand_in(folder, *names):
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("{}")
    return folder


def by_student(folder, names=("hw01",), assignment="hw01"):
    return {s.student: s for s in submissions.find(folder, assignment, list(names))}


@pytest.mark.parametrize("filename, parts", [
    ("doejane_4242_98765_hw01.ipynb", ("doejane", "4242", 98765, False, "hw01.ipynb", "hw01", 0)),
    ("jane_m_doe_4242_98765_hw01.ipynb", ("jane_m_doe", "4242", 98765, False, "hw01.ipynb", "hw01", 0)),
    ("doejane_LATE_4242_98765_hw01-1.ipynb", ("doejane", "4242", 98765, True, "hw01-1.ipynb", "hw01", 1)),
    ("j_doe_LATE_7_8_my_hw01-12.ipynb", ("j_doe", "7", 8, True, "my_hw01-12.ipynb", "my_hw01", 12)),
    # a login ending in digits: the split that leaves the assignment's notebook wins
    ("jdoe_2024_4242_98765_hw01.ipynb", ("jdoe_2024", "4242", 98765, False, "hw01.ipynb", "hw01", 0)),
])
def test_canvas_file_names(filename, parts):
    found = canvas_file(filename, ["hw01"])
    assert (found.name, found.user, found.submission, found.late, found.original, found.stem,
            found.copy) == parts


@pytest.mark.parametrize("filename", ["alice.ipynb", "hw01.ipynb", "bob_hw01.ipynb", "_1_2_hw01.ipynb",
                                      "bob_1_2_", "bob_12_hw01.ipynb"])
def test_not_canvas_file_names(filename):
    assert canvas_file(filename, ["hw01"]) is None


def test_canvas_download(tmp_path):
    folder = hand_in(
        tmp_path / "canvas",
        "doejane_4242_500_hw01.ipynb",                 # plain
        "jane_m_smith_17_501_hw01.ipynb",              # underscores in the login
        "brownbob_LATE_23_502_hw01-1.ipynb",           # late, and re-uploaded (-1)
        "leecy_31_400_hw01.ipynb",                     # several submissions: 400 < 612, so 612 is graded
        "leecy_LATE_31_612_hw01-2.ipynb",
        "leecy_31_555_hw01-1.ipynb",
        "kimdee_44_600_hw01.ipynb",                    # one submission with two uploads: -1 is the later one
        "kimdee_44_600_hw01-1.ipynb",
        "kimdee_44_600_notes.pdf",
        "ngo_55_700_Homework 1 (Ngo).ipynb",           # the only notebook, named otherwise: taken
        "ray_66_800_answers.pdf",                      # no notebook at all: reported, not ignored
    )
    found = by_student(folder)
    assert set(found) == {"4242", "17", "23", "31", "44", "55", "66"}
    expected = {"4242": ("doejane", "doejane_4242_500_hw01.ipynb"),
                "17": ("jane_m_smith", "jane_m_smith_17_501_hw01.ipynb"),
                "23": ("brownbob", "brownbob_LATE_23_502_hw01-1.ipynb"),
                "31": ("leecy", "leecy_LATE_31_612_hw01-2.ipynb"),
                "44": ("kimdee", "kimdee_44_600_hw01-1.ipynb"),
                "55": ("ngo", "ngo_55_700_Homework 1 (Ngo).ipynb")}
    for student, (name, file) in expected.items():
        submission = found[student]
        assert submission.files == {"hw01": folder / file}, student
        assert submission.problem == "" and submission.name == name and submission.label == file
    assert found["66"].files == {} and found["66"].name == "ray"
    assert "no notebook in the Canvas submission 800 of ray" in found["66"].problem


def test_canvas_zip_wrapped_in_a_folder(tmp_path):
    """A zip of Canvas files, also when re-zipped inside one folder (and with macOS junk)."""
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("hw01 submissions/a_b_c_1001_9_hw01.ipynb", "{}")
        zf.writestr("__MACOSX/hw01 submissions/._a_b_c_1001_9_hw01.ipynb", "junk")
    with submissions.opened(archive, "hw01", ["hw01"]) as found:
        assert [(s.student, s.name, s.files["hw01"].name) for s in found] == [
            ("1001", "a_b_c", "a_b_c_1001_9_hw01.ipynb")]
    assert "hw01" in submissions.names_inside(archive)


def test_canvas_notebooks_of_a_multi_notebook_assignment(tmp_path):
    folder = hand_in(tmp_path / "canvas", "doe_1_2_part1.ipynb", "doe_1_2_part2-1.ipynb", "roe_3_4_x.ipynb",
                     "roe_3_4_y.ipynb")
    found = by_student(folder, ["part1", "part2"], "hw05")
    assert found["1"].files == {"part1": folder / "doe_1_2_part1.ipynb", "part2": folder / "doe_1_2_part2-1.ipynb"}
    assert "2 notebooks in the Canvas submission 4 of roe" in found["3"].problem


def test_plain_flat_folder_unchanged(tmp_path):
    """A folder of <student>.ipynb (no Canvas names) works as before, also with underscores and digits."""
    folder = hand_in(tmp_path / "flat", "alice.ipynb", "bob_smith.ipynb", "carl_2024.ipynb", "notes_1_2_x.txt")
    found = by_student(folder)
    assert set(found) == {"alice", "bob_smith", "carl_2024"}
    for student, submission in found.items():
        assert submission.files == {"hw01": folder / f"{student}.ipynb"} and submission.problem == ""
        assert submission.label == f"{student}.ipynb" and submission.name == student


def test_canvas_and_plain_files_mixed(tmp_path):
    """A Canvas download with a hand-added <student>.ipynb: both are graded; a clash of ids is reported."""
    folder = hand_in(tmp_path / "mixed", "doe_7_8_hw01.ipynb", "zoe.ipynb", "7.ipynb")
    found = submissions.find(folder, "hw01", ["hw01"])
    assert sorted(s.student for s in found) == ["7", "7", "zoe"]
    assert all("several submissions for student 7" in s.problem for s in found if s.student == "7")


def test_canvas_late_mark_is_kept(tmp_path):
    """Canvas's _LATE_ goes with the hand-in to the outcome (and the export's late column)."""
    folder = hand_in(tmp_path / "late", "doejane_4242_500_hw01.ipynb", "brownbob_LATE_23_502_hw01-1.ipynb")
    found = by_student(folder)
    assert found["23"].late is True and found["4242"].late is False
    assert found["23"].name == "brownbob" and found["23"].paths == [folder / "brownbob_LATE_23_502_hw01-1.ipynb"]
