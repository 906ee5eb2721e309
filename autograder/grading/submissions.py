"""Find the students' notebooks in a folder or a .zip, and check each before grading.

Accepted layouts (mixed freely, also inside a .zip, also under one wrapping folder):

    <student>/<assignment>/<notebook>.ipynb   nbgrader's own layout
    <student>/<notebook>.ipynb                one folder per student
    <student>.ipynb                           one file per student
    <name>_<userid>_<submissionid>_<file>     Canvas's "Download Submissions" zip
    <name>_LATE_<userid>_<submissionid>_<file>   (flat; autograder/grading/canvas.py)

A notebook named like the assignment's notebook is taken; a student with a
single notebook of another name (``hw01 (1).ipynb``) is taken too and renamed.
nbgrader's ``timestamp.txt`` (and ``submission_secret.txt``) beside a
student's notebook, as ``nbgrader collect`` leaves them, are taken along.
Nothing is ever written into the folder or the .zip.

One bad entry sets aside its own student only: a symbolic link (never
followed), a file over the size limit for one hand-in file, a zip entry with
an unsafe path, one that cannot be read, or one that unpacks past the size
limit make that student's :class:`Submission` carry the reason; everyone else
is read as usual. There is no limit on a whole class, only on each file.

Canvas files (their names are read by autograder/grading/canvas.py) are
keyed by the Canvas user id: it never changes, is unique, and is the ``ID``
column of Canvas's gradebook export, so the grades can be matched back. The
name part (the student's login or sortable name) is kept as a label only.
When a student has several submissions in the zip, only the newest (highest
submission id) is graded.
"""

import contextlib
import json
import os
import re
import stat
import tempfile
import time
import unicodedata
import urllib.parse
import warnings
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import nbformat
from nbformat.warnings import DuplicateCellId

from ..course.cells import grade_ids
from ..sandbox.limits import Limits
from .canvas import canvas_file

SKIPPED = {"__MACOSX", ".ipynb_checkpoints", "__pycache__"}
# What nbgrader's exchange puts beside a collected notebook: the hand-in time (late penalties) and the secret
# that release_feedback files the feedback under. Taken along with the notebooks.
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")


def largest_file():
    """The size limit of one file of a hand-in, in bytes ($RBD_HANDIN_FILE_MB, default 256: autograder/sandbox/limits.py)."""
    return int(Limits.from_environment().handin_file_mb * 1024 * 1024)


@dataclass
class Submission:
    """One student's hand-in: notebook name -> file, or the reason it cannot be used."""

    student: str
    label: str
    files: dict = field(default_factory=dict)
    problem: str = ""
    name: str = ""  # the name as handed in (a folder or file name; Canvas: the login or name)
    extras: dict = field(default_factory=dict)   # nbgrader's timestamp.txt, submission_secret.txt -> path
    late: bool = None   # Canvas marked it late (None: the download does not say)
    time: datetime = None   # when it was handed in, from a zip entry's time (None: not known here)
    paths: list = field(default_factory=list)    # every entry of the class folder that is this hand-in

    @property
    def handed_in(self):
        """Every file of the hand-in that is read (the notebooks and nbgrader's files beside them)."""
        return {**self.files, **self.extras}


# Characters a student id cannot carry into nbgrader's paths, which nbgrader reads as file globs (and '%',
# the escape itself): percent-encoded, so that the folder name maps back to the name exactly (name_of).
_UNSAFE_IN_PATHS = set("%*?[]/\\")


