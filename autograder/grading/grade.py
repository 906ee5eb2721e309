"""``grade``: autograde a folder or a .zip of submissions, one pipeline per student.

:func:`grade` finds the submissions and hands each student to
:func:`grade_one`, several at once, then records each outcome as it comes
back. :func:`grade_one` is the pipeline, read top to bottom, each stage a
function below it in the same order:

1. **read** (:func:`read`, with autograder/grading/submissions.py): the student's
   notebooks, with nbgrader's ``timestamp.txt`` beside them, are copied to the
   grader's own folder ``autograded/_copies/<student>/<assignment>/`` and
   checked: a file that is empty, not JSON, not a valid notebook, or not this
   assignment's notebook (another homework's is named) is not graded. A
   hand-in without nbgrader's ``timestamp.txt`` gets one in the copy when its
   time is known (a zip entry's, Canvas's late mark: :func:`handed_in_at`), so
   that nbgrader's late penalty treats every source alike. The hand-in itself, wherever it lies
   (``submitted/`` as ``nbgrader collect`` fills it, a class folder, a .zip),
   is only ever read;
2. **normalize** (:func:`normalize`): a test cell handed in twice is kept
   once, repeated cell ids are renumbered;
3. **run confined** (:func:`run`): a grading worker (autograder/grading/worker.py)
   runs nbgrader's autograde, whose execution step is the judge
   (autograder/grading/judge.py): the student's cells run in a sandbox
   (autograder/sandbox/sandbox.py), the source's tests in the worker, on plain values
   only (autograder/sandbox/wire.py). Past the time limit for the whole submission the
   worker is killed, with the student's sandbox, and replaced;
4. **judge** (:func:`autograder.grading.verdict.verdict`): the score nbgrader filed in the gradebook, with
   the notes (edited test cells, cells stopped at their limit, what the judge
   reported) and the evidence that flags a submission for review; or, when
   the run failed, why it could not be graded. Cells a person had already
   scored by hand stay scored and reviewed when the answer they scored is
   unchanged (nbgrader would ask for them to be graded again);
5. **record** (autograder/course/outcomes.py): the outcome goes to
   ``autograded/outcomes.json``; a submission that could not be graded leaves
   no stale grade, graded notebook or feedback behind, so that nothing shows
   a 0 that was never earned.

The course's layout (:meth:`autograder.course.course.Course.work`) and limits
(autograder/sandbox/limits.py) come from one place each. A submission unchanged since
it was graded is skipped (``--force`` grades it again), so re-running a batch,
or resuming an interrupted one, is safe. One student's failure, whatever it
is, is that student's outcome ("could not be graded", with the reason): the
batch goes on, whichever way it runs (threads or Dask).
"""

import atexit
import concurrent.futures
import dataclasses
import hashlib
import os
import shutil
import threading
import traceback
import warnings
from datetime import timedelta
from pathlib import Path

import nbformat
from nbformat.warnings import DuplicateCellId
from nbgrader.utils import is_solution

from . import submissions
from ..course import gradebook
from ..course.cells import grade_id, grade_ids, read_notebook, role
from ..course.course import CourseError
from ..course.outcomes import FAILED, FLAGGED, SCORED, Outcomes, failed, restated
from ..sandbox import sandbox
from .verdict import verdict
from .worker import GradingWorker

GRADED_ROLES = ("test", "answer", "written")


