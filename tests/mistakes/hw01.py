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
                "2*l*cos(theta)*xd*thetad (passes the visible tests)",
        "source": """\
T_cartpole = (m_c + m_p) * xd**2 / 2 + m_p * l**2 * thetad**2 / 2
U_cartpole = -m_p * g * l * sp.cos(theta)
""",
    },
    {
        "name": "cartpole-wind-only-turns-pole",
        "cell": "answer-cartpole-forces",
        "fails": "test-cartpole-forces",
        "what": "the force F on the bob counted only as a torque on theta, not as a push along x "
                "(passes the visible tests)",
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
        "what": "the link friction divided by n_r instead of n_r**2 (passes the visible tests)",
        "source": """\
def motor_side_coefficients(I, m, d, n_r, b_l, b_m, l, g0=9.81):
    return {"inertia": I / n_r**2, "gravity": m * g0 * d / n_r, "friction": b_l / n_r + b_m, "lever": l / n_r}
""",
    },
]
