"""Typical mistakes in homework 10, at least one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw10/hw10.ipynb), the test cell that must then lose its points
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
        "name": "equilibrium-small-angles",
        "cell": "answer-equilibrium",
        "fails": "test-equilibrium",
        "what": "sin(theta) ~ theta and cos(theta) ~ 1 used in dU/dtheta = 0, which gives the linear answer "
                "theta* = k d / (m g + k l): close, but not an equilibrium of the real pendulum",
        "source": """\
def spring_pendulum_equilibrium(m, l, k, d, g=9.81):
    # m g l theta - k l (d - l theta) = 0
    return k * d / (m * g + k * l)
""",
    },
    {
        "name": "action-potential-left-point",
        "cell": "answer-action",
        "fails": "test-action",
        "what": "the potential taken at the left end of each step instead of the average of both ends "
                "(right only where U is constant)",
        "source": """\
def discrete_action(t, q, m, l, g=9.81):
    t, q = np.asarray(t, dtype=float), np.asarray(q, dtype=float)
    h = np.diff(t)
    L = 0.5 * m * l**2 * (np.diff(q) / h) ** 2 + m * g * l * np.cos(q[:-1])
    return float(np.sum(h * L))
""",
    },
    {
        "name": "variation-forward-difference",
        "cell": "answer-variation",
        "fails": "test-variation",
        "what": "the first variation taken as a one-sided difference quotient of the discrete action, "
                "(A(q + eps dq) - A(q)) / eps, which is off by eps/2 times the second variation",
        "message": "doubling dq must double it exactly",
        "source": """\
def action_variation(t, q, dq, m, l, g=9.81):
    eps = 1e-6
    q, dq = np.asarray(q, dtype=float), np.asarray(dq, dtype=float)
    return (discrete_action(t, q + eps * dq, m, l, g) - discrete_action(t, q, m, l, g)) / eps
""",
    },
    {
        "name": "hamilton-pdot-is-M-vdot",
        "cell": "answer-hamilton",
        "fails": "test-hamilton",
        "what": "pdot taken as M vdot = tau_g - C v from the manipulator equations, forgetting that "
                "pdot = Mdot v + M vdot (right only at p = 0)",
        "source": """\
def double_pendulum_hamilton(q, p, m1, m2, l1, l2, g=9.81):
    dp = lib.DoublePendulum(m1=m1, m2=m2, l1=l1, l2=l2, g=g)
    q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
    v = np.linalg.solve(dp.mass_matrix(q), p)
    return v, dp.gravity_vector(q) - dp.coriolis_matrix(q, v) @ v
""",
    },
    {
        "name": "symplectic-euler-other-order",
        "cell": "answer-integrators",
        "fails": "test-integrators",
        "what": "symplectic Euler with the updates in the other order (position with the old momentum first, "
                "then momentum at the new position): also symplectic, so energy stays in a band, "
                "but it is not the method asked for",
        "source": """\
def explicit_euler_pendulum(q0, p0, h, steps, m, l, g=9.81):
    q, p = [q0], [p0]
    for _ in range(steps):
        q, p = q + [q[-1] + h * p[-1] / (m * l**2)], p + [p[-1] - h * m * g * l * np.sin(q[-1])]
    return np.array(q), np.array(p)


def symplectic_euler_pendulum(q0, p0, h, steps, m, l, g=9.81):
    q, p = [q0], [p0]
    for _ in range(steps):
        q.append(q[-1] + h * p[-1] / (m * l**2))
        p.append(p[-1] - h * m * g * l * np.sin(q[-1]))
    return np.array(q), np.array(p)
""",
    },
]
