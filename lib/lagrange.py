"""Lagrange's equations with sympy, and the manipulator form they take.

For a Lagrangian L(q, q̇) = T − U and generalized forces τ, Lagrange's
equations (notes 000, "Deriving the equations of motion"; notes 003) are

    d/dt ∂L/∂q̇_i − ∂L/∂q_i = τ_i,   i = 1 … n.

Positions, velocities and accelerations are plain sympy symbols here; the
time derivative is taken by the chain rule,
d/dt f(q, q̇) = Σ_j ∂f/∂q_j q̇_j + ∂f/∂q̇_j q̈_j, which is all a reader needs.

When T = ½ q̇ᵀ M(q) q̇ the equations take the manipulator form

    M(q) q̈ + C(q, q̇) q̇ = tau_g(q) + τ,

with M the Hessian of T in q̇, tau_g = −∂U/∂q and C built from the
Christoffel symbols of the first kind (notes 003):

    C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) q̇_k.

Introduced in: chapter 1 (Christoffel symbols are discussed in chapter 3).
"""

from dataclasses import dataclass

import numpy as np
import sympy as sp

from . import checks
from .system import ManipulatorSystem


def time_derivative(expr, q, qd, qdd):
    """d/dt of an expression in (q, q̇), by the chain rule.

    >>> x, xd, xdd = sp.symbols("x xd xdd")
    >>> time_derivative(x**2 * xd, [x], [xd], [xdd])
    x**2*xdd + 2*x*xd**2
    """
    return sum(sp.diff(expr, qi) * qdi + sp.diff(expr, qdi) * qddi for qi, qdi, qddi in zip(q, qd, qdd))


def lagrange_equations(L, q, qd, qdd):
    """The left-hand sides d/dt ∂L/∂q̇_i − ∂L/∂q_i, as a sympy column Matrix.

    Setting them equal to the generalized forces τ_i gives the equations of motion.

    >>> x, xd, xdd, m, k = sp.symbols("x xd xdd m k")
    >>> lagrange_equations(m * xd**2 / 2 - k * x**2 / 2, [x], [xd], [xdd])
    Matrix([[k*x + m*xdd]])
    """
    q, qd, qdd = list(q), list(qd), list(qdd)
    if not (len(q) == len(qd) == len(qdd)):
        raise ValueError(f"q, qd and qdd must have the same length, got {len(q)}, {len(qd)}, {len(qdd)}")
    return sp.Matrix([sp.expand(time_derivative(sp.diff(L, qdi), q, qd, qdd) - sp.diff(L, qi))
                      for qi, qdi in zip(q, qd)])


def christoffel_coriolis(M, q, qd):
    """The Coriolis matrix C(q, q̇) built from the Christoffel symbols of the first kind.

        C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) q̇_k

    >>> a, ad = sp.symbols("a ad")
    >>> christoffel_coriolis(sp.Matrix([[a**2]]), [a], [ad])
    Matrix([[a*ad]])
    """
    n = len(q)
    C = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            C[i, j] = sp.simplify(sum(
                sp.Rational(1, 2) * (sp.diff(M[i, j], q[k]) + sp.diff(M[i, k], q[j]) - sp.diff(M[j, k], q[i])) * qd[k]
                for k in range(n)))
    return C


@dataclass(frozen=True)
class ManipulatorForm:
    """Symbolic M(q), C(q, q̇), tau_g(q) (sympy Matrices) in the symbols q, qd.

    >>> th, thd = sp.symbols("theta thetad")
    >>> form = manipulator_form(thd**2 / 2, -9.81 * sp.cos(th), [th], [thd])
    >>> form.M, form.C, form.q
    (Matrix([[1]]), Matrix([[0]]), (theta,))
    """

    M: sp.Matrix
    C: sp.Matrix
    tau_g: sp.Matrix
    q: tuple
    qd: tuple


