"""Typical mistakes in homework 7, at least one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw07/hw07.ipynb), the test cell that must then lose its points
(``fails``), what the mistake is (``what``), and the replacement source.
tests/test_homework.py builds one submission per entry, the reference solution
with that single cell replaced, grades them with nbgrader, and checks that each
loses exactly the points of ``fails`` and keeps all the others.

tests/test_mutants.py runs each one against the tests directly: the visible
tests must catch it, unless the entry says ``"visible": False`` (then only the
hidden ones do), and the first failing test's message must contain
``"message"`` when the entry gives one.
"""

MISTAKES = [
    {
        "name": "certificate-signed-complementarity",
        "cell": "answer-certificate",
        "fails": "test-certificate",
        "what": "complementarity reported as w^T z instead of |w^T z|, so a negative product looks fine "
                "(right whenever w^T z >= 0)",
        "message": "a size (take the absolute value)",
        "source": """\
def lcp_certificate(M, q, z):
    M, q, z = np.asarray(M, dtype=float), np.asarray(q, dtype=float), np.asarray(z, dtype=float)
    w = q + M @ z
    return {"w": w, "min_w": float(w.min()), "min_z": float(z.min()), "complementarity": float(w @ z)}
""",
    },
    {
        "name": "cart-wall-M-is-h-over-m",
        "cell": "answer-cart-wall",
        "fails": "test-cart-wall",
        "what": "M written h/m, the velocity change of a unit force, instead of h^2/m, the position change",
        "source": """\
def cart_wall_step(m, h, q, v, u=0.0):
    M_lcp = np.array([[h / m]])
    q_lcp = np.array([q + h * v + h**2 / m * u])
    result = lcp.lemke(M_lcp, q_lcp)
    if not result.solved:
        raise RuntimeError(f"the cart-wall LCP was not solved: {result.reason}")
    f = float(result.z[0])
    v_next = v + h / m * (u + f)
    return {"M": M_lcp, "q_lcp": q_lcp, "q_next": float(q + h * v_next), "v_next": float(v_next), "f": f}
""",
    },
    {
        "name": "brick-M-transposed",
        "cell": "answer-brick",
        "fails": "test-brick",
        "what": "the brick's M transposed: the coefficients of each unknown written as rows instead of columns",
        "message": "it is the transpose of the right one",
        "source": """\
def brick_friction_step(m, h, v, u, mu, g=9.81):
    k = h / m
    v_free = v + k * u
    M_lcp = np.array([[k, -k, -1.0], [-k, k, -1.0], [1.0, 1.0, 0.0]])
    q_lcp = np.array([v_free, -v_free, mu * m * g])
    result = lcp.lemke(M_lcp, q_lcp)
    if not result.solved:
        raise RuntimeError(f"the brick's LCP was not solved: {result.reason}")
    z = result.z
    f = float(z[0] - z[1])
    v_next = float(v_free + k * f)
    regime = "sticking" if abs(v_next) <= 1e-9 else "sliding"
    return {"M": M_lcp, "q_lcp": q_lcp, "z": z, "w": q_lcp + M_lcp @ z, "v_next": v_next, "f": f, "regime": regime}
""",
    },
    {
        "name": "gauss-impulse-as-force",
        "cell": "answer-gauss",
        "fails": "test-gauss",
        "what": "the Lagrange multiplier m (v' - v^-), an impulse in N s, returned as the force f",
        "message": "you returned the multiplier m (v' - v^-)",
        "source": """\
def cart_wall_gauss(m, h, q, v, u=0.0):
    v_minus = v + h / m * u
    v_next = max(v_minus, -q / h)
    return {"v_next": float(v_next), "f": m * (v_next - v_minus)}
""",
    },
    {
        "name": "certificate-M-transposed",
        "cell": "answer-certificate",
        "fails": "test-certificate",
        "what": "w = q + M^T z (z @ M): right only for a symmetric M, and an LCP's M need not be symmetric",
        "message": "row i of M, not column i",
        "source": """\
def lcp_certificate(M, q, z):
    M, q, z = np.asarray(M, dtype=float), np.asarray(q, dtype=float), np.asarray(z, dtype=float)
    w = q + z @ M
    return {"w": w, "min_w": float(w.min()), "min_z": float(z.min()), "complementarity": float(abs(w @ z))}
""",
    },
    {
        "name": "certificate-complementarity-elementwise",
        "cell": "answer-certificate",
        "fails": "test-certificate",
        "what": "complementarity returned as the vector |w_i z_i| instead of the number |w^T z|",
        "message": "sum the products w_i z_i before taking the absolute value",
        "source": """\
def lcp_certificate(M, q, z):
    M, q, z = np.asarray(M, dtype=float), np.asarray(q, dtype=float), np.asarray(z, dtype=float)
    w = q + M @ z
    return {"w": w, "min_w": float(w.min()), "min_z": float(z.min()), "complementarity": np.abs(w * z)}
""",
    },
    {
        "name": "cart-wall-push-dropped",
        "cell": "answer-cart-wall",
        "fails": "test-cart-wall",
        "what": "the push u left out of q_lcp and of v[n+1]",
        "message": "q_lcp is where the cart would be without the wall",
        "source": """\
def cart_wall_step(m, h, q, v, u=0.0):
    M_lcp = np.array([[h**2 / m]])
    q_lcp = np.array([q + h * v])
    result = lcp.lemke(M_lcp, q_lcp)
    if not result.solved:
        raise RuntimeError(f"the cart-wall LCP was not solved: {result.reason}")
    f = float(result.z[0])
    v_next = v + h / m * f
    return {"M": M_lcp, "q_lcp": q_lcp, "q_next": float(q + h * v_next), "v_next": float(v_next), "f": f}
""",
    },
    {
        "name": "brick-regime-from-old-velocity",
        "cell": "answer-brick",
        "fails": "test-brick",
        "what": "the regime decided from the velocity at the start of the step, v[n], instead of v[n+1]",
        "message": "the regime should be",
        "source": """\
def brick_friction_step(m, h, v, u, mu, g=9.81):
    k = h / m
    v_free = v + k * u
    M_lcp = np.array([[k, -k, 1.0], [-k, k, 1.0], [-1.0, -1.0, 0.0]])
    q_lcp = np.array([v_free, -v_free, mu * m * g])
    result = lcp.lemke(M_lcp, q_lcp)
    if not result.solved:
        raise RuntimeError(f"the brick's LCP was not solved: {result.reason}")
    z = result.z
    f = float(z[0] - z[1])
    v_next = float(v_free + k * f)
    regime = "sticking" if abs(v) <= 1e-9 else "sliding"
    return {"M": M_lcp, "q_lcp": q_lcp, "z": z, "w": q_lcp + M_lcp @ z, "v_next": v_next, "f": f, "regime": regime}
""",
    },
    {
        "name": "gauss-push-dropped",
        "cell": "answer-gauss",
        "fails": "test-gauss",
        "what": "v^- taken as v[n], the push u left out",
        "message": "the push u counts",
        "source": """\
def cart_wall_gauss(m, h, q, v, u=0.0):
    v_next = max(v, -q / h)
    return {"v_next": float(v_next), "f": m * (v_next - v) / h}
""",
    },
]
