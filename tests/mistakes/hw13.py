"""Typical mistakes in homework 13, one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw13/hw13.ipynb), the test cell that must then lose its points
(``fails``), what the mistake is (``what``), and the replacement source.
tests/test_homework.py grades the reference with that single cell replaced and
checks that exactly the points of ``fails`` are lost.
"""

MISTAKES = [
    {
        "name": "lemke-start-largest-q",
        "cell": "answer-lemke-start",
        "fails": "test-lemke-start",
        "what": "the row of the largest |q_i| taken, which is not always the most negative q_i "
                "(z0 = that value leaves another w_i negative)",
        "source": """\
def lemke_start(M, q):
    q = np.asarray(q, dtype=float)
    r = int(np.argmax(np.abs(q)))
    return {"z0": float(-q[r]), "leaving": r}
""",
    },
    {
        "name": "lemke-ratio-test-any-sign",
        "cell": "answer-lemke",
        "fails": "test-lemke",
        "what": "the ratio test taken over every row with a nonzero entry, negative ones included: a negative "
                "ratio then wins and a basic variable turns negative",
        "source": """\
def lemke_solve(M, q, max_iter=100):
    M, q = np.asarray(M, dtype=float), np.asarray(q, dtype=float)
    n = len(q)
    if q.min() >= 0:
        return np.zeros(n)
    T = np.hstack([np.eye(n), -M, -np.ones((n, 1)), q[:, None]])
    basis = list(range(n))
    z0 = 2 * n

    def pivot(row, col):
        T[row] /= T[row, col]
        for i in range(n):
            if i != row:
                T[i] -= T[i, col] * T[row]
        leaving = basis[row]
        basis[row] = col
        return leaving

    leaving = pivot(int(np.argmin(q)), z0)
    for _ in range(max_iter):
        entering = leaving + n if leaving < n else leaving - n
        column = T[:, entering]
        rows = [i for i in range(n) if abs(column[i]) > 1e-12]
        if not rows:
            return None
        row = min(rows, key=lambda i: T[i, -1] / column[i])
        leaving = pivot(row, entering)
        if leaving == z0:
            z = np.zeros(n)
            for i, var in enumerate(basis):
                if n <= var < 2 * n:
                    z[var - n] = T[i, -1]
            return z
    return None
""",
    },
    {
        "name": "stewart-trinkle-without-phi",
        "cell": "answer-stewart-trinkle",
        "fails": "test-stewart-trinkle",
        "what": "the gap phi/h left out of the normal row: a mass above the ground is then stopped as if it "
                "touched it",
        "source": """\
def stewart_trinkle_step(m, h, v, phi, mu, k, g=9.81):
    v = np.asarray(v, dtype=float)
    v_minus = v + h * np.array([0.0, 0.0, -g])
    theta = 2 * np.pi * np.arange(k) / k
    D = np.column_stack([np.cos(theta), np.sin(theta), np.zeros(k)])
    A = np.zeros((k + 2, k + 2))
    A[0, 0] = 1.0 / m
    A[1:k + 1, 1:k + 1] = D @ D.T / m
    A[1:k + 1, k + 1] = 1.0
    A[k + 1, 0] = mu
    A[k + 1, 1:k + 1] = -1.0
    b = np.concatenate([[v_minus[2]], D @ v_minus, [0.0]])
    result = lcp.lemke(A, b)
    lam_n, beta = result.z[0], result.z[1:k + 1]
    return {"v_next": v_minus + (np.array([0.0, 0.0, lam_n]) + D.T @ beta) / m, "lam_n": float(lam_n), "beta": beta}
""",
    },
    {
        "name": "anitescu-dual-without-v-minus",
        "cell": "answer-anitescu",
        "fails": "test-anitescu",
        "what": "the dual's linear term written phi/h alone, as the notes print it, without J_beta v-: right only "
                "when the contact-free velocity is zero",
        "source": """\
def anitescu_dual(M, tau, v, h, phi, J, mu):
    M, tau, v, phi, J = (np.asarray(x, dtype=float) for x in (M, tau, v, phi, J))
    v_minus = v + h * np.linalg.solve(M, tau)
    rows, offsets = [], []
    for c in range(len(phi)):
        for sign in (1.0, -1.0):
            rows.append(J[c, 0] + sign * mu * J[c, 1])
            offsets.append(phi[c] / h)
    Jb = np.array(rows)
    W = Jb @ np.linalg.solve(M, Jb.T)
    beta = lcp.lemke(W, np.array(offsets)).z
    return {"v_next": v_minus + np.linalg.solve(M, Jb.T @ beta), "beta": beta}
""",
    },
    {
        "name": "cone-projection-unit-mu",
        "cell": "answer-cone",
        "fails": "test-cone",
        "what": "the projection onto the standard second-order cone (mu = 1) used for every mu",
        "source": """\
def project_cone(f, mu):
    f = np.asarray(f, dtype=float)
    fn, ft = f[0], f[1:]
    s = np.linalg.norm(ft)
    if s <= fn:
        return f.copy()
    if s <= -fn:
        return np.zeros_like(f)
    alpha = (fn + s) / 2
    return np.concatenate([[alpha], alpha * ft / s])
""",
    },
    {
        "name": "hopper-stance-half-period",
        "cell": "answer-hopper",
        "fails": "test-hopper",
        "what": "the stance taken as half a period of the spring, pi / omega, forgetting that gravity moves "
                "its rest point below l0",
        "source": """\
def hopper_times(m, k, l0, H, g=9.81):
    v = np.sqrt(2 * g * (H - l0))
    return {"flight": float(2 * v / g), "stance": float(np.pi / np.sqrt(k / m))}
""",
    },
    {
        "name": "action-lagrangian-T-plus-U",
        "cell": "answer-action-inputs",
        "fails": "test-action-inputs",
        "what": "the Lagrangian taken as the energy T + U instead of T - U",
        "source": """\
def action_with_inputs(t, q, v, u, dq, dq_dot, m, l, g=9.81):
    t, q, v, u, dq, dq_dot = (np.asarray(x, dtype=float) for x in (t, q, v, u, dq, dq_dot))
    eps = 1e-4

    def action(path, rate):
        L = 0.5 * m * l**2 * rate**2 - m * g * l * np.cos(path)
        return np.sum(0.5 * (L[1:] + L[:-1]) * np.diff(t))

    dA = (action(q + eps * dq, v + eps * dq_dot) - action(q - eps * dq, v - eps * dq_dot)) / (2 * eps)
    f = u * dq
    return {"dA": float(dA), "work": float(np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(t)))}
""",
    },
    {
        "name": "cone-projection-returns-list",
        "cell": "answer-cone",
        "fails": "test-cone",
        "what": "the projection returned as a Python list: the answer must be a numpy array",
        "message": "the projection must be a numpy array; yours is a list",
        "source": """\
def project_cone(f, mu):
    f = np.asarray(f, dtype=float)
    fn, ft = f[0], f[1:]
    s = np.linalg.norm(ft)
    if s <= mu * fn:
        return f.tolist()
    if mu * s <= -fn:
        return [0.0, 0.0, 0.0]
    alpha = (fn + mu * s) / (1 + mu**2)
    return [alpha, *(mu * alpha * ft / s)]
""",
    },
]
