"""Instructor tooling around nbgrader: release, grade, feedback, export.

Run ``python -m autograder --help``; autograder/README.md is the guide. Each
command is a small module: :mod:`~autograder.release`,
:mod:`~autograder.grade` (with :mod:`~autograder.submissions` and
:mod:`~autograder.outcomes`), :mod:`~autograder.feedback` (with
:mod:`~autograder.scrub`), :mod:`~autograder.export`. The course folder and its
nbgrader configuration are in :mod:`~autograder.course`; what counts as giving
answers away is in :mod:`~autograder.leaks`.
"""
