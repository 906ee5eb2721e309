"""``grade``: autograde a folder or a .zip of submissions, one student at a time.

For each student:

1. the notebook is copied to ``submitted/<student>/<assignment>/`` (the
   original is never touched) and checked: a file that is empty, not JSON, not
   a valid notebook, or not this assignment's notebook is not graded;
2. nbgrader's autograde runs for the student in a grading worker: a process
   that stays up to grade one student after another (autograder/worker.py),
   with a time limit for the whole submission (past it the worker is killed,
   with the student's sandbox, and replaced) and a memory cap, so that no
   submission can stop the batch; each job (``--jobs``) has a worker of its own;
3. the outcome is recorded in ``autograded/outcomes.json``: ``graded`` with the
   score, or ``could not be graded`` with the reason (and then the student's
   stale grades, graded notebook and feedback are removed, so that nothing
   shows a 0 that was never earned).

A submission that is unchanged since it was graded is skipped (``--force``
grades it again), so re-running a batch, or resuming an interrupted one, is safe.
"""

import atexit
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import threading
import warnings

import nbformat
from nbformat.warnings import DuplicateCellId

from . import gradebook, sandbox, submissions
from .course import CourseError
from .leaks import read_notebook
from .outcomes import FAILED, FLAGGED, GRADED, SCORED, Outcomes, failed, now
from .worker import GradingWorker

TIME_LIMIT = int(os.environ.get("RBD_GRADE_TIME_LIMIT", "900"))   # seconds per submission
MEMORY_MB = int(os.environ.get("RBD_GRADE_MEMORY_MB", "4096"))     # address space of a grading worker


def grade_ids(course, assignment):
    ids = set()
    for path in course.source_notebooks(assignment).values():
        ids.update(cell.metadata.get("nbgrader", {}).get("grade_id") for cell in read_notebook(path).cells)
    ids.discard(None)
    return ids


def fingerprint(files):
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name].read_bytes() + b"\0")
    return digest.hexdigest()


def diagnose(run, time_limit):
    """Why autograding a student did not produce a grade, in one sentence.

    A cell that crashes or hangs is the judge's business (that part scores 0);
    what reaches here is the whole submission past its time limit, the grading
    worker killed, or nbgrader failing.
    """
    log = run.log
    if run.timed_out:
        return (f"grading took longer than {time_limit} s and was stopped "
                "(an endless loop that ignores interrupts, or a very slow notebook)")
    if run.returncode < 0:
        return f"the grading worker was killed by signal {-run.returncode} (out of memory?)"
    missing = re.findall(r"SandboxMissing: (.*)$", log, flags=re.M)
    if missing:
        return missing[-1].strip()[:400]
    errors = re.findall(r"^(?:\w+\.)*\w*(?:Error|Exception)\b:? ?.*$", log, flags=re.M)
    if errors:
        return f"nbgrader failed: {errors[-1].strip()[:300]}"
    return f"nbgrader autograde failed (exit code {run.returncode})"


def tampered_cells(submitted, released):
    """Locked cells (tests, setup) the student edited or deleted: nbgrader restores them, the instructor is told."""
    found = []
    theirs = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in read_notebook(submitted).cells}
    for cell in read_notebook(released).cells:
        nbgrader = cell.metadata.get("nbgrader", {})
        if not nbgrader.get("locked"):
            continue
        name = nbgrader.get("grade_id")
        if name not in theirs:
            found.append(f"{'test' if nbgrader.get('grade') else 'locked'} cell {name} had been deleted"
                         + ("; it was put back" if nbgrader.get("grade") else ""))
        elif theirs[name].source.strip() != cell.source.strip():
            found.append(f"locked cell {name} had been edited; the original was used")
    return found


def timed_out_cells(graded_notebook, cell_timeout):
    """Cells that nbgrader interrupted at the per-cell time limit."""
    found = []
    for index, cell in enumerate(read_notebook(graded_notebook).cells):
        if any(o.get("ename") in ("CellTimeoutError", "CellTimeout") for o in cell.get("outputs", [])):
            name = cell.metadata.get("nbgrader", {}).get("grade_id", f"#{index}")
            found.append(f"cell {name} ran past the {cell_timeout} s limit and was interrupted")
    return found


