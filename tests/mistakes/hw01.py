"""Typical mistakes in homework 1, one for each autograded part.

Each entry gives the answer cell it replaces (``cell``, a grade_id of
exercises/hw01/hw01.ipynb), the test cell that must then lose its points
(``fails``), what the mistake is (``what``), and the replacement source.
tests/test_homework.py builds one submission per entry, the reference solution
with that single cell replaced, grades them with nbgrader, and checks that each
loses exactly the points of ``fails`` and keeps all the others.

Several of these pass the visible tests and are caught only by the hidden
ones, which is why the hidden tests exist.
"""

MISTAKES = [
    {
        "name": "cartpole-no-cross-term",
        "cell": "answer-cartpole-energy",
        "fails": "test-cartpole-energy",
        "what": "the bob's speed squared taken as xd**2 + (l*thetad)**2, forgetting the cross term "
                "2*l*cos(theta)*xd*thetad",
        "message": "look at the cross term",
        "source": """\
T_cartpole = (m_c + m_p) * xd**2 / 2 + m_p * l**2 * thetad**2 / 2
U_cartpole = -m_p * g * l * sp.cos(theta)
""",
    },
    {
        "name": "cartpole-wind-only-turns-pole",
        "cell": "answer-cartpole-forces",
        "fails": "test-cartpole-forces",
        "what": "the force F on the bob counted only as a torque on theta, not as a push along x",
        "source": """\
Q_cartpole = sp.Matrix([f - b * xd, F * l * sp.cos(theta)])
""",
    },
    {
        "name": "mass-matrix-missing-factor-2",
        "cell": "answer-mass-matrix",
        "fails": "test-mass-matrix",
        "what": "the factor 2 forgotten in the 2*m2*l1*l2*c2 term of M[0,0]",
        "source": """\
def mass_matrix(q, m1, m2, l1, l2):
    c2 = np.cos(q[1])
    corner = m2 * l2**2 + m2 * l1 * l2 * c2
    return np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + m2 * l1 * l2 * c2, corner],
                     [corner, m2 * l2**2]])
""",
    },
    {
        "name": "acceleration-times-M",
        "cell": "answer-acceleration",
        "fails": "test-acceleration",
        "what": "multiplying the forces by M instead of solving with M (M instead of M^-1)",
        "message": "you multiplied the forces by M",
        "source": """\
def acceleration(M, C, tau_g, B, v, u):
    return M @ (tau_g + B @ u - C @ v)
""",
    },
    {
        "name": "energy-gravity-sign",
        "cell": "answer-energy",
        "fails": "test-energy",
        "what": "the sign of the potential energy flipped (y measured downwards)",
        "source": """\
def double_pendulum_energy(q, v, m1, m2, l1, l2, g=9.81):
    q, v = np.asarray(q), np.asarray(v)
    w1, w12 = v[:, 0], v[:, 0] + v[:, 1]
    T = 0.5 * (m1 + m2) * l1**2 * w1**2 + 0.5 * m2 * l2**2 * w12**2 + m2 * l1 * l2 * w1 * w12 * np.cos(q[:, 1])
    U = (m1 + m2) * g * l1 * np.cos(q[:, 0]) + m2 * g * l2 * np.cos(q[:, 0] + q[:, 1])
    return T + U
""",
    },
    {
        "name": "motor-side-friction-over-n_r",
        "cell": "answer-motor-side",
        "fails": "test-motor-side",
        "what": "the link friction divided by n_r instead of n_r**2",
        "source": """\
def motor_side_coefficients(I, m, d, n_r, b_l, b_m, l, g0=9.81):
    return {"inertia": I / n_r**2, "gravity": m * g0 * d / n_r, "friction": b_l / n_r + b_m, "lever": l / n_r}
""",
    },
    {
        "name": "cartpole-cross-term-sign",
        "cell": "answer-cartpole-energy",
        "fails": "test-cartpole-energy",
        "what": "a sign error in the bob's velocity: d/dt (x + l sin(theta)) written xd - l cos(theta) thetad, "
                "which flips the sign of the cross term",
        "message": "look at the cross term in xd*thetad",
        "source": """\
p_bob = sp.Matrix([x + l * sp.sin(theta), -l * sp.cos(theta)])
pd_bob = sp.Matrix([xd - l * sp.cos(theta) * thetad, l * sp.sin(theta) * thetad])
T_cartpole = sp.Rational(1, 2) * m_c * xd**2 + sp.Rational(1, 2) * m_p * pd_bob.dot(pd_bob)
U_cartpole = m_p * g * p_bob[1]
""",
    },
    {
        "name": "cartpole-wind-lever-sin",
        "cell": "answer-cartpole-forces",
        "fails": "test-cartpole-forces",
        "what": "the lever arm of F taken as l*sin(theta) instead of l*cos(theta)",
        "message": "there Q_theta = F*l",
        "source": """\
Q_cartpole = sp.Matrix([f - b * xd + F, F * l * sp.sin(theta)])
""",
    },
    {
        "name": "cartpole-wind-lever-constant",
        "cell": "answer-cartpole-forces",
        "fails": "test-cartpole-forces",
        "what": "the lever arm of F taken as l whatever the angle; right only with the pole hanging, where the "
                "visible tests look",
        "visible": False,
        "message": "F times its lever arm",
        "source": """\
Q_cartpole = sp.Matrix([f - b * xd + F, F * l])
""",
    },
    {
        "name": "mass-matrix-wrong-angle",
        "cell": "answer-mass-matrix",
        "fails": "test-mass-matrix",
        "what": "cos(q[0]) for cos(q[1]): the elbow term taken with the shoulder angle",
        "message": "M must not depend on q1",
        "source": """\
def mass_matrix(q, m1, m2, l1, l2):
    c2 = np.cos(q[0])
    corner = m2 * l2**2 + m2 * l1 * l2 * c2
    return np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, corner],
                     [corner, m2 * l2**2]])
""",
    },
    {
        "name": "mass-matrix-list",
        "cell": "answer-mass-matrix",
        "fails": "test-mass-matrix",
        "what": "M returned as a list of lists instead of a numpy array",
        "message": "must return a numpy array",
        "source": """\
def mass_matrix(q, m1, m2, l1, l2):
    c2 = np.cos(q[1])
    corner = m2 * l2**2 + m2 * l1 * l2 * c2
    return [[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, corner], [corner, m2 * l2**2]]
""",
    },
    {
        "name": "energy-rows-for-columns",
        "cell": "answer-energy",
        "fails": "test-energy",
        "what": "q[0], q[1] (the first two rows, two states) for q[:, 0], q[:, 1] (the two angles at every time)",
        "message": "q[:, 0] is the column of the first angle",
        "source": """\
def double_pendulum_energy(q, v, m1, m2, l1, l2, g=9.81):
    q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
    c1, c2, c12 = np.cos(q[0]), np.cos(q[1]), np.cos(q[0] + q[1])
    w1, w12 = v[0], v[0] + v[1]
    T = 0.5 * (m1 + m2) * l1**2 * w1**2 + 0.5 * m2 * l2**2 * w12**2 + m2 * l1 * l2 * w1 * w12 * c2
    U = -(m1 + m2) * g * l1 * c1 - m2 * g * l2 * c12
    return T + U
""",
    },
    {
        "name": "energy-missing-half",
        "cell": "answer-energy",
        "fails": "test-energy",
        "what": "the 1/2 left out of the first term of the kinetic energy",
        "message": "check each factor 1/2",
        "source": """\
def double_pendulum_energy(q, v, m1, m2, l1, l2, g=9.81):
    q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
    c1, c2, c12 = np.cos(q[:, 0]), np.cos(q[:, 1]), np.cos(q[:, 0] + q[:, 1])
    w1, w12 = v[:, 0], v[:, 0] + v[:, 1]
    T = (m1 + m2) * l1**2 * w1**2 + 0.5 * m2 * l2**2 * w12**2 + m2 * l1 * l2 * w1 * w12 * c2
    U = -(m1 + m2) * g * l1 * c1 - m2 * g * l2 * c12
    return T + U
""",
    },
    {
        "name": "motor-side-lever-times-n_r",
        "cell": "answer-motor-side",
        "fails": "test-motor-side",
        "what": "the lever multiplied by n_r instead of divided by it",
        "message": "the load term",
        "source": """\
def motor_side_coefficients(I, m, d, n_r, b_l, b_m, l, g0=9.81):
    return {"inertia": I / n_r**2, "gravity": m * g0 * d / n_r, "friction": b_l / n_r**2 + b_m, "lever": l * n_r}
""",
    },
    {
        "name": "mass-matrix-corner-without-m2-l2-squared",
        "cell": "answer-mass-matrix",
        "fails": "test-mass-matrix",
        "what": "the off-diagonal entry written m2 l1 l2 c2 alone, the elbow's own m2 l2^2 forgotten",
        "message": "along the same line, so the coupling M[0,1] = m2*l2*(l1 + l2)",
        "source": """\
def mass_matrix(q, m1, m2, l1, l2):
    c2 = np.cos(q[1])
    corner = m2 * l1 * l2 * c2
    return np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, corner],
                     [corner, m2 * l2**2]])
""",
    },
]