def manipulator_form(T, U, q, qd):
    """Read M, C (Christoffel) and tau_g off the kinetic and potential energies.

    M = ∂²T/∂q̇², tau_g = −∂U/∂q, C from :func:`christoffel_coriolis`.

    >>> th, thd, m, l, g = sp.symbols("theta thetad m l g", positive=True)
    >>> f = manipulator_form(m * l**2 * thd**2 / 2, -m * g * l * sp.cos(th), [th], [thd])
    >>> f.M, f.tau_g
    (Matrix([[l**2*m]]), Matrix([[-g*l*m*sin(theta)]]))
    """
    q, qd = tuple(q), tuple(qd)
    M = sp.simplify(sp.hessian(T, qd))
    tau_g = sp.Matrix([-sp.diff(U, qi) for qi in q])
    return ManipulatorForm(M, christoffel_coriolis(M, q, qd), tau_g, q, qd)


class SymbolicSystem(ManipulatorSystem):
    """A numeric system in the common protocol, compiled from a :class:`ManipulatorForm`.

    ``params`` maps the remaining sympy symbols (masses, lengths, g) to numbers;
    ``B`` is the input matrix (identity by default). The energies are compiled
    from T and U when given.

    >>> th, thd = sp.symbols("theta thetad")
    >>> T, U = 2 * thd**2 / 2, -2 * 9.81 * sp.cos(th)
    >>> sys = SymbolicSystem(manipulator_form(T, U, [th], [thd]), T=T, U=U)
    >>> round(float(sys.forward_dynamics([np.pi / 2], [0.0])[0]), 3)
    -9.81
    """

    def __init__(self, form, params=None, B=None, T=None, U=None):
        params = dict(params or {})
        self.n = len(form.q)
        args = (list(form.q), list(form.qd))
        subs = lambda e: sp.sympify(e).subs(params)  # noqa: E731
        leftover = set().union(*(subs(e).free_symbols for e in (form.M, form.C, form.tau_g))) - set(form.q) - set(form.qd)
        if leftover:
            raise ValueError(f"params must give a value to every parameter; missing {sorted(map(str, leftover))}")
        self._M = sp.lambdify(args, subs(form.M), "numpy")
        self._C = sp.lambdify(args, subs(form.C), "numpy")
        self._tau_g = sp.lambdify(args, subs(form.tau_g), "numpy")
        self._T = sp.lambdify(args, subs(T), "numpy") if T is not None else None
        self._U = sp.lambdify(args, subs(U), "numpy") if U is not None else None
        self._B = np.eye(self.n) if B is None else np.atleast_2d(np.asarray(B, dtype=float))
        if self._B.shape[0] != self.n:
            raise ValueError(f"B must have {self.n} rows, got shape {self._B.shape}")

    def _eval(self, f, q, v):
        return np.array(f(list(q), list(v)), dtype=float)

    def mass_matrix(self, q):
        q = checks.vector("q", q, self.n)
        return self._eval(self._M, q, np.zeros(self.n))

    def coriolis_matrix(self, q, v):
        q, v = self.check_state(q, v)
        return self._eval(self._C, q, v)

    def gravity_vector(self, q):
        q = checks.vector("q", q, self.n)
        return self._eval(self._tau_g, q, np.zeros(self.n)).reshape(self.n)

    def input_matrix(self):
        return self._B

    def kinetic_energy(self, q, v):
        q, v = self.check_state(q, v)
        if self._T is None:
            return super().kinetic_energy(q, v)
        return float(self._T(list(q), list(v)))

    def potential_energy(self, q):
        if self._U is None:
            raise ValueError("this system was built without U; pass U= to SymbolicSystem")
        q = checks.vector("q", q, self.n)
        return float(self._U(list(q), [0.0] * self.n))


# --- chapter 3: Christoffel symbols, factorizations of C, structural checks ---
def christoffel_symbols(M, q):
    """The Christoffel symbols of the first kind of M(q), as a nested list c[k][i][j].

        c_kij = ½ (∂m_kj/∂q_i + ∂m_ki/∂q_j − ∂m_ij/∂q_k),   c_kij = c_kji     (notes 003)

    The k-th Coriolis and centrifugal force is c_k = Σ_ij c_kij q̇_i q̇_j; the
    symbols are not simplified, so this stays fast for long chains.

    >>> a, b = sp.symbols("a b")
    >>> christoffel_symbols(sp.Matrix([[1, 0], [0, a**2]]), [a, b])[0][0][0]
    0

    Introduced in: chapter 3.
    """
    n = len(q)
    dM = [M.diff(qk) for qk in q]  # dM[i][k, j] = ∂m_kj/∂q_i
    return [[[sp.Rational(1, 2) * (dM[i][k, j] + dM[j][k, i] - dM[k][i, j]) for j in range(n)]
             for i in range(n)] for k in range(n)]