# --- the batch -----------------------------------------------------------------------------
def grade(course, path=None, assignment=None, force=False, time_limit=None, memory_mb=None, report=print,
          jobs=None, dask=None, student=None):
    """Grade every submission under ``path`` (a folder or a .zip; default: ``submitted/``, the folder
    ``nbgrader collect`` fills); returns their outcomes.

    ``student``: grade that student's hand-in only (the id as the grader
    lists it, or the name as handed in). ``path`` may also be one student's
    folder of ``submitted/`` (``submitted/<student>`` or
    ``submitted/<student>/<assignment>``): that student is graded.

    ``time_limit`` (seconds for one submission) and ``memory_mb`` (a grading
    worker's address space) default to the course's limits. ``jobs`` students
    are graded at once (default: one per core), by threads here, or by Dask
    workers when ``dask`` names a scheduler ("local" starts a cluster of
    ``jobs`` workers on this machine).

    Fails closed: without a working sandbox nothing is graded (a
    :class:`CourseError` says why and what to install) unless unconfined
    grading was asked for (``--no-sandbox``, :func:`autograder.sandbox.sandbox.unconfined_asked`).
    """
    path, student, assignment = one_student_folder(course, path, student, assignment)
    path = class_folder(course, path)
    problem = sandbox.available()
    if problem and not sandbox.unconfined_asked():
        raise CourseError(f"nothing was graded, for the grading sandbox cannot be set up. {problem}")
    if problem:
        who = "as a user id of its own" if sandbox.unconfined_user() is not None else "as this very user"
        report(f"warning: grading WITHOUT the sandbox, as asked (--no-sandbox): {problem}. The students' code runs "
               f"{who}, with the resource limits only; use this for trusted code only.")
    if assignment is None and len(course.assignments()) > 1:
        named = [a for a in course.assignments() if a in submissions.names_inside(path)]
        assignment = named[0] if len(named) == 1 else None
    assignment = course.default_assignment(assignment)
    if not gradebook.knows(course, assignment):
        raise CourseError(f"{assignment} is not in the gradebook yet: release it first "
                          f"(python -m autograder release {assignment})")
    limits = dataclasses.replace(course.limits, **{k: v for k, v in (("notebook_s", time_limit),
                                                                      ("worker_mb", memory_mb)) if v is not None})
    book, ids = Outcomes(course), graded_cells(course)
    results, lock = [], threading.Lock()
    jobs = max(1, int(jobs or os.cpu_count() or 1))

    def record(outcome, skipped):   # stage 5, here where the batch was started (even when Dask graded it)
        with lock:
            book.record(outcome)
            report(describe(book.get(outcome["assignment"], outcome["student"]), skipped))
            results.append(book.get(outcome["assignment"], outcome["student"]))

    def arguments(submission):
        """What grade_one takes for one student, in the grader's process or on a Dask worker."""
        return course, assignment, submission, book.get(assignment, submission.student), ids, force, limits

    def failed(submission, error):
        """One student's failure is their outcome, never the batch's end (a lost Dask worker too)."""
        return grader_failed(course, assignment, submission, error), False

    def one(submission):
        try:
            outcome = grade_one(*arguments(submission))
        except Exception as error:  # noqa: BLE001 (one student's failure is their outcome, never the batch's end)
            outcome = failed(submission, error)
        except BaseException:
            with lock:   # interrupted: the next run grades this student again (nothing of theirs is removed)
                book.drop(assignment, submission.student)
            raise
        record(*outcome)

    try:
        exact = path.resolve() == course.submitted.resolve()   # nbgrader's own ids, kept as they are
        with submissions.opened(path, assignment, list(course.source_notebooks(assignment)), compose=not exact,
                                others=course.assignments(), report=report) as found:
            if student is not None:
                found = only(found, student, path)
            if not found:
                report(f"no submissions found in {path}")
            elif dask:
                from .on_dask import grade_on_dask
                grade_on_dask(dask, jobs, found, grade_one, arguments, failed, record, report)
            elif jobs == 1:
                for submission in found:
                    one(submission)
            else:
                # Each thread hands its students to a grading worker of its own: threads only wait.
                with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                    futures = [pool.submit(one, submission) for submission in found]
                    try:
                        for future in concurrent.futures.as_completed(futures):
                            future.result()
                    except BaseException:
                        for future in futures:
                            future.cancel()
                        raise
    finally:
        stop_workers()   # the next batch starts them afresh (a changed config or test is read again)
    results.sort(key=lambda o: o["student"])
    graded = sum(o["status"] in SCORED for o in results)
    flagged = sum(o["status"] == FLAGGED for o in results)
    report(f"{assignment}: {graded} graded ({flagged} flagged for review), {len(results) - graded} could not be graded "
           f"(outcomes in {book.path.relative_to(course.root)})")
    return results


