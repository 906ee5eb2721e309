"""Every lib name that released homework, the chapters, the typical mistakes and the benchmarks import stays importable.

Students keep the notebooks they were handed, so a name that moves to another
module keeps answering at its old path (lib.aliases). OLD_PATHS lists the
names the course's notebooks, chapters, tests/mistakes and bench/ used, and
the ``"module.function"`` names the homework switches off with
``lib.homework.without_lib``, as they stood when the worked examples moved
out of constraints, hybrid and timestepping; the last test finds the names
the homework sources use today, so a new one is covered as soon as it is
written.
"""

import importlib
import json
import re
from pathlib import Path

import pytest

import lib
from lib.homework import without_lib

ROOT = Path(__file__).resolve().parent.parent

OLD_PATHS = [
    "lib.ActuatedPendulum",
    "lib.DoublePendulum",
    "lib.SimplePendulum",
    "lib.SymbolicSystem",
    "lib.constraints",
    "lib.constraints.DistanceConstraint",
    "lib.constraints.FourBar",
    "lib.constraints.PlanarBiped",
    "lib.constraints.PointMass",
    "lib.constraints.PrescribedVelocity",
    "lib.constraints.StackedConstraint",
    "lib.constraints.SymbolicConstraint",
    "lib.constraints._multiplier",
    "lib.constraints.baumgarte",
    "lib.constraints.constrained_acceleration",
    "lib.constraints.constrained_dynamics",
    "lib.constraints.constraint_force",
    "lib.constraints.gauss_dual",
    "lib.constraints.gauss_primal",
    "lib.constraints.generalized_force",
    "lib.constraints.integrate_fixed_step",
    "lib.constraints.particle_state",
    "lib.constraints.pendulum_as_particle",
    "lib.constraints.pendulum_tension",
    "lib.constraints.pinv_solve",
    "lib.constraints.simulate_constrained",
    "lib.contact",
    "lib.contact.CompliantContact",
    "lib.contact.CompliantSystem",
    "lib.contact.PlanarRigidBody",
    "lib.contact.PlanarRigidBody.box",
    "lib.contact.PlanarRigidBody.disk",
    "lib.contact.PlaneContact",
    "lib.contact.box_vertices",
    "lib.contact.contact_frame",
    "lib.contact.contact_frequency",
    "lib.contact.contact_jacobian",
    "lib.contact.coulomb_curve",
    "lib.contact.coulomb_friction",
    "lib.contact.explicit_step_limit",
    "lib.contact.generalized_contact_force",
    "lib.contact.hunt_crossley_normal_force",
    "lib.contact.linear_normal_force",
    "lib.contact.max_penetration",
    "lib.contact.piecewise_linear_mu",
    "lib.contact.polygon_signed_distance",
    "lib.contact.required_stiffness",
    "lib.contact.signed_distance",
    "lib.contact.simulate_ivp",
    "lib.contact.steady_penetration",
    "lib.contact.stribeck_mu",
    "lib.homework.self_check",
    "lib.homework.symbolic_difference",
    "lib.homework.without_lib",
    "lib.hybrid",
    "lib.hybrid.FloatingRimlessWheel",
    "lib.hybrid.RimlessWheel",
    "lib.hybrid.bouncing_ball_modes",
    "lib.hybrid.bouncing_ball_rest_time",
    "lib.hybrid.circle_contact",
    "lib.hybrid.contact_dynamics",
    "lib.hybrid.contact_modes",
    "lib.hybrid.first_event",
    "lib.hybrid.fixed_point",
    "lib.hybrid.floor_contact",
    "lib.hybrid.return_map_jacobian",
    "lib.hybrid.simulate_hybrid",
    "lib.hybrid.spinning_ball_modes",
    "lib.impulse",
    "lib.impulse.SpinningBall",
    "lib.impulse.contact_impulse",
    "lib.impulse.coulomb_impact",
    "lib.impulse.impact_map",
    "lib.impulse.impact_map_friction",
    "lib.impulse.impact_map_friction_symbolic",
    "lib.impulse.impact_map_general",
    "lib.impulse.post_impact_velocity",
    "lib.impulse.spinning_ball_impact_symbolic",
    "lib.integrators",
    "lib.integrators.energy_error",
    "lib.integrators.explicit_euler",
    "lib.integrators.integrate",
    "lib.integrators.stormer_verlet",
    "lib.integrators.symplectic_euler",
    "lib.lagrange",
    "lib.lagrange.action",
    "lib.lagrange.asada_coriolis",
    "lib.lagrange.christoffel_coriolis",
    "lib.lagrange.christoffel_symbols",
    "lib.lagrange.coriolis_from_christoffel",
    "lib.lagrange.energy_balance",
    "lib.lagrange.energy_balance_residual",
    "lib.lagrange.hamiltonian",
    "lib.lagrange.hamiltonian_dynamics",
    "lib.lagrange.hamiltonian_form",
    "lib.lagrange.inertia_force",
    "lib.lagrange.manipulator_form",
    "lib.lagrange.manipulator_form_fast",
    "lib.lagrange.mass_matrix_derivative",
    "lib.lagrange.mass_matrix_rate",
    "lib.lagrange.momentum",
    "lib.lagrange.skew_symmetry_check",
    "lib.lagrange.skew_symmetry_residual",
    "lib.lagrange.static_equilibrium",
    "lib.lagrange_equations",
    "lib.lcp",
    "lib.lcp.CYCLING_EXAMPLE",
    "lib.lcp.ITERATION_LIMIT",
    "lib.lcp.RAY_TERMINATION",
    "lib.lcp.brute_force_lcp",
    "lib.lcp.complementarity_certificate",
    "lib.lcp.complementary_solutions",
    "lib.lcp.format_trace",
    "lib.lcp.lemke",
    "lib.lcp.qp_to_lcp",
    "lib.manipulator_form",
    "lib.manipulators",
    "lib.manipulators.FreeRigidBody",
    "lib.manipulators.PRRobot",
    "lib.manipulators.PlanarChain",
    "lib.manipulators.planar_chain_energies",
    "lib.manipulators.planar_chain_form",
    "lib.pendulum.DoublePendulum",
    "lib.plotting",
    "lib.plotting.animate_double_pendulum",
    "lib.plotting.animate_pendulum",
    "lib.plotting.frame_indices",
    "lib.plotting.offline_player",
    "lib.plotting.phase_portrait",
    "lib.plotting.plot_angles",
    "lib.plotting.plot_energy",
    "lib.rigid_body",
    "lib.rigid_body.RollingBody",
    "lib.rigid_body.box_inertia",
    "lib.rigid_body.check_inertia",
    "lib.rigid_body.hollow_cylinder_inertia",
    "lib.rigid_body.homogeneous",
    "lib.rigid_body.inertia_of_points",
    "lib.rigid_body.konig_kinetic_energy",
    "lib.rigid_body.mass_matrix_from_jacobians",
    "lib.rigid_body.parallel_axis",
    "lib.rigid_body.potential_energy_from_transforms",
    "lib.rigid_body.race_bodies",
    "lib.rigid_body.race_results",
    "lib.rigid_body.ring_inertia",
    "lib.rigid_body.rotate_inertia",
    "lib.rigid_body.rotation",
    "lib.rigid_body.rotational_kinetic_energy",
    "lib.rigid_body.skew",
    "lib.rigid_body.solid_cylinder_inertia",
    "lib.rigid_body.solid_sphere_inertia",
    "lib.rigid_body.spherical_shell_inertia",
    "lib.rigid_body.steiner",
    "lib.sysid",
    "lib.sysid.chain_regressor",
    "lib.sysid.collect_data",
    "lib.sysid.double_pendulum_lumped",
    "lib.sysid.double_pendulum_regressor",
    "lib.sysid.identify",
    "lib.sysid.multisine",
    "lib.sysid.pr_robot_lumped",
    "lib.sysid.pr_robot_regressor",
    "lib.sysid.relative_error",
    "lib.sysid.unidentifiable_directions",
    "lib.time_derivative",
    "lib.timestepping",
    "lib.timestepping.Box",
    "lib.timestepping.PointMass",
    "lib.timestepping.anitescu_step",
    "lib.timestepping.brick_friction_batch",
    "lib.timestepping.brick_friction_closed_form",
    "lib.timestepping.brick_friction_lcp",
    "lib.timestepping.brick_friction_step",
    "lib.timestepping.cart_wall_batch",
    "lib.timestepping.cart_wall_closed_form",
    "lib.timestepping.cart_wall_gauss_qp",
    "lib.timestepping.cart_wall_lcp",
    "lib.timestepping.cart_wall_simulate",
    "lib.timestepping.cart_wall_step",
    "lib.timestepping.dynamics_terms",
    "lib.timestepping.friction_directions",
    "lib.timestepping.hydroplaning",
    "lib.timestepping.hydroplaning_first_step",
    "lib.timestepping.hydroplaning_sweep",
    "lib.timestepping.lcp_contact_step",
    "lib.timestepping.relaxed_cart_wall_step",
    "lib.timestepping.simulate_box",
    "lib.timestepping.simulate_contact",
    "lib.timestepping.stewart_trinkle_lcp",
    "lib.timestepping.todorov_step",
    "lib.trajopt",
    "lib.trajopt.VerticalHopper",
    "lib.trajopt.collocation_violations",
    "lib.trajopt.hermite_simpson_defects",
    "lib.trajopt.hopper_collocation",
    "lib.trajopt.hybrid_collocation",
    "lib.trajopt.rimless_wheel_collocation",
    "lib.trajopt.rimless_wheel_phase",
]


