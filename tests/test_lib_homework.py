"""lib.homework: the helpers the homework test cells share."""

import re

import numpy as np
import pytest

import lib
from lib import constraints
from lib.homework import lib_systems, symbolic_difference, without_lib


def test_without_lib_switches_methods_off_on_every_system_and_restores_them():
    original = lib.DoublePendulum.__dict__.get("mass_matrix")
    with without_lib("mass_matrix"):
        for cls in (lib.SimplePendulum, lib.DoublePendulum):
            with pytest.raises(RuntimeError, match="your own code"):
                cls().mass_matrix(np.zeros(cls().n))
    assert lib.DoublePendulum.__dict__.get("mass_matrix") is original
    assert lib.DoublePendulum().mass_matrix(np.zeros(2)).shape == (2, 2)


def test_without_lib_switches_module_functions_off_also_where_lib_exports_them():
    original = constraints.constraint_force
    with pytest.raises(RuntimeError):  # restored even when the block raises
        with without_lib("constraints.constraint_force"):
            with pytest.raises(RuntimeError, match="constraints.constraint_force"):
                constraints.constraint_force(np.eye(1), np.eye(1), np.zeros(1), np.zeros(1))
            raise RuntimeError("the test fails")
    assert constraints.constraint_force is original


def test_without_lib_names_an_unknown_function():
    with pytest.raises(ValueError, match="no 'not_there'"):
        with without_lib("constraints.not_there"):
            pass


def test_lib_systems_leaves_symbolic_system_out():
    systems = lib_systems()
    assert lib.DoublePendulum in systems and lib.ManipulatorSystem in systems
    assert lib.SymbolicSystem not in systems


def test_symbolic_difference_accepts_floats_and_finds_real_differences():
    import sympy as sp
    x = sp.Symbol("x")
    assert symbolic_difference(0.5 * x**2, x**2 / 2) == 0
    assert symbolic_difference(sp.sin(x)**2, 1 - sp.cos(x)**2) == 0
    assert symbolic_difference(x**2, x**2 / 2) != 0


# --- every route to a switched-off quantity refuses (autograder/THREATS.md, "lib's own answer") -----------
Q, PARAMS = np.array([0.4, -1.1]), dict(m1=0.5, m2=2.0, l1=1.5, l2=0.8)
CHAIN = dict(m=[0.5, 2.0], l=[1.5, 0.8], lc=[1.5, 0.8], I=[0.0, 0.0])  # the 2-link chain that is this pendulum
CHAIN_PARAMETERS = [0.5, 2.0, 1.5, 0.8, 1.5, 0.8, 0.0, 0.0, 9.81]


def _routes_to_the_mass_matrix():
    from lib import manipulators
    bound = lib.DoublePendulum.mass_matrix                    # a reference taken before the block
    compiled = manipulators._compiled_chain(2)["M"]          # a compiled function taken before the block
    arm = manipulators.PlanarChain(**CHAIN)
    return {
        "method bound earlier": lambda: bound(lib.DoublePendulum(**PARAMS), Q),
        "bound method of an object made earlier": (lambda m: lambda: m(Q))(lib.DoublePendulum(**PARAMS).mass_matrix),
        "another system's method": lambda: arm.mass_matrix(Q),
        "Newton-Euler": lambda: arm.rnea_mass_matrix(Q),
        "the chain's compiled function": lambda: np.array(
            manipulators._compiled_chain(2)["M"](list(Q), [0.0, 0.0], CHAIN_PARAMETERS), dtype=float),
        "a compiled function taken earlier": lambda: np.array(compiled(list(Q), [0.0, 0.0], CHAIN_PARAMETERS),
                                                              dtype=float),
        "the symbolic form": lambda: np.array(manipulators.planar_chain_form(2)[0].M.subs(dict(zip(
            manipulators.chain_symbols(2).q + manipulators.chain_symbols(2).params,
            list(Q) + CHAIN_PARAMETERS))), dtype=float),
    }


@pytest.mark.parametrize("route", list(_routes_to_the_mass_matrix()))
def test_without_lib_refuses_every_route_to_the_mass_matrix(route):
    reach = _routes_to_the_mass_matrix()[route]
    expected = lib.DoublePendulum(**PARAMS).mass_matrix(Q)
    assert np.allclose(reach(), expected), route              # the route works, so refusing it is what counts
    with without_lib("mass_matrix"):
        with pytest.raises(RuntimeError, match="asks for your own code"):
            reach()
    assert np.allclose(reach(), expected), route              # and works again after the block


def test_without_lib_refuses_other_routes_to_forward_dynamics_and_energy():
    dp = lib.DoublePendulum(**PARAMS)
    M, tau = dp.mass_matrix(Q), np.array([0.3, -0.2])
    free = lambda: constraints.constrained_acceleration(M, tau, np.zeros((0, 2)), np.zeros(0))[0]  # noqa: E731
    assert np.allclose(free(), np.linalg.solve(M, tau))
    energy = lib.DoublePendulum.energy
    with without_lib("forward_dynamics"):
        with pytest.raises(RuntimeError, match="constrained_acceleration"):
            free()
    with without_lib("energy"):
        with pytest.raises(RuntimeError, match="your own code"):
            energy(dp, Q, np.zeros(2))
    assert np.isfinite(energy(dp, Q, np.zeros(2)))