def one_student_folder(course, path, student, assignment):
    """``(path, student, assignment)``, with a student's folder of ``submitted/`` read as that student in
    ``submitted/``; a folder that holds nothing but assignments' folders (one student's, elsewhere) is refused,
    for its assignments would be taken for students."""
    if path is None:
        return path, student, assignment
    real, submitted = Path(path).resolve(), course.submitted.resolve()
    inside = real.relative_to(submitted).parts if submitted in real.parents else ()
    if len(inside) in (1, 2):
        if student is not None and student != inside[0]:
            raise CourseError(f"{path} is {inside[0]}'s folder, not {student}'s")
        if len(inside) == 2 and assignment not in (None, inside[1]):
            raise CourseError(f"{path} holds {inside[1]}, not {assignment}")
        if len(inside) == 1 and assignment is None:   # the only assignment this student handed in
            theirs = [p.name for p in real.iterdir() if p.name in course.assignments()]
            assignment = theirs[0] if len(theirs) == 1 else None
        return None, inside[0], assignment or (inside[1] if len(inside) == 2 else None)
    if Path(path).is_dir():
        entries = [p.name for p in Path(path).iterdir() if not p.name.startswith(".")]
        if entries and set(entries) <= set(course.assignments()):
            raise CourseError(f"{path} holds only assignment folders ({', '.join(sorted(entries))}): it looks like "
                              "one student's folder, and its assignments would be taken for students. Name the "
                              "class folder and the student: grade CLASS_FOLDER --student ID")
    return path, student, assignment


def only(found, student, path):
    """The hand-in of one student among ``found`` (by id, or by the name as handed in)."""
    mine = [s for s in found if s.student == student] or [s for s in found if s.name == student]
    if not mine:
        known = ", ".join(sorted(s.student for s in found)) or "none"
        raise CourseError(f"no hand-in of student {student!r} in {path} (students there: {known})")
    return mine


def graded_cells(course):
    """Every assignment of the course -> the nbgrader ids of its cells and those of its graded cells (answers and
    tests): what :func:`read` checks a hand-in against, to tell one homework's notebook from another's."""
    ids = {}
    for assignment in course.assignments():
        nbs = [read_notebook(p) for p in course.source_notebooks(assignment).values()]
        ids[assignment] = (set().union(*(grade_ids(nb) for nb in nbs)),
                           {grade_id(c) for nb in nbs for c in nb.cells if role(c) in GRADED_ROLES})
    return ids


def class_folder(course, path):
    """The folder or .zip of hand-ins to grade: ``path``, or ``submitted/`` (what ``nbgrader collect`` filled).

    It is only ever read. A folder the grader itself writes into (its copies,
    autograded/, feedback/, release/), or one that holds such a folder (the
    course folder), is refused: grading it could overwrite what it reads.
    """
    if path is None:
        if not course.submitted.is_dir():
            raise CourseError(f"nothing to grade: {course.submitted} does not exist. Collect the hand-ins there "
                              "(nbgrader collect), or name a folder or .zip of them")
        return course.submitted
    path = Path(path)
    if not path.exists():
        raise CourseError(f"{path} does not exist")
    real = path.resolve()
    for folder in course.generated():
        folder = folder.resolve()
        if real == folder or folder in real.parents or real in folder.parents:
            raise CourseError(f"{path} cannot be graded as a class folder: the grader writes into "
                              f"{folder.relative_to(course.root)}/, and grading could overwrite what it reads. "
                              "Name the folder or .zip that holds only the hand-ins (or submitted/)")
    return path


def grader_failed(course, assignment, submission, error):
    """The outcome of a student the grader itself failed on (a bug, a full disk): the traceback goes to
    the student's log, the batch goes on."""
    work = course.work(assignment, submission.student)
    try:
        work.log.parent.mkdir(parents=True, exist_ok=True)
        with open(work.log, "a") as log:
            log.write("".join(traceback.format_exception(error)))
        where = f"; see {work.log.relative_to(course.root)}"
    except OSError:
        where = ""
    return failed(assignment, submission.student,
                  f"the grader failed on this hand-in ({type(error).__name__}: {error}){where}"[:500],
                  source=submission.label)


