"""Helpers the homework notebooks' test cells share.

A homework part often asks for something lib already has (the double
pendulum's mass matrix, a constraint force). While a test calls the student's
function, :func:`without_lib` switches lib's version off, so an answer that
only calls lib is told to write its own. :func:`numpy_array`,
:func:`float_list`, :func:`number` and :func:`sympy_matrix` check what kind of
value an answer is, :func:`singular_as_message` turns a singular solve into
a hint, :func:`symbolic_difference` compares sympy answers, and
:func:`self_check` prints the summary at the end of every homework.

Introduced in: homework 1.
"""

import contextlib
import functools
import importlib
import sys
import types

import numpy as np
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


def _chain_functions(*keys):
    """The compiled functions of lib's n-link chains (``keys`` of :data:`lib.manipulators._CHAINS`), every n so far."""
    def found():
        from lib import manipulators
        return [functions[key] for functions in list(manipulators._CHAINS.values()) for key in keys]
    return found


_CHAIN_ENERGY = ("manipulators.planar_chain_energies", "manipulators.planar_chain_form", "manipulators._compiled_chain",
                 _chain_functions("T", "U"))
# Other routes in lib to what a name computes: switching the name off switches these off too. A route is a
# method (plain name), a module's function ("module.function"), or a function that finds compiled functions.
SAME_QUANTITY = {
    "mass_matrix": ("rnea_mass_matrix", "rnea", "manipulators.planar_chain_rnea", "manipulators.planar_chain_energies",
                    "manipulators.planar_chain_form", "manipulators._compiled_chain", _chain_functions("M", "T")),
    "coriolis_matrix": ("manipulators.planar_chain_form", "manipulators._compiled_chain", _chain_functions("C")),
    "gravity_vector": ("manipulators.planar_chain_form", "manipulators._compiled_chain", _chain_functions("tau_g")),
    "kinetic_energy": _CHAIN_ENERGY,
    "potential_energy": _CHAIN_ENERGY,
    "energy": _CHAIN_ENERGY,
    # the discrete Euler–Lagrange steps give the symplectic and forced discrete motions the homework asks for
    "integrators.stormer_verlet": ("integrators.variational", "integrators.simulate_variational"),
    "integrators.symplectic_euler": ("integrators.variational", "integrators.simulate_variational"),
    "forward_dynamics": ("constraints.constrained_acceleration", "constraints.gauss_primal", "constraints.gauss_dual",
                         "constraints.constrained_dynamics"),
}


@functools.lru_cache(maxsize=None)
def _refusing_code(what, free):
    """The code of a function that refuses to run, with ``free`` closure cells (so that it fits any function)."""
    cells = [f"_{i}" for i in range(free)]
    message = f"this part asks for your own code: lib's {what} is switched off while the tests call it"
    source = ("def outer():\n" + "".join(f"    {c} = None\n" for c in cells)
              + "    def refuse(*args, **kwargs):\n" + (f"        {', '.join(cells)},\n" if cells else "")
              + f"        raise RuntimeError({message!r})\n    return refuse\n")
    namespace = {}
    exec(compile(source, "<without_lib>", "exec"), namespace)  # noqa: S102 (a fixed template)
    return namespace["outer"]().__code__


