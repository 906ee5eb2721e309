"""Typical mistakes in homework 5, at least one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw05/hw05.ipynb), the test cell that must then lose its points
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
        "name": "disk-rolling-sign",
        "cell": "answer-disk",
        "fails": "test-disk",
        "what": "the rotation's contribution to the contact point's sliding velocity taken as -r thetadot "
                "(the top of the disk instead of the bottom)",
        "source": """\
def disk_contact(q, r, beta):
    x, y, _ = np.asarray(q, dtype=float)
    n = np.array([-np.sin(beta), np.cos(beta)])
    t = np.array([np.cos(beta), np.sin(beta)])
    return n @ np.array([x, y]) - r, np.array([[n[0], n[1], 0.0], [t[0], t[1], -r]])
""",
    },
    {
        "name": "coulomb-saturates-at-static",
        "cell": "answer-coulomb",
        "fails": "test-coulomb",
        "what": "past the static limit friction is clipped at mu_s f_n instead of dropping to mu_d f_n",
        "source": """\
def coulomb_friction(v_t, f_n, mu_s, mu_d, f_stick):
    v_t, f_n, f_stick = (np.asarray(x, dtype=float) for x in (v_t, f_n, f_stick))
    return np.where(v_t != 0, -mu_d * f_n * np.sign(v_t), np.clip(f_stick, -mu_s * f_n, mu_s * f_n))
""",
    },
    {
        "name": "mu-slope-without-half",
        "cell": "answer-mu",
        "fails": "test-mu",
        "what": "the falling segment written mu_s - (mu_s - mu_d)(s - 1), so it reaches mu_d at 2 v_s and "
                "undershoots it until 3 v_s",
        "source": """\
def friction_coefficient(v_t, mu_s, mu_d, v_s):
    v_t = np.asarray(v_t, dtype=float)
    s = np.abs(v_t) / v_s
    mu = np.where(s <= 1, mu_s * s, np.where(s <= 3, mu_s - (mu_s - mu_d) * (s - 1), mu_d))
    return np.sign(v_t) * mu
""",
    },
    {
        "name": "drop-damper-pulls",
        "cell": "answer-drop",
        "fails": "test-drop",
        "what": "the spring-damper force not clipped at zero, so the damper pulls the ball down as it leaves "
                "the ground",
        "message": "the ground can only push",
        "source": """\
def drop_ball(m, r, k, b, y0, t_final, dt):
    g = 9.81
    N = int(round(t_final / dt))
    t = dt * np.arange(N + 1)
    y, v, f_n = np.zeros(N + 1), np.zeros(N + 1), np.zeros(N + 1)
    y[0] = y0
    for i in range(N + 1):
        f_n[i] = -k * (y[i] - r) - b * v[i] if y[i] < r else 0.0
        if i < N:
            v[i + 1] = v[i] + dt * (-g + f_n[i] / m)
            y[i + 1] = y[i] + dt * v[i + 1]
    return {"t": t, "y": y, "v": v, "f_n": f_n}
""",
    },
    {
        "name": "drop-garbage-times",
        "cell": "answer-drop",
        "fails": "test-drop",
        "what": "the time array built as dt / k instead of k dt (the steps themselves are right)",
        "message": "t must hold the times k dt",
        "source": """\
def drop_ball(m, r, k, b, y0, t_final, dt):
    g = 9.81
    N = int(round(t_final / dt))
    t = dt / np.arange(1, N + 2)
    y, v, f_n = np.zeros(N + 1), np.zeros(N + 1), np.zeros(N + 1)
    y[0] = y0
    for i in range(N + 1):
        f_n[i] = max(0.0, -k * (y[i] - r) - b * v[i]) if y[i] < r else 0.0
        if i < N:
            v[i + 1] = v[i] + dt * (-g + f_n[i] / m)
            y[i + 1] = y[i] + dt * v[i + 1]
    return {"t": t, "y": y, "v": v, "f_n": f_n}
""",
    },
]
