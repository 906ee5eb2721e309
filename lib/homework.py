"""Helpers the homework notebooks' test cells share.

A homework part often asks for something lib already has (the double
pendulum's mass matrix, a constraint force). While a test calls the student's
function, :func:`without_lib` switches lib's version off, so an answer that
only calls lib is told to write its own. :func:`symbolic_difference` compares
sympy answers, and :func:`self_check` prints the summary at the end of every
homework.

Introduced in: homework 1.
"""

import contextlib
import importlib

import sympy as sp


def lib_systems():
    """Every system class defined in lib (ManipulatorSystem and its subclasses), SymbolicSystem aside.

    SymbolicSystem is left out: it compiles energies the student wrote, so it is
    the student's own model, not a ready-made one.

    >>> import lib
    >>> lib.SimplePendulum in lib_systems(), lib.SymbolicSystem in lib_systems()
    (True, False)
    """
    import lib

    found, todo = [], [lib.ManipulatorSystem]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.split(".")[0] == "lib" and cls is not lib.SymbolicSystem:
            found.append(cls)
    return found


_SWITCHED_OFF = []  # the names of the without_lib blocks now open, innermost last


def switched_off():
    """The names that open :func:`without_lib` blocks switch off (the grader passes them on to the student's side).

    >>> with without_lib("mass_matrix"):
    ...     switched_off()
    ('mass_matrix',)
    >>> switched_off()
    ()
    """
    return tuple(_SWITCHED_OFF)


def _refusal(what):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"this part asks for your own code: lib's {what} is switched off while the tests call it")
    return refuse


@contextlib.contextmanager
def without_lib(*names):
    """Within the block, lib's ready-made versions of ``names`` refuse to run.

    A plain name (``"mass_matrix"``) is a method: it is switched off on every
    lib system class. A dotted name (``"constraints.constraint_force"``) is a
    function of a lib module: it is switched off in that module and, when lib
    exports it, in ``lib`` too. Everything is put back when the block ends,
    whatever happens inside.

    >>> import lib
    >>> with without_lib("mass_matrix"):
    ...     lib.SimplePendulum().mass_matrix([0.0])
    Traceback (most recent call last):
    ...
    RuntimeError: this part asks for your own code: lib's SimplePendulum.mass_matrix is switched off while the tests call it
    >>> lib.SimplePendulum().mass_matrix([0.0]).shape
    (1, 1)
    """
    import lib

    saved = []  # (owner, attribute, what was there or None)
    for name in names:
        if "." in name:
            module_name, attribute = name.rsplit(".", 1)
            module = importlib.import_module(f"lib.{module_name}")
            if not hasattr(module, attribute):
                raise ValueError(f"without_lib: lib.{module_name} has no '{attribute}'")
            owners = [module] + ([lib] if getattr(lib, attribute, None) is getattr(module, attribute) else [])
            saved += [(owner, attribute, owner.__dict__[attribute], f"{module_name}.{attribute}")
                      for owner in owners]
        else:
            saved += [(cls, name, cls.__dict__.get(name), f"{cls.__name__}.{name}") for cls in lib_systems()]
    for owner, attribute, _, what in saved:
        setattr(owner, attribute, _refusal(what))
    _SWITCHED_OFF.extend(names)
    try:
        yield
    finally:
        del _SWITCHED_OFF[len(_SWITCHED_OFF) - len(names):]
        for owner, attribute, original, _ in reversed(saved):
            if original is None:
                delattr(owner, attribute)
            else:
                setattr(owner, attribute, original)


def symbolic_difference(a, b):
    """``a - b`` simplified: 0 exactly when the expressions are equal (floats such as 0.5 are fine).

    >>> x = sp.Symbol("x")
    >>> symbolic_difference(0.5 * sp.sin(x)**2, (1 - sp.cos(x)**2) / 2)
    0
    """
    return sp.simplify(sp.nsimplify(sp.sympify(a) - sp.sympify(b), rational=True))


def self_check(points, passed, written=0, notebook=None):
    """Print which autograded parts pass their visible tests; ``written`` points are graded by hand.

    ``points`` maps part number -> points; ``passed`` maps part number -> True
    once that part's visible tests ran through. ``notebook``: the homework's
    file name; when it is in the current folder, its written answers are
    read from it (as last saved) and any still saying YOUR ANSWER HERE are named.

    >>> self_check({1: 3, 2: 2}, {1: True}, written=3)
    Part 1 (3 points): visible tests pass
    Part 2 (2 points): visible tests do NOT pass yet
    <BLANKLINE>
    The visible tests pass for 3 of the 5 autograded points.
    Grading also runs hidden tests of the same kind; the written parts (3 points) are graded by hand.
    """
    for part, worth in points.items():
        state = "visible tests pass" if passed.get(part) else "visible tests do NOT pass yet"
        print(f"Part {part} ({worth} points): {state}")
    passing = sum(worth for part, worth in points.items() if passed.get(part))
    print(f"\nThe visible tests pass for {passing} of the {sum(points.values())} autograded points.")
    tail = f"; the written parts ({written} points) are graded by hand." if written else "."
    print("Grading also runs hidden tests of the same kind" + tail)
    for cell in _unanswered(notebook):
        print(f"The written answer {cell} still says YOUR ANSWER HERE (in the notebook as last saved).")


def _unanswered(notebook):
    """grade_ids of the written-answer cells of the saved notebook that still hold the stub."""
    import json
    import os

    if not notebook or not os.path.isfile(notebook):
        return []
    try:
        with open(notebook, encoding="utf-8") as f:
            cells = json.load(f).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [cell["metadata"]["nbgrader"].get("grade_id", "?") for cell in cells
            if isinstance(cell, dict) and cell.get("cell_type") == "markdown"
            and cell.get("metadata", {}).get("nbgrader", {}).get("solution")
            and "YOUR ANSWER HERE" in "".join(cell.get("source", ""))]
