"""The convex problems the course solves, in one place: quadratic programs and second-order cone programs.

Gauss's principle (chapter 4), the friction-cone impact (chapter 6), the
cart against the wall as a QP (chapter 7) and the contact steps of Anitescu
and Todorov (chapter 8) are all

    min_x ½ xᵀ P x + cᵀ x   subject to   A x + s = b,   s ∈ K,

with K a product of zero cones (equalities), nonnegative cones
(inequalities) and second-order cones {(t, y): ‖y‖ ≤ t} (friction cones).
They go to one solver, Clarabel (an interior-point method for exactly this
form, maintained, on PyPI), with one set of settings (:func:`settings`) and
one rule for what counts as solved:

* **Solved** is found. **AlmostSolved is not**: Clarabel says it when it
  stopped at its reduced accuracy (a duality gap near 5·10⁻⁵, not the
  10⁻¹⁰ asked for), which is coarser than what the chapters and tests
  compare against, so the same physics would pass in one place and not in
  another. Neither is any other status (infeasible, iteration limit, …).

Every problem returns a :class:`ConvexSolution` saying found or not and
Clarabel's status. What a caller does when it is not found is one rule too:
a function whose result carries a status (a contact step, :class:`lib.timestepping.ContactStep`)
returns a result saying "failed" with Clarabel's status as the reason; one
whose result has no room for it (Gauss's principle, the impact) raises
``RuntimeError`` through :meth:`ConvexSolution.require`, naming the problem
and the status.

Introduced in: chapter 4.
"""

from dataclasses import dataclass

import clarabel
import numpy as np
from scipy import sparse

TOLERANCE = 1e-10
"""Clarabel's absolute and relative duality gap and its feasibility tolerance, for every problem here."""

_CONES = {"zero": clarabel.ZeroConeT, "nonnegative": clarabel.NonnegativeConeT, "soc": clarabel.SecondOrderConeT}


def settings():
    """Clarabel's settings for every problem of the course: quiet, gap and feasibility to :data:`TOLERANCE`.

    >>> s = settings()
    >>> s.verbose, s.tol_gap_abs, s.tol_feas
    (False, 1e-10, 1e-10)
    """
    s = clarabel.DefaultSettings()
    s.verbose = False
    s.tol_gap_abs = s.tol_gap_rel = s.tol_feas = TOLERANCE
    return s


@dataclass(frozen=True)
class ConvexSolution:
    """What a convex problem gave: the minimizer ``x``, the multipliers ``z`` of the rows of A, found or not and why.

    ``z`` follows Clarabel's sign: P x + c + Aᵀ z = 0, with z in the dual
    cone (z ≥ 0 on inequality rows). ``status`` is Clarabel's status
    ("Solved", "AlmostSolved", "PrimalInfeasible", …); ``found`` is
    ``status == "Solved"`` (the module's docstring says why). When not found,
    ``x`` and ``z`` are what the solver stopped at; do not use them.
    """

    x: np.ndarray
    z: np.ndarray
    found: bool
    status: str

    def require(self, what):
        """``self`` if found, else ``RuntimeError`` naming ``what`` was not solved and Clarabel's status.

        >>> qp([[1.0]], [0.0], G=[[1.0], [-1.0]], g=[-1.0, -1.0]).require("x ≤ −1 and x ≥ 1")
        Traceback (most recent call last):
        ...
        RuntimeError: Clarabel did not solve x ≤ −1 and x ≥ 1: status PrimalInfeasible
        """
        if not self.found:
            raise RuntimeError(f"Clarabel did not solve {what}: status {self.status}")
        return self


def solve(P, c, A, b, cones):
    """min ½ xᵀ P x + cᵀ x subject to A x + s = b, s in ``cones``; a :class:`ConvexSolution`.

    ``cones``: (kind, size) pairs in the order of A's rows, kind "zero"
    (A x = b), "nonnegative" (A x ≤ b) or "soc" (b − A x in the
    second-order cone {(t, y): ‖y‖ ≤ t}). P must be symmetric positive
    semidefinite (its upper triangle is read).

    >>> sol = solve([[1.0, 0.0], [0.0, 1.0]], [-2.0, 0.0], -np.eye(2), [0.0, 0.0], [("soc", 2)])
    >>> np.round(sol.x, 6) + 0.0, sol.found      # the point of the cone |y| ≤ t nearest (2, 0)
    (array([2., 0.]), True)
    """
    P = np.atleast_2d(np.asarray(P, dtype=float))
    n = P.shape[0]
    A = np.asarray(A, dtype=float).reshape(-1, n)
    b = np.asarray(b, dtype=float).reshape(-1)
    if A.shape[0] != b.size or sum(size for _, size in cones) != b.size:
        raise ValueError(f"A has {A.shape[0]} rows, b {b.size} entries and the cones {sum(s for _, s in cones)}; "
                         "they must agree")
    unknown = [kind for kind, _ in cones if kind not in _CONES]
    if unknown:
        raise ValueError(f"cone kinds are {sorted(_CONES)}, got {unknown}")
    solver = clarabel.DefaultSolver(sparse.triu(sparse.csc_matrix(P), format="csc"),
                                    np.asarray(c, dtype=float).reshape(n), sparse.csc_matrix(A), b,
                                    [_CONES[kind](int(size)) for kind, size in cones if size], settings())
    result = solver.solve()
    status = str(result.status)
    return ConvexSolution(np.array(result.x, dtype=float), np.array(result.z, dtype=float), status == "Solved",
                          status)


def qp(P, c, G=None, g=None, A=None, b=None, lb=None):
    """min ½ xᵀ P x + cᵀ x subject to G x ≤ g, A x = b and x ≥ lb (each optional); a :class:`ConvexSolution`.

    The rows are given to :func:`solve` in the order A, G, bounds, and ``z``
    is cut to match: the equalities' multipliers first, then the
    inequalities' (z ≥ 0, the impulses of the contact steps), then the
    bounds'. With that sign P x + c + Aᵀ y + Gᵀ z_G − z_lb = 0.

    >>> sol = qp([[2.0]], [-2.0], G=[[1.0]], g=[0.5])        # min x² − 2x s.t. x ≤ 0.5
    >>> round(float(sol.x[0]), 6), round(float(sol.z[0]), 6), sol.found
    (0.5, 1.0, True)
    """
    P = np.atleast_2d(np.asarray(P, dtype=float))
    n = P.shape[0]
    rows, rhs, cones = [], [], []
    for kind, M, r in (("zero", A, b), ("nonnegative", G, g)):
        if M is not None:
            M = np.asarray(M, dtype=float).reshape(-1, n)
            rows.append(M)
            rhs.append(np.asarray(r, dtype=float).reshape(M.shape[0]))
            cones.append((kind, M.shape[0]))
    if lb is not None:
        rows.append(-np.eye(n))
        rhs.append(-np.broadcast_to(np.asarray(lb, dtype=float), (n,)))
        cones.append(("nonnegative", n))
    return solve(P, c, np.vstack(rows) if rows else np.zeros((0, n)), np.concatenate(rhs) if rhs else np.zeros(0),
                 cones)