def resolve(path):
    """The object at a dotted path such as "lib.hybrid.RimlessWheel.reset": the longest importable module, then attributes."""
    parts = path.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[k:]:
            obj = getattr(obj, attribute)
        return obj
    raise ModuleNotFoundError(path)


@pytest.mark.parametrize("path", OLD_PATHS)
def test_old_path_still_imports(path):
    """The name answers at its old path."""
    assert resolve(path) is not None, f"{path} is None"


@pytest.mark.parametrize("path", [p for p in OLD_PATHS if p.count(".") == 2 and p.split(".")[1] in
                                  ("constraints", "hybrid", "timestepping")])
def test_moved_name_is_the_same_object_as_at_its_new_home(path):
    """lib.timestepping.cart_wall_step is lib.cart_wall.cart_wall_step: one function, two paths."""
    _, module, name = path.split(".")
    obj = resolve(path)
    home = importlib.import_module(getattr(obj, "__module__", f"lib.{module}"))
    assert getattr(home, name, obj) is obj, f"{path} and {home.__name__}.{name} are different objects"
    from_import = {}
    exec(f"from lib.{module} import {name} as found", from_import)
    assert from_import["found"] is obj, f"from lib.{module} import {name} gives another object"


def test_switching_off_a_moved_name_at_its_old_path_refuses_it_there():
    """without_lib("timestepping.cart_wall_step") refuses lib.timestepping.cart_wall_step, and puts it back after."""
    original = lib.timestepping.cart_wall_step
    with without_lib("timestepping.cart_wall_step", "hybrid.bouncing_ball_rest_time"):
        with pytest.raises(RuntimeError, match="switched off"):
            lib.timestepping.cart_wall_step(1.0, 0.1, 0.0, 0.0)
        with pytest.raises(RuntimeError, match="switched off"):
            lib.hybrid.bouncing_ball_rest_time(1.0, 0.5)
    assert lib.timestepping.cart_wall_step is original
    assert float(lib.timestepping.cart_wall_step(1.0, 0.1, 0.05, -1.0).v_next) == -0.5


