"""Typical mistakes in homework 12, one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw12/hw12.ipynb), the test cell that must then lose its points
(``fails``), what the mistake is (``what``), and the replacement source.
tests/test_homework.py grades the reference with that single cell replaced and
checks that exactly the points of ``fails`` are lost.
"""

MISTAKES = [
    {
        "name": "closure-rate-not-squared",
        "cell": "answer-closure",
        "fails": "test-closure",
        "what": "Hdot qdot written with thetadot instead of thetadot^2 (d/dt of cos(theta) is -sin(theta) thetadot, "
                "and it multiplies qdot once more)",
        "source": """\
def fourbar_closure(q, v, l1, l2, l3, d):
    q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
    l = np.array([l1, l2, l3], dtype=float)
    c, s = np.cos(q), np.sin(q)
    return {"h": np.array([l @ c - d, l @ s]), "H": np.array([-l * s, l * c]),
            "Hdot_v": np.array([-(l * c) @ v, -(l * s) @ v])}
""",
    },
    {
        "name": "driven-without-Hdot-qdot",
        "cell": "answer-driven",
        "fails": "test-driven",
        "what": "b taken as zero, as if the loop were at rest: the pin force then misses the centripetal part "
                "and the loop opens under the computed accelerations",
        "source": """\
def driven_fourbar(M, tau, q, v, l1, l2, l3, d):
    M, tau, q = (np.asarray(x, dtype=float) for x in (M, tau, q))
    l = np.array([l1, l2, l3], dtype=float)
    A = np.vstack([-l * np.sin(q), l * np.cos(q), [1.0, 0.0, 0.0]])
    Minv_AT = np.linalg.solve(M, A.T)
    lam = -np.linalg.pinv(A @ Minv_AT) @ (A @ np.linalg.solve(M, tau))
    qdd = np.linalg.solve(M, tau + A.T @ lam)
    return {"lam": lam, "qdd": qdd, "torque": float(lam[2])}
""",
    },
    {
        "name": "velocity-stabilization-sign",
        "cell": "answer-velocity",
        "fails": "test-velocity",
        "what": "the stabilization entered as -alpha h_v: the speed error then grows like exp(alpha t) instead "
                "of decaying",
        "source": """\
def velocity_multiplier(M, tau, A, b_v, h_v, alpha):
    M, tau, A, b_v, h_v = (np.asarray(x, dtype=float) for x in (M, tau, A, b_v, h_v))
    A = A.reshape(-1, M.shape[0])
    Minv = np.linalg.inv(M)
    return -np.linalg.pinv(A @ Minv @ A.T) @ (A @ Minv @ tau + b_v - alpha * h_v)
""",
    },
    {
        "name": "least-constraint-force-sign",
        "cell": "answer-least-constraint",
        "fails": "test-least-constraint",
        "what": "the KKT matrix written [[M, J^T], [J, 0]]: the accelerations come out right, the contact force "
                "with the wrong sign (the ground would pull the foot down)",
        "source": """\
def least_constraint(M, free_rhs, J, hessian_term):
    M, free_rhs, J, hessian_term = (np.asarray(x, dtype=float) for x in (M, free_rhs, J, hessian_term))
    n, k = M.shape[0], J.shape[0]
    qdd_free = np.linalg.solve(M, free_rhs)
    K = np.block([[M, J.T], [J, np.zeros((k, k))]])
    solution = np.linalg.solve(K, np.concatenate([M @ qdd_free, -hessian_term]))
    return {"qdd_free": qdd_free, "qdd": solution[:n], "f": solution[n:]}
""",
    },
    {
        "name": "impact-cone-without-restitution",
        "cell": "answer-impact",
        "fails": "test-impact",
        "what": "the friction bound taken as mu times the impulse that only stops the normal motion, "
                "-w_n / A_nn, instead of mu times the whole normal impulse (1 + e)(-w_n / A_nn)",
        "source": """\
def coulomb_ball_impact(M, J, v_minus, e, mu):
    M, J, v_minus = (np.asarray(x, dtype=float) for x in (M, J, v_minus))
    A = J @ np.linalg.solve(M, J.T)
    w = J @ v_minus
    Lam_n = -(1 + e) * w[0] / A[0, 0]
    bound = mu * (-w[0] / A[0, 0])
    Lam_t = -w[1] / A[1, 1]
    sticking = abs(Lam_t) <= bound
    if not sticking:
        Lam_t = -bound * np.sign(w[1])
    impulse = np.array([Lam_n, Lam_t])
    return {"v_plus": v_minus + np.linalg.solve(M, J.T @ impulse), "impulse": impulse, "sticking": bool(sticking)}
""",
    },
    {
        "name": "hump-force-full-weight",
        "cell": "answer-hump-force",
        "fails": "test-hump-force",
        "what": "the whole weight m g taken as pressing on the hump, instead of its normal part m g cos(theta) "
                "(right only at the top)",
        "source": """\
def hump_normal_force(q, v, m, g, R):
    v = np.asarray(v, dtype=float)
    return float(m * g - m * (v @ v) / R)
""",
    },
    {
        "name": "leave-hump-guard-without-cos",
        "cell": "answer-leave-hump",
        "fails": "test-leave-hump",
        "what": "the guard written g - R thetadot^2, the force balance at the top of the hump, used all along it",
        "source": """\
def leave_hump(v0, R, g=9.81):
    def rhs(t, x):
        return [x[1], g / R * np.sin(x[0])]

    def liftoff(t, x):
        return g - R * x[1] ** 2

    liftoff.terminal, liftoff.direction = True, -1
    sol = solve_ivp(rhs, (0.0, 100.0), [0.0, v0 / R], events=liftoff, rtol=1e-12, atol=1e-12)
    t, (theta, rate) = sol.t_events[0][0], sol.y_events[0][0]
    return {"t": float(t), "theta": float(theta), "speed": float(R * rate)}
""",
    },
    {
        "name": "velocity-multiplier-without-b_v",
        "cell": "answer-velocity",
        "fails": "test-velocity",
        "what": "b_v left out of the bracket: right for a drive, whose h_v does not depend on q, wrong for a "
                "constraint whose h_v does",
        "message": "b_v and alpha h_v both belong in the bracket",
        "source": """\
def velocity_multiplier(M, tau, A, b_v, h_v, alpha):
    M, tau, A, b_v, h_v = (np.asarray(x, dtype=float) for x in (M, tau, A, b_v, h_v))
    A = A.reshape(-1, M.shape[0])
    Minv = np.linalg.inv(M)
    return -np.linalg.pinv(A @ Minv @ A.T) @ (A @ Minv @ tau + alpha * h_v)
""",
    },
]
