"""One pass of the mutation check's runner over an assignment, shared by tests/test_mutants.py and
tests/test_homework.py (the tests of one assignment run in one process: tests/conftest.py).

One :func:`autograder.mutation.mutants.run` runs the reference once and forks a child
for each variant: every mutant of the reference (the mutation check), every
typical mistake of exercises/<assignment>/mistakes.toml, and the spot-check
sample of mutants that tests/test_homework.py also grades with nbgrader, and
every copy of a visible test (autograder/mutation/giveaways.py) that
tests/test_giveaways.py checks. The mistakes and the sample run every test
they reach (``complete``), as grading does; the other mutants and the copies
stop at their first visible failure, as ``python -m autograder mutants``
and ``giveaways`` run them.
"""

import functools
from dataclasses import dataclass
from pathlib import Path

from autograder.course.assignment import Assignment
from autograder.mutation import giveaways, mutants

REPO = Path(__file__).resolve().parent.parent
SPOT_CHECKS = 4  # mutants per assignment graded by nbgrader too


@dataclass
class Pass:
    summary: mutants.Summary   # the mutation check's report on the mutants of the reference (no mistake in it)
    mistakes: dict             # a typical mistake's name -> its verdict (complete)
    spot: list                 # the sampled mutants, with their verdicts (complete), in the sample's order
    copies_passing: list       # the copies of visible tests (autograder/mutation/giveaways.py) that pass their part


def source_path(assignment):
    return REPO / "exercises" / assignment / f"{assignment}.ipynb"


@functools.cache
def one_pass(assignment):
    path = source_path(assignment)
    homework = Assignment(path)
    mistakes = homework.mistakes()
    sample = mutants.sample(path, SPOT_CHECKS)
    extra = [{"id": m["name"], "cell": m["cell"], "source": m["source"], "what": m["what"]} for m in mistakes]
    made = giveaways.copies(homework)
    result = mutants.run(path, extra=extra + made, complete=set(sample) | {m["name"] for m in mistakes})
    names = {m["name"] for m in mistakes}
    copied = {c["id"] for c in made}
    found = {m["id"]: m for m in result["mutants"]}
    generated_ids = {m["id"] for m in result["mutants"] if m["operator"] != "given"}
    assert not names & generated_ids, "a mistake's name is a mutant id"
    assert not names & copied and not copied & generated_ids, "a copy's id is a mistake's name or a mutant id"
    generated = dict(result, mutants=[m for m in result["mutants"] if m["id"] not in names | copied])
    return Pass(summary=mutants.summarize(homework, generated),
                mistakes={name: found[name]["verdict"] for name in names},
                spot=[found[i] for i in sample if i in found],
                copies_passing=giveaways.passing(homework, made, {i: found[i]["verdict"] for i in copied}))
