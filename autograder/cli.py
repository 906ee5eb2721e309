"""The command line: ``python -m autograder COMMAND`` (see autograder/README.md)."""

import argparse
import os
import sys

from .course.course import Course, CourseError


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Release, grade, hand back and export the course's homework (nbgrader underneath).")
    parser.add_argument("--root", help="course folder holding nbgrader_config.py (default: found automatically)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    release = commands.add_parser("release", help="generate the student notebooks in release/ and check them")
    release.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: every assignment")

    grade = commands.add_parser("grade", help="autograde a folder or a .zip of submissions")
    grade.add_argument("path", nargs="?", help="folder or .zip: <student>/<assignment>/<nb>.ipynb, "
                                               "<student>/<nb>.ipynb or <student>.ipynb, or Canvas's download "
                                               "(default: submitted/, as nbgrader collect fills it); only read")
    grade.add_argument("--assignment", help="default: the only assignment there is, or the only one whose "
                                            "name appears among the submitted files")
    grade.add_argument("--force", action="store_true", help="grade again even unchanged submissions")
    grade.add_argument("--student", metavar="ID", help="grade this student's hand-in only (the id as nbgrader "
                                                       "has it, e.g. the folder name in submitted/)")
    grade.add_argument("--jobs", type=int, metavar="N", help="students graded at once (default: one per core)")
    grade.add_argument("--dask", metavar="ADDRESS", help="grade on a Dask distributed cluster: its scheduler's "
                       "address (tcp://host:8786), or 'local' for a cluster of --jobs workers here")
    grade.add_argument("--time-limit", type=int, metavar="SECONDS",
                       help="limit for one whole submission (default: $RBD_GRADE_TIME_LIMIT or 900; "
                            "every limit: autograder/sandbox/limits.py)")
    grade.add_argument("--memory-limit", type=int, metavar="MB",
                       help="address-space cap of the grading kernel, 0 for none "
                            "(default: $RBD_GRADE_MEMORY_MB or 4096)")
    grade.add_argument("--cold", action="store_true",
                       help="start a fresh sandbox for every student instead of forking each student's process "
                            "from a warm template (sets RBD_WARM_SANDBOX=0; autograder/sandbox/warm.py)")
    grade.add_argument("--no-sandbox", action="store_true",
                       help="grade even when the sandbox (bubblewrap) cannot be set up: the students' code then runs "
                            "unconfined, with the resource limits only; for trusted code (sets RBD_NO_SANDBOX=1)")

    feedback = commands.add_parser("feedback", help="write the feedback HTML of graded submissions")
    feedback.add_argument("--assignment", action="append", default=[], help="default: every graded assignment")
    feedback.add_argument("--allow-ungraded", action="store_true",
                          help="also write feedback for students whose written answers are still to grade by hand "
                               "(their pages show those answers as 0 for now); held back by default")
    feedback.add_argument("--student", action="append", default=[], metavar="ID",
                          help="write the pages of this student only (repeat for more); default: every graded "
                               "student. The other students' pages stay as they are")

    export = commands.add_parser("export", help="write grades as CSV: one row per student and assignment, or "
                                                "in the layout Canvas's or Moodle's grade import takes")
    export.add_argument("--out", default="grades.csv", help="default: grades.csv")
    export.add_argument("--assignment", help="default: every assignment")
    export.add_argument("--format", default="rows", choices=("rows", "canvas", "moodle", "gradescope"),
                        help="rows (default): one row per student and assignment, with status and reason; "
                             "canvas: Canvas's gradebook import; moodle: Moodle's CSV grade import; "
                             "gradescope: see the gradescope command")
    export.add_argument("--template", "--roster", metavar="FILE",
                        help="canvas: the gradebook CSV exported from Canvas (its identifying columns and the "
                             "assignment's column are kept, and only the rows of students with a score); "
                             "moodle: a CSV of the course's users with a username, ID number or email address "
                             "column (Moodle's grade export is one), so that no other user is written")
    export.add_argument("--column", action="append", default=[], metavar="ASSIGNMENT=HEADER",
                        help="the column an assignment's scores go to, e.g. 'hw01=Homework 1 (4321)' "
                             "(default: the template column naming the assignment, or the assignment's name)")
    export.add_argument("--include-provisional", action="store_true",
                        help="canvas, moodle: also write the scores of students whose written answers are still "
                             "to grade by hand (the autograded part only); held back by default")

    gradescope = commands.add_parser("gradescope", help="write a Gradescope autograder (a zip) that grades an "
                                                        "uploaded notebook with the course's tests and sandbox")
    gradescope.add_argument("assignment", metavar="ASSIGNMENT")
    gradescope.add_argument("--out", help="default: gradescope-<assignment>.zip")
    gradescope.add_argument("--hidden-visibility", default="after_published",
                            choices=("after_published", "after_due_date", "visible"),
                            help="when students see the parts whose cells hold hidden tests (default: "
                                 "after_published, once the grades are published)")
    gradescope.add_argument("--no-sandbox", action="store_true",
                            help="grade without the sandbox where Gradescope's container cannot set it up "
                                 "(the students' code then runs unconfined: trusted code only)")

    forget = commands.add_parser("forget", help="remove a student's outcome of an assignment (a wrong hand-in "
                                                "graded): never a hand-in, never a score entered by hand")
    forget.add_argument("--assignment", required=True)
    forget.add_argument("--student", required=True, metavar="ID")

    extend = commands.add_parser("extend", help="give a student more time past the due date (nbgrader's extension)")
    extend.add_argument("--assignment", required=True)
    extend.add_argument("--student", required=True, metavar="ID")
    extend.add_argument("--hours", type=float, required=True, help="hours past the due date; 0 removes the extension")

    status = commands.add_parser("status", help="print a short table of the outcomes")
    status.add_argument("--assignment", help="default: every assignment")

    mutants = commands.add_parser("mutants", help="change the reference solutions the way students get them "
                                                  "wrong, and report which changes the tests catch")
    mutants.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: every assignment")
    mutants.add_argument("--jobs", type=int, metavar="N", help="mutants run at once (default: one per core)")
    mutants.add_argument("--show", choices=("survivors", "visible", "all"), default="survivors",
                         help="list the survivors (default), also what only grading catches, or every mutant")
    mutants.add_argument("--json", metavar="FILE", help="also write every mutant and its verdict to FILE")
    mutants.add_argument("--timeout", type=float, metavar="SECONDS",
                         help="limit for one call or cell of a mutant (default: a cell's limit in grading, "
                              "RBD_CELL_TIMEOUT or 60)")
    mutants.add_argument("--only", action="append", metavar="ID",
                         help="run just this mutant (repeat for more); ids as --show all lists them")
    mutants.add_argument("--complete", action="store_true",
                         help="run every test a mutant reaches, not only until a visible test fails")
    return parser


def environment_tools_on_path():
    """Put this environment's tools first on the PATH: nbgrader runs some by name (alembic creates the gradebook)."""
    tools = os.path.dirname(sys.executable)
    if tools not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join(p for p in (tools, os.environ.get("PATH")) if p)


def main(argv=None):
    args = build_parser().parse_args(argv)
    environment_tools_on_path()
    try:
        course = Course(args.root)
        if args.command == "release":
            from .course.release import release
            for folder in release(course, args.assignments):
                print(f"released {folder.relative_to(course.root)}/ (no solutions, no hidden tests)")
        elif args.command == "grade":
            from .grading import grade
            asked, warm_asked = os.environ.get("RBD_NO_SANDBOX"), os.environ.get("RBD_WARM_SANDBOX")
            if args.no_sandbox:
                os.environ["RBD_NO_SANDBOX"] = "1"   # read by the grading workers' judges too
            if args.cold:
                os.environ["RBD_WARM_SANDBOX"] = "0"   # likewise
            try:
                grade.grade(course, args.path, args.assignment, force=args.force, time_limit=args.time_limit,
                            memory_mb=args.memory_limit, jobs=args.jobs, dask=args.dask, student=args.student)
            finally:
                for name, value in (("RBD_NO_SANDBOX", asked), ("RBD_WARM_SANDBOX", warm_asked)):
                    if value is None:
                        os.environ.pop(name, None)
                    else:
                        os.environ[name] = value
        elif args.command == "feedback":
            from .handback.feedback import feedback
            feedback(course, args.assignment, allow_ungraded=args.allow_ungraded, students=args.student)
        elif args.command == "export":
            from .handback.lms import write
            count, _ = write(course, args.format, args.out, args.assignment, args.template, args.column,
                             report=lambda line: print(line, file=sys.stderr),
                             include_provisional=args.include_provisional)
            print(f"wrote {count} {'row' if args.format == 'rows' else 'student'}(s) to {args.out}")
        elif args.command == "gradescope":
            from .handback.gradescope import package
            out = package(course, args.assignment, args.out, sandbox=not args.no_sandbox,
                          hidden_visibility=args.hidden_visibility)
            print(f"wrote {out}: upload it as the autograder of a Gradescope programming assignment")
        elif args.command == "forget":
            from .course.outcomes import remove
            print(remove(course, args.assignment, args.student))
        elif args.command == "extend":
            from .course.gradebook import extend
            course.check_assignment(args.assignment)
            if not extend(course, args.assignment, args.student, args.hours):
                raise CourseError(f"{args.student} has no {args.assignment} in the gradebook yet: grade the hand-in "
                                  "first, then give the extension")
            print(f"{args.assignment}/{args.student}: due {args.hours:g} h later than {args.assignment}; grade again "
                  f"to apply it: grade --assignment {args.assignment} --student \"{args.student}\" --force")
        elif args.command == "status":
            from .handback.export import status
            status(course, args.assignment)
        elif args.command == "mutants":
            from .mutation.mutants import check
            if not check(course, args.assignments, jobs=args.jobs, timeout=args.timeout, show=args.show,
                         json_out=args.json, only=args.only, complete=args.complete):
                return 1
    except FileNotFoundError as err:
        if "alembic" in str(err):
            err = (f"nbgrader needs the alembic command to create the gradebook, and {sys.executable} has none "
                   "beside it: install the course's environment (make setup, or pip install -r requirements.txt)")
        print(f"error: {err}", file=sys.stderr)
        return 1
    except (CourseError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0
