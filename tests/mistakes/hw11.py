"""Typical mistakes in homework 11, one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw11/hw11.ipynb), the test cell that must then lose its points
(``fails``), what the mistake is (``what``), and the replacement source.
tests/test_homework.py grades the reference with that single cell replaced and
checks that exactly the points of ``fails`` are lost.
"""

MISTAKES = [
    {
        "name": "transforms-chained-backwards",
        "cell": "answer-potential",
        "fails": "test-potential",
        "what": "the joint transforms multiplied in the reverse order, (i-1)Ai ... 1A2 0A1, which moves each "
                "link along the base's axes instead of its parent's",
        "source": """\
def chain_potential(q, m, l, lc, g=9.81):
    q, m, l, lc = (np.asarray(x, dtype=float) for x in (q, m, l, lc))

    def transform(angle, shift):
        c, s = np.cos(angle), np.sin(angle)
        return np.array([[c, -s, shift], [s, c, 0.0], [0.0, 0.0, 1.0]])

    A = np.eye(3)
    com, U = [], 0.0
    for i in range(len(q)):
        A = transform(q[i] - (np.pi / 2 if i == 0 else 0.0), 0.0 if i == 0 else l[i - 1]) @ A
        p = A @ np.array([lc[i], 0.0, 1.0])
        com.append(p[:2])
        U += m[i] * g * p[1]
    return {"U": float(U), "com": np.array(com)}
""",
    },
    {
        "name": "rnea-no-centripetal-term",
        "cell": "answer-rnea",
        "fails": "test-rnea",
        "what": "the acceleration of a point on a turning link taken as alpha nu only, without the centripetal "
                "part -omega^2 e: right at rest, wrong as soon as the links move",
        "source": """\
def rnea_torques(q, v, vdot, m, l, lc, I, g=9.81):
    q, v, vdot, m, l, lc, I = (np.asarray(x, dtype=float) for x in (q, v, vdot, m, l, lc, I))
    n = len(q)
    phi, alpha = np.cumsum(q), np.cumsum(vdot)
    e = np.stack([np.sin(phi), -np.cos(phi)], axis=1)
    nrm = np.stack([np.cos(phi), np.sin(phi)], axis=1)

    def cross(a, b):
        return a[0] * b[1] - a[1] * b[0]

    a_joint = np.array([0.0, g])
    a_com = np.zeros((n, 2))
    for i in range(n):
        a_com[i] = a_joint + lc[i] * alpha[i] * nrm[i]
        a_joint = a_joint + l[i] * alpha[i] * nrm[i]
    tau = np.zeros(n)
    f_next, tau_next = np.zeros(2), 0.0
    for i in reversed(range(n)):
        f = m[i] * a_com[i] + f_next
        tau[i] = I[i] * alpha[i] + tau_next + lc[i] * cross(e[i], f) + (l[i] - lc[i]) * cross(e[i], f_next)
        f_next, tau_next = f, tau[i]
    return tau
""",
    },
    {
        "name": "mass-matrix-with-gravity",
        "cell": "answer-mass-matrix",
        "fails": "test-mass-matrix",
        "what": "the columns computed with gravity left on: each column then also holds -tau_g(q) "
                "(invisible in the hanging pose, where tau_g = 0)",
        "source": """\
def rnea_mass_matrix(q, m, l, lc, I):
    n = len(q)
    zero = np.zeros(n)
    return np.column_stack([rnea_torques(q, zero, e, m, l, lc, I) for e in np.eye(n)])
""",
    },
    {
        "name": "quaternion-rate-world-frame",
        "cell": "answer-quaternion",
        "fails": "test-quaternion",
        "what": "qdot = 1/2 (0, omega) (x) q, the formula for omega in world axes, used with a body-frame omega",
        "source": """\
def quaternion_rate(quat, omega):
    b0, b = float(quat[0]), np.asarray(quat[1:], dtype=float)
    a = np.asarray(omega, dtype=float)
    return 0.5 * np.concatenate([[-a @ b], b0 * a + np.cross(a, b)])
""",
    },
    {
        "name": "spin-explicit-euler",
        "cell": "answer-spin",
        "fails": "test-spin",
        "what": "explicit Euler steps q + h qdot with no normalization: each step lengthens q by a factor "
                "sqrt(1 + (h |omega| / 2)^2), and the orientation leaves the unit sphere",
        "source": """\
def spin(quat0, omega, h, steps):
    out = [np.asarray(quat0, dtype=float)]
    omega = np.asarray(omega, dtype=float)
    for _ in range(int(steps)):
        q = out[-1]
        qdot = 0.5 * np.concatenate([[-q[1:] @ omega], q[0] * omega + np.cross(q[1:], omega)])
        out.append(q + h * qdot)
    return np.array(out)
""",
    },
    {
        "name": "power-dissipation-not-squared",
        "cell": "answer-power",
        "fails": "test-power",
        "what": "the friction column taken as the integral of thetadot (the change of angle) instead of the "
                "integral of thetadot^2, the energy the friction takes per unit b",
        "source": """\
def energy_regressor(t, q, v, u, window, g=9.81):
    t, q, v, u = (np.asarray(x, dtype=float).ravel() for x in (t, q, v, u))
    dt = np.diff(t)

    def running(f):
        return np.concatenate([[0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) * dt)])

    work, loss = running(u * v), running(v)
    a = np.arange(0, t.size - window, window)
    b = a + window
    Y = np.column_stack([0.5 * (v[b] ** 2 - v[a] ** 2), -g * (np.cos(q[b]) - np.cos(q[a])), loss[b] - loss[a]])
    return Y, work[b] - work[a]
""",
    },
    {
        "name": "quaternion-rate-as-list",
        "cell": "answer-quaternion",
        "fails": "test-quaternion",
        "what": "the right numbers returned as a Python list: the answer must be a numpy array",
        "message": "qdot must be a numpy array; yours is a list",
        "source": """\
def quaternion_rate(quat, omega):
    a0, a = float(quat[0]), np.asarray(quat[1:], dtype=float)
    b = np.asarray(omega, dtype=float)
    return [0.5 * x for x in np.concatenate([[-a @ b], a0 * b + np.cross(a, b)])]
""",
    },
]
