"""Typical mistakes in homework 9, at least one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw09/hw09.ipynb), the test cell that must then lose its points
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
        "name": "defects-midpoint-is-plain-average",
        "cell": "answer-defects",
        "fails": "test-defects",
        "what": "the state at the collocation point taken as the plain average of x[n] and x[n+1], "
                "the (h/8)(f(x[n]) - f(x[n+1])) correction of the Hermite cubic forgotten",
        "source": """\
def hermite_simpson_defects(X, h, g, l):
    X = np.asarray(X, dtype=float)

    def f(Y):
        return np.column_stack([Y[:, 1], g / l * np.sin(Y[:, 0])])

    F = f(X)
    x_mid = 0.5 * (X[:-1] + X[1:])
    xdot_mid = 1.5 / h * (X[1:] - X[:-1]) - 0.25 * (F[:-1] + F[1:])
    return xdot_mid - f(x_mid)
""",
    },
    {
        "name": "periodicity-cos-alpha",
        "cell": "answer-periodicity",
        "fails": "test-periodicity",
        "what": "the collision factor written cos(alpha) instead of cos(2 alpha) (the spokes are 2 alpha apart)",
        "source": """\
def periodicity_residuals(X, alpha, gamma):
    X = np.asarray(X, dtype=float)
    return np.array([X[0, 0] - (gamma - alpha),
                     X[-1, 0] - (gamma + alpha),
                     X[0, 1] - X[-1, 1] * np.cos(alpha)])
""",
    },
    {
        "name": "limit-cycle-returns-duration",
        "cell": "answer-limit-cycle",
        "fails": "test-limit-cycle",
        "what": "the step's duration N h returned under the key 'h' instead of the time step h",
        "source": """\
def rimless_wheel_limit_cycle(alpha, gamma, g=9.81, l=1.0, N=20, h_min=0.01, h_max=0.1):
    def unpack(z):
        return z[0], z[1:].reshape(N + 1, 2)

    def stance(Y):
        return np.column_stack([Y[:, 1], g / l * np.sin(Y[:, 0])])

    def equalities(z):
        h, X = unpack(z)
        collision = [X[0, 0] - (gamma - alpha), X[-1, 0] - (gamma + alpha),
                     X[0, 1] - X[-1, 1] * np.cos(2 * alpha)]
        return np.concatenate([trajopt.hermite_simpson_defects(stance, X, h).ravel(), collision])

    def no_contact(z):
        _, X = unpack(z)
        return np.concatenate([X[:, 0] - (gamma - alpha), (gamma + alpha) - X[:, 0]])

    h0 = 0.5 * (h_min + h_max)
    guess = np.column_stack([np.linspace(gamma - alpha, gamma + alpha, N + 1),
                             np.full(N + 1, 2 * alpha / (N * h0))])
    z0 = np.concatenate([[h0], guess.ravel()])
    bounds = [(h_min, h_max)] + [(None, None)] * (2 * (N + 1))
    solution = minimize(lambda z: 0.0, z0, jac=lambda z: np.zeros_like(z), method="SLSQP", bounds=bounds,
                        constraints=[{"type": "eq", "fun": equalities}, {"type": "ineq", "fun": no_contact}],
                        options={"ftol": 1e-12, "maxiter": 200})
    h, X = unpack(solution.x)
    return {"X": X, "h": float(N * h)}
""",
    },
    {
        "name": "step-forgets-spoke-length",
        "cell": "answer-step",
        "fails": "test-step",
        "what": "the stance dynamics written theta'' = g sin(theta), the spoke length l forgotten "
                "(right only for l = 1)",
        "source": """\
def step_by_simulation(omega, alpha, gamma, g=9.81, l=1.0):
    def stance(t, x):
        return [x[1], g * np.sin(x[0])]

    def touchdown(t, x):
        return x[0] - (gamma + alpha)

    touchdown.terminal, touchdown.direction = True, 1
    run = solve_ivp(stance, (0.0, 10.0), [gamma - alpha, omega], events=touchdown, rtol=1e-10, atol=1e-12)
    before = run.y_events[0][0]
    return {"omega_next": float(np.cos(2 * alpha) * before[1]), "T": float(run.t_events[0][0])}
""",
    },
]
