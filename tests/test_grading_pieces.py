"""The grading pipeline's small pieces, without running nbgrader (autograder/grading/grade.py's stages).

The course layout and the limits each come from one place; every part asks
autograder/course/cells.py what a cell is, and it answers as nbgrader does.
"""

import doctest
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import is_grade, is_locked, is_solution

from autograder.course import cells, outcomes
from autograder.course.course import Course
from autograder.grading import grade, judge
from autograder.mutation import operators, syntax
from autograder.sandbox import limits
from tests.scratch import scratch_course

REPO = Path(__file__).resolve().parent.parent
needs_hw01 = pytest.mark.skipif(not (REPO / "exercises" / "hw01").is_dir(), reason="needs exercises/hw01")


def test_the_autograders_examples_run_as_doctests():
    """``make test`` and ``make check`` collect the examples in the autograder's docstrings, as they do lib's."""
    recipes = [line for line in (REPO / "Makefile").read_text().splitlines() if "--doctest-modules" in line]
    assert len(recipes) == 2 and all(" autograder" in line.partition("--doctest-modules")[2] for line in recipes)


def test_every_mutation_operator_has_an_example_that_runs():
    """Each of the 21 operators of the mutation check shows, in its docstring, what it makes of a line."""
    assert len(operators.OPERATORS) == 21
    for name, op in operators.OPERATORS.items():
        examples = doctest.DocTestFinder().find(op.function, name, globs=vars(operators))
        assert examples and examples[0].examples, f"{name} has no example"
        assert f'"{name}"' in op.function.__doc__, f"the example of {name} runs another operator"
        assert doctest.DocTestRunner().run(examples[0]).failed == 0, name


@needs_hw01
def test_each_cell_of_a_homework_has_the_role_nbgrader_gives_it():
    nb = nbformat.read(str(REPO / "exercises" / "hw01" / "hw01.ipynb"), as_version=4)
    seen = set()
    for cell in nb.cells:
        role = cells.role(cell)
        seen.add(role)
        if role in ("answer", "written"):
            assert is_solution(cell) and (cell.cell_type == "code") == (role == "answer"), cells.grade_id(cell)
        elif role == "test":
            assert is_grade(cell) and not is_solution(cell) and is_locked(cell), cells.grade_id(cell)
        elif role == "locked":
            assert not is_solution(cell) and "nbgrader" in cell.metadata, cells.grade_id(cell)
    assert {"answer", "test", "locked"} <= seen, seen
    assert cells.grade_ids(nb) == {cells.grade_id(c) for c in nb.cells if "nbgrader" in c.metadata}


def test_a_cell_a_student_added_is_free_and_never_a_test():
    added = nbformat.v4.new_code_cell("assert True")
    emptied = nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {}})
    assert cells.role(added) == cells.role(emptied) == "free" and cells.grade_id(added) is None


def test_limits_come_from_one_place_and_bad_values_say_which_variable():
    default = limits.Limits.from_environment({})
    assert (default.cell_s, default.notebook_s, default.worker_mb, default.student_mb) == (60, 900, 4096, 3072)
    set_ = limits.Limits.from_environment({"RBD_CELL_TIMEOUT": "2.5", "RBD_STUDENT_MEMORY_MB": "512",
                                           "RBD_GRADE_MEMORY_MB": "0"})
    assert (set_.cell_s, set_.student_mb, set_.worker_mb) == (2.5, 512, 0)
    assert set_.student() == {"memory_mb": 512, "processes": 128, "file_mb": 64, "cpu_s": 900}
    for name, value in [("RBD_CELL_TIMEOUT", "-1"), ("RBD_GRADE_TIME_LIMIT", "0"), ("RBD_STUDENT_CPU_S", "lots")]:
        with pytest.raises(ValueError, match=f"{name} must be a positive number"):
            limits.Limits.from_environment({name: value})


@needs_hw01
def test_the_course_layout_is_read_from_its_configuration(tmp_path, monkeypatch):
    root = tmp_path / "course"
    scratch_course(root, "hw01")
    monkeypatch.setenv("RBD_CELL_TIMEOUT", "7")
    course = Course(root)
    assert course.limits.cell_s == 7 and course.source == root / "exercises"
    work = course.work("hw01", "ada")
    assert work.names == ["hw01"]
    assert work.copy("hw01") == root / "autograded" / "_copies" / "ada" / "hw01" / "hw01.ipynb"
    assert work.autograded() == root / "autograded" / "ada" / "hw01"
    assert work.judge_report("hw01") == root / "autograded" / "ada" / "hw01" / "hw01.judge.json"
    assert work.released("hw01") == root / "release" / "hw01" / "hw01.ipynb"
    assert work.log.parent == course.logs()


def test_the_normalize_stage_keeps_a_repeated_test_cell_once(tmp_path):
    test = {"nbgrader": {"grade": True, "solution": False, "grade_id": "test-x", "points": 1, "locked": True}}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_code_cell("assert x == 1", metadata=test),
                                         nbformat.v4.new_code_cell("assert True", metadata=test)])
    path = tmp_path / "hw.ipynb"
    nbformat.write(nb, str(path))
    assert grade.normalize(path) == ["cell test-x appeared more than once; the first was kept"]
    kept = nbformat.read(str(path), as_version=4)
    assert [c.source for c in kept.cells] == ["x = 1", "assert x == 1"]
    assert grade.normalize(path) == []


def test_the_evidence_scan_flags_reaching_into_the_graders_side():
    found = judge.evidence([(3, "import autograder.sandbox.wire\nautograder.sandbox.wire.encode = print")])
    assert [(cell, line) for cell, line, _, why in found if "grader's own side" in why] == [(3, 1), (3, 2)]


def test_every_key_an_outcome_can_hold_is_declared_in_its_record():
    """An outcome is stored as a plain dict; its keys are the Outcome record's, so a new key cannot slip in
    unnamed (the gradebook's scores, the hand-in's details, the log)."""
    declared = set(outcomes.Outcome.__annotations__)
    scores = {"score": 1.0, "max_score": 2.0, "needs_manual_grade": False, "parts": {}, "flagged": False,
              "timestamp": "", "seconds_late": 0.0, "late_penalty": 0.0}
    hand_in = dict.fromkeys(outcomes.HAND_IN, "x")
    made = [outcomes.failed("hw01", "ada", "empty", log="...", **hand_in),
            outcomes.scored("hw01", "ada", scores, ["a note"], [], "...", **hand_in)]
    made.append(outcomes.restated(made[1], scores))
    for outcome in made:
        assert set(outcome) <= declared, set(outcome) - declared
    assert set(scores) <= declared and set(outcomes.HAND_IN) <= declared
    with pytest.raises(TypeError, match="not a detail of a hand-in: colour"):
        outcomes.failed("hw01", "ada", "empty", colour="red")


def test_the_mutation_checks_children_run_one_blas_thread_even_when_numpy_was_loaded_first():
    """numpy and scipy are loaded here, as under pytest or the command line; a forked child of the mutation
    check must run one BLAS thread per library even when they were loaded with two (the variables alone
    come too late for a loaded library)."""
    import numpy
    import scipy.linalg
    import threadpoolctl

    from autograder.sandbox.processes import one_thread_per_library, run_forked

    numpy.ones((64, 64)) @ numpy.ones((64, 64)), scipy.linalg.inv(numpy.eye(3))

    def threads():
        threadpoolctl.threadpool_limits(limits=2)   # as loaded on a two-core machine without the variables
        one_thread_per_library()
        return sorted({info["num_threads"] for info in threadpoolctl.threadpool_info()})

    assert run_forked(threads) == [1]