def test_an_unknown_name_is_still_an_attribute_error():
    """The old-path lookup answers only for the names that moved."""
    with pytest.raises(AttributeError, match="has no attribute 'cart_wall_step_v2'"):
        lib.timestepping.cart_wall_step_v2  # noqa: B018
    with pytest.raises(ImportError):
        exec("from lib.hybrid import NoSuchWheel", {})


def homework_names():
    """lib.x.y names and switched-off "x.y" names in the homework sources' code cells, as they are today."""
    found = set()
    for nb in sorted(ROOT.glob("exercises/hw*/hw*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            src = "".join(cell["source"])
            found |= set(re.findall(r"\blib(?:\.[A-Za-z_]+)+", src))
            for block in re.findall(r"without_lib\(([^)]*)\)|^[A-Z_0-9]+\s*=\s*\(([^)]*)\)", src, re.M):
                found |= {"lib." + n for n in re.findall(r'"([a-z_]+\.[A-Za-z_]+)"', "".join(block))}
            for module, names in re.findall(r'f"(\w+)\.\{name\}" for name in \(([^)]*)\)', src):
                found |= {f"lib.{module}.{n}" for n in re.findall(r'"(\w+)"', names)}
            for module, names in re.findall(r"from (lib(?:\.[a-z_]+)?) import \(?([^)#\n]*)", src):
                found |= {f"{module}.{n.split(' as ')[0].strip()}" for n in names.split(",") if n.strip()}
    return sorted(found)


def test_every_name_the_homework_uses_today_resolves():
    """A name a homework notebook imports, calls through lib.x.y or switches off exists under that path."""
    names = homework_names()
    assert len(names) > 20, f"the homework sources should use many lib names, found {names}"
    missing = []
    for path in names:
        try:
            resolve(path)
        except (AttributeError, ModuleNotFoundError):
            missing.append(path)
    assert not missing, f"names the homework uses that lib does not answer for: {missing}"


def test_switching_off_an_old_path_also_switches_off_the_new_home():
    """hw04 switches off constraints.pendulum_tension: lib.particle.pendulum_tension must be refused too."""
    with without_lib("constraints.pendulum_tension", "constraints.integrate_fixed_step"):
        with pytest.raises(RuntimeError, match="switched off"):
            lib.particle.pendulum_tension(lib.SimplePendulum(), [0.0], [0.0])
        with pytest.raises(RuntimeError, match="switched off"):
            lib.integrators.integrate_fixed_step(lambda t, q, v: -q, [1.0], [0.0], 0.1, 0.05)
