"""Grading a batch, one pipeline per student: read, normalize, run confined, judge, record.

:func:`.grade.grade_one` reads top to bottom. It owns reading a folder or a
.zip of hand-ins (:mod:`.submissions`, Canvas's file names: :mod:`.canvas`),
the long-lived grading worker that runs nbgrader's Autograde
(:mod:`.worker`), the judge that replaces nbgrader's kernel (:mod:`.judge`)
with the tests' side on plain values (:mod:`.examiner`, shared with the
mutation check), what a run comes to (:mod:`.verdict`), and the batch on a
Dask cluster (:mod:`.on_dask`).

It may import :mod:`autograder.course` and :mod:`autograder.sandbox`; it
records outcomes through :mod:`autograder.course.outcomes` and knows nothing
of hand-back or the mutation check.
"""
