"""Typical mistakes in homework 2, one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw02/hw02.ipynb), the test cell that must then lose its points
(``fails``), what the mistake is (``what``), and the replacement source.
tests/test_homework.py hands in the reference solution with that one cell
replaced and checks that it loses exactly the points of ``fails``.

tests/test_mutants.py runs each one against the tests directly: the visible
tests must catch it, unless the entry says ``"visible": False`` (then only the
hidden ones do), and the first failing test's message must contain
``"message"`` when the entry gives one.
"""

MISTAKES = [
    {
        "name": "box-about-an-edge",
        "cell": "answer-box",
        "fails": "test-box",
        "what": "integrating x from 0 to a instead of from -a/2 to a/2 (m a^2/3 instead of m a^2/12): "
                "the inertia about a corner's axes, not about the CoM",
        "source": """\
def box_inertia(m, a, b, c):
    x2, y2, z2 = m * a**2 / 3, m * b**2 / 3, m * c**2 / 3
    return np.diag([y2 + z2, x2 + z2, x2 + y2])
""",
    },
    {
        "name": "cylinder-radii-subtracted",
        "cell": "answer-cylinder",
        "fails": "test-cylinder",
        "what": "a^2 - b^2 (as in the mass) instead of a^2 + b^2 in the inertia "
                "(a solid cylinder, b = 0, cannot tell the two apart)",
        "source": """\
def hollow_cylinder_inertia(m, a, b, h):
    radial = a**2 - b**2
    return np.diag([m * radial / 2, m * (3 * radial + h**2) / 12, m * (3 * radial + h**2) / 12])
""",
    },
    {
        "name": "parallel-axis-only-diagonal",
        "cell": "answer-parallel-axis",
        "fails": "test-parallel-axis",
        "what": "the scalar Steiner formula applied to each diagonal entry, the products of inertia "
                "-m r r^T off the diagonal forgotten",
        "message": "also adds products of inertia",
        "source": """\
def parallel_axis(I_c, m, r):
    r = np.asarray(r, dtype=float)
    return np.asarray(I_c, dtype=float) + m * np.diag(r @ r - r**2)
""",
    },
    {
        "name": "race-sorted-by-inertia",
        "cell": "answer-race",
        "fails": "test-race",
        "what": "the racers ranked by I instead of by I/(m r^2) (the same order when all bodies have the same "
                "mass and radius)",
        "message": "only I/(m r^2) decides",
        "source": """\
def rolling_acceleration(m, r, I, gamma, g=9.81):
    return g * np.sin(gamma) / (1.0 + I / (m * r**2))


def race(bodies, gamma, length, g=9.81):
    ranked = sorted(bodies.items(), key=lambda item: item[1][2])
    return [(name, float(np.sqrt(2.0 * length / rolling_acceleration(m, r, I, gamma, g))))
            for name, (m, r, I) in ranked]
""",
    },
    {
        "name": "kinetic-energy-frames-mixed",
        "cell": "answer-kinetic-energy",
        "fails": "test-kinetic-energy",
        "what": "the body-frame inertia used with the world-frame angular velocity (R forgotten; right only "
                "when R is the identity)",
        "message": "rotate one of the two before they meet",
        "source": """\
def kinetic_energy(m, I_body, R, v_c, omega):
    v_c, omega = np.asarray(v_c, dtype=float), np.asarray(omega, dtype=float)
    return float(0.5 * m * v_c @ v_c + 0.5 * omega @ np.asarray(I_body, dtype=float) @ omega)
""",
    },
]
