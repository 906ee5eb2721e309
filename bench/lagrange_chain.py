"""Symbolic derivation of the n-link planar chain (ours against sympy's LagrangesMethod) and numeric evaluation cost.

Both derivations start from the same Lagrangian L = T − U of
lib.manipulators.planar_chain_energies(n). Ours reads M = ∂²T/∂q̇², tau_g and
C from Christoffel symbols without simplification
(lib.lagrange.manipulator_form_fast); LagrangesMethod forms Lagrange's
equations and returns its mass matrix and forcing vector (no separate C).
"""

import time

import numpy as np
from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

from bench._timing import median_time
from lib.lagrange import manipulator_form, manipulator_form_fast
from lib.manipulators import PlanarChain, planar_chain_energies
from lib.pendulum import DoublePendulum

N_LINKS = range(2, 7)
LAGRANGES_METHOD_MAX_N = 5  # n = 6 takes about 40 s on a 2-core machine: left out to keep the table quick
SIMPLIFIED_MAX_N = 3  # manipulator_form simplifies every entry: about 1 min at n = 4


def _once(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _lagranges_method(T, U, s):
    q = dynamicsymbols(f"q1:{len(s.q) + 1}")
    subs = dict(zip(s.q, q))
    subs.update(zip(s.qd, [qi.diff() for qi in q]))
    L = (T - U).xreplace(subs)

    def derive():
        lm = LagrangesMethod(L, q)
        lm.form_lagranges_equations()
        return lm.mass_matrix, lm.forcing

    return derive


def run():
    rows = []
    for n in N_LINKS:
        T, U, s = planar_chain_energies(n)
        rows.append({"benchmark": f"{n}-link chain: derive M, C, tau_g (lib, no simplify)", "unit": "s",
                     "value": _once(lambda: manipulator_form_fast(T, U, s.q, s.qd)),
                     "note": "Christoffel C; same L as below"})
        if n <= SIMPLIFIED_MAX_N:
            rows.append({"benchmark": f"{n}-link chain: derive M, C, tau_g (lib, simplified)", "unit": "s",
                         "value": _once(lambda: manipulator_form(T, U, s.q, s.qd)),
                         "note": f"simplify per entry; n > {SIMPLIFIED_MAX_N} skipped (minutes)"})
        if n <= LAGRANGES_METHOD_MAX_N:
            rows.append({"benchmark": f"{n}-link chain: sympy LagrangesMethod", "unit": "s",
                         "value": _once(_lagranges_method(T, U, s)), "note": "mass_matrix + forcing only"})
        else:
            rows.append({"benchmark": f"{n}-link chain: sympy LagrangesMethod", "unit": "s", "value": float("nan"),
                         "note": f"skipped above n = {LAGRANGES_METHOD_MAX_N} (about 40 s at n = 6)"})

    rng = np.random.default_rng(0)
    dp = DoublePendulum()
    q, v = np.array([0.3, -0.2]), np.array([0.1, 0.5])
    rows.append({"benchmark": "double pendulum (closed form): M + C v + tau_g, per call", "unit": "µs",
                 "value": 1e6 * median_time(lambda: (dp.mass_matrix(q), dp.bias(q, v), dp.gravity_vector(q)),
                                            number=2000), "note": "reference"})
    for n in (2, 3, 6):
        compile_time = _once(lambda: PlanarChain(m=np.ones(n), l=np.ones(n)))
        chain = PlanarChain(m=rng.uniform(0.5, 2, n), l=rng.uniform(0.3, 1, n))
        q, v, a = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
        rows.append({"benchmark": f"{n}-link chain: derive + lambdify (cse), once per n", "unit": "s",
                     "value": compile_time, "note": "cached afterwards"})
        for name, fn in (("M", lambda: chain.mass_matrix(q)), ("C v", lambda: chain.bias(q, v)),
                         ("tau_g", lambda: chain.gravity_vector(q)),
                         ("inverse dynamics, Lagrangian", lambda: chain.inverse_dynamics(q, v, a)),
                         ("inverse dynamics, Newton-Euler", lambda: chain.rnea(q, v, a))):
            rows.append({"benchmark": f"{n}-link chain: {name}, per call", "unit": "µs",
                         "value": 1e6 * median_time(fn, number=500), "note": "lambdified" if "Newton" not in name
                         else "recursive, numpy"})
    return rows