def _functions(obj):
    """The Python functions that run when ``obj`` (a function, method, property, cached function or class) is called."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        return [f for f in (obj.fget, obj.fset) if f is not None]
    if isinstance(obj, type):
        return [f for value in vars(obj).values() for f in _functions(value)]
    while not isinstance(obj, types.FunctionType) and hasattr(obj, "__wrapped__"):
        obj = obj.__wrapped__
    return [obj] if isinstance(obj, types.FunctionType) else []


class LibSwitch:
    """lib's ready-made answers as they are now, and :meth:`off` to make them refuse to run for a while.

    The refusal is put inside lib's functions (their code is swapped), so every
    way of reaching them refuses: through lib, through a reference taken
    earlier (``_MM = DoublePendulum.mass_matrix``), through another lib
    function that calls them. The grader's student side takes one switch
    before any student code runs, so what that code later does to this module
    changes nothing.

    >>> import lib
    >>> switch = LibSwitch()
    >>> mass_matrix = lib.DoublePendulum.mass_matrix
    >>> with switch.off("mass_matrix"):
    ...     mass_matrix(lib.DoublePendulum(), [0.0, 0.0])
    Traceback (most recent call last):
    ...
    RuntimeError: this part asks for your own code: lib's DoublePendulum.mass_matrix is switched off while the tests call it
    >>> mass_matrix(lib.DoublePendulum(), [0.0, 0.0]).shape
    (2, 2)
    """

    def __init__(self):
        import lib

        self.lib = lib
        self.systems = lib_systems()
        self.modules = {name[len("lib."):]: module for name, module in list(sys.modules.items())
                        if name.startswith("lib.") and module is not None}
        self.routes = dict(SAME_QUANTITY)
        self.refusing_code = _refusing_code

    def targets(self, name):
        """(function, what it is) for the functions ``name`` itself names (:meth:`off` adds the other routes)."""
        found = []
        if "." in name:
            module_name, attribute = name.rsplit(".", 1)
            module = self.modules.get(module_name) or importlib.import_module(f"lib.{module_name}")
            if not hasattr(module, attribute):
                raise ValueError(f"without_lib: lib.{module_name} has no '{attribute}'")
            found += [(f, name) for f in _functions(getattr(module, attribute))]
        else:
            owners = [cls for cls in self.systems if name in vars(cls)]
            if not owners:
                raise ValueError(f"without_lib: no system of lib has a method '{name}'")
            found += [(f, f"{cls.__name__}.{name}") for cls in owners for f in _functions(vars(cls)[name])]
        return found

    def _everything(self, names):
        found, seen = [], set()
        for name in names:
            routes = []
            for route in self.routes.get(name, ()):
                if callable(route):
                    routes += [(f, f"compiled {name}") for f in route() if isinstance(f, types.FunctionType)]
                elif "." in route or any(route in vars(cls) for cls in self.systems):
                    routes += self.targets(route)
            for function, what in self.targets(name) + routes:
                if id(function) not in seen:
                    seen.add(id(function))
                    found.append((function, what))
        return found

    @contextlib.contextmanager
    def off(self, *names):
        """Within the block, lib's versions of ``names`` (and the other routes to the same quantity) refuse to run."""
        swapped, listed = [], False
        try:
            for function, what in self._everything(names):
                code = function.__code__
                function.__code__ = self.refusing_code(what, len(code.co_freevars))
                swapped.append((function, code))
            _SWITCHED_OFF.extend(names)
            listed = True
            yield
        finally:
            if listed:
                del _SWITCHED_OFF[len(_SWITCHED_OFF) - len(names):]
            for function, code in reversed(swapped):
                function.__code__ = code


def without_lib(*names):
    """Within the block, lib's ready-made versions of ``names`` refuse to run, however they are reached.

    A plain name (``"mass_matrix"``) is a method: it is switched off on every
    lib system class. A dotted name (``"constraints.constraint_force"``) is a
    function of a lib module. Other routes in lib to the same quantity (the
    chain's compiled mass matrix, Newton-Euler, ...; :data:`SAME_QUANTITY`)
    are switched off with it, and the refusal sits inside the functions, so a
    reference taken before the block refuses too (see :class:`LibSwitch`).
    Everything is put back when the block ends, whatever happens inside.

    >>> import lib
    >>> with without_lib("mass_matrix"):
    ...     lib.SimplePendulum().mass_matrix([0.0])
    Traceback (most recent call last):
    ...
    RuntimeError: this part asks for your own code: lib's SimplePendulum.mass_matrix is switched off while the tests call it
    >>> lib.SimplePendulum().mass_matrix([0.0]).shape
    (1, 1)
    """
    count = len(sys.modules)
    if _SHARED_SWITCH.get("modules") != count:   # a new module of lib may have been imported since
        _SHARED_SWITCH.update(modules=count, switch=LibSwitch())
    switch = _SHARED_SWITCH["switch"]
    switch.systems = lib_systems()
    return switch.off(*names)


# The tests' switch, taken again only when a module has been imported since: a switch scans sys.modules,
# which with sympy loaded costs a millisecond, and a test may call without_lib thousands of times.
_SHARED_SWITCH = {}


