"""Contact through pressure fields (hydroelastic contact) and the moments point contacts miss.

Notes 000, "Beyond point contact": a single point force cannot represent a box
lying on a table, nor the torsional friction of a spinning contact. Drake's
*hydroelastic* model (Elandt et al., 2019) gives each compliant body a
pressure field p(x) over its volume, zero on its surface and growing inward;
where a rigid body dips into it, the contact is a whole *surface* S (the part
of the rigid body's boundary inside the compliant one) with a pressure on
every point, and the contact wrench is

    f = ∫_S p n dA,        τ = ∫_S (r × n) p dA          (n: the normal into the rigid body)

For a compliant layer of thickness H and hydroelastic modulus E (Pa) on the
ground y = 0, p = E · depth / H: the model of a mattress, a rubber mat, or a
robot's padded foot seen from the other side.

Introduced in: chapter 5.
"""

from dataclasses import dataclass

import numpy as np

from . import checks


def layer_pressure(depth, E, H):
    """Pressure of the compliant layer at a given depth below its surface: p = E max(depth, 0) / H (Pa).

    >>> layer_pressure([-0.01, 0.0, 0.002], E=1e5, H=0.02)
    array([    0.,     0., 10000.])

    Introduced in: chapter 5.
    """
    E, H = checks.positive("E", E), checks.positive("H", H)
    return E * np.maximum(np.asarray(depth, dtype=float), 0.0) / H


@dataclass(frozen=True)
class PlanarWrench:
    """The contact wrench on a planar body: force (2,) in N, moment about ``about`` in N m, the contact
    length (m, along the body's boundary) and the x of the centre of pressure (nan without contact)."""

    force: np.ndarray
    moment: float
    about: np.ndarray
    contact_length: float
    center_of_pressure: float


def _cross(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def polygon_on_layer(vertices, E, H, width=1.0, about=(0.0, 0.0)):
    """The hydroelastic wrench of a rigid convex polygon pressed into a layer y ≤ 0 (planar, depth ``width``).

    Every edge of the polygon below y = 0 is part of the contact surface, with
    the pressure p = E (−y)/H and the normal pointing into the polygon. Along
    an edge the depth is linear, so the integrals are done exactly: the force
    with the trapezoidal rule, the moment (linear × linear) with Simpson's.
    ``vertices`` (k, 2) go round counter-clockwise; the moment is taken about
    ``about``.

    >>> box = np.array([[-0.2, -0.01], [0.2, -0.01], [0.2, 0.09], [-0.2, 0.09]])   # 1 cm deep, flat
    >>> w = polygon_on_layer(box, E=1e5, H=0.02, width=0.3)
    >>> w.force.round(6), round(w.moment, 9)        # p = 5e4 Pa on the 0.4 x 0.3 m bottom face
    (array([   0., 6000.]), 0.0)
    >>> round(w.contact_length, 6)                  # the bottom and 1 cm of each side, whose pressures cancel
    0.42

    Introduced in: chapter 5.
    """
    P = np.asarray(vertices, dtype=float)
    if P.ndim != 2 or P.shape[1] != 2 or len(P) < 3 or not np.isfinite(P).all():
        raise ValueError(f"vertices must be an array of shape (k, 2), k >= 3, of finite numbers; got {P.shape}")
    if 0.5 * np.sum(_cross(P, np.roll(P, -1, axis=0))) <= 0:
        raise ValueError("vertices must go round counter-clockwise (positive area)")
    E, H, width = checks.positive("E", E), checks.positive("H", H), checks.positive("width", width)
    about = np.asarray(about, dtype=float)
    force, moment, length, first_moment_x, pressure_total = np.zeros(2), 0.0, 0.0, 0.0, 0.0
    for a, b in zip(P, np.roll(P, -1, axis=0)):
        if a[1] >= 0 and b[1] >= 0:
            continue
        # the part of the edge below the surface
        if a[1] >= 0 or b[1] >= 0:
            cut = a + (b - a) * (a[1] / (a[1] - b[1]))
            a, b = (cut, b) if a[1] >= 0 else (a, cut)
        edge = b - a
        L = float(np.hypot(*edge))
        if L == 0.0:
            continue
        inward = np.array([-edge[1], edge[0]]) / L          # counter-clockwise: the left of each edge is inside
        mid = 0.5 * (a + b)
        pa, pm, pb = (layer_pressure(-p[1], E, H) for p in (a, mid, b))
        P_int = width * L * (pa + pb) / 2                      # ∫ p dA over the edge
        force += P_int * inward
        pressure_total += P_int
        # ∫ (r × n) p dA: r × n linear along the edge, p linear: Simpson is exact
        rxn = [_cross(p - about, inward) for p in (a, mid, b)]
        moment += width * L * (rxn[0] * pa + 4 * rxn[1] * pm + rxn[2] * pb) / 6
        first_moment_x += width * L * (a[0] * pa + 4 * mid[0] * pm + b[0] * pb) / 6
        length += L
    cop = first_moment_x / pressure_total if pressure_total > 0 else float("nan")
    return PlanarWrench(force, float(moment), about, length, cop)


def rectangle_radius_integral(a, b):
    """∫∫ |r| dA over an a × b rectangle centred on the origin (m³): the lever arm of torsional friction.

    Quarter by quarter, with A = a/2, B = b/2 and d = √(A² + B²):
    ∫₀^A ∫₀^B √(x² + y²) dy dx = (2 A B d + A³ ln((B + d)/A) + B³ ln((A + d)/B)) / 6.

    >>> round(rectangle_radius_integral(1.0, 1.0), 6)        # a square: (√2 + ln(1 + √2)) / 6
    0.382598

    Introduced in: chapter 5.
    """
    A, B = checks.positive("a", a) / 2, checks.positive("b", b) / 2
    d = np.hypot(A, B)
    return float(4 * (2 * A * B * d + A**3 * np.log((B + d) / A) + B**3 * np.log((A + d) / B)) / 6)


def torsional_friction_moment(a, b, mu, f_n, model="pressure"):
    """The friction moment that resists a flat a × b face spinning on its normal force f_n (N m).

    Coulomb friction μ p per unit area opposes the local sliding velocity
    ω × r, whose lever arm is |r|; the moment is μ ∫ p |r| dA.

    * ``"pressure"``: the pressure spread evenly over the face (a flat box on a
      hydroelastic layer), μ f_n ∫|r| dA / (a b);
    * ``"corners"``: four point contacts at the corners, each with f_n / 4,
      μ f_n √(a² + b²) / 2;
    * ``"center"``: one point contact at the centre of the face: no moment at all.

    >>> [round(torsional_friction_moment(0.2, 0.2, 0.5, 10.0, m), 4) for m in ("pressure", "corners", "center")]
    [0.3826, 0.7071, 0.0]

    Introduced in: chapter 5.
    """
    a, b = checks.positive("a", a), checks.positive("b", b)
    mu, f_n = checks.nonnegative("mu", mu), checks.nonnegative("f_n", f_n)
    if model == "pressure":
        return float(mu * f_n * rectangle_radius_integral(a, b) / (a * b))
    if model == "corners":
        return float(mu * f_n * np.hypot(a, b) / 2)
    if model == "center":
        return 0.0
    raise ValueError(f"model must be 'pressure', 'corners' or 'center', got {model!r}")
