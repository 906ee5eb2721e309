"""Typical mistakes in homework 4, at least one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw04/hw04.ipynb), the test cell that must then lose its points
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
        "name": "multiplier-plain-inverse",
        "cell": "answer-multiplier",
        "fails": "test-multiplier",
        "what": "np.linalg.inv instead of the pseudo-inverse: right for independent constraints, "
                "fails when H M^-1 H^T is singular (redundant constraints)",
        "message": "use the pseudo-inverse np.linalg.pinv",
        "source": """\
def constraint_multiplier(M, tau, H, Hdot_v):
    M, tau, H, Hdot_v = (np.asarray(x, dtype=float) for x in (M, tau, H, Hdot_v))
    Minv = np.linalg.inv(M)
    return -np.linalg.inv(H @ Minv @ H.T) @ (H @ Minv @ tau + Hdot_v)
""",
    },
    {
        "name": "baumgarte-damping-without-2",
        "cell": "answer-baumgarte",
        "fails": "test-baumgarte",
        "what": "the damping term written alpha H qdot instead of 2 alpha H qdot (under-damped error)",
        "message": "check the damping term 2 alpha H qdot",
        "source": """\
def baumgarte_multiplier(M, tau, H, Hdot_v, h, v, alpha):
    H = np.atleast_2d(np.asarray(H, dtype=float))
    bias = np.asarray(Hdot_v, dtype=float) + alpha * H @ np.asarray(v, dtype=float) + alpha**2 * np.asarray(h)
    return constraint_multiplier(M, tau, H, bias)
""",
    },
    {
        "name": "simulate-explicit-euler",
        "cell": "answer-simulate",
        "fails": "test-simulate",
        "what": "explicit Euler (q updated with the old velocity) instead of semi-implicit Euler",
        "source": """\
def simulate_particle_pendulum(m, l, g, theta0, t_final, dt, alpha=None):
    N = int(round(t_final / dt))
    t = dt * np.arange(N + 1)
    q, v = np.zeros((N + 1, 2)), np.zeros((N + 1, 2))
    q[0] = l * np.array([np.sin(theta0), -np.cos(theta0)])
    M, tau = m * np.eye(2), np.array([0.0, -m * g])
    for k in range(N):
        p, pd = q[k], v[k]
        H = p.reshape(1, 2)
        if alpha is None:
            lam = constraint_multiplier(M, tau, H, [pd @ pd])
        else:
            lam = baumgarte_multiplier(M, tau, H, [pd @ pd], [0.5 * (p @ p - l**2)], pd, alpha)
        qdd = np.linalg.solve(M, tau + H.T @ lam)
        q[k + 1] = p + dt * pd
        v[k + 1] = pd + dt * qdd
    h = 0.5 * (np.sum(q**2, axis=1) - l**2)
    return {"t": t, "q": q, "v": v, "h": h}
""",
    },
    {
        "name": "tension-is-minus-lambda",
        "cell": "answer-tension",
        "fails": "test-tension",
        "what": "the tension taken as -lambda, forgetting the length |p| = l of H^T = p (right only for l = 1)",
        "source": """\
def rod_tension(m, l, g, q, v):
    M, tau = m * np.eye(2), np.array([0.0, -m * g])
    return np.array([-constraint_multiplier(M, tau, np.reshape(p, (1, 2)), [pd @ pd])[0]
                     for p, pd in zip(np.asarray(q, dtype=float), np.asarray(v, dtype=float))])
""",
    },
]
