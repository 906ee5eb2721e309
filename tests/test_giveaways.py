"""No visible test gives the answer away (autograder/mutation/giveaways.py).

For every homework: no visible test cell holds a line of a reference
solution, and no answer a student assembles from a visible test cell alone
(its functions and expressions, wrapped in the asked-for names) passes the
part. A small homework with planted give-aways shows that both checks see
them, and that a test of properties and stored numbers passes.
"""

import os
from pathlib import Path

import pytest

from autograder.course.assignment import Assignment
from autograder.mutation import giveaways
from tests.mutation_pass import one_pass
from tests.test_mutants import write_toy

REPO = Path(__file__).resolve().parent.parent
ASSIGNMENTS = sorted(p.name for p in (REPO / "exercises").iterdir() if (p / f"{p.name}.ipynb").is_file())
if os.environ.get("RBD_ASSIGNMENTS"):
    ASSIGNMENTS = [a for a in ASSIGNMENTS if a in os.environ["RBD_ASSIGNMENTS"].split(",")]

ANSWER = '''\
def f(M, v, s):
    """M v + 2 s |v|^2."""
    ### BEGIN SOLUTION
    return M @ v + 2.0 * s * (v @ v)
    ### END SOLUTION
'''
# properties and a number stored as a number: nothing to copy
CLEAN = '''\
M = np.array([[2.0, 1.0], [1.0, 3.0]])
x = np.array([1.0, 2.0])
assert np.allclose(f(M, x, 0.0) @ x, 18.0), "f(M, v, 0) should be M v: v . M v is 18 here"
assert np.allclose(f(M, x, 1.0), [14.0, 17.0]), "f at s = 1 should be [14, 17]"
### BEGIN HIDDEN TESTS
assert np.allclose(f(M, -x, 2.0), [16.0, 13.0]), "hidden: f at s = 2"
### END HIDDEN TESTS
'''
# the reference line, in a helper of the test
LINE = '''\
def expected(M, v, s):
    return M @ v + 2.0 * s * (v @ v)
M = np.array([[2.0, 1.0], [1.0, 3.0]])
assert np.allclose(f(M, np.array([1.0, 2.0]), 1.0), expected(M, np.array([1.0, 2.0]), 1.0)), "f is off"
### BEGIN HIDDEN TESTS
assert np.allclose(f(M, np.array([-1.0, 2.0]), 2.0), [20.0, 25.0]), "hidden: f at s = 2"
### END HIDDEN TESTS
'''
# no reference line, but the formula in an assert, in the test's own names
FORMULA = '''\
A = np.array([[2.0, 1.0], [1.0, 3.0]])
x, k = np.array([1.0, 2.0]), 1.0
assert np.allclose(f(A, x, k), A @ x + 2 * k * x.dot(x)), "f should be A x + 2 k |x|^2"
### BEGIN HIDDEN TESTS
assert np.allclose(f(A, -x, 2.0), [16.0, 13.0]), "hidden: f at s = 2"
### END HIDDEN TESTS
'''


def toy(folder, test):
    return write_toy(folder, ANSWER, test)


def test_a_test_of_properties_and_numbers_gives_nothing_away(tmp_path):
    assert giveaways.check(toy(tmp_path / "clean", CLEAN), jobs=1) == []


def test_a_planted_reference_line_is_found(tmp_path):
    path = toy(tmp_path / "line", LINE)
    assert giveaways.solution_lines_in_sight(Assignment(path)) == [
        ("test-f", "answer-f", "return M @ v + 2.0 * s * (v @ v)")]
    found = giveaways.check(path, jobs=1)
    assert any("test's own expected" in line for line in found), found


def test_a_planted_formula_is_copied_and_passes(tmp_path):
    path = toy(tmp_path / "formula", FORMULA)
    assert giveaways.solution_lines_in_sight(Assignment(path)) == []
    sources = [c["source"] for c in giveaways.copies(Assignment(path))]
    assert any("return M @ v + 2 * s * v.dot(v)" in s for s in sources), "the test's names become f's parameters"
    found = giveaways.check(path, jobs=1)
    assert found == ["test-f: a copy passes the part (f from the test's expression `M @ v + 2 * s * v.dot(v)`)"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_visible_test_holds_a_solution_line(assignment):
    found = giveaways.solution_lines_in_sight(Assignment(REPO / "exercises" / assignment / f"{assignment}.ipynb"))
    assert not found, f"{assignment}: " + "; ".join(f"{t} shows {a}'s line `{line}`" for t, a, line in found)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_copy_of_a_visible_test_passes_its_part(assignment):
    """The copies run in the assignment's one pass of the mutation runner (tests/mutation_pass.py), in its group."""
    passed = one_pass(assignment).copies_passing
    assert not passed, f"{assignment}: " + "; ".join(f"{c['part']}: {c['what']}" for c in passed)
