"""Typical mistakes in homework 8, at least one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw08/hw08.ipynb), the test cell that must then lose its points
(``fails``), what the mistake is (``what``), and the replacement source.
tests/test_homework.py grades the reference with that one cell replaced and
checks that it loses exactly the points of ``fails``.

tests/test_mutants.py runs each one against the tests directly: the visible
tests must catch it, unless the entry says ``"visible": False`` (then only the
hidden ones do), and the first failing test's message must contain
``"message"`` when the entry gives one.
"""

MISTAKES = [
    {
        "name": "anitescu-offset-sign",
        "cell": "answer-anitescu",
        "fails": "test-anitescu",
        "what": "the constraint written as G v' <= -phi/h instead of +phi/h, so a contact above the ground is "
                "pushed away (right only while phi = 0)",
        "source": """\
def anitescu_step(M, v_minus, h, phi, N, D, mu):
    M, v_minus = np.asarray(M, dtype=float), np.asarray(v_minus, dtype=float)
    phi = np.atleast_1d(np.asarray(phi, dtype=float))
    N, D = np.asarray(N, dtype=float), np.asarray(D, dtype=float)
    k, m, n = D.shape
    J_beta = (N[:, None, :] + mu * D).reshape(k * m, n)
    problem = qpsolvers.Problem(scipy.sparse.csc_matrix(M), -M @ v_minus,
                                scipy.sparse.csc_matrix(-J_beta), -np.repeat(phi / h, m))
    solution = qpsolvers.solve_problem(problem, solver="clarabel")
    return {"v_next": solution.x, "beta": solution.z.reshape(k, m)}
""",
    },
    {
        "name": "impulse-range-always-from-zero",
        "cell": "answer-impulse-range",
        "fails": "test-impulse-range",
        "what": "only the largest impulse computed, assuming every leg can always be unloaded "
                "(right only for a symmetric table)",
        "source": """\
def impulse_range(N, impulse, leg):
    N = np.asarray(N, dtype=float)
    cost = np.zeros(N.shape[0])
    cost[leg] = -1.0
    high = scipy.optimize.linprog(cost, A_eq=N.T, b_eq=impulse, bounds=(0, None))
    return 0.0, float(high.x[leg])
""",
    },
    {
        "name": "slide-without-gravity",
        "cell": "answer-slide",
        "fails": "test-slide",
        "what": "gravity left out of v_minus (tau = 0), so the mass is never pulled back down",
        "source": """\
def slide(h, mu, v0, steps):
    J = np.array([[[0.0, 1.0], [1.0, 0.0]]])
    q, v = np.zeros(2), np.array([v0, 0.0])
    z, v_x, v_z = [0.0], [v0], [0.0]
    for _ in range(steps):
        v = lib.timestepping.anitescu_step(np.eye(2), np.zeros(2), v, h, [q[1]], J, mu=mu).v_next
        q = q + h * v
        z.append(q[1])
        v_x.append(v[0])
        v_z.append(v[1])
    return {"z": np.array(z), "v_x": np.array(v_x), "v_z": np.array(v_z)}
""",
    },
    {
        "name": "separation-takes-the-highest-point",
        "cell": "answer-separation",
        "fails": "test-separation",
        "what": "the largest height over the run reported instead of the final one, so the launch hop of "
                "the first steps is measured instead of the sliding layer",
        "source": """\
def separation_table(hs, mus, v_t):
    J = np.array([[[0.0, 1.0], [1.0, 0.0]]])
    table = np.zeros((len(hs), len(mus)))
    for i, h in enumerate(hs):
        for j, mu in enumerate(mus):
            q, v, highest = np.zeros(2), np.array([v_t, 0.0]), 0.0
            for _ in range(round(2.0 / h)):
                v = lib.timestepping.anitescu_step(np.eye(2), [mu * G, -G], v, h, [q[1]], J, mu=mu).v_next
                q = q + h * v
                highest = max(highest, q[1])
            table[i, j] = highest
    return table
""",
    },
    {
        "name": "relaxed-without-impulse-regularization",
        "cell": "answer-relaxed",
        "fails": "test-relaxed",
        "what": "the factor (1 + eps) left out of the argmin's quadratic term, so the impulse is not "
                "regularized (right only for eps = 0)",
        "source": """\
def relaxed_cart_wall(m, h, q, v, u, b, eps, kappa):
    q, v, u = (np.asarray(x, dtype=float) for x in (q, v, u))
    v_minus = v + h / (m + b) * (u - b * v)
    v_star = v - 2 * h * (1 + eps) / kappa * v - h * (1 + eps) / kappa**2 * q
    impulse = np.maximum(0.0, (m + b) * (v_star - v_minus))
    v_next = v_minus + impulse / (m + b)
    return {"q_next": q + h * v_next, "v_next": v_next, "f": impulse / h}
""",
    },
]