# --- one student: the pipeline -------------------------------------------------------------
def grade_one(course, assignment, submission, previous, ids, force, limits):
    """One student's submission through the pipeline; returns its outcome, and whether it was skipped as unchanged.

    ``previous`` is the student's earlier outcome, if any; ``ids`` the
    course's nbgrader cell ids (:func:`graded_cells`). Runs anywhere that sees the course folder
    and the gradebook (a thread here, or a Dask worker); the outcome is
    recorded by the caller.
    """
    work = course.work(assignment, submission.student)
    source = {"source": submission.label}
    if submission.name and submission.name != submission.student:
        source["name"] = submission.name
    if submission.late is not None:
        source["marked_late"] = submission.late   # Canvas's _LATE_ mark
    # 1. read: what was handed in (when it is what was graded last time, that grade stands)
    if submission.problem:
        return failed(assignment, work.student, submission.problem, **source), False
    source["sha256"] = fingerprint(submission.handed_in)
    kept = None if force else unchanged(work, previous, source["sha256"])
    if kept is not None:
        return kept, True
    before = {name: answers(work.autograded(name)) for name in work.names}   # what a person saw and scored
    problem = read(work, submission, ids)
    if problem:
        return failed(assignment, work.student, problem, **source), False
    same = bool(previous) and previous.get("sha256") == source["sha256"]
    reviewed, notes = still_reviewed(work, before, same)
    notes += handed_in_at(work, submission)
    # 2. normalize
    notes += [note for name in work.names for note in normalize(work.copy(name))]
    # 3. run confined
    ran = run(work, limits)
    gradebook.keep_reviewed(course, assignment, work.student, reviewed)
    # 4. judge (5. record is the caller's: grade(), where the batch was started)
    return verdict(work, ran, notes, limits, **source), False


def fingerprint(files):
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name].read_bytes() + b"\0")
    return digest.hexdigest()


def unchanged(work, previous, sha256):
    """The earlier outcome, with the gradebook's scores now (any hand grading since), if it stands; else None.

    It stands when the same files were scored and the graded notebooks and
    the gradebook's entry are still there.
    """
    if not (previous and previous["status"] in SCORED and previous.get("sha256") == sha256
            and all(work.autograded(name).is_file() for name in work.names)):
        return None
    scores = gradebook.scores(work.course, work.assignment, work.student)
    return None if scores is None else restated(previous, scores)


def answers(path):
    """The student's answer cells of a notebook (a copy, or the graded notebook), by grade id: {} when none."""
    try:
        return {grade_id(c): c.source for c in read_notebook(path).cells if is_solution(c)}
    except (OSError, ValueError, KeyError, AttributeError):
        return {}


def still_reviewed(work, before, same):
    """The cells a person scored by hand that stay scored and reviewed after this grading (``notebook/cell``),
    and a note for each one that must be looked at again.

    A written answer stays reviewed while its text is what was scored
    (``before``: the answers in the graded notebook a person scored, which a
    hand-in that could not be graded leaves in place); any other cell
    scored by hand (a test whose points a person changed) stays reviewed
    only when the whole hand-in is unchanged (``same``).
    """
    reviewed, notes = set(), []
    for key, entered in gradebook.hand_graded(work.course, work.assignment, work.student).items():
        if entered.get("manual_score") is None or entered.get("needs_manual_grade"):
            continue
        name, cell = key.split("/", 1)
        now = answers(work.copy(name))
        if same or (cell in now and before.get(name, {}).get(cell) == now[cell]):
            reviewed.add(key)
        else:
            notes.append(f"{cell} was scored by hand ({entered['manual_score']:g}) before this hand-in changed "
                         "it: the score is kept, and it waits to be looked at again")
    return reviewed, notes


# --- 1. read -------------------------------------------------------------------------------
def read(work, submission, ids):
    """Copy the student's notebooks (and nbgrader's files beside them) into the grader's copies folder and
    check each; why they cannot be graded, or ''. The hand-in itself is only read."""
    folder = work.copy()
    sources = {path.resolve() for path in submission.handed_in.values()}
    if any(folder.resolve() == p or folder.resolve() in p.parents for p in sources):   # class_folder() prevents it
        return f"the hand-in lies inside the grader's own folder {folder}; it was left as it is"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, original in submission.files.items():
        shutil.copyfile(original, work.copy(name))
    for filename, original in submission.extras.items():
        shutil.copyfile(original, folder / filename)
    for name in work.names:
        if not work.copy(name).is_file():
            return f"{name}.ipynb is missing from the submission"
        problem = submissions.check_notebook(work.copy(name), work.assignment, ids[work.assignment][0],
                                             {a: graded for a, (_, graded) in ids.items()})
        if problem:
            return problem
    return ""


