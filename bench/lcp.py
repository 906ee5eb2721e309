"""Lemke's algorithm (lib.lcp) against peers, and the batched cart-wall grid against a loop.

Problems: for each n in 2 … 50, ten random LCPs with symmetric positive
definite M = A Aᵀ + 0.1 I, and ten with rank-deficient positive semidefinite
M = Aᵀ A (A of n/2 rows) and q built from a known complementary pair (so a
solution exists). Every answer is checked with the complementarity
certificate (tolerance 1e-6 for the peers, which are not exact pivoting).

Peers, side by side on the same problems:

* scipy: for SPD M the LCP is the bound-constrained QP min ½zᵀMz + qᵀz,
  z ≥ 0, i.e. the least-squares problem min ‖Lᵀz + L⁻¹q‖ with M = L Lᵀ,
  solved by ``scipy.optimize.lsq_linear`` (bounded-variable least squares);
  for singular PSD M that rewriting fails, so we use the mixed-integer form
  0 ≤ z ≤ U y, 0 ≤ q + M z ≤ U (1 − y), y binary, with ``scipy.optimize.milp``
  (HiGHS), U = 100, timed up to n = 12 (branch and bound grows too slow).
* Clarabel (interior point, Rust) through qpsolvers on the same convex QP
  min ½zᵀMz + qᵀz, z ≥ 0, for both kinds (M symmetric PSD makes it convex).
* Drake's ``MobyLcpSolver`` (C++) through ``MathematicalProgram`` and
  ``AddLinearComplementarityConstraint``, only if ``pydrake`` is importable
  (PyPI package ``drake``; not a dependency of the course). Otherwise the
  rows say "skipped".

There is no pure-Python peer: PyPI's ``lemkelcp`` 0.1 fails on Python 3
("'range' object does not support item assignment").
"""

import time

import numpy as np
import qpsolvers
import scipy.sparse as sparse
from scipy.linalg import cho_factor
from scipy.optimize import Bounds, LinearConstraint, lsq_linear, milp

from bench._timing import median_time
from lib.cart_wall import cart_wall_batch
from lib.lcp import complementarity_certificate, lemke

SIZES = (2, 5, 12, 25, 50)
PROBLEMS = 10


