"""Instructor tooling around nbgrader: release, grade, feedback, export.

Run ``python -m autograder --help``; autograder/README.md is the guide. Each
command is a small module: :mod:`~autograder.release`, :mod:`~autograder.grade`,
:mod:`~autograder.feedback`, :mod:`~autograder.export`. Grading is one
pipeline per student, read top to bottom in :func:`autograder.grade.grade_one`:
read (:mod:`~autograder.submissions`) → normalize → run confined
(:mod:`~autograder.worker`, :mod:`~autograder.judge`, :mod:`~autograder.sandbox`,
:mod:`~autograder.confine`, :mod:`~autograder.student`, :mod:`~autograder.wire`)
→ judge → record (:mod:`~autograder.outcomes`, :mod:`~autograder.gradebook`).
The course's layout is in :mod:`~autograder.course`, its limits in
:mod:`~autograder.limits`, what each nbgrader cell is in :mod:`~autograder.cells`,
and what students must never see in :mod:`~autograder.leaks`.
"""