def coriolis_from_christoffel(c, qd):
    """The factorization matrix S(q, q̇) with s_kj = Σ_i c_kij q̇_i (notes 003), so that S q̇ = c(q, q̇).

    >>> a, ad = sp.symbols("a ad")
    >>> coriolis_from_christoffel(christoffel_symbols(sp.Matrix([[a**2]]), [a]), [ad])
    Matrix([[a*ad]])

    Introduced in: chapter 3.
    """
    n = len(qd)
    return sp.Matrix(n, n, lambda k, j: sum(c[k][i][j] * qd[i] for i in range(n)))


def manipulator_form_fast(T, U, q, qd):
    """Like :func:`manipulator_form`, without simplification: fast for long chains.

    M = ∂²T/∂q̇², tau_g = −∂U/∂q, C from :func:`christoffel_symbols`. The
    entries are equal to those of :func:`manipulator_form` but may be written
    out at greater length; simplification of every entry is what makes the
    symbolic derivation slow as the number of links grows (chapter 3 times it).

    >>> th, thd = sp.symbols("theta thetad")
    >>> manipulator_form_fast(thd**2 / 2, -sp.cos(th), [th], [thd]).tau_g
    Matrix([[-sin(theta)]])

    Introduced in: chapter 3.
    """
    q, qd = tuple(q), tuple(qd)
    if len(q) != len(qd):
        raise ValueError(f"q and qd must have the same length, got {len(q)} and {len(qd)}")
    M = sp.hessian(T, qd)
    tau_g = sp.Matrix([-sp.diff(U, qi) for qi in q])
    C = coriolis_from_christoffel(christoffel_symbols(M, q), qd)
    return ManipulatorForm(M, C, tau_g, q, qd)


def asada_coriolis(M, q, qd):
    """Another valid factorization of the Coriolis and centrifugal forces (notes 000, Asada).

        C_ij = Σ_k (∂M_ij/∂q_k − ½ ∂M_jk/∂q_i) q̇_k,   so [C q̇]_i = q̇ᵀ C̄_i q̇

    It gives the same C q̇ as the Christoffel matrix but, in general, Ṁ − 2C is
    not skew-symmetric: C is not unique, the force C q̇ is.

    >>> a, ad = sp.symbols("a ad")
    >>> asada_coriolis(sp.Matrix([[a**2]]), [a], [ad])
    Matrix([[a*ad]])

    Introduced in: chapter 3.
    """
    n = len(q)
    return sp.Matrix(n, n, lambda i, j: sum(
        (sp.diff(M[i, j], q[k]) - sp.Rational(1, 2) * sp.diff(M[j, k], q[i])) * qd[k] for k in range(n)))


def mass_matrix_derivative(M, q, qd):
    """Ṁ = Σ_k ∂M/∂q_k q̇_k, the time derivative of M(q) along a motion.

    >>> a, ad = sp.symbols("a ad")
    >>> mass_matrix_derivative(sp.Matrix([[a**2]]), [a], [ad])
    Matrix([[2*a*ad]])

    Introduced in: chapter 3.
    """
    return sum((M.diff(qk) * qdk for qk, qdk in zip(q, qd)), sp.zeros(*M.shape))


def skew_symmetry_check(M, C, q, qd):
    """True if Ṁ − 2C is skew-symmetric, (Ṁ − 2C) + (Ṁ − 2C)ᵀ = 0, symbolically.

    Holds for the Christoffel C (notes 003, "A structural property"), not
    for every valid factorization.

    >>> a, ad = sp.symbols("a ad")
    >>> M = sp.Matrix([[a**2]])
    >>> skew_symmetry_check(M, christoffel_coriolis(M, [a], [ad]), [a], [ad])
    True

    Introduced in: chapter 3.
    """
    N = mass_matrix_derivative(M, q, qd) - 2 * sp.Matrix(C)
    return all(sp.simplify(e) == 0 for e in N + N.T)


