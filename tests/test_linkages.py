"""lib.linkages: planar trees against sympy's LagrangesMethod, the pins, the four-bar and the biped (notes 000/001)."""

import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

from lib.constraints import constrained_dynamics, project_to_constraint
from lib.linkages import FourBar, PlanarBiped, PlanarTree, PointPin


RNG = np.random.default_rng(4)

def test_pinned_foot_force_obeys_newtons_law_for_the_centre_of_mass():
    """f = m_total (a_com − g), with a_com by finite differences of the centre of mass along the motion."""
    robot = PlanarBiped()
    pin = robot.foot_pin()
    rng = np.random.default_rng(8)
    for _ in range(3):
        q, v = project_to_constraint(pin, robot.standing(lean=rng.uniform(-0.3, 0.3)), rng.normal(size=7))
        u = rng.uniform(-20, 20, 4)
        a, f = constrained_dynamics(robot.tree, pin, q, v, u)
        com = lambda s: robot.tree.center_of_mass(q + s * v + 0.5 * s**2 * a)  # noqa: E731
        eps = 1e-4
        a_com = (com(eps) - 2 * com(0.0) + com(-eps)) / eps**2
        np.testing.assert_allclose(f, robot.mass * (a_com - np.array([0.0, -robot.g])), rtol=1e-5, atol=1e-3)
        np.testing.assert_allclose(pin.H(q) @ a + pin.Hdot_v(q, v), 0.0, atol=1e-9)   # the foot stays put


def test_balanced_biped_stands_still_on_its_weight():
    """With the centre of mass above the foot, holding torques give q̈ = 0 and the ground carries (0, m g)."""
    robot = PlanarBiped()
    q = robot.balanced()
    u, f = robot.holding_torques(q)
    a, lam = constrained_dynamics(robot.tree, robot.foot_pin(), q, np.zeros(7), u)
    np.testing.assert_allclose(a, 0.0, atol=1e-9)
    np.testing.assert_allclose(lam, [0.0, robot.mass * robot.g], atol=1e-9)
    np.testing.assert_allclose(f, lam, atol=1e-9)


def lagranges_method_tree():
    """A floating base with a torso and a two-link leg hanging from the hip, by sympy.physics.mechanics."""
    x, y, a, b, c = dynamicsymbols("x y a b c")
    t = dynamicsymbols._t
    m, l, g = (0.7, 1.3, 0.9), (1.1, 0.8, 0.6), 9.81
    e = lambda th: sp.Matrix([sp.cos(th), sp.sin(th)])  # noqa: E731
    base = sp.Matrix([x, y])
    coms = [base + l[0] / 2 * e(a), base + l[1] / 2 * e(b), base + l[1] * e(b) + l[2] / 2 * e(c)]
    T = sum(mi * (p.diff(t).T * p.diff(t))[0] / 2 + mi * li**2 / 24 * th.diff(t) ** 2
            for mi, li, p, th in zip(m, l, coms, (a, b, c)))
    U = sum(mi * g * p[1] for mi, p in zip(m, coms))
    lm = LagrangesMethod(T - U, [x, y, a, b, c])
    lm.form_lagranges_equations()
    qs, vs = [x, y, a, b, c], sp.symbols("v0:5")
    subs = {qi.diff(t): vi for qi, vi in zip(qs, vs)}
    M = sp.lambdify([qs, vs], lm.mass_matrix.subs(subs))
    forcing = sp.lambdify([qs, vs], lm.forcing.subs(subs))       # = tau_g − C v
    tree = PlanarTree(m=m, l=l, parent=(-1, -1, 1), floating=True, g=g)
    return tree, M, forcing


def test_planar_tree_matches_lagranges_method():
    """M and tau_g − C v of a floating tree equal sympy's LagrangesMethod at random states."""
    tree, M, forcing = lagranges_method_tree()
    for _ in range(5):
        q, v = RNG.uniform(-3, 3, 5), RNG.uniform(-2, 2, 5)
        np.testing.assert_allclose(tree.mass_matrix(q), np.array(M(q, v), dtype=float), atol=1e-12)
        np.testing.assert_allclose(tree.gravity_vector(q) - tree.bias(q, v),
                                   np.array(forcing(q, v), dtype=float).ravel(), atol=1e-10)


def test_planar_tree_mdot_minus_2c_is_skew_symmetric():
    """Ṁ − 2C is skew-symmetric (Ṁ by central differences along v) for the biped tree."""
    tree = PlanarBiped().tree
    q, v = RNG.uniform(-2, 2, 7), RNG.uniform(-2, 2, 7)
    eps = 1e-6
    Mdot = (tree.mass_matrix(q + eps * v) - tree.mass_matrix(q - eps * v)) / (2 * eps)
    S = Mdot - 2 * tree.coriolis_matrix(q, v)
    np.testing.assert_allclose(S, -S.T, atol=1e-7)
    assert np.linalg.eigvalsh(tree.mass_matrix(q)).min() > 0


def test_point_pin_derivatives_match_finite_differences():
    """H = ∂h/∂q and Ḣq̇ = d/dt(H) q̇ of a pinned point equal central differences."""
    fb = FourBar()
    q, v = RNG.uniform(-3, 3, 3), RNG.uniform(-2, 2, 3)
    eps = 1e-6
    H_fd = np.column_stack([(fb.closure.h(q + eps * e) - fb.closure.h(q - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(fb.closure.H(q), H_fd, atol=1e-8)
    Hdot = (fb.closure.H(q + eps * v) - fb.closure.H(q - eps * v)) / (2 * eps)
    np.testing.assert_allclose(fb.closure.Hdot_v(q, v), Hdot @ v, atol=1e-7)


def test_four_bar_assembly_and_projection():
    """assemble closes the loop for every crank angle of a crank–rocker; projection restores h = 0 and Hv = 0."""
    fb = FourBar()
    for theta1 in np.linspace(-np.pi, np.pi, 9):
        q, v = fb.assemble(theta1, 1.0)
        np.testing.assert_allclose(fb.closure.h(q), 0.0, atol=1e-12)
        np.testing.assert_allclose(fb.closure.H(q) @ v, 0.0, atol=1e-12)
    q, v = project_to_constraint(fb.closure, q + 0.01, v + 0.1)
    np.testing.assert_allclose(fb.closure.h(q), 0.0, atol=1e-12)
    np.testing.assert_allclose(fb.closure.H(q) @ v, 0.0, atol=1e-12)


def test_bad_parameters_are_rejected_by_name():
    """A negative length or mass, a parent after its child, an impossible assembly, a missing link: named."""
    with pytest.raises(ValueError, match="l1"):
        FourBar(l1=-0.4)
    with pytest.raises(ValueError, match=r"m\[1\]"):
        PlanarTree(m=(1.0, -1.0), l=(1.0, 1.0), parent=(-1, 0))
    with pytest.raises(ValueError, match="parent"):
        PlanarTree(m=(1.0, 1.0), l=(1.0, 1.0), parent=(-1, 1))
    with pytest.raises(ValueError, match="theta1"):
        FourBar(l1=0.4, l2=0.3, l3=0.2, d=2.0).assemble(0.0)
    with pytest.raises(ValueError, match="link"):
        PointPin(FourBar().tree, link=7, s=0.0, target=(0.0, 0.0))
    with pytest.raises(ValueError, match="leg"):
        PlanarBiped().foot_pin(leg=2)