def student_id(name, compose=True):
    """The student id of a folder or file name: the name itself, in any script, spaces included.

    nbgrader names ``submitted/<student>`` after the id exactly, and so does
    the grader (gradebook, outcomes, grades.csv, ``autograded/<student>``):
    ``jo doe`` and ``jo_doe`` are two students. Only what nbgrader's paths
    cannot carry is percent-encoded (glob characters, ``%``, ``/``, control
    characters, spaces at either end, ``.`` and ``..``), reversibly
    (:func:`name_of`) and without collisions (a name that needs no encoding
    holds no ``%``). ``compose`` (for class folders and zips, not nbgrader's
    ``submitted/``) puts the name in Unicode's composed form, so that a name
    typed on a Mac and on Windows is one student.

    >>> student_id("jo doe"), student_id("jo_doe"), student_id("名前"), student_id("Jo\u0308rg")
    ('jo doe', 'jo_doe', '名前', 'Jörg')
    >>> student_id("a*b"), student_id("50%"), student_id(" x"), student_id("..")
    ('a%2Ab', '50%25', '%20x', '%2E%2E')
    >>> name_of(student_id("a*[b]%")) == "a*[b]%"
    True
    """
    if compose:
        name = unicodedata.normalize("NFC", name)
    if name in (".", ".."):
        return name.replace(".", "%2E")
    stripped = name.strip()
    start, end = len(name) - len(name.lstrip()), len(stripped) + (len(name) - len(name.lstrip()))

    def encoded(i, char):
        if (char in _UNSAFE_IN_PATHS or unicodedata.category(char).startswith("C")
                or not start <= i < end):
            return urllib.parse.quote(char, safe="")
        return char
    return "".join(encoded(i, char) for i, char in enumerate(name))


def name_of(student):
    """The name a student id was made from (:func:`student_id` undone; composed form)."""
    return urllib.parse.unquote(student)


def _link_problem(path, label):
    """Why a hand-in entry cannot be read when it is a symbolic link (never followed), or ''."""
    if path.is_symlink():
        return f"{label} is a symbolic link (to {os.readlink(path)}); links are never followed"
    return ""


def _size_problem(path, label):
    size = path.lstat().st_size
    if size > largest_file():
        return (f"{label} is {size / 1024**2:.0f} MB, over the {largest_file() / 1024**2:.0f} MB limit for one "
                "file of a hand-in (RBD_HANDIN_FILE_MB)")
    return ""


def _visible(path):
    return [p for p in sorted(path.iterdir()) if not p.name.startswith(".") and p.name not in SKIPPED]


def _is_dir(path):
    return path.is_dir() and not path.is_symlink()


def _is_file(path):
    """A regular file or a link (a link is a hand-in entry too: it is refused with a reason, not ignored)."""
    return path.is_symlink() or path.is_file()


def _is_one_student(path, assignment, names):
    """Whether a folder looks like one student's hand-in rather than a folder of several."""
    entries = _visible(path)
    notebooks = [p for p in entries if p.suffix == ".ipynb"]
    if notebooks and all(canvas_file(p.name, names) for p in notebooks):
        return False  # Canvas's download (wrapped in a folder): one file per student
    return (_is_dir(path / assignment) or any(p.stem in names for p in notebooks)
            or (len(notebooks) == 1 and not any(_is_dir(p) for p in entries)))


def _unwrap(base, assignment, names, others=()):
    """Descend through folders that only wrap the batch (e.g. 'submissions/' inside a zip), but not into one
    student's folder of other homework."""
    while True:
        entries = _visible(base)
        if (len(entries) == 1 and _is_dir(entries[0]) and not _is_one_student(entries[0], assignment, names)
                and not _other_homework(entries[0], assignment, others)):
            base = entries[0]
        else:
            return base


def _pick(folder, names, label):
    """The notebooks of one student's folder, keyed by the assignment's notebook names."""
    notebooks = [p for p in _visible(folder) if _is_file(p) and p.suffix == ".ipynb"]
    files = {p.stem: p for p in notebooks if p.stem in names}
    if not files and len(names) == 1 and len(notebooks) == 1:
        files = {names[0]: notebooks[0]}
    if files:
        for path in files.values():
            problem = _link_problem(path, f"{label}/{path.name}") or _size_problem(path, f"{label}/{path.name}")
            if problem:
                return {}, problem
        return files, ""
    if not notebooks:
        return {}, f"no notebook found in {label}"
    return {}, (f"{len(notebooks)} notebooks in {label} and none named "
                f"{' or '.join(n + '.ipynb' for n in names)}")


def _canvas(user, entries, names, times):
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
    for entry in files.values():
        problem = problem or _link_problem(entry, entry.name) or _size_problem(entry, entry.name)
    return Submission(student_id(user), label, {} if problem else files, problem, name=name,
                      late=chosen[0][0].late, paths=[entry for _, entry in entries],
                      time=_handed_in_at(files.values()) if times and not problem else None)


def _handed_in_at(paths):
    """The latest modification time of a hand-in's notebooks, in UTC (a zip entry's time, see _extract)."""
    stamps = [path.lstat().st_mtime for path in paths]
    return datetime.fromtimestamp(max(stamps), timezone.utc) if stamps else None