def energy_balance_residual(form, U):
    """Ė − q̇ᵀ τ along solutions of M q̈ + C q̇ = tau_g + τ, simplified: zero for any valid C.

        Ė = q̇ᵀ M q̈ + ½ q̇ᵀ Ṁ q̇ + ∂U/∂q q̇ = q̇ᵀ τ + ½ q̇ᵀ (Ṁ − 2C) q̇ + q̇ᵀ (tau_g + ∂U/∂qᵀ)

    (notes 003, "Energy conservation"). A zero residual is the weaker property
    q̇ᵀ (Ṁ − 2C) q̇ = 0, which every factorization shares.

    >>> th, thd = sp.symbols("theta thetad")
    >>> energy_balance_residual(manipulator_form(thd**2 / 2, -sp.cos(th), [th], [thd]), -sp.cos(th))
    0

    Introduced in: chapter 3.
    """
    qd = sp.Matrix(form.qd)
    N = mass_matrix_derivative(form.M, form.q, form.qd) - 2 * form.C
    dU = sp.Matrix([sp.diff(U, qi) for qi in form.q])
    return sp.simplify((qd.T * N * qd)[0] / 2 + (qd.T * (form.tau_g + dU))[0])


# --- numeric checks on any system in the protocol ----------------------------
def mass_matrix_rate(system, q, v, eps=1e-6):
    """Ṁ(q, v) of a numeric system, by a central difference of M along v.

        Ṁ ≈ (M(q + ε v) − M(q − ε v)) / (2ε)     (exact up to O(ε²))

    >>> from lib.pendulum import DoublePendulum
    >>> mass_matrix_rate(DoublePendulum(), [0.0, np.pi / 2], [0.0, 1.0]).round(6)
    array([[-2., -1.],
           [-1.,  0.]])

    Introduced in: chapter 3.
    """
    q, v = system.check_state(q, v)
    return (system.mass_matrix(q + eps * v) - system.mass_matrix(q - eps * v)) / (2 * eps)


def skew_symmetry_residual(system, q, v):
    """The largest entry of |N + Nᵀ| with N = Ṁ − 2C(q, v): ≈ 0 when Ṁ − 2C is skew-symmetric.

    >>> from lib.pendulum import DoublePendulum
    >>> skew_symmetry_residual(DoublePendulum(), [0.0, 1.0], [0.5, 0.0]) > 0.1
    True

    Introduced in: chapter 3.
    """
    N = mass_matrix_rate(system, q, v) - 2 * system.coriolis_matrix(q, v)
    return float(np.max(np.abs(N + N.T)))


def energy_balance(system, traj, u=None):
    """E(t) − E(0) − ∫₀ᵗ q̇ᵀ (B u + tau_ext) dt along a trajectory: ≈ 0 for a correct model.

    Ė = q̇ᵀ (B u + tau_ext) (notes 003, "Energy conservation"): the energy
    changes only by the work of the inputs and the non-conservative forces.
    ``u`` is as in :meth:`ManipulatorSystem.simulate`; the work integral uses
    the trapezoidal rule on the samples of ``traj``. Returns shape (N,).

    >>> from lib.pendulum import SimplePendulum
    >>> p = SimplePendulum(b=0.3)
    >>> traj = p.simulate([1.0], [0.0], 2.0, num=2001)
    >>> float(np.max(np.abs(energy_balance(p, traj)))) < 1e-5
    True

    Introduced in: chapter 3.
    """
    policy = system.input_policy(u)
    B = system.input_matrix()
    E = np.array([system.energy(q, v) for q, v in zip(traj.q, traj.v)])
    power = np.array([v @ (B @ system.check_input(policy(t, q, v)) + system.external_force(q, v))
                      for t, q, v in zip(traj.t, traj.q, traj.v)])
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(traj.t))])
    return E - E[0] - work