def normalize(path):
    """Make the copy of a submission safe for nbgrader: a grade id repeated (a copied test cell) is kept once,
    repeated cell ids are renumbered (nbformat does it, and would warn about it every time it reads the file).

    Only the copy in submitted/ is changed; returns notes for the instructor.
    """
    with warnings.catch_warnings(record=True) as renumbered:
        warnings.simplefilter("always", DuplicateCellId)
        nb = read_notebook(path)
    renumbered = [w for w in renumbered if issubclass(w.category, DuplicateCellId)]
    seen, kept, notes = set(), [], []
    if renumbered:
        notes.append(f"{len(renumbered)} cell id(s) appeared more than once and were renumbered")
    for cell in nb.cells:
        name = cell.metadata.get("nbgrader", {}).get("grade_id")
        if name and name in seen:
            notes.append(f"cell {name} appeared more than once; the first was kept")
            continue
        seen.add(name)
        kept.append(cell)
    if notes:
        nb.cells = kept
        nbformat.write(nb, str(path))
    return notes


def forget(course, assignment, student):
    """Remove whatever an earlier grading of this student left behind."""
    gradebook.forget(course, assignment, student)
    for kind in ("autograded", "feedback"):
        folder = course.student_folder(kind, student, assignment)
        shutil.rmtree(folder, ignore_errors=True)
        if folder.parent.is_dir() and not any(folder.parent.iterdir()):
            folder.parent.rmdir()


_workers = threading.local()   # this thread's GradingWorker for each (course, memory cap)
_all_workers, _workers_lock = [], threading.Lock()


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


def grade_one(course, assignment, submission, previous, ids, force, time_limit, memory_mb):
    """Grade one student's submission; returns its outcome (and whether it was skipped as unchanged).

    ``previous`` is the student's earlier outcome, if any. Runs anywhere that
    sees the course folder and the gradebook (a thread here, or a Dask worker).
    """
    student, names = submission.student, list(course.source_notebooks(assignment))
    extra = {"source": submission.label}
    if submission.problem:
        forget(course, assignment, student)
        return failed(assignment, student, submission.problem, **extra), False

    extra["sha256"] = fingerprint(submission.files)
    graded_notebooks = [course.student_folder("autograded", student, assignment) / f"{n}.ipynb" for n in names]
    if (not force and previous and previous["status"] in SCORED and previous.get("sha256") == extra["sha256"]
            and all(p.is_file() for p in graded_notebooks)):
        current = gradebook.scores(course, assignment, student)
        if current is not None:  # still in the gradebook: keep it, with any hand grading since
            return dict(previous, **current), True

    folder = course.student_folder("submitted", student, assignment)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, original in submission.files.items():
        shutil.copyfile(original, folder / f"{name}.ipynb")
    normalized = []
    for name in names:
        if not (folder / f"{name}.ipynb").is_file():
            forget(course, assignment, student)
            return failed(assignment, student, f"{name}.ipynb is missing from the submission", **extra), False
        problem = submissions.check_notebook(folder / f"{name}.ipynb", assignment, ids)
        if problem:
            forget(course, assignment, student)
            return failed(assignment, student, problem, **extra), False
        normalized += normalize(folder / f"{name}.ipynb")

    log_path = course.logs() / f"{assignment}.{student}.log"
    run = worker_for(course, memory_mb).autograde(assignment, student, log_path, time_limit)
    result = gradebook.scores(course, assignment, student)
    if run.timed_out or run.returncode != 0 or not all(p.is_file() for p in graded_notebooks) or result is None:
        reason = diagnose(run, time_limit)
        forget(course, assignment, student)
        return failed(assignment, student, reason, log=str(log_path.relative_to(course.root)), **extra), False

    found, flags = list(normalized), []
    for name, graded in zip(names, graded_notebooks):
        released = course.release_dir / assignment / f"{name}.ipynb"
        if released.is_file():
            found += tampered_cells(folder / f"{name}.ipynb", released)
        found += timed_out_cells(graded, course.cell_timeout)
        notes, evidence = judge_report(graded.with_suffix(".judge.json"), name)
        found += notes
        flags += evidence
    return dict(assignment=assignment, student=student, status=FLAGGED if flags else GRADED, reason="",
                notes=found + flags, graded_at=now(), log=str(log_path.relative_to(course.root)),
                **result, **extra), False


