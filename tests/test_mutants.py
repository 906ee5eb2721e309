"""The mutation check of the homework tests: ``python -m autograder mutants`` (autograder/mutation/mutants.py).

The fast tests build a small homework and check the pieces: which mutants are
made (and which are not, when they could change nothing), how each is
classified (caught by the visible tests, caught only when graded, declared
equivalent, surviving), what a stale declaration looks like, and that a
mutant which hangs or kills its process is counted as caught, and the
command line. The slow ones run the check over every assignment, with each
typical mistake of exercises/<assignment>/mistakes.toml, in one pass of the
runner per assignment (tests/mutation_pass.py).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course.assignment import DECLARATIONS, Assignment
from autograder.course.course import CourseError
from autograder.mutation import mutants
from autograder.mutation.operators import OPERATORS
from tests.mutation_pass import one_pass

REPO = Path(__file__).resolve().parent.parent
ASSIGNMENTS = sorted(p.name for p in (REPO / "exercises").iterdir() if (p / f"{p.name}.ipynb").is_file())
if os.environ.get("RBD_ASSIGNMENTS"):
    ASSIGNMENTS = [a for a in ASSIGNMENTS if a in os.environ["RBD_ASSIGNMENTS"].split(",")]
VISIBLE_SHARE = 0.95  # of the mutants that are not equivalent, at least this share fails the visible tests


# --- a small homework ------------------------------------------------------------------
ANSWER = '''\
def f(M, v, s):
    """M v + 2 s |v|^2."""
    ### BEGIN SOLUTION
    w = M @ v
    n = v.T @ v
    return w + 2.0 * s * n
    ### END SOLUTION
'''
TEST = '''\
"""f: M v for s = 0, and the whole formula."""
M = np.array([[2.0, 1.0], [1.0, 3.0]])
assert isinstance(f(M, np.array([1.0, 0.0]), 0.0), np.ndarray), "visible: return a numpy array"
assert np.allclose(f(M, np.array([1.0, 0.0]), 0.0), [2.0, 1.0]), "visible: M v is wrong"
### BEGIN HIDDEN TESTS
assert np.allclose(f(M, np.array([1.0, 2.0]), 1.0), [14.0, 17.0]), "hidden: the s term is wrong"
### END HIDDEN TESTS
'''


def cell(kind, grade_id, source, points=None):
    flags = {"locked": dict(grade=False, solution=False, locked=True),
             "answer": dict(grade=False, solution=True, locked=False),
             "test": dict(grade=True, solution=False, locked=True, points=points)}[kind]
    nb_cell = nbformat.v4.new_code_cell(source, id=grade_id)
    nb_cell.metadata["nbgrader"] = dict(flags, grade_id=grade_id, schema_version=3, task=False)
    return nb_cell


def write_toy(folder, answer=ANSWER, test=TEST):
    folder.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[cell("locked", "setup", "import numpy as np"),
                                         cell("answer", "answer-f", answer),
                                         cell("test", "test-f", test, points=1)])
    path = folder / "toy.ipynb"
    nbformat.write(nb, str(path))
    return path


@pytest.fixture
def toy(tmp_path):
    return write_toy(tmp_path / "exercises" / "toy")


@pytest.fixture(scope="module")
def toy_result(tmp_path_factory):
    """The toy homework's mutants, run once for the tests that only read them."""
    return mutants.run(write_toy(tmp_path_factory.mktemp("toy-run") / "exercises" / "toy"), jobs=2)


def by_id(result):
    return {m["id"]: m for m in result["mutants"]}


def test_mutants_of_a_small_homework(toy, toy_result):
    result = toy_result
    found = by_id(result)
    # the sum's sign, caught only by the hidden test (the visible one has s = 0)
    sign = found["answer-f:6:12:add-sub"]
    assert sign["change"] == "`w + 2.0 * s * n` -> `w - 2.0 * s * n`"
    assert sign["verdict"]["failed"] == {"test-f": ["hidden", "AssertionError: hidden: the s term is wrong"]}
    assert "    return w - 2.0 * s * n" in sign["source"] and "BEGIN SOLUTION" not in sign["source"]
    # M v negated: the visible test catches it
    assert found["answer-f:4:9:negate"]["verdict"]["failed"]["test-f"][0] == "visible"
    # M is symmetric in both tests: its transpose and v^T M survive
    assert not found["answer-f:4:9:swap-product"]["verdict"]["failed"]
    assert not found["answer-f:4:9:transpose"]["verdict"]["failed"]
    # v is a vector: v.T is v, and v^T v = v v^T as numpy reads them, so no mutant is made there
    assert not [i for i in found if i.startswith("answer-f:5:") and ("transpose" in i or "swap-product" in i)]
    assert {m["operator"] for m in result["mutants"]} <= set(OPERATORS)

    summary = mutants.summarize(Assignment(toy), result)
    assert not summary.ok
    assert {m["id"] for m in summary.survivors} == {"answer-f:4:9:swap-product", "answer-f:4:9:transpose"}
    row = summary.rows["answer-f"]
    assert row["mutants"] == len(result["mutants"]) and row["survivors"] == 2
    assert row["visible"] < row["graded"] == row["mutants"] - 2
    lines = []
    mutants.print_summary(summary, out=lines.append)
    assert any("answer-f:4:9:transpose" in line and "survives" in line for line in lines)
    assert any("mutants.toml under [equivalent]" in line for line in lines)