def numpy_array(value, what, shape=None):
    """The test cells' check that an answer is a numpy array (a list is not), of ``shape`` if given; as floats.

    ``what`` names the answer in the message, which says how to mend it.

    >>> numpy_array(np.array([1, 2]), "v", (2,))
    array([1., 2.])
    >>> numpy_array([1.0, 2.0], "v")
    Traceback (most recent call last):
    ...
    AssertionError: v must be a numpy array; yours is a list (wrap it in np.array(...))
    >>> numpy_array(np.zeros(3), "v", (2,))
    Traceback (most recent call last):
    ...
    AssertionError: v must have shape (2,), got (3,)
    """
    if not isinstance(value, np.ndarray):
        raise AssertionError(f"{what} must be a numpy array; yours is a {type(value).__name__} "
                             "(wrap it in np.array(...))")
    if shape is not None and value.shape != tuple(shape):
        raise AssertionError(f"{what} must have shape {tuple(shape)}, got {value.shape}")
    return value.astype(float)


def float_list(value, what):
    """The test cells' check that an answer is a list of numbers (a list, a tuple or an array): its numbers, flat.

    >>> float_list((1, 2.5), "times")
    array([1. , 2.5])
    >>> float_list("soon", "times")
    Traceback (most recent call last):
    ...
    AssertionError: times must be a list of numbers; yours is 'soon'
    """
    try:
        return np.array(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise AssertionError(f"{what} must be a list of numbers; yours is {value!r:.200}") from None


def number(value, what):
    """The test cells' check that an answer is one number (a 1-element array is fine, a longer one is not).

    >>> number(np.array([2.5]), "the speed")
    2.5
    >>> number([1.0, 2.0], "the speed")
    Traceback (most recent call last):
    ...
    AssertionError: the speed must be one number; yours is [1.0, 2.0]
    """
    if np.size(value) != 1 or isinstance(value, (str, dict)):
        raise AssertionError(f"{what} must be one number; yours is {value!r:.120}")
    return float(np.ravel(value)[0])


def sympy_matrix(value, what, shape=None):
    """The test cells' check that an answer is a sympy Matrix (a list of lists is not), of ``shape`` if given.

    >>> sympy_matrix(sp.eye(2), "M", (2, 2)).shape
    (2, 2)
    >>> sympy_matrix([[1, 0], [0, 1]], "M")
    Traceback (most recent call last):
    ...
    AssertionError: M must be a sympy Matrix; yours is a list (wrap it in sp.Matrix(...))
    """
    if not isinstance(value, sp.MatrixBase):
        raise AssertionError(f"{what} must be a sympy Matrix; yours is a {type(value).__name__} "
                             "(wrap it in sp.Matrix(...))")
    if shape is not None and value.shape != tuple(shape):
        raise AssertionError(f"{what} must have shape {tuple(shape)}, got {value.shape}")
    return value


@contextlib.contextmanager
def singular_as_message(function, case, why):
    """Inside it, a LinAlgError raised by the student's ``function`` becomes a message: ``case`` says for what
    input, ``why`` why the matrix is singular and what to use instead.

    The error is recognized by its text, since in grading it reaches the tests
    from the student's process under another type.

    >>> with singular_as_message("f", "H = [[1, 0], [1, 0]]", "the rows repeat; use np.linalg.pinv"):
    ...     np.linalg.inv(np.ones((2, 2)))
    Traceback (most recent call last):
    ...
    AssertionError: f raised LinAlgError: Singular matrix for H = [[1, 0], [1, 0]]: the rows repeat; use np.linalg.pinv
    """
    try:
        yield
    except Exception as error:  # noqa: BLE001 (LinAlgError, in the student's kernel and while grading)
        if "LinAlgError" not in f"{type(error).__name__}: {error}":
            raise
        raise AssertionError(f"{function} raised {'' if 'LinAlgError' in str(error) else 'LinAlgError: '}{error} "
                             f"for {case}: {why}") from None


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
        print(f"The written answer {cell} still says YOUR ANSWER HERE in {notebook} as last saved: if you have "
              "written it since, save the notebook (Ctrl+S) and run this cell again.")


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
