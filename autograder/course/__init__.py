"""The course folder and its records: where each part lives and what every cell, release and grade is.

It owns the course's layout from nbgrader_config.py and running nbgrader in
it (:mod:`.course`), what each nbgrader cell is (:mod:`.cells`), what students
must never see (:mod:`.leaks`), the release (:mod:`.release`), one homework's
folder with its typical mistakes and declarations (:mod:`.assignment`), the
gradebook (:mod:`.gradebook`) and ``autograded/outcomes.json`` beside it
(:mod:`.outcomes`).

It may import :mod:`autograder.sandbox` (the limits, the processes it
starts), and nothing of grading, hand-back or the mutation check.
"""