def _other_homework(folder, assignment, others):
    """Whether a student's folder holds only other assignments' folders (nbgrader's layout, nothing for this one)."""
    entries = _visible(folder)
    return (bool(others) and bool(entries) and not (folder / assignment).exists()
            and all(_is_dir(p) and p.name in others and p.name != assignment for p in entries))


def _exchange_files(folder):
    """nbgrader's files beside a collected notebook (regular files only), by name."""
    return {name: folder / name for name in EXCHANGE_FILES
            if (folder / name).is_file() and not (folder / name).is_symlink()}


def find(base, assignment, names, rejected=None, compose=True, others=(), times=False):
    """All submissions under the folder ``base`` (labels are paths relative to it).

    ``rejected`` maps paths under ``base`` that were not unpacked (or were
    unpacked as empty stand-ins) to the reason: the submission that holds one
    is not graded, with that reason. ``compose``: student ids in Unicode's
    composed form (not for nbgrader's ``submitted/``, whose ids are kept as
    they are). ``others``: the course's assignments; a student folder holding
    only some of their folders handed in another homework, not this one, and
    is left out. ``times``: the notebooks' modification times are hand-in
    times (a zip's entry times, :func:`opened`).
    """
    base = _unwrap(Path(base), assignment, names, others)
    found, canvas = [], {}
    entries = _visible(base)
    named = {entry: canvas_file(entry.name, names) for entry in entries if _is_file(entry)}
    # Other files named like Canvas's count only in a Canvas download (one with a notebook named so).
    is_canvas = any(parts and entry.suffix == ".ipynb" for entry, parts in named.items())
    for entry in entries:
        label = str(entry.relative_to(base))
        who = dict(name=entry.stem if _is_file(entry) else entry.name, paths=[entry])
        if is_canvas and named.get(entry):
            canvas.setdefault(named[entry].user, []).append((named[entry], entry))
        elif entry.is_symlink():
            found.append(Submission(student_id(who["name"].removesuffix(".ipynb"), compose), label,
                                    problem=_link_problem(entry, label), **who))
        elif _is_file(entry) and entry.suffix == ".ipynb":
            if len(names) == 1:
                problem = _size_problem(entry, label)
                found.append(Submission(student_id(entry.stem, compose), label,
                                        {} if problem else {names[0]: entry}, problem,
                                        time=_handed_in_at([entry]) if times and not problem else None, **who))
            else:
                found.append(Submission(student_id(entry.stem, compose), label, problem=(
                    f"{assignment} has {len(names)} notebooks; hand them in as a folder per student"), **who))
        elif _is_dir(entry):
            inner = entry / assignment
            if inner.is_symlink():
                found.append(Submission(student_id(entry.name, compose), label,
                                        problem=_link_problem(inner, str(inner.relative_to(base))), **who))
                continue
            if _other_homework(entry, assignment, others):
                continue
            inner = inner if _is_dir(inner) else entry
            files, problem = _pick(inner, names, str(inner.relative_to(base)))
            found.append(Submission(student_id(entry.name, compose), label, files, problem,
                                    extras=_exchange_files(inner) if files else {},
                                    time=_handed_in_at(files.values()) if times and files else None, **who))
    found += [_canvas(user, canvas[user], names, times) for user in sorted(canvas, key=int)]
    for path, reason in (rejected or {}).items():
        path = Path(path)
        owner = [s for s in found if any(path == p or p in path.parents for p in s.paths)]
        for submission in owner:
            submission.files, submission.extras = {}, {}
            submission.problem = reason if not submission.problem.startswith("the zip entry") else submission.problem
    by_student = {}
    for submission in found:
        by_student.setdefault(submission.student, []).append(submission)
    for student, same in by_student.items():
        if len(same) > 1:
            labels = ", ".join(s.label for s in same)
            for submission in same:
                submission.files, submission.problem = {}, f"several submissions for student {student}: {labels}"
    return found


def _member_path(name):
    """A zip member's path made safe to unpack (its parts without '', '.', '..' or a drive), and
    whether it had to be changed."""
    raw = name.replace("\\", "/")
    parts = [p for p in raw.split("/") if p not in ("", ".", "..") and not re.fullmatch(r"[A-Za-z]:", p)]
    return parts, raw.startswith("/") or ".." in raw.split("/") or re.match(r"[A-Za-z]:", raw) is not None


