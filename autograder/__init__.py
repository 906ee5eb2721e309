"""Instructor tooling around nbgrader: release, grade, hand back, export, and check the homework's tests.

Run ``python -m autograder --help``; autograder/README.md is the guide. The
commands are :mod:`~autograder.cli`; the rest lies in five sub-packages along
the pipeline, each importing only the ones listed before it:

- :mod:`autograder.sandbox`: where a student's code runs (bubblewrap, the limits,
  the warm template, the student's process and the wire format it speaks);
- :mod:`autograder.course`: the course folder and its records (layout, cells,
  leaks, release, the gradebook, the outcomes file);
- :mod:`autograder.grading`: one pipeline per student, read top to bottom in
  :func:`autograder.grading.grade.grade_one`: read the hand-ins, run nbgrader's
  autograde in a worker whose kernel is the judge, state the verdict;
- :mod:`autograder.handback`: what a graded run gives back (feedback, the grades
  export, the LMS files, the Gradescope autograder);
- :mod:`autograder.mutation`: the check of a homework's tests by mutants of its
  reference, beside grading (it shares the judge's tests' side).
"""