def judge_report(path, notebook):
    """Notes and evidence from the judge's report on one notebook (autograder/judge.py)."""
    if not path.is_file():
        return [f"{notebook}: the judge left no report"], []
    report = json.loads(path.read_text())
    notes = [f"{notebook}: {p}" for p in dict.fromkeys(report.get("problems", []))]
    if report.get("sandbox", "ok") != "ok":
        notes.append(f"{notebook}: graded without the sandbox ({report['sandbox']})")
    evidence = [f"{notebook} cell {e['cell']} line {e['line']}: `{e['text']}` ({e['why']})"
                for e in report.get("evidence", [])]
    return notes, evidence


def grade(course, path, assignment=None, force=False, time_limit=TIME_LIMIT, memory_mb=MEMORY_MB, report=print,
          jobs=None, dask=None):
    """Grade every submission under ``path`` (a folder or a .zip); returns their outcomes.

    ``jobs`` students are graded at once (default: one per core), by threads
    here, or by Dask workers when ``dask`` names a scheduler ("local" starts a
    cluster of ``jobs`` workers on this machine).

    Fails closed: without a working sandbox nothing is graded (a
    :class:`CourseError` says why and what to install) unless unconfined
    grading was asked for (``--no-sandbox``, :func:`autograder.sandbox.unconfined_asked`).
    """
    problem = sandbox.available()
    if problem and not sandbox.unconfined_asked():
        raise CourseError(f"nothing was graded: the grading sandbox cannot be set up here. {problem}")
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
    book, ids = Outcomes(course), grade_ids(course, assignment)
    results, lock = [], threading.Lock()
    jobs = max(1, int(jobs or os.cpu_count() or 1))
    settings = (ids, force, time_limit, memory_mb)

    def finish(outcome, skipped):
        with lock:
            book.record(outcome)
            report(describe(outcome, skipped))
            results.append(outcome)

    def one(submission):
        try:
            finish(*grade_one(course, assignment, submission, book.get(assignment, submission.student), *settings))
        except BaseException:
            # Leave no half-graded student behind: the next run grades them from scratch.
            with lock:
                forget(course, assignment, submission.student)
                book.remove(assignment, submission.student)
            raise

    try:
        with submissions.opened(path, assignment, list(course.source_notebooks(assignment))) as found:
            if not found:
                report(f"no submissions found in {path}")
            elif dask:
                _on_dask(dask, jobs, course, assignment, found, book, settings, finish, report)
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


def _on_dask(address, jobs, course, assignment, found, book, settings, finish, report):
    """Fan the students out over a Dask ``distributed`` cluster: ``address`` of its scheduler, or "local".

    The workers must see the course folder and the submissions at the same
    paths (one machine, or a shared filesystem) and reach the gradebook (use
    PostgreSQL, RBD_GRADEBOOK_URL, when they are on several machines). The
    outcomes are recorded here, as they come back.
    """
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if address == "local":
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        address = cluster.scheduler_address
    try:
        with Client(address) as client:
            report(f"grading on the Dask cluster at {address} ({len(client.scheduler_info()['workers'])} workers)")
            futures = {client.submit(grade_one, course, assignment, submission,
                                     book.get(assignment, submission.student), *settings, pure=False): submission
                       for submission in found}
            try:
                for future in as_completed(futures):
                    submission = futures[future]
                    try:
                        finish(*future.result())
                    except Exception as error:  # noqa: BLE001 (a lost worker is this student's outcome, not the batch's end)
                        forget(course, assignment, submission.student)
                        finish(failed(assignment, submission.student,
                                      f"the grading worker failed: {type(error).__name__}: {error}"[:300],
                                      source=submission.label), False)
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    finally:
        if cluster is not None:
            cluster.close()


def describe(outcome, skipped=False):
    """One line for the instructor."""
    who = f"{outcome['assignment']}/{outcome['student']}"
    if outcome["status"] == FAILED:
        return f"{who}: could not be graded: {outcome['reason']}"
    line = f"{who}: {outcome['status']}, {outcome['score']:g} / {outcome['max_score']:g}"
    if outcome.get("needs_manual_grade"):
        line += " (written answers still to grade by hand)"
    if skipped:
        line += " (unchanged since last time, not graded again)"
    return line + "".join(f"; note: {n}" for n in outcome.get("notes", []))
