"""What a graded run gives back: feedback pages, the grades, the files an LMS imports, Gradescope's autograder.

It owns the feedback (:mod:`.feedback`, with the course's MathJax in
nbgrader's pages: :mod:`.mathjax` and ``templates/``), the grades CSV and
``status`` (:mod:`.export`), Canvas's and Moodle's import files
(:mod:`.lms`), and the Gradescope autograder zip with its ``run_autograder``
(:mod:`.gradescope`).

It may import :mod:`autograder.course`, :mod:`autograder.sandbox` and
:mod:`autograder.grading` (Gradescope grades an upload with
:func:`autograder.grading.grade.grade`); nothing below imports it.
"""
