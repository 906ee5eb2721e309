"""nbgrader's configuration for the course; `python -m autograder` reads it too.

The course root is the folder holding this file. Under it:

    exercises/<assignment>/            single-source notebooks (solutions, hidden tests): committed
    release/<assignment>/              what students download: generated
    submitted/<student>/<assignment>/  what students handed in (nbgrader collect): only ever read
    exchange/                          nbgrader's exchange, when it is on this machine
    autograded/<student>/<assignment>/ executed and scored: generated
    autograded/_copies/<student>/<assignment>/  the grader's copies of the hand-ins: generated
    feedback/<student>/<assignment>/   HTML handed back to students: generated
    gradebook.db                       the gradebook (SQLite by default): generated

Environment variables (all optional):

    RBD_GRADEBOOK_URL   the gradebook as any SQLAlchemy URL, for example
                        postgresql://grader@db.example.org/rbd
                        (default: sqlite:///<root>/gradebook.db)
    RBD_EXCHANGE_ROOT   nbgrader's exchange folder (default: <root>/exchange)
    RBD_CELL_TIMEOUT    seconds one cell may run during grading before it is
                        interrupted (default: 60); this and every other limit
                        of grading (memory, processes, the whole submission)
                        are listed in autograder/sandbox/limits.py

Copy this file with the exercises to make a separate course folder (the tests
do): every path follows the file.
"""

import math
import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, GetGrades, IgnorePattern, LimitOutput,
                                    SaveAutoGrades)

from autograder.course.leaks import MARKERS, HideHiddenTests
from autograder.grading.judge import Judge
from autograder.sandbox.limits import Limits

c = get_config()  # noqa: F821 (defined by the loader that runs this file)

ROOT = os.path.dirname(os.path.abspath(__file__))

# --- where things live -------------------------------------------------------
c.CourseDirectory.root = ROOT
c.CourseDirectory.course_id = "rbd-course"
c.CourseDirectory.source_directory = "exercises"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
# exercises/<assignment>/mutants.toml (the mutation check's equivalent mutants) quotes the solutions, and
# mistakes.toml (the typical mistakes) holds near-solutions: never copy them into a release, a submission
# or feedback (exercises/README.md). The judge's report (<nb>.judge.json, beside the graded notebook) is the
# instructor's: never copied into feedback.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "mutants.toml",
                            "mistakes.toml", "*.judge.json"]
DB_URL = os.environ.get("RBD_GRADEBOOK_URL") or "sqlite:///" + os.path.join(ROOT, "gradebook.db")
if DB_URL.startswith("sqlite") and "timeout=" not in DB_URL:
    # students are graded in parallel: a writer waits for the lock instead of failing at once
    DB_URL += ("&" if "?" in DB_URL else "?") + "timeout=120"
c.CourseDirectory.db_url = DB_URL

# --- nbgrader's exchange: release_assignment, fetch, submit, collect, release_feedback ---
# One folder that the instructor and every student can reach. On one machine (or in the tests) it is
# exchange/ in the course folder; on a JupyterHub set RBD_EXCHANGE_ROOT to the shared folder every user
# can write (nbgrader's default is /usr/local/share/nbgrader/exchange), and give the students' Jupyter the
# same c.Exchange.root and c.CourseDirectory.course_id. `python -m autograder grade` with no folder grades
# what `nbgrader collect` put in submitted/, in place: it only reads it.
c.Exchange.root = os.environ.get("RBD_EXCHANGE_ROOT") or os.path.join(ROOT, "exchange")

# --- release: strip solutions, hidden tests and outputs ------------------------
# Everything between the solution markers (autograder.course.leaks.MARKERS) becomes the
# stub below; a written-answer cell without the markers becomes text_stub.
c.ClearSolutions.begin_solution_delimeter, c.ClearSolutions.end_solution_delimeter = MARKERS[0], MARKERS[1]
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearSolutions.enforce_metadata = True
c.ClearHiddenTests.begin_test_delimeter, c.ClearHiddenTests.end_test_delimeter = MARKERS[2], MARKERS[3]
c.ClearHiddenTests.enforce_metadata = True
c.ClearOutput.remove_metadata_fields = ["collapsed", "scrolled", "execution"]

# --- grading -----------------------------------------------------------------
# nbgrader's Execute (the student's code and the tests in one kernel) is
# replaced by the Judge: the student's cells run in a sandboxed process, the
# tests here, taking only plain values from it (autograder/THREATS.md).
c.Autograde.autograde_preprocessors = [Judge, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                       SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
c.Judge.course_root = ROOT   # the judge takes the folders above and the limits from autograder/sandbox/limits.py
# nbgrader's own Execute (nbgrader validate) stops a cell at the judge's limit too
c.Execute.timeout = math.ceil(Limits.from_environment().cell_s)
c.Execute.interrupt_on_timeout = True
# A deleted test cell is put back from the gradebook (and run), not scored 0.
c.OverwriteCells.add_missing_cells = True
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100

# --- feedback: never show hidden tests -----------------------------------------
# Autograding puts the hidden tests back into the notebook, and nbgrader's
# feedback shows them; HideHiddenTests removes them (and the tracebacks that
# quote them) while keeping the tests' messages.
c.GenerateFeedback.preprocessors = [HideHiddenTests, GetGrades, CSSHTMLHeaderPreprocessor]

# --- formulas offline, in the feedback pages and the formgrader -----------------
# nbconvert's templates load MathJax from a CDN; autograder/handback/templates/base/mathjax.html.j2 replaces that macro
# with the course's own MathJax (from its environment), put in the page by the course_mathjax filter with a
# shim for the MathJax 2 call nbgrader's formgrader makes (autograder/handback/mathjax.py). nbgrader's own templates
# (formgrade, feedback) come after it.
import autograder.handback as _handback  # noqa: E402
import nbgrader.server_extensions.formgrader as _formgrader  # noqa: E402

c.HTMLExporter.extra_template_basedirs = [os.path.join(os.path.dirname(_handback.__file__), "templates"),
                                          os.path.join(os.path.dirname(_formgrader.__file__), "templates")]
c.HTMLExporter.filters = {"course_mathjax": "autograder.handback.mathjax.mathjax_filter"}
