"""lib.homework: the helpers the homework test cells share."""

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