def problems(kind, n, rng):
    out = []
    for _ in range(PROBLEMS):
        if kind == "SPD":
            A = rng.normal(size=(n, n))
            M, q = A @ A.T + 0.1 * np.eye(n), rng.normal(size=n)
        else:
            A = rng.normal(size=(max(1, n // 2), n))
            M = A.T @ A
            z = np.where(rng.random(n) < 0.5, rng.random(n), 0.0)
            w = np.where(z > 0, 0.0, rng.random(n))
            q = w - M @ z
        out.append((M, q))
    return out


def scipy_spd(M, q):
    """min ½zᵀMz + qᵀz, z ≥ 0 as bounded least squares: ½‖Lᵀz + L⁻¹q‖² + const with M = L Lᵀ."""
    c = cho_factor(M, lower=True)
    L = np.tril(c[0])
    rhs = -np.linalg.solve(L, q)
    return lsq_linear(L.T, rhs, bounds=(0.0, np.inf), method="bvls", tol=1e-12).x


def scipy_milp(M, q, U=100.0):
    """The LCP as a feasibility MILP in (z, y): 0 ≤ z ≤ U y, 0 ≤ q + M z ≤ U (1 − y), y ∈ {0, 1}ⁿ."""
    n = len(q)
    I, Z = np.eye(n), np.zeros((n, n))
    A = np.block([[I, -U * I],            # z − U y ≤ 0
                  [M, Z],                 # q + M z ≥ 0
                  [M, U * I]])            # q + M z + U y ≤ U
    lo = np.concatenate([np.full(n, -np.inf), -q, np.full(n, -np.inf)])
    hi = np.concatenate([np.zeros(n), np.full(n, np.inf), U - q])
    res = milp(np.zeros(2 * n), constraints=LinearConstraint(A, lo, hi),
               integrality=np.concatenate([np.zeros(n), np.ones(n)]),
               bounds=Bounds(np.concatenate([np.zeros(n), np.zeros(n)]), np.concatenate([np.full(n, U), np.ones(n)])))
    return res.x[:n] if res.x is not None else None


def clarabel_qp(M, q):
    """min ½zᵀMz + qᵀz s.t. z ≥ 0 with Clarabel (the LCP of a symmetric PSD M is its optimality condition)."""
    return qpsolvers.solve_qp(sparse.csc_matrix(M), q, lb=np.zeros(len(q)), solver="clarabel")


def drake_solver():
    """A function solving LCP(M, q) with Drake's MobyLcpSolver, or None if pydrake is missing."""
    try:
        from pydrake import solvers
    except ImportError:
        return None
    solver_class = getattr(solvers, "MobyLCPSolver", None) or getattr(solvers, "MobyLcpSolver", None)
    if solver_class is None:
        return None
    MathematicalProgram = solvers.MathematicalProgram
    solver = solver_class()

    def solve(M, q):
        prog = MathematicalProgram()
        z = prog.NewContinuousVariables(len(q), "z")
        prog.AddLinearComplementarityConstraint(M, q, z)
        result = solver.Solve(prog)
        return result.GetSolution(z) if result.is_success() else None

    return solve


def per_solve(fn, cases, repeat=5):
    """Median over the problems of each one's median time per solve (one run each if a solve takes > 50 ms)."""
    times = []
    for M, q in cases:
        once = _one(fn, M, q)
        if once > 0.05:
            times.append(once)
        else:
            times.append(median_time(lambda: fn(M, q), repeat=repeat, number=max(1, int(2e-3 / max(once, 1e-7)))))
    return float(np.median(times))


def _one(fn, M, q):
    t0 = time.perf_counter()
    fn(M, q)
    return time.perf_counter() - t0


def certified(fn, cases, tol):
    ok = 0
    for M, q in cases:
        z = fn(M, q)
        ok += z is not None and complementarity_certificate(M, q, z).holds(tol)
    return ok


def run():
    rng = np.random.default_rng(0)
    drake = drake_solver()
    rows = []
    for kind in ("SPD", "PSD"):
        for n in SIZES:
            cases = problems(kind, n, rng)
            ours = lambda M, q: lemke(M, q).z  # noqa: E731
            peer, peer_name = (scipy_spd, "scipy lsq_linear (BVLS)") if kind == "SPD" else \
                (scipy_milp, "scipy milp (HiGHS)")
            t_ours = per_solve(ours, cases)
            rows.append({"benchmark": f"Lemke (lib.lcp), {kind} n={n}, per solve", "unit": "µs",
                         "value": 1e6 * t_ours,
                         "note": f"median of {PROBLEMS}; {certified(ours, cases, 1e-9)}/{PROBLEMS} certified at 1e-9"})
            if kind == "PSD" and n > 12:
                rows.append({"benchmark": f"{peer_name}, {kind} n={n}, per solve", "unit": "µs",
                             "value": float("nan"), "note": "skipped: branch and bound too slow to time here"})
            else:
                t_peer = per_solve(peer, cases, repeat=3)
                rows.append({"benchmark": f"{peer_name}, {kind} n={n}, per solve", "unit": "µs",
                             "value": 1e6 * t_peer,
                             "note": f"{certified(peer, cases, 1e-6)}/{PROBLEMS} certified at 1e-6; "
                                     f"Lemke is {t_peer / t_ours:.2g}× faster"})
            t_qp = per_solve(clarabel_qp, cases, repeat=3)
            rows.append({"benchmark": f"Clarabel QP (qpsolvers), {kind} n={n}, per solve", "unit": "µs",
                         "value": 1e6 * t_qp,
                         "note": f"{certified(clarabel_qp, cases, 1e-6)}/{PROBLEMS} certified at 1e-6; "
                                 f"Lemke is {t_qp / t_ours:.2g}× faster"})
            if drake is None:
                if n == SIZES[0] and kind == "SPD":
                    rows.append({"benchmark": "Drake MobyLcpSolver", "unit": "µs", "value": float("nan"),
                                 "note": "skipped: pydrake not importable (PyPI package drake not installed)"})
            else:
                t_drake = per_solve(drake, cases)
                rows.append({"benchmark": f"Drake MobyLcpSolver, {kind} n={n}, per solve", "unit": "µs",
                             "value": 1e6 * t_drake,
                             "note": f"{certified(drake, cases, 1e-6)}/{PROBLEMS} certified; "
                                     f"Lemke / Drake = {t_ours / t_drake:.2g}"})

    # The cart-wall figure: one LCP per point of a 200×200 (q, v) grid, m = 1, h = 0.1, u = 0.
    q, v = np.meshgrid(np.linspace(-0.5, 1.0, 200), np.linspace(-5.0, 5.0, 200))
    t_batch = median_time(lambda: cart_wall_batch(1.0, 0.1, q, v), repeat=5)
    qs, vs = q.ravel()[::20], v.ravel()[::20]           # 2000 of the 40 000 points, looped
    h2 = np.array([[0.01]])

    def loop():
        for qi, vi in zip(qs, vs):
            lemke(h2, [qi + 0.1 * vi])

    t_loop = median_time(loop, repeat=3) / len(qs)
    if drake is not None:
        def drake_loop():
            for qi, vi in zip(qs, vs):
                drake(h2, np.array([qi + 0.1 * vi]))

        t_drake_loop = median_time(drake_loop, repeat=3) / len(qs)
        rows.append({"benchmark": "cart-wall grid 200×200, Python loop over Drake", "unit": "ms",
                     "value": 1e3 * t_drake_loop * q.size,
                     "note": f"timed on 2 000 points, {1e6 * t_drake_loop:.3g} µs each; "
                             f"batch is {t_drake_loop * q.size / t_batch:.3g}× faster"})
    rows.append({"benchmark": "cart-wall grid 200×200, lcp_batch (one call)", "unit": "ms",
                 "value": 1e3 * t_batch, "note": "40 000 LCPs, vectorized enumeration"})
    rows.append({"benchmark": "cart-wall grid 200×200, Python loop over lemke", "unit": "ms",
                 "value": 1e3 * t_loop * q.size,
                 "note": f"timed on 2 000 points, {1e6 * t_loop:.3g} µs each; "
                         f"batch is {t_loop * q.size / t_batch:.3g}× faster"})
    return rows