# --- chapter 10: the Hamiltonian form, virtual work, d'Alembert, the action ---
@dataclass(frozen=True)
class HamiltonianForm:
    """Symbolic Hamiltonian H(q, p), q̇ = M⁻¹ p, ṗ = c_H + tau_g (add B u for inputs), and c_H.

    >>> th, thd = sp.symbols("theta thetad")
    >>> U = -9.81 * sp.cos(th)
    >>> hamiltonian_form(manipulator_form(thd**2 / 2, U, [th], [thd]), U).H
    p1**2/2 - 9.81*cos(theta)
    """

    H: sp.Expr
    qdot: sp.Matrix
    pdot: sp.Matrix
    c_H: sp.Matrix
    q: tuple
    p: tuple


def hamiltonian_form(form, U, p=None):
    """The Hamiltonian form of the manipulator equations (notes 000, "Hamiltonian Mechanics").

        p = ∂L/∂q̇ᵀ = M(q) q̇,   M(q) q̇ = p,   ṗ = c_H(q, p) + tau_g(q) + B u,
        c_H = ½ (∂[q̇ᵀ M(q) q̇]/∂q)ᵀ at fixed q̇ = M⁻¹ p,   H = ½ pᵀ M⁻¹ p + U

    and indeed q̇ = ∂H/∂pᵀ, ṗ = −∂H/∂qᵀ (without inputs). ``p`` are the momentum
    symbols (``p1 … pn`` by default). M is inverted symbolically as adj(M)/det(M)
    and only det(M) is simplified: call ``sp.simplify`` on what you display.

    >>> th, thd = sp.symbols("theta thetad")
    >>> form = manipulator_form(2 * thd**2 / 2, -sp.cos(th), [th], [thd])
    >>> hf = hamiltonian_form(form, -sp.cos(th))
    >>> hf.H, hf.qdot
    (p1**2/4 - cos(theta), Matrix([[p1/2]]))

    Introduced in: chapter 10.
    """
    n = len(form.q)
    p = tuple(sp.symbols(f"p1:{n + 1}")) if p is None else tuple(p)
    if len(p) != n:
        raise ValueError(f"p must have {n} symbols, got {len(p)}")
    P = sp.Matrix(p)
    Minv = form.M.adjugate() / sp.simplify(form.M.det())  # M⁻¹ = adj(M) / det(M)
    qdot = Minv * P
    qd = sp.Matrix(form.qd)
    at_p = dict(zip(form.qd, qdot))
    quad = (qd.T * form.M * qd)[0]
    c_H = sp.Matrix([sp.diff(quad, qi).subs(at_p) / 2 for qi in form.q])
    H = (P.T * Minv * P)[0] / 2 + U
    return HamiltonianForm(H, qdot, c_H + form.tau_g, c_H, tuple(form.q), p)


def momentum(system, q, v):
    """Generalized momentum p = M(q) v (notes 000).

    >>> from lib.pendulum import SimplePendulum
    >>> momentum(SimplePendulum(m=2.0, l=1.0), [0.0], [3.0])
    array([6.])

    Introduced in: chapter 10.
    """
    q, v = system.check_state(q, v)
    return system.mass_matrix(q) @ v


def hamiltonian(system, q, p):
    """H(q, p) = ½ pᵀ M(q)⁻¹ p + U(q): the total energy written in positions and momenta.

    >>> from lib.pendulum import SimplePendulum
    >>> hamiltonian(SimplePendulum(m=2.0, l=1.0, g=0.0), [0.0], [6.0])
    9.0

    Introduced in: chapter 10.
    """
    q, p = system.check_state(q, p)
    return float(0.5 * p @ np.linalg.solve(system.mass_matrix(q), p) + system.potential_energy(q))