def handed_in_at(work, submission):
    """Give the grader's copy the hand-in time nbgrader's late penalty reads (``timestamp.txt``), when the
    hand-in carries none of its own; notes on how it was found.

    nbgrader's exchange writes the time itself (kept as it is). A zip's entry
    time is the hand-in time. Canvas's mark decides whether it is late: marked
    late with no later time in the download, it counts as 1 s late; marked on
    time (a Canvas extension) with a later file time, as handed in at the due
    date. Anything else (a plain folder, whose file times change when files
    are copied) has no hand-in time, and is not counted late.
    """
    if "timestamp.txt" in submission.extras:
        return []
    when, notes = submission.time, []
    due = gradebook.due_date(work.course, work.assignment)
    if submission.late and due is None:
        notes.append(f"Canvas marks it late, but {work.assignment} has no due date in the gradebook, so no late "
                     "penalty applies (set the due date: nbgrader db assignment add ... --duedate)")
    elif submission.late and (when is None or when <= due):
        when = due + timedelta(seconds=1)
        notes.append("Canvas marks it late; the download gives no later hand-in time, so it counts as 1 s late")
    elif submission.late is False and when is not None and due is not None and when > due:
        when = due
        notes.append("Canvas marks it on time (an extension in Canvas?) though its file is dated after the due "
                     "date: it counts as handed in at the due date")
    if when is not None:
        (work.copy() / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    return notes


# --- 2. normalize --------------------------------------------------------------------------
def normalize(path):
    """Make the copy of a submission safe for nbgrader: a grade id repeated (a copied test cell) is kept once,
    repeated cell ids are renumbered (nbformat does it, and would warn about it every time it reads the file).

    Only the grader's copy is changed, never the hand-in; returns notes for the instructor.
    """
    with warnings.catch_warnings(record=True) as renumbered:
        warnings.simplefilter("always", DuplicateCellId)
        nb = read_notebook(path)
    renumbered = [w for w in renumbered if issubclass(w.category, DuplicateCellId)]
    seen, kept, notes = set(), [], []
    if renumbered:
        notes.append(f"{len(renumbered)} cell id(s) appeared more than once and were renumbered")
    for cell in nb.cells:
        name = grade_id(cell)
        if name and name in seen:
            notes.append(f"cell {name} appeared more than once; the first was kept")
            continue
        seen.add(name)
        kept.append(cell)
    if notes:
        nb.cells = kept
        nbformat.write(nb, str(path))
    return notes


# --- 3. run confined -----------------------------------------------------------------------
_workers = threading.local()   # this thread's GradingWorker for each (course, memory cap)
_all_workers, _workers_lock = [], threading.Lock()


def run(work, limits):
    """nbgrader's autograde of one student in this thread's grading worker; an :class:`NbgraderRun`."""
    return worker_for(work.course, limits.worker_mb).autograde(work.assignment, work.student, work.log,
                                                               limits.notebook_s)


def worker_for(course, memory_mb):
    """The calling thread's grading worker for this course (started on first use, kept for the next student)."""
    key = (str(course.root), memory_mb)
    mine = _workers.__dict__.setdefault("by_key", {})
    if key not in mine:
        mine[key] = GradingWorker(course, memory_mb)
        with _workers_lock:
            _all_workers.append(mine[key])
    return mine[key]


@atexit.register
def stop_workers():
    """Stop every grading worker this process started (they would also die with it)."""
    with _workers_lock:
        workers, _all_workers[:] = list(_all_workers), []
    for worker in workers:
        worker.stop()
    _workers.__dict__.pop("by_key", None)


# --- 5. record: what the instructor reads ------------------------------------------------------
def describe(outcome, skipped=False):
    """One line for the instructor."""
    who = f"{outcome['assignment']}/{outcome['student']}" + (f" ({outcome['name']})" if outcome.get("name") else "")
    if outcome["status"] == FAILED:
        return f"{who}: could not be graded: {outcome['reason']}" + "".join(
            f"; note: {n}" for n in outcome.get("notes", []))
    line = f"{who}: {outcome['status']}, {outcome['score']:g} / {outcome['max_score']:g}"
    if outcome.get("late_penalty"):
        line += f" (after the late penalty: {max(0.0, outcome['score'] - outcome['late_penalty']):g})"
    if outcome.get("needs_manual_grade"):
        line += " (written answers still to grade by hand)"
    if skipped:
        line += " (unchanged since last time, not graded again)"
    return line + "".join(f"; note: {n}" for n in outcome.get("notes", []))