def test_without_lib_refuses_the_variational_integrator_with_the_symplectic_ones():
    """The discrete Euler–Lagrange steps reproduce Störmer–Verlet (trapezoidal rule): they go off with it."""
    from lib import integrators
    step = lambda: integrators.variational(lambda q, v: -q, lambda q, v: v, [1.0], [0.0], 0.1, 2)  # noqa: E731
    system = lambda: integrators.simulate_variational(lib.SimplePendulum(), [0.1], [0.0], h=0.1, steps=2)  # noqa: E731
    assert step()[0].shape == (3, 1) and system().q.shape == (3, 1)
    for name in ("integrators.stormer_verlet", "integrators.symplectic_euler"):
        with without_lib(name):
            for reach in (step, system):
                with pytest.raises(RuntimeError, match="your own code"):
                    reach()
    assert step()[0].shape == (3, 1)


def test_the_grader_s_switch_ignores_what_student_code_does_to_lib_homework(monkeypatch):
    from lib import homework
    switch = homework.LibSwitch()               # taken before any student code, as autograder/sandbox/student.py does
    monkeypatch.setattr(homework, "SAME_QUANTITY", {})
    monkeypatch.setattr(homework, "lib_systems", lambda: [])
    monkeypatch.setattr(homework, "_refusing_code", lambda what, free: (lambda *a: None).__code__)
    with switch.off("mass_matrix"):
        for reach in (lambda: lib.DoublePendulum().mass_matrix(Q),
                      lambda: lib.manipulators.PlanarChain(**CHAIN).rnea_mass_matrix(Q)):
            with pytest.raises(RuntimeError, match="your own code"):
                reach()


def test_nested_blocks_put_everything_back_and_name_what_is_off():
    from lib.homework import switched_off
    code = lib.DoublePendulum.mass_matrix.__code__
    with without_lib("mass_matrix"):
        with without_lib("mass_matrix", "energy"):
            assert switched_off() == ("mass_matrix", "mass_matrix", "energy")
        assert switched_off() == ("mass_matrix",)
        with pytest.raises(RuntimeError):
            lib.DoublePendulum().mass_matrix(Q)
    assert switched_off() == () and lib.DoublePendulum.mass_matrix.__code__ is code


def test_without_lib_names_an_unknown_method():
    with pytest.raises(ValueError, match="no system of lib has a method 'mass_matrx'"):
        with without_lib("mass_matrx"):
            pass
    assert lib.DoublePendulum().mass_matrix(Q).shape == (2, 2)


def test_numpy_array_accepts_arrays_and_says_how_to_mend_the_rest():
    """An array of the right shape comes back as floats; a list, a wrong shape: an AssertionError saying what to do."""
    from lib.homework import numpy_array

    got = numpy_array(np.array([[1, 2], [3, 4]]), "M", (2, 2))
    assert got.dtype == float and got.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert numpy_array(np.arange(3), "v").tolist() == [0.0, 1.0, 2.0], "without a shape any shape passes"
    with pytest.raises(AssertionError, match=r"M must be a numpy array; yours is a list \(wrap it in np.array"):
        numpy_array([[1.0, 0.0], [0.0, 1.0]], "M", (2, 2))
    with pytest.raises(AssertionError, match=r"M must have shape \(2, 2\), got \(2, 3\)"):
        numpy_array(np.zeros((2, 3)), "M", (2, 2))
    with pytest.raises(AssertionError, match="v must be a numpy array; yours is a tuple"):
        numpy_array((1.0, 2.0), "v")


def test_every_homework_takes_numpy_array_from_lib_homework():
    """The helper is defined once: no homework source defines its own numpy_array."""
    import json
    from pathlib import Path

    for path in sorted((Path(__file__).resolve().parent.parent / "exercises").glob("hw*/hw*.ipynb")):
        code = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
        assert "def numpy_array" not in code, f"{path.name} defines numpy_array again; import it from lib.homework"
        if "numpy_array(" in code:
            assert re.search(r"from lib\.homework import [\w, ]*\bnumpy_array\b", code), f"{path.name} must import it"


def homework_lib_names():
    """(notebook, "module.name") for every lib name a homework source's code calls as lib.x.y or switches off."""
    import json
    from pathlib import Path

    found = set()
    for path in sorted((Path(__file__).resolve().parent.parent / "exercises").glob("hw*/hw*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            code = "".join(cell["source"])
            found |= {(path.name, m[len("lib."):]) for m in re.findall(r"\blib\.[a-z_]+\.[A-Za-z_]+", code)
                      if not m.startswith("lib.homework")}
            found |= {(path.name, m) for m in re.findall(r'"([a-z_]+\.[A-Za-z_]+)"', code)}
            for module, names in re.findall(r'f"(\w+)\.\{name\}" for name in \(([^)]*)\)', code):
                found |= {(path.name, f"{module}.{n}") for n in re.findall(r'"(\w+)"', names)}
    return sorted(found)


def test_the_homework_uses_and_switches_off_every_lib_name_at_its_home():
    """lib.cart_wall.cart_wall_step, not lib.timestepping.cart_wall_step: each name where it is defined."""
    import importlib

    names = homework_lib_names()
    assert len(names) > 50, f"the homework sources should use many lib names, found {len(names)}"
    wrong = []
    for notebook, dotted in names:
        module_name, name = dotted.split(".")
        try:
            module = importlib.import_module(f"lib.{module_name}")
        except ModuleNotFoundError:
            continue                                  # a string such as "q.shape", not a lib module
        obj = getattr(module, name, None)
        home = getattr(obj, "__module__", module.__name__) if obj is not None else None
        if home != module.__name__:
            wrong.append(f"{notebook}: lib.{dotted} ({'missing' if obj is None else 'defined in ' + home})")
    assert not wrong, "names the homework uses away from their home: " + "; ".join(wrong)
