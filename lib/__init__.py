"""The shared package of the rigid-body dynamics course companion.

One module per topic, in book order; the modules are importable as
``lib.<topic>`` (``from lib import lcp``). Every mechanical system speaks the
protocol of :class:`lib.system.ManipulatorSystem`:
M(q) v̇ + C(q, v) v = tau_g(q) + B u (+ tau_ext).

>>> import lib
>>> lib.DoublePendulum().n
2
"""

from .system import ManipulatorSystem, Trajectory
from .lagrange import (ManipulatorForm, SymbolicSystem, christoffel_coriolis, lagrange_equations,
                       manipulator_form, time_derivative)
from .pendulum import ActuatedPendulum, DoublePendulum, SimplePendulum
from . import (constraints, contact, hybrid, impulse, integrators, lcp, manipulators, plotting, rigid_body, sysid,
               timestepping, trajopt)

__all__ = [
    "ManipulatorSystem", "Trajectory",
    "ManipulatorForm", "SymbolicSystem", "christoffel_coriolis", "lagrange_equations",
    "manipulator_form", "time_derivative",
    "ActuatedPendulum", "DoublePendulum", "SimplePendulum",
    "constraints", "contact", "hybrid", "impulse", "integrators", "lcp", "manipulators", "plotting", "rigid_body",
    "sysid", "timestepping", "trajopt",
]