def test_declared_equivalents_and_stale_declarations(toy, toy_result):
    result = toy_result
    declarations = toy.parent / DECLARATIONS
    declarations.write_text('[equivalent]\n"answer-f:4:9:swap-product" = "M is symmetric"\n'
                            '"answer-f:4:9:transpose" = "M is symmetric"\n')
    summary = mutants.summarize(Assignment(toy), result)
    assert summary.ok and summary.rows["answer-f"]["equivalent"] == 2
    declarations.write_text(declarations.read_text() + '"answer-f:9:9:sign" = "gone"\n'
                            '"answer-f:4:9:negate" = "not really"\n')
    summary = mutants.summarize(Assignment(toy), result)
    assert not summary.ok
    assert dict(summary.stale) == {"answer-f:9:9:sign": "no such mutant (the solution changed?)",
                                   "answer-f:4:9:negate": "the tests catch it now"}
    declarations.write_text('[equivalent]\n"answer-f:4:9:transpose" = ""\n')
    with pytest.raises(CourseError, match="one-line reason"):
        Assignment(toy).declared()


def test_hanging_and_dying_mutants_are_caught(toy):
    extra = [{"id": "loops-in-f", "cell": "answer-f", "source": "def f(M, v, s):\n    while True:\n        pass\n"},
             {"id": "loops-in-cell", "cell": "answer-f", "source": "while True:\n    pass\n"},
             {"id": "exits", "cell": "answer-f", "source": "import os\nos._exit(3)\n"}]
    found = by_id(mutants.run(toy, jobs=2, timeout=1.0, only=set(), extra=extra))
    assert "ran past" in found["loops-in-f"]["verdict"]["failed"]["test-f"][1]
    assert "ran past" in found["loops-in-cell"]["verdict"]["errors"]["answer-f"]
    assert found["loops-in-cell"]["verdict"]["failed"]["test-f"][0] == "visible"
    assert found["exits"]["verdict"]["outcome"] == "died"
    summary = mutants.summarize(Assignment(toy), {"assignment": "toy", "seconds": 0,
                                                        "mutants": list(found.values())})
    assert summary.rows["answer-f"]["graded"] == 3


def test_a_reference_that_fails_its_tests_is_reported(toy):
    nb = nbformat.read(str(toy), as_version=4)
    nb.cells[1].source = nb.cells[1].source.replace("2.0 * s", "3.0 * s")
    nbformat.write(nb, str(toy))
    with pytest.raises(CourseError, match="(?s)does not pass its own tests.*test-f"):
        mutants.run(toy, jobs=1)


def test_sample_puts_a_declared_equivalent_first(toy):
    (toy.parent / DECLARATIONS).write_text('[equivalent]\n"answer-f:4:9:transpose" = "M is symmetric"\n')
    ids = mutants.sample(toy, 3)
    assert ids[0] == "answer-f:4:9:transpose" and len(set(ids)) == 3


def test_typical_mistakes_are_read_from_the_folder_and_checked(toy):
    mistakes = toy.parent / "mistakes.toml"
    mistakes.write_text("[[mistake]]\nname = 'no-s-term'\ncell = 'answer-f'\nfails = 'test-f'\n"
                        "what = 'the s term left out'\nvisible = false\nsource = \'\'\'\ndef f(M, v, s):\n"
                        "    return M @ v\n\'\'\'\n")
    assert Assignment(toy).mistakes() == [{"name": "no-s-term", "cell": "answer-f", "fails": "test-f",
                                           "what": "the s term left out", "visible": False,
                                           "source": "def f(M, v, s):\n    return M @ v\n"}]
    mistakes.write_text(mistakes.read_text().replace("fails = 'test-f'", "fails = 'test-g'"))
    with pytest.raises(CourseError, match="'test-g' no test cell of toy.ipynb"):
        Assignment(toy).mistakes()
    mistakes.write_text(mistakes.read_text().replace("visible = false", "visible = 'no'"))
    with pytest.raises(CourseError, match=r"mistake 1 \(no-s-term\).*mistyped \['visible'\]"):
        Assignment(toy).mistakes()


