"""Typical mistakes in homework 6, at least one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw06/hw06.ipynb), the test cell that must then lose its points
(``fails``), what the mistake is (``what``), and the replacement source.
tests/test_homework.py grades the reference with that single cell replaced and
checks that exactly the points of ``fails`` are lost.

tests/test_mutants.py runs each one against the tests directly: the visible
tests must catch it, unless the entry says ``"visible": False`` (then only the
hidden ones do), and the first failing test's message must contain
``"message"`` when the entry gives one.
"""

MISTAKES = [
    {
        "name": "impact-map-inverse-not-pseudo-inverse",
        "cell": "answer-impact-map",
        "fails": "test-impact-map",
        "what": "(n M^-1 n^T) inverted with np.linalg.inv instead of the pseudo-inverse, which fails when two "
                "contacts share a normal",
        "message": "use np.linalg.pinv",
        "source": """\
def impact_map(M, n, e):
    M = np.asarray(M, dtype=float)
    n = np.atleast_2d(np.asarray(n, dtype=float))
    Minv = np.linalg.inv(M)
    return np.eye(len(M)) - (1 + e) * Minv @ n.T @ np.linalg.inv(n @ Minv @ n.T) @ n
""",
    },
    {
        "name": "spinning-ball-always-hollow",
        "cell": "answer-spinning-ball",
        "fails": "test-spinning-ball",
        "what": "the hollow sphere's inertia 2/3 m r^2 written into M whatever kappa is given "
                "(right only for the hollow sphere)",
        "message": "does your M use the inertia kappa*m*r**2 you were given?",
        "source": """\
def spinning_ball_matrix(kappa):
    M = sp.diag(m, m, sp.Rational(2, 3) * m * r**2)
    J = sp.Matrix([[0, 1, 0], [1, 0, r]])
    Lam = sp.Matrix(sp.symbols("L_n L_t"))
    qd = sp.Matrix(sp.symbols("xd zd thd"))
    qd_plus = qd + M.inv() * J.T * Lam
    sol = sp.solve(list(J * qd_plus - sp.diag(-e, 0) * J * qd), list(Lam))
    return sp.simplify(qd_plus.subs(sol).jacobian(qd))
""",
    },
    {
        "name": "bouncing-apex-linear-in-e",
        "cell": "answer-bouncing",
        "fails": "test-bouncing",
        "what": "apex heights taken as e^k h0, as if the height scaled with the speed and not with its square",
        "source": """\
def bouncing_ball(h0, e, g=9.81, count=5):
    t1 = np.sqrt(2 * h0 / g)
    bounces = [t1]
    for k in range(1, count):
        bounces.append(bounces[-1] + 2 * t1 * e**k)
    apexes = [h0 * e**k for k in range(1, count + 1)]
    return {"apexes": np.array(apexes), "bounces": np.array(bounces), "rest": t1 * (1 + e) / (1 - e)}
""",
    },
    {
        "name": "rimless-never-rocks-back",
        "cell": "answer-rimless",
        "fails": "test-rimless",
        "what": "the energy balance applied without checking that the hub gets over the top of the stance leg, "
                "so a step that cannot happen gets a speed",
        "source": """\
def rimless_wheel_step(omega, alpha, gamma, l=1.0, g=9.81):
    return float(np.cos(2 * alpha) * np.sqrt(omega**2 + 4 * g / l * np.sin(alpha) * np.sin(gamma)))


def rimless_wheel_fixed_point(alpha, gamma, l=1.0, g=9.81):
    c = np.cos(2 * alpha)
    return float(c * np.sqrt(4 * g / l * np.sin(alpha) * np.sin(gamma) / (1 - c**2)))
""",
    },
    {
        "name": "rimless-top-with-omega",
        "cell": "answer-rimless",
        "fails": "test-rimless",
        "what": "the rolling condition written with omega instead of omega**2 (kinetic energy is quadratic in speed)",
        "message": "just gets over the top of the stance leg",
        "source": """\
def rimless_wheel_step(omega, alpha, gamma, l=1.0, g=9.81):
    if gamma < alpha and omega <= 2 * g / l * (1 - np.cos(gamma - alpha)):
        return None
    return float(np.cos(2 * alpha) * np.sqrt(omega**2 + 4 * g / l * np.sin(alpha) * np.sin(gamma)))


def rimless_wheel_fixed_point(alpha, gamma, l=1.0, g=9.81):
    return float(np.sqrt(4 * g / l * np.sin(alpha) * np.sin(gamma)) / np.tan(2 * alpha))
""",
    },
    {
        "name": "rimless-top-without-2",
        "cell": "answer-rimless",
        "fails": "test-rimless",
        "what": "the rolling condition without the factor 2 of 2 g / l (1 - cos(gamma - alpha)): half the kinetic "
                "energy m l^2 omega^2 / 2 set against all of the rise m g l (1 - cos)",
        "message": "so the map must return None",
        "source": """\
def rimless_wheel_step(omega, alpha, gamma, l=1.0, g=9.81):
    if gamma < alpha and omega**2 <= g / l * (1 - np.cos(gamma - alpha)):
        return None
    return float(np.cos(2 * alpha) * np.sqrt(omega**2 + 4 * g / l * np.sin(alpha) * np.sin(gamma)))


def rimless_wheel_fixed_point(alpha, gamma, l=1.0, g=9.81):
    return float(np.sqrt(4 * g / l * np.sin(alpha) * np.sin(gamma)) / np.tan(2 * alpha))
""",
    },
]