def _extract(archive, into):
    """Unpack a zip entry by entry; returns {path: reason} of the entries left as stand-ins, and the
    sentences saying which entries were set aside.

    A symbolic link, an entry that cannot be read (damaged, encrypted) or
    that unpacks past the size limit of one file is not unpacked: an empty
    stand-in is left at its path, so that the student it belongs to is told
    why, while every other entry is unpacked as usual. An entry with an
    unsafe path (absolute, '..') has no place that surely belongs to one
    student: it is set aside on its own, named, and no student is graded from
    it. Sizes are counted as the bytes come out, not taken from the zip's own
    headers. Each file keeps its entry's time (the hand-in time, read as
    local time as zip stores it).
    """
    rejected, set_aside, limit = {}, [], largest_file()
    with zipfile.ZipFile(archive) as zf:
        for member in zf.infolist():
            if member.is_dir():
                continue
            parts, unsafe = _member_path(member.filename)
            if not parts:
                continue
            if unsafe:
                set_aside.append(f"the zip entry {member.filename!r} was set aside: its path is unsafe (absolute, "
                                 "or with '..'), so it was not unpacked and no student is graded from it")
                continue
            target = Path(into, *parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            reason = ""
            if stat.S_ISLNK(member.external_attr >> 16):
                reason = f"the zip entry {member.filename!r} is a symbolic link; links are never followed"
            else:
                try:
                    with zf.open(member) as src, open(target, "wb") as dst:
                        written = 0
                        while chunk := src.read(1 << 20):
                            written += len(chunk)
                            if written > limit:
                                reason = (f"the zip entry {member.filename!r} unpacks to more than "
                                          f"{limit / 1024**2:.0f} MB, the limit for one file of a hand-in "
                                          "(RBD_HANDIN_FILE_MB)")
                                break
                            dst.write(chunk)
                except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError, EOFError) as err:
                    reason = f"the zip entry {member.filename!r} cannot be read ({type(err).__name__}: {err})"
            if reason:
                target.write_bytes(b"")   # the stand-in: the entry's student is reported, not skipped
                rejected[target] = reason
            else:
                with contextlib.suppress(ValueError, OverflowError, OSError):
                    stamp = time.mktime(member.date_time + (0, 0, -1))
                    os.utime(target, (stamp, stamp))
    return rejected, set_aside


@contextlib.contextmanager
def opened(path, assignment, names, compose=True, others=(), report=print):
    """Submissions under a folder or in a .zip (unpacked to a temporary folder while in use); entries of a
    zip that were set aside are reported, each by name (``report``).

    ``compose`` and ``others`` as for :func:`find`; a zip's entry times are the hand-in times.
    """
    path = Path(path)
    if path.is_dir():
        yield find(path, assignment, names, compose=compose, others=others)
    elif path.is_file() and zipfile.is_zipfile(path):
        with tempfile.TemporaryDirectory(prefix="submissions-") as tmp:
            rejected, set_aside = _extract(path, tmp)
            for line in set_aside:
                report(line)
            yield find(tmp, assignment, names, rejected=rejected, compose=compose, others=others, times=True)
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


def check_notebook(path, assignment, ids, others=None):
    """Why a file cannot be graded as this assignment's notebook, or '' when it can.

    ``ids``: the assignment's nbgrader cell ids. ``others``: every assignment
    of the course -> the ids of its graded cells (answers and tests); a
    notebook that has none of this assignment's graded cells, or more of
    another assignment's, is another homework's, and the message names it.
    """
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
    found = grade_ids(nb)
    mine = len(found & set((others or {}).get(assignment, ids)))
    count, like = max(((len(found & set(theirs)), name) for name, theirs in (others or {}).items()
                       if name != assignment), default=(0, ""))
    if count > mine:
        return (f"this is not a {assignment} notebook: it looks like {like}'s ({count} of its answer and test "
                f"cells are {like}'s, {mine} {assignment}'s); was the wrong homework handed in, or saved under "
                f"{assignment}'s name?")
    if not mine:
        return (f"this is not a {assignment} notebook: none of its answer or test cells belongs to {assignment} "
                "(was the notebook re-created instead of downloaded from the release?)")
    return ""
