"""The check of a homework's tests: what they let through, by mutants of the reference solution.

It owns the command and its report (:mod:`.mutants`), the operators that
make the mutants (:mod:`.operators`) on the syntax tree (:mod:`.syntax`), the
probes that decide where they apply (:mod:`.probes`), running the cells in
one process (:mod:`.replay`), and the scan of visible tests that give the
answer away (:mod:`.giveaways`).

It may import :mod:`autograder.course` (a homework's folder),
:mod:`autograder.sandbox` (limits, forked processes) and the tests' side of
:mod:`autograder.grading` (:mod:`autograder.grading.examiner`), so that the
check runs tests exactly as grading does; only the commands import it.
"""