# --- every assignment ------------------------------------------------------------------
def load_mistakes(assignment):
    return Assignment(REPO / "exercises" / assignment / f"{assignment}.ipynb").mistakes()


def test_the_check_covers_every_homework():
    """All thirteen homeworks are checked, each with its typical mistakes and declarations naming real answer cells."""
    everything = sorted(p.name for p in (REPO / "exercises").iterdir() if (p / f"{p.name}.ipynb").is_file())
    assert [f"hw{k:02d}" for k in range(1, 14)] == everything[:13], everything
    for assignment in everything:
        homework = Assignment(REPO / "exercises" / assignment / f"{assignment}.ipynb")
        assert load_mistakes(assignment), f"{assignment}: no typical mistake in exercises/{assignment}/mistakes.toml"
        assert homework.declarations_path().is_file(), f"{assignment}: no {DECLARATIONS}"
        for ident, why in homework.declared().items():
            assert ident.split(":")[0] in homework.parts, f"{assignment}: {ident} names no answer cell"
            assert ident.split(":")[3].split("#")[0] in OPERATORS, f"{assignment}: {ident} names no operator"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_assignment_passes_the_mutation_check(assignment):
    """No mutant of the reference solution passes every test unless it is declared equivalent with a reason,
    and the visible tests alone catch nearly all the others (the report ``python -m autograder mutants``
    prints, from the assignment's one pass of the runner: tests/mutation_pass.py)."""
    summary = one_pass(assignment).summary
    mutants.print_summary(summary)
    total = {key: sum(row[key] for row in summary.rows.values())
             for key in ("mutants", "visible", "graded", "equivalent", "survivors")}
    assert total["survivors"] == 0 and not summary.survivors and not summary.stale, (assignment, summary.stale)
    assert total["graded"] + total["equivalent"] == total["mutants"], assignment
    assert total["visible"] >= VISIBLE_SHARE * total["graded"], (
        f"{assignment}: the visible tests catch only {total['visible']} of the {total['graded']} "
        "mutants that grading catches; `python -m autograder mutants --show visible` lists the others")
    for cell, row in summary.rows.items():
        assert row["mutants"] > 0, f"{assignment}: no mutant of {cell}"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_typical_mistakes_are_caught_where_they_say(assignment):
    """Each typical mistake fails exactly its part, in the visible tests unless it says otherwise, with its message
    (run with every test it reaches, as grading runs them; nbgrader agrees with the runner: tests/test_homework.py)."""
    verdicts = one_pass(assignment).mistakes
    for mistake in load_mistakes(assignment):
        verdict = verdicts[mistake["name"]]
        assert verdict["outcome"] == "ran" and set(verdict["failed"]) == {mistake["fails"]}, (mistake["name"], verdict)
        where, message = verdict["failed"][mistake["fails"]]
        assert where == ("visible" if mistake.get("visible", True) else "hidden"), (
            f"{mistake['name']} ({mistake['what']}) is caught by the {where} tests")
        assert mistake.get("message", "") in message, f"{mistake['name']}: the message is {message!r}"


def test_the_mutants_command(toy):
    """``python -m autograder mutants`` as an instructor runs it: the report, the JSON, --only and --complete,
    and its exit status (1 while a mutant survives undeclared, 0 once each is declared with its reason)."""
    root, out = toy.parent.parent.parent, toy.parent / "mutants.json"
    (root / "nbgrader_config.py").write_text((REPO / "nbgrader_config.py").read_text())
    command = [sys.executable, "-m", "autograder", "--root", str(root), "mutants", "toy", "--json", str(out)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "answer-f:4:9:transpose" in run.stdout and "mutants.toml under [equivalent]" in run.stdout, run.stdout
    reported = json.loads(out.read_text())[0]
    assert reported["assignment"] == "toy" and reported["parts"]["answer-f"]["survivors"] == 2
    (toy.parent / DECLARATIONS).write_text('[equivalent]\n"answer-f:4:9:swap-product" = "M is symmetric"\n'
                                           '"answer-f:4:9:transpose" = "M is symmetric"\n')
    sign = "answer-f:6:12:add-sub"
    run = subprocess.run(command + ["--only", sign, "--complete"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    only = json.loads(out.read_text())[0]["mutants"]
    assert [m["id"] for m in only] == [sign] and set(only[0]["verdict"]["failed"]) == {"test-f"}
