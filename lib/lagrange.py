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

from . import _checks
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
    """Symbolic M(q), C(q, q̇), tau_g(q) (sympy Matrices) in the symbols q, qd."""

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
        q = _checks.vector("q", q, self.n)
        return self._eval(self._M, q, np.zeros(self.n))

    def coriolis_matrix(self, q, v):
        q, v = self._state(q, v)
        return self._eval(self._C, q, v)

    def gravity_vector(self, q):
        q = _checks.vector("q", q, self.n)
        return self._eval(self._tau_g, q, np.zeros(self.n)).reshape(self.n)

    def input_matrix(self):
        return self._B

    def kinetic_energy(self, q, v):
        q, v = self._state(q, v)
        if self._T is None:
            return super().kinetic_energy(q, v)
        return float(self._T(list(q), list(v)))

    def potential_energy(self, q):
        if self._U is None:
            raise ValueError("this system was built without U; pass U= to SymbolicSystem")
        q = _checks.vector("q", q, self.n)
        return float(self._U(list(q), [0.0] * self.n))
