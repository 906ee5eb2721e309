"""Find the students' notebooks in a folder or a .zip, and check each before grading.

Accepted layouts (mixed freely, also inside a .zip, also under one wrapping folder):

    <student>/<assignment>/<notebook>.ipynb   nbgrader's own layout
    <student>/<notebook>.ipynb                one folder per student
    <student>.ipynb                           one file per student
    <name>_<userid>_<submissionid>_<file>     Canvas's "Download Submissions" zip
    <name>_LATE_<userid>_<submissionid>_<file>   (flat; see canvas_file)

A notebook named like the assignment's notebook is taken; a student with a
single notebook of another name (``hw01 (1).ipynb``) is taken too and renamed.
Nothing is ever written into the folder or the .zip.

Canvas files are keyed by the Canvas user id (the number after the name): it
never changes, is unique, and is the ``ID`` column of Canvas's gradebook
export, so the grades can be matched back. The name part (the student's login
or sortable name) is kept as a label only. When a student has several
submissions in the zip, only the newest (highest submission id) is graded.
"""

import contextlib
import json
import re
import tempfile
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat.warnings import DuplicateCellId

SKIPPED = {"__MACOSX", ".ipynb_checkpoints", "__pycache__"}
LARGEST_ZIP = 2 * 1024**3  # bytes, uncompressed


@dataclass
class Submission:
    """One student's hand-in: notebook name -> file, or the reason it cannot be used."""

    student: str
    label: str
    files: dict = field(default_factory=dict)
    problem: str = ""
    name: str = ""  # a readable name when the id is a number (Canvas: the login or name)


def student_id(name):
    """A safe student id from a folder or file name ('Jo Doe' -> 'Jo_Doe')."""
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", name).strip("._") or "unnamed"


# <name>_[LATE_]<user id>_<submission id>_<original file name>, as Canvas names each file of its zip.
_CANVAS_IDS = re.compile(r"_(?:(?P<late>LATE)_)?(?P<user>[0-9]+)_(?P<submission>[0-9]+)_(?=.)")
# Canvas appends -1, -2, ... to a file name the student had already uploaded (hw01-1.ipynb).
_RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<n>[0-9]+)$")


@dataclass(frozen=True)
class CanvasFile:
    """The parts of one file name of Canvas's bulk download."""

    name: str          # the student's login or name, as Canvas wrote it
    user: str          # Canvas user id
    submission: int    # Canvas submission id
    late: bool
    original: str      # the file name the student uploaded (with Canvas's -N suffix, if any)

    @property
    def stem(self):
        """The uploaded file's name without .ipynb and without Canvas's -N suffix."""
        stem = self.original.removesuffix(".ipynb")
        match = _RESUBMITTED.match(stem)
        return match["stem"] if match else stem

    @property
    def copy(self):
        """Canvas's -N suffix (0 without one): the higher, the later the upload."""
        match = _RESUBMITTED.match(self.original.removesuffix(".ipynb"))
        return int(match["n"]) if match else 0


def canvas_file(filename, names=()):
    """The parts of a Canvas bulk-download file name, or None if it is not one.

    Logins may contain underscores and so may uploaded file names, so a name can
    split in more than one way: a split whose uploaded file is one of the
    assignment's notebooks (``names``) wins, otherwise the leftmost one.
    """
    splits = []
    for start in range(1, len(filename)):
        match = _CANVAS_IDS.match(filename, start)
        if match:
            splits.append(CanvasFile(filename[:start], match["user"], int(match["submission"]),
                                     bool(match["late"]), filename[match.end():]))
    for split in splits:
        if split.stem in names:
            return split
    return splits[0] if splits else None


def _visible(path):
    return [p for p in sorted(path.iterdir()) if not p.name.startswith(".") and p.name not in SKIPPED]


def _is_one_student(path, assignment, names):
    """Whether a folder looks like one student's hand-in rather than a folder of several."""
    entries = _visible(path)
    notebooks = [p for p in entries if p.suffix == ".ipynb"]
    if notebooks and all(canvas_file(p.name, names) for p in notebooks):
        return False  # Canvas's download (wrapped in a folder): one file per student
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


def _canvas(user, entries, names):
    """One student's submission from their Canvas files: the newest submission (highest id) only."""
    newest = max(parts.submission for parts, _ in entries)
    chosen = sorted(((parts, entry) for parts, entry in entries if parts.submission == newest),
                    key=lambda pair: pair[1].name)
    name = chosen[0][0].name
    notebooks = [(parts, entry) for parts, entry in chosen if entry.suffix == ".ipynb"]
    files = {}
    for notebook in names:
        # hw01.ipynb and hw01-1.ipynb in one submission: Canvas's -1 is the later upload
        same = sorted(((parts.copy, entry) for parts, entry in notebooks if parts.stem == notebook),
                      key=lambda pair: pair[0])
        if same:
            files[notebook] = same[-1][1]
    label = ", ".join(entry.name for entry in (list(files.values()) or [entry for _, entry in chosen]))
    problem = ""
    if not files:
        if len(names) == 1 and len(notebooks) == 1:
            files = {names[0]: notebooks[0][1]}
            label = notebooks[0][1].name
        elif not notebooks:
            problem = f"no notebook in the Canvas submission {newest} of {name} (user {user}): {label}"
        else:
            problem = (f"{len(notebooks)} notebooks in the Canvas submission {newest} of {name} (user {user}) "
                       f"and none named {' or '.join(n + '.ipynb' for n in names)}")
    return Submission(student_id(user), label, files, problem, name=name)


def find(base, assignment, names):
    """All submissions under the folder ``base`` (labels are paths relative to it)."""
    base = _unwrap(Path(base), assignment, names)
    found, canvas = [], {}
    entries = _visible(base)
    named = {entry: canvas_file(entry.name, names) for entry in entries if entry.is_file()}
    # Other files named like Canvas's count only in a Canvas download (one with a notebook named so).
    is_canvas = any(parts and entry.suffix == ".ipynb" for entry, parts in named.items())
    for entry in entries:
        label = str(entry.relative_to(base))
        if is_canvas and named.get(entry):
            canvas.setdefault(named[entry].user, []).append((named[entry], entry))
        elif entry.is_file() and entry.suffix == ".ipynb":
            if len(names) == 1:
                found.append(Submission(student_id(entry.stem), label, {names[0]: entry}))
            else:
                found.append(Submission(student_id(entry.stem), label, problem=(
                    f"{assignment} has {len(names)} notebooks; hand them in as a folder per student")))
        elif entry.is_dir():
            inner = entry / assignment if (entry / assignment).is_dir() else entry
            files, problem = _pick(inner, names, str(inner.relative_to(base)))
            found.append(Submission(student_id(entry.name), label, files, problem))
    found += [_canvas(user, canvas[user], names) for user in sorted(canvas, key=int)]
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
    found = {part.removesuffix(".ipynb") for p in paths for part in p.parts}
    canvas = [canvas_file(p.name) for p in paths]
    return found | {parts.stem for parts in canvas if parts}


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
        with warnings.catch_warnings():   # repeated cell ids are renumbered by grade.normalize, with a note
            warnings.simplefilter("ignore", DuplicateCellId)
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
