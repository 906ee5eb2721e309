"""Typical mistakes in homework 3, at least one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw03/hw03.ipynb), the test cell that must then lose its points
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
        "name": "christoffel-notes-000-factorization",
        "cell": "answer-christoffel",
        "fails": "test-christoffel",
        "what": "C built term by term from dM/dq_k qd_k - (1/2) d(M qd)/dq (another valid factorization): "
                "C qd is right, C is not the Christoffel matrix",
        "message": "only the Christoffel one makes Mdot - 2C skew-symmetric",
        "source": """\
def christoffel_C(M, q, qd):
    n = len(q)
    return sp.Matrix(n, n, lambda i, j: sum((sp.diff(M[i, j], q[k]) - sp.Rational(1, 2) * sp.diff(M[j, k], q[i]))
                                            * qd[k] for k in range(n)))
""",
    },
    {
        "name": "mdot-only-last-coordinate",
        "cell": "answer-skew",
        "fails": "test-skew",
        "what": "Mdot taken as dM/dq_n qd_n only, because the double pendulum's M depends on q2 alone",
        "message": "sum over every coordinate",
        "source": """\
def Mdot_minus_2C(M, C, q, qd):
    return M.diff(q[-1]) * qd[-1] - 2 * sp.Matrix(C)
""",
    },
    {
        "name": "pr-robot-slide-weight-without-m1",
        "cell": "answer-pr-robot",
        "fails": "test-pr-robot",
        "what": "the weight along the slide counted for link 2 only, g1 = -m2 g_x instead of -(m1 + m2) g_x "
                "(right only while the slide is horizontal)",
        "source": """\
def pr_robot(q, v, m1, m2, d_c2, I_c2, gravity=(0.0, 0.0)):
    s2, c2 = np.sin(q[1]), np.cos(q[1])
    gx, gy = gravity
    M = np.array([[m1 + m2, -m2 * d_c2 * s2], [-m2 * d_c2 * s2, I_c2 + m2 * d_c2**2]])
    c = np.array([-m2 * d_c2 * c2 * v[1] ** 2, 0.0])
    g = np.array([-m2 * gx, m2 * d_c2 * (s2 * gx - c2 * gy)])
    return M, c, g
""",
    },
    {
        "name": "factorization-other-is-the-same",
        "cell": "answer-factorization",
        "fails": "test-factorization",
        "what": "S_other returned as a copy of S: the question whether S is unique not answered",
        "message": "S_other must be a factorization other than S",
        "source": """\
def pr_factorizations(q, v, m2, d_c2):
    h = m2 * d_c2 * np.cos(q[1])
    S = np.array([[0.0, -h * v[1]], [0.0, 0.0]])
    return S, S.copy()
""",
    },
    {
        "name": "factorization-centrifugal-on-the-diagonal",
        "cell": "answer-factorization",
        "fails": "test-factorization",
        "what": "the centrifugal term put in the first column, S[0, 0] = -h qd2: then S qd gives -h qd2 qd1 "
                "instead of -h qd2^2",
        "message": "S v must be Part 3's c(q, v)",
        "source": """\
def pr_factorizations(q, v, m2, d_c2):
    h = m2 * d_c2 * np.cos(q[1])
    S = np.array([[-h * v[1], 0.0], [0.0, 0.0]])
    return S, S + np.array([[v[1], -v[0]], [0.0, 0.0]])
""",
    },
    {
        "name": "regressor-centrifugal-sign",
        "cell": "answer-regressor",
        "fails": "test-regressor",
        "what": "the centrifugal term entered with the wrong sign, +c2 qd2^2 in the column of m2 d_c2",
        "source": """\
def pr_regressor(q, v, vdot, gravity=(0.0, 0.0)):
    q, v, vdot = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (q, v, vdot))
    gx, gy = gravity
    s2, c2 = np.sin(q[:, 1]), np.cos(q[:, 1])
    Y = np.zeros((2 * q.shape[0], 3))
    Y[0::2, 0] = vdot[:, 0] - gx
    Y[0::2, 1] = -s2 * vdot[:, 1] + c2 * v[:, 1] ** 2
    Y[1::2, 1] = -s2 * vdot[:, 0] + s2 * gx - c2 * gy
    Y[1::2, 2] = vdot[:, 1]
    return Y
""",
    },
    {
        "name": "estimate-joint-major-stacking",
        "cell": "answer-estimate",
        "fails": "test-estimate",
        "what": "u flattened joint by joint (u.T.reshape(-1)) while Y is stacked sample by sample, "
                "so rows of Y meet the wrong measurements",
        "source": """\
def estimate_lumped(q, v, vdot, u, gravity=(0.0, 0.0)):
    Y = lib.sysid.pr_robot_regressor(q, v, vdot, gravity)
    pi_hat, *_ = np.linalg.lstsq(Y, np.asarray(u, dtype=float).T.reshape(-1), rcond=None)
    return pi_hat
""",
    },
]