def hamiltonian_dynamics(system, q, p, u=None, eps=1e-6):
    """The right-hand side (q̇, ṗ) of the Hamiltonian form for a numeric system.

        q̇ = M(q)⁻¹ p,   ṗ = c_H(q, q̇) + tau_g(q) + B u + tau_ext,   c_H = ½ ∂(q̇ᵀ M(q) q̇)/∂q

    c_H is taken by central differences of M (error O(ε²)).

    >>> from lib.pendulum import SimplePendulum
    >>> qdot, pdot = hamiltonian_dynamics(SimplePendulum(), [np.pi / 2], [0.0])
    >>> qdot, pdot.round(2)
    (array([0.]), array([-9.81]))

    Introduced in: chapter 10.
    """
    q, p = system.check_state(q, p)
    qdot = np.linalg.solve(system.mass_matrix(q), p)
    c_H = np.zeros(system.n)
    for k in range(system.n):
        dq = np.zeros(system.n)
        dq[k] = eps
        dM = (system.mass_matrix(q + dq) - system.mass_matrix(q - dq)) / (2 * eps)
        c_H[k] = 0.5 * qdot @ dM @ qdot
    pdot = c_H + system.gravity_vector(q) + system.input_matrix() @ system.check_input(u) + system.external_force(q, qdot)
    return qdot, pdot


def inertia_force(system, q, v, vdot):
    """d'Alembert's force of inertia, tau_inertia = −M(q) v̇ − C(q, v) v (notes 000).

    Along a true motion tau_inertia + tau_g + B u + tau_ext = 0: dynamics
    becomes a statics problem.

    >>> from lib.pendulum import SimplePendulum
    >>> inertia_force(SimplePendulum(), [0.0], [0.0], [2.0])
    array([-2.])

    Introduced in: chapter 10.
    """
    q, v = system.check_state(q, v)
    vdot = checks.vector("vdot", vdot, system.n)
    return -(system.mass_matrix(q) @ vdot + system.coriolis_matrix(q, v) @ v)


def static_equilibrium(system, q0, u=None):
    """A stable equilibrium near q0: the minimum of the potential U(q) − qᵀ B u (notes 000, virtual work).

    At the minimum δU − (B u)ᵀ δq = 0 for every variation δq, that is
    tau_g(q) + B u = 0: zero virtual work. The gradient −(tau_g + B u) is
    given to scipy's BFGS.

    >>> from lib.pendulum import SimplePendulum
    >>> q = static_equilibrium(SimplePendulum(), [0.5], u=[0.5 * 9.81])
    >>> round(float(q[0]), 6)   # sin θ = u / (m g l)
    0.523599

    Introduced in: chapter 10.
    """
    from scipy.optimize import minimize

    q0 = checks.vector("q0", q0, system.n)
    Bu = system.input_matrix() @ system.check_input(u)
    res = minimize(lambda q: system.potential_energy(q) - q @ Bu, q0,
                   jac=lambda q: -(system.gravity_vector(q) + Bu), method="BFGS", options={"gtol": 1e-12})
    return res.x


def action(system, t, q, v=None):
    """The action A = ∫ L(q, q̇) dt = ∫ (T − U) dt along a sampled path (notes 000, "Principle of Stationary Action").

    ``t`` has shape (N,), ``q`` (N, n). Velocities ``v`` are taken by second-
    order finite differences of q when not given; the integral uses the
    trapezoidal rule. A true motion makes A stationary among paths with the
    same end points: A(q + ε δq) − A(q) = O(ε²).

    >>> from lib.pendulum import SimplePendulum
    >>> t = np.linspace(0.0, 1.0, 101)
    >>> round(action(SimplePendulum(g=0.0), t, np.c_[2 * t]), 6)   # T = ½ · 1 · 2² for 1 s
    2.0

    Introduced in: chapter 10.
    """
    t = np.asarray(t, dtype=float)
    q = np.asarray(q, dtype=float).reshape(len(t), system.n)
    if t.ndim != 1 or len(t) < 3 or np.any(np.diff(t) <= 0):
        raise ValueError("t must be an increasing array of at least 3 times")
    v = np.gradient(q, t, axis=0, edge_order=2) if v is None else np.asarray(v, dtype=float).reshape(q.shape)
    L = np.array([system.kinetic_energy(qk, vk) - system.potential_energy(qk) for qk, vk in zip(q, v)])
    return float(np.sum(0.5 * (L[1:] + L[:-1]) * np.diff(t)))
