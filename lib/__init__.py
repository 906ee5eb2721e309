"""The shared package of the rigid-body dynamics course companion.

One module per topic; the modules are importable as ``lib.<topic>``
(``from lib import lcp``). The algorithms (``constraints``, ``hybrid``,
``timestepping``, …) stand apart from the worked systems they exercise
(``particle``, ``linkages``, ``bouncing``, ``rimless_wheel``, ``cart_wall``,
``brick``, ``box``, …); DESIGN.md draws the layers. Every mechanical system
speaks the protocol of :class:`lib.system.ManipulatorSystem`:
M(q) v̇ + C(q, v) v = tau_g(q) + B u (+ tau_ext).

>>> import lib
>>> lib.DoublePendulum().n
2
"""

from .system import ManipulatorSystem, Trajectory
from .lagrange import (ManipulatorForm, SymbolicSystem, christoffel_coriolis, lagrange_equations,
                       manipulator_form, time_derivative)
from .pendulum import ActuatedPendulum, DoublePendulum, SimplePendulum
from . import (bouncing, box, brick, cart_wall, checks, constraints, contact, convex, hybrid, impulse, integrators,
               lcp, linkages, manipulators, particle, plotting, recursive, rigid_body, rimless_wheel,
               sysid, timestepping, trajopt)

__all__ = [
    "ManipulatorSystem", "Trajectory",
    "ManipulatorForm", "SymbolicSystem", "christoffel_coriolis", "lagrange_equations",
    "manipulator_form", "time_derivative",
    "ActuatedPendulum", "DoublePendulum", "SimplePendulum",
    "bouncing", "box", "brick", "cart_wall", "checks", "constraints", "contact", "convex", "hybrid",
    "impulse", "integrators", "lcp", "linkages", "manipulators", "particle", "plotting", "recursive", "rigid_body",
    "rimless_wheel", "sysid", "timestepping", "trajopt",
]
