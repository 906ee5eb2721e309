"""Find the students' notebooks in a folder or a .zip, and check each before grading.

Accepted layouts (mixed freely, also inside a .zip, also under one wrapping folder):

    <student>/<assignment>/<notebook>.ipynb   nbgrader's own layout
    <student>/<notebook>.ipynb                one folder per student
    <student>.ipynb                           one file per student

A notebook named like the assignment's notebook is taken; a student with a
single notebook of another name (``hw01 (1).ipynb``) is taken too and renamed.
Nothing is ever written into the folder or the .zip.
"""

import contextlib
import json
import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

SKIPPED = {"__MACOSX", ".ipynb_checkpoints", "__pycache__"}
LARGEST_ZIP = 2 * 1024**3  # bytes, uncompressed


@dataclass
class Submission:
    """One student's hand-in: notebook name -> file, or the reason it cannot be used."""

    student: str
    label: str
    files: dict = field(default_factory=dict)
    problem: str = ""


def student_id(name):
    """A safe student id from a folder or file name ('Jo Doe' -> 'Jo_Doe')."""
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", name).strip("._") or "unnamed"


def _visible(path):
    return [p for p in sorted(path.iterdir()) if not p.name.startswith(".") and p.name not in SKIPPED]


def _is_one_student(path, assignment, names):
    """Whether a folder looks like one student's hand-in rather than a folder of several."""
    entries = _visible(path)
    notebooks = [p for p in entries if p.suffix == ".ipynb"]
    return ((path / assignment).is_dir() or any(p.stem in names for p in notebooks)
            or (len(notebooks) == 1 and not any(p.is_dir() for p in entries)))


def _unwrap(base, assignment, names):
    """Descend through folders that only wrap the batch (e.g. 'submissions/' inside a zip)."""
    while True:
        entries = _visible(base)
        if len(entries) == 1 and entries[0].is_dir() and not _is_one_student(entries[0], assignment, names):
            base = entries[0]
        else:
            return base


def _pick(folder, names, label):
    """The notebooks of one student's folder, keyed by the assignment's notebook names."""
    notebooks = [p for p in _visible(folder) if p.is_file() and p.suffix == ".ipynb"]
    files = {p.stem: p for p in notebooks if p.stem in names}
    if files:
        return files, ""
    if len(names) == 1 and len(notebooks) == 1:
        return {names[0]: notebooks[0]}, ""
    if not notebooks:
        return {}, f"no notebook found in {label}"
    return {}, (f"{len(notebooks)} notebooks in {label} and none named "
                f"{' or '.join(n + '.ipynb' for n in names)}")


def find(base, assignment, names):
    """All submissions under the folder ``base`` (labels are paths relative to it)."""
    base = _unwrap(Path(base), assignment, names)
    found = []
    for entry in _visible(base):
        label = str(entry.relative_to(base))
        if entry.is_file() and entry.suffix == ".ipynb":
            if len(names) == 1:
                found.append(Submission(student_id(entry.stem), label, {names[0]: entry}))
            else:
                found.append(Submission(student_id(entry.stem), label, problem=(
                    f"{assignment} has {len(names)} notebooks; hand them in as a folder per student")))
        elif entry.is_dir():
            inner = entry / assignment if (entry / assignment).is_dir() else entry
            files, problem = _pick(inner, names, str(inner.relative_to(base)))
            found.append(Submission(student_id(entry.name), label, files, problem))
    by_student = {}
    for submission in found:
        by_student.setdefault(submission.student, []).append(submission)
    for student, same in by_student.items():
        if len(same) > 1:
            labels = ", ".join(s.label for s in same)
            for submission in same:
                submission.files, submission.problem = {}, f"several submissions for student {student}: {labels}"
    return found


def _extract(archive, into):
    """Unpack a zip safely: no absolute paths, no '..', bounded size."""
    with zipfile.ZipFile(archive) as zf:
        members = [m for m in zf.infolist() if not m.is_dir()]
        if sum(m.file_size for m in members) > LARGEST_ZIP:
            raise ValueError(f"{archive} unpacks to more than {LARGEST_ZIP // 1024**3} GB")
        for member in members:
            parts = Path(member.filename.replace("\\", "/")).parts
            if member.filename.startswith("/") or ".." in parts or not parts:
                raise ValueError(f"{archive} holds an unsafe path: {member.filename!r}")
            target = Path(into, *parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(member) as src, open(target, "wb") as dst:
                dst.write(src.read())


@contextlib.contextmanager
def opened(path, assignment, names):
    """Submissions under a folder or in a .zip (unpacked to a temporary folder while in use)."""
    path = Path(path)
    if path.is_dir():
        yield find(path, assignment, names)
    elif path.is_file() and zipfile.is_zipfile(path):
        with tempfile.TemporaryDirectory(prefix="submissions-") as tmp:
            _extract(path, tmp)
            yield find(tmp, assignment, names)
    else:
        raise FileNotFoundError(f"{path} is neither a folder nor a .zip file")


def names_inside(path):
    """Every folder and file name (without .ipynb) under a folder or in a .zip."""
    path = Path(path)
    if path.is_dir():
        paths = [p.relative_to(path) for p in path.rglob("*")]
    elif path.is_file() and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            paths = [Path(name) for name in zf.namelist()]
    else:
        return set()
    return {part.removesuffix(".ipynb") for p in paths for part in p.parts}


def check_notebook(path, assignment, grade_ids):
    """Why a file cannot be graded as this assignment's notebook, or '' when it can."""
    raw = Path(path).read_bytes()
    if not raw.strip():
        return "the file is empty"
    try:
        json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return "the file is not text (not UTF-8), so not a notebook"
    except json.JSONDecodeError as err:
        return f"the file is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except Exception as err:  # nbformat raises several kinds
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return f"the file is JSON but not a valid Jupyter notebook ({first[:200]})"
    ids = {cell.metadata.get("nbgrader", {}).get("grade_id") for cell in nb.cells}
    if not ids & set(grade_ids):
        return (f"this is not a {assignment} notebook: none of its cells belongs to {assignment} "
                "(was the notebook re-created instead of downloaded from the release?)")
    return ""
