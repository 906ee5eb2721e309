"""Linear complementarity problems: Lemke's algorithm, a certificate, brute force.

The linear complementarity problem LCP(M, q) (notes 000, "Complementarity
formulations") asks for vectors w and z with

    w = q + M z,    w ≥ 0,    z ≥ 0,    wᵀz = 0,

written for short as 0 ≤ (q + M z) ⊥ z ≥ 0. Every component pair (w_i, z_i)
is complementary: at least one of the two is zero. Time-stepping contact
turns each step of a simulation into one such problem (chapter 7).

What is here:

* :func:`lemke`: Lemke's complementary pivoting algorithm, written to be read
  beside a textbook, with an optional pivot trace (:func:`format_trace`).
* :func:`complementarity_certificate`: the numbers that prove a candidate z
  solves the LCP (min w, min z, |wᵀz|, the residual of w = q + M z).
* :func:`brute_force_lcp` and :func:`complementary_solutions`: enumerate all
  2ⁿ complementary bases; exponential, for small problems and tests.
* :func:`lcp_batch`: the same enumeration vectorized over a stack of many
  small LCPs (a whole grid of cart-against-the-wall problems in one call).
* :func:`qp_to_lcp`: the optimality conditions of a QP written as an LCP.

Why Lemke by hand: no maintained pure-Python Lemke solver exists. The PyPI
package ``lemkelcp`` (0.1) does not run on Python 3: every call fails with
"'range' object does not support item assignment". Drake's ``MobyLcpSolver``
is a C++ solver inside a large binary package; the benchmark (``bench/lcp.py``)
compares against it when it is importable.

Degeneracy and cycling. A pivot is degenerate when several rows tie in the
minimum-ratio test; choosing badly among them can make the algorithm revisit
a basis forever. :func:`lemke` breaks every tie with the *lexicographic*
minimum-ratio rule: among the tied rows it compares the rows of
[x_B, B⁻¹] / a_i entry by entry and takes the smallest. Because B⁻¹ is
nonsingular no two rows compare equal, the choice is unique, and no basis can
repeat, so the algorithm stops after finitely many pivots (Cottle, Pang &
Stone, *The Linear Complementarity Problem*, 1992, chapter 4). When the
artificial variable z0 is among the rows tied on the ratio itself it leaves
at once, which ends the path with a solution. In floating point, "tied"
means equal to a relative 1e-9, and basic values within the pivot tolerance
of zero count as zero. Contact problems with several symmetric friction
cones are so degenerate that round-off can still spoil a path; ``restarts``
then follows new paths from perturbed covering vectors (see :func:`lemke`).

How it ends. ``"solved"``: z and w satisfy the certificate. ``"ray
termination"``: the entering variable can grow without bound; when M is
copositive-plus (for instance positive semidefinite, as in every frictionless
contact problem) this proves the LCP has no solution. ``"iteration limit"``:
the pivot budget ran out. ``"inaccurate"``: the final basis does not pass the
certificate (round-off on an ill-conditioned problem). Only a ``"solved"``
result carries z and w; otherwise they are ``None``, so a failure can never be
mistaken for an answer.

Introduced in: chapter 7.
"""

import itertools
from dataclasses import dataclass

import numpy as np

from . import checks

SOLVED = "solved"
RAY_TERMINATION = "ray termination"
ITERATION_LIMIT = "iteration limit"
INACCURATE = "inaccurate"
NO_SOLUTION = "no solution"

#: A degenerate LCP (M, q) on which Lemke with the naive tie rule (``ties="first"``)
#: cycles through four bases forever, while the lexicographic rule solves it in
#: four pivots: z = [1/2, 5/4, 0, 3/2].
CYCLING_EXAMPLE = (
    np.array([[2.0, 0.0, -1.0, 0.0], [-1.0, 0.0, 1.0, 1.0], [2.0, -2.0, -1.0, 2.0], [0.0, -2.0, 0.0, 1.0]]),
    np.array([-1.0, -1.0, 1.0, 1.0]),
)


# --- input checks -------------------------------------------------------------

def check_lcp(M, q):
    """Return (M, q) as float arrays of shapes (n, n) and (n,), or raise ``ValueError`` naming the bad one.

    >>> M, q = check_lcp([[2.0]], [-1.0])
    >>> M.shape, q.shape
    ((1, 1), (1,))
    >>> check_lcp([[1.0, 2.0]], [1.0])
    Traceback (most recent call last):
    ...
    ValueError: M must be a square matrix, got shape (1, 2)
    """
    try:
        M = np.asarray(M, dtype=float)          # no copy: nothing here writes into M
    except (TypeError, ValueError):
        raise ValueError(f"M must be a square matrix of numbers, got {M!r}") from None
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise ValueError(f"M must be a square matrix, got shape {M.shape}")
    if not np.isfinite(M).all():
        raise ValueError("M must contain only finite numbers (found NaN or inf)")
    q = checks.vector("q", q, M.shape[0])
    return M, q


# --- the certificate -------------------------------------------------------------

@dataclass(frozen=True)
class Certificate:
    """The numbers that show whether z solves LCP(M, q).

    ``min_w`` and ``min_z`` should be ≥ 0, ``complementarity`` = |wᵀz| and
    ``residual`` = max |w − (q + M z)| should be 0.

    >>> cert = complementarity_certificate([[2.0]], [-1.0], [0.5])
    >>> cert.min_w, cert.complementarity, cert.holds()
    (0.0, 0.0, True)
    """

    min_w: float
    min_z: float
    complementarity: float
    residual: float

    def holds(self, tol=1e-9):
        """True when every condition holds to within ``tol``."""
        return (self.min_w >= -tol and self.min_z >= -tol
                and self.complementarity <= tol and self.residual <= tol)


def complementarity_certificate(M, q, z, w=None):
    """Check a candidate solution of 0 ≤ (q + M z) ⊥ z ≥ 0.

    Computes w = q + M z (or checks a given w against it) and returns a
    :class:`Certificate` with min(w), min(z), |wᵀz| and the residual. This,
    not the value of z, is how to check an LCP answer: when M is only
    positive semidefinite, z need not be unique, but w is.

    >>> c = complementarity_certificate([[2.0]], [-1.0], [0.5])
    >>> c.holds(), c.min_w, c.complementarity
    (True, 0.0, 0.0)
    >>> complementarity_certificate([[2.0]], [-1.0], [0.0]).holds()
    False
    """
    M, q = check_lcp(M, q)
    z = checks.vector("z", z, len(q))
    w_from_z = q + M @ z
    if w is None:
        w = w_from_z
    else:
        w = checks.vector("w", w, len(q))
    return Certificate(min_w=float(w.min()), min_z=float(z.min()), complementarity=float(abs(w @ z)),
                       residual=float(np.max(np.abs(w - w_from_z))))


# --- results ------------------------------------------------------------------------

@dataclass(frozen=True)
class PivotStep:
    """One pivot of Lemke's algorithm: who entered, who left, and the basis afterwards.

    ``basis[i]`` names the basic variable of tableau row i and ``values[i]``
    its value after the pivot.

    >>> step = lemke([[2.0]], [-1.0], trace=True).trace[0]
    >>> step.iteration, step.entering, step.leaving
    (1, 'z0', 'w1')
    """

    iteration: int
    entering: str
    leaving: str
    basis: tuple
    values: np.ndarray


@dataclass(frozen=True)
class LCPResult:
    """The outcome of an LCP solver.

    ``z`` and ``w`` are arrays only when ``status == "solved"``; otherwise they
    are ``None`` and ``reason`` says what happened. ``trace`` holds the
    :class:`PivotStep` list when a trace was asked for.

    >>> res = lemke([[2.0]], [-1.0])
    >>> res.solved, res.z, res.w
    (True, array([0.5]), array([0.]))
    """

    z: np.ndarray | None
    w: np.ndarray | None
    status: str
    reason: str
    iterations: int = 0
    trace: tuple = ()

    @property
    def solved(self):
        """True when z and w solve the LCP."""
        return self.status == SOLVED


# --- Lemke's algorithm ------------------------------------------------------------------

def _name(index, n):
    """Name of tableau column ``index``: w1…wn, z1…zn, z0 (1-based, as on paper)."""
    if index < n:
        return f"w{index + 1}"
    if index < 2 * n:
        return f"z{index - n + 1}"
    return "z0"


def _complement(index, n):
    """w_i ↔ z_i."""
    return index + n if index < n else index - n


def _pivot(T, row, col):
    """Gauss–Jordan pivot of tableau T on (row, col), in place: column ``col`` becomes e_row."""
    pivot_row = T[row] / T[row, col]
    T -= T[:, col, None] * pivot_row
    T[row] = pivot_row


def _min_ratio_rows(values, divisors, tol, clamp=True):
    """Rows i with a_i > tol whose ratio x_i / a_i ties with the smallest one (plain Python floats).

    With ``clamp``, basic values within ``tol`` of zero count as zero (they
    are zero but for round-off), so degenerate rows tie exactly; ratios tie
    when they agree to a relative 1e-9.
    """
    ratios = [((0.0 if clamp and x <= tol else x) / a, i)
              for i, (x, a) in enumerate(zip(values, divisors)) if a > tol]
    if not ratios:
        return []
    best = min(ratios)[0]
    return [i for r, i in ratios if r <= best + 1e-9 * abs(best)]


def _lexicographic_min_ratio(T, n, tied, divisor):
    """Among the rows ``tied`` (tied on x_B,i / a_i), the one whose row of B⁻¹ / a_i is lexicographically smallest.

    B⁻¹ sits in the tableau's w columns (0 … n−1), since those started as the
    identity. Its rows are linearly independent, so no two rows compare equal.
    """
    tied = np.asarray(tied)
    a = divisor[tied]
    for col in range(n):
        if len(tied) == 1:
            break
        values = T[tied, col] / a
        best = values.min()
        keep = values <= best + 1e-9 * abs(best) + 1e-15
        tied, a = tied[keep], a[keep]
    return int(tied[0])


def lemke(M, q, d=None, max_iter=None, trace=False, tol=1e-12, restarts=0, ties="lexicographic"):
    """Solve 0 ≤ (q + M z) ⊥ z ≥ 0 by Lemke's complementary pivoting algorithm.

    Lemke adds an artificial variable z0 ≥ 0 along a covering vector d > 0
    (default all ones),

        w − M z − d z0 = q,

    which is feasible for z0 large enough with z = 0. It then follows a path
    of almost-complementary bases: the first pivot brings z0 in; after that,
    the variable that enters is always the complement of the one that just
    left (w_i ↔ z_i), and the leaving variable is chosen by the minimum-ratio
    test so every basic variable stays ≥ 0. The path ends when z0 leaves the
    basis (a solution) or when an entering column has no positive entry (ray
    termination). Ties in the ratio test are broken lexicographically, which
    rules out cycling (see the module docstring).

    Parameters: M (n, n), q (n,); d (n,) > 0; ``max_iter`` pivots per path
    (default 50 (n + 1)); ``trace=True`` records every pivot; ``tol`` is the
    pivot tolerance, relative to the size of M, q and d.

    ``ties``: "lexicographic" (the default, the anti-cycling rule) or
    "first", the naive rule that takes the lowest tied row; "first" exists
    to show cycling (it loops forever on some degenerate problems, and ends
    at the iteration limit).

    ``restarts``: in floating point, a highly degenerate problem (the
    symmetric friction cones of several contacts touching at once) can lead
    the path through nearly singular bases and end it wrongly. With
    ``restarts`` > 0, a failed path is followed by up to that many new paths
    with covering vectors d (1 + 0.1 r), r uniform in [0, 1) from a fixed
    seed: a different path to the same set of solutions. Any answer is
    still certified against the original problem.

    Returns an :class:`LCPResult`; z and w are set only when ``status`` is
    ``"solved"``.

    >>> res = lemke([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    >>> res.status, res.z.round(6), res.w.round(6)
    ('solved', array([1.333333, 2.333333]), array([0., 0.]))
    >>> lemke([[0.0]], [-1.0]).status        # w = −1 + 0·z can never be ≥ 0
    'ray termination'
    """
    M, q = check_lcp(M, q)
    n = len(q)
    d = np.ones(n) if d is None else checks.vector("d", d, n)
    if d.min() <= 0:
        raise ValueError(f"d must be a vector of positive numbers, got {d}")
    max_iter = 50 * (n + 1) if max_iter is None else int(max_iter)
    if max_iter < 1:
        raise ValueError(f"max_iter must be at least 1, got {max_iter}")
    if isinstance(restarts, bool) or int(restarts) != restarts or restarts < 0:
        raise ValueError(f"restarts must be a nonnegative integer, got {restarts!r}")
    if ties not in ("lexicographic", "first"):
        raise ValueError(f"ties must be 'lexicographic' or 'first', got {ties!r}")

    if q.min() >= 0:
        return LCPResult(np.zeros(n), q.copy(), SOLVED, "q ≥ 0, so z = 0 and w = q solve it", 0)
    result = first = _lemke_path(M, q, d, max_iter, trace, tol, ties)
    for attempt in range(1, int(restarts) + 1):
        if result.solved:
            break
        if attempt == 1:
            rng = np.random.default_rng(0)
        retry = _lemke_path(M, q, d * (1.0 + 0.1 * rng.random(n)), max_iter, trace, tol, ties)
        note = f" (restart {attempt} with a perturbed covering vector; the first path ended: {first.reason})"
        result = LCPResult(retry.z, retry.w, retry.status, retry.reason + note,
                           result.iterations + retry.iterations, retry.trace)
    return result


def _lemke_path(M, q, d, max_iter, trace, tol, ties="lexicographic"):
    """Follow Lemke's path for covering vector d; an :class:`LCPResult`."""
    n = len(q)
    # Tableau [I, −M, −d | q]: columns w1…wn, z1…zn, z0 and the right-hand side.
    # Row i reads: (basic variable of row i) + Σ_j T[i, j] (nonbasic variable j) = T[i, −1].
    T = np.concatenate([np.eye(n), -M, -d[:, None], q[:, None]], axis=1)
    scale = max(1.0, float(np.abs(T[:, n:]).max()))     # the size of M, d and q
    tol = tol * scale
    z0 = 2 * n
    basis = list(range(n))             # the w's are basic at the start
    steps = []

    # First pivot: z0 enters at the value that makes the most negative q_i zero,
    # z0 = max_i (−q_i / d_i); that row's w_i leaves. The ratios q_i / d_i are
    # taken over every row (the z0 column is −d < 0), ties broken as below.
    entering = z0
    tied = _min_ratio_rows(q.tolist(), d.tolist(), tol, clamp=False)
    row = tied[0] if len(tied) == 1 or ties == "first" else _lexicographic_min_ratio(T, n, tied, d)
    for iteration in range(1, max_iter + 1):
        leaving = basis[row]
        _pivot(T, row, entering)
        basis[row] = entering
        if trace:
            steps.append(PivotStep(iteration, _name(entering, n), _name(leaving, n),
                                   tuple(_name(b, n) for b in basis), T[:, -1].copy()))
        if leaving == z0:
            return _finish(M, q, T, basis, iteration, tuple(steps), scale)

        # The complement of the variable that just left enters. Minimum-ratio
        # test: as it grows, the first basic variable to reach zero leaves.
        entering = _complement(leaving, n)
        column = T[:, entering]
        tied = _min_ratio_rows(T[:, -1].tolist(), column.tolist(), tol)
        if not tied:
            return LCPResult(None, None, RAY_TERMINATION,
                             f"ray termination at pivot {iteration + 1}: {_name(entering, n)} can grow without "
                             "bound; for copositive-plus M (e.g. positive semidefinite) this proves the LCP has "
                             "no solution", iteration, tuple(steps))
        z0_row = basis.index(z0)
        if z0_row in tied:
            row = z0_row                  # z0 leaving ends the path with a solution: take it
        elif len(tied) == 1 or ties == "first":
            row = tied[0]
        else:
            row = _lexicographic_min_ratio(T, n, tied, column)
    return LCPResult(None, None, ITERATION_LIMIT,
                     f"no solution found within max_iter = {max_iter} pivots", max_iter, tuple(steps))


def _finish(M, q, T, basis, iterations, steps, scale):
    """Read z and w off the final complementary basis and certify them.

    If the tableau's values fail the certificate (round-off accumulated over
    many pivots), the basis system B x_B = q is solved afresh and checked again.
    """
    n = len(q)

    def from_basic_values(x):
        """z and w (zero off the basis) from the basic values x; ok when they pass the certificate."""
        zw = [0.0] * (2 * n)                            # w1…wn, z1…zn, as the tableau's columns
        for var, value in zip(basis, x):
            zw[var] = value
        tol = 1e-9 * scale * max(1.0, max(zw))
        w, z = np.maximum(zw[:n], 0.0), np.maximum(zw[n:], 0.0)   # clip round-off below zero (checked here)
        residual = float(np.abs(q + M @ z - w).max())
        return z, w, min(x) >= -tol and residual <= tol

    z, w, ok = from_basic_values(T[:, -1].tolist())
    if ok:
        return LCPResult(z, w, SOLVED, f"z0 left the basis after {iterations} pivots", iterations, steps)
    # Columns of the basis matrix in w − M z = q: e_i for a basic w_i, −M[:, j] for a basic z_j.
    B = np.hstack([np.eye(n), -M])[:, basis]
    try:
        z, w, ok = from_basic_values(np.linalg.solve(B, q).tolist())
    except np.linalg.LinAlgError:
        return LCPResult(None, None, INACCURATE, "the final basis is singular", iterations, steps)
    if ok:
        return LCPResult(z, w, SOLVED, f"z0 left the basis after {iterations} pivots (basis re-solved)",
                         iterations, steps)
    return LCPResult(None, None, INACCURATE,
                     f"the final basis fails the certificate: {complementarity_certificate(M, q, z)}",
                     iterations, steps)


def format_trace(result):
    """The pivot trace of a :func:`lemke` result as a small text table, one line per pivot.

    >>> res = lemke([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0], trace=True)
    >>> print(format_trace(res))
    pivot  enters  leaves  basis (value)
        1  z0      w2      w1 (1), z0 (6)
        2  z2      w1      z2 (1), z0 (4)
        3  z1      z0      z2 (2.333), z1 (1.333)
    """
    lines = ["pivot  enters  leaves  basis (value)"]
    for s in result.trace:
        basis = ", ".join(f"{b} ({v:.4g})" for b, v in zip(s.basis, s.values))
        lines.append(f"{s.iteration:5d}  {s.entering:<6}  {s.leaving:<6}  {basis}")
    return "\n".join(lines)


# --- brute force ------------------------------------------------------------------------

def _supports(n):
    """All subsets α of {0, …, n−1} (the indices where z is basic), smallest first."""
    for size in range(n + 1):
        yield from itertools.combinations(range(n), size)


def complementary_solutions(M, q, tol=1e-9):
    """Every solution of LCP(M, q) that is a complementary basic solution, by enumeration.

    For each support α (the indices with z_i basic, the rest with w_i basic)
    solve M_αα z_α = −q_α, set z_i = 0 off α, and keep z when z ≥ 0 and
    w = q + M z ≥ 0 (w_α = 0 by construction). Supports whose M_αα is
    singular (condition number above 1e12) are skipped. There are 2ⁿ
    supports, so this is for small n (≤ 16); the supports of each size are
    solved together in one batched call. When M is symmetric positive
    semidefinite, every solvable LCP has at least one such basic solution,
    even when z itself is not unique.

    >>> complementary_solutions([[1.0]], [-2.0])
    [array([2.])]
    """
    M, q = check_lcp(M, q)
    n = len(q)
    if n > 16:
        raise ValueError(f"M is {n}×{n}: brute force enumerates 2^{n} bases; use lemke for n > 16")
    scale = max(1.0, np.abs(M).max(), np.abs(q).max())
    found = []
    for size in range(n + 1):
        alphas = np.array(list(itertools.combinations(range(n), size)), dtype=int).reshape(-1, size) \
            if size else np.zeros((1, 0), dtype=int)
        Z = np.zeros((len(alphas), n))
        rows = np.arange(len(alphas))[:, None]
        if size:
            A = M[alphas[:, :, None], alphas[:, None, :]]          # the principal submatrices M_αα
            regular = np.linalg.cond(A) < 1e12
            A[~regular] = np.eye(size)
            Z[rows, alphas] = np.linalg.solve(A, -q[alphas][..., None])[..., 0]
            Z, alphas, rows = Z[regular], alphas[regular], rows[:regular.sum()]
        W = q + Z @ M.T
        bound = tol * scale * np.maximum(1.0, np.abs(Z).max(axis=1))
        ok = (Z.min(axis=1) >= -bound) & (W.min(axis=1) >= -bound)
        if size:
            ok &= np.abs(W[rows, alphas]).max(axis=1) <= bound
        for z, b in zip(Z[ok], bound[ok]):
            z = np.maximum(z, 0.0)
            if not any(np.allclose(z, other, atol=b) for other in found):
                found.append(z)
    return found


def brute_force_lcp(M, q, tol=1e-9):
    """Solve LCP(M, q) by trying all 2ⁿ complementary bases; the first solution found.

    An independent check on :func:`lemke` for small n. Returns an
    :class:`LCPResult` with status ``"solved"`` or ``"no solution"`` (no
    complementary basis gives a nonnegative solution).

    >>> brute_force_lcp([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]).z.round(6)
    array([1.333333, 2.333333])
    >>> brute_force_lcp([[0.0]], [-1.0]).status
    'no solution'
    """
    M, q = check_lcp(M, q)
    solutions = complementary_solutions(M, q, tol)
    if not solutions:
        return LCPResult(None, None, NO_SOLUTION,
                         f"none of the 2^{len(q)} complementary bases gives a nonnegative solution")
    z = solutions[0]
    return LCPResult(z, q + M @ z, SOLVED, f"{len(solutions)} complementary basic solution(s) found")


# --- many small problems at once ------------------------------------------------------------

@dataclass(frozen=True)
class BatchLCPResult:
    """Solutions of a stack of LCPs: z, w of shape (..., n) and ``solved`` of shape (...).

    Rows that could not be solved hold NaN in z and w.

    >>> res = lcp_batch([[2.0]], [[-1.0], [1.0]])
    >>> res.z, res.solved
    (array([[0.5],
           [0. ]]), array([ True,  True]))
    """

    z: np.ndarray
    w: np.ndarray
    solved: np.ndarray


def lcp_batch(M, q, tol=1e-9):
    """Solve many small LCPs 0 ≤ (q + M z) ⊥ z ≥ 0 at once by vectorized enumeration.

    ``M`` has shape (..., n, n) (or (n, n), shared by all), ``q`` shape (..., n).
    For each of the 2ⁿ supports α, the complementary basis system
    M_αα z_α = −q_α is solved for the whole stack with one numpy call; each
    problem keeps the first support whose solution is nonnegative. Meant for
    small n (≤ 8) and many problems, e.g. the cart-against-the-wall step over a
    dense (q, v) grid. Problems with no complementary solution are marked
    unsolved (NaN).

    >>> res = lcp_batch([[0.01]], [[-0.3], [0.2]])
    >>> res.z.round(6), res.solved
    (array([[30.],
           [ 0.]]), array([ True,  True]))
    """
    try:
        M = np.asarray(M, dtype=float)
        q = np.asarray(q, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("M and q must be arrays of numbers") from None
    if M.ndim < 2 or M.shape[-1] != M.shape[-2] or M.shape[-1] == 0:
        raise ValueError(f"M must have shape (..., n, n), got shape {M.shape}")
    n = M.shape[-1]
    if q.ndim < 1 or q.shape[-1] != n:
        raise ValueError(f"q must have shape (..., {n}), got shape {q.shape}")
    if n > 8:
        raise ValueError(f"M is {n}×{n}: lcp_batch enumerates 2^{n} bases per problem; use lemke for n > 8")
    if not np.all(np.isfinite(M)):
        raise ValueError("M must contain only finite numbers (found NaN or inf)")
    if not np.all(np.isfinite(q)):
        raise ValueError("q must contain only finite numbers (found NaN or inf)")
    shape = np.broadcast_shapes(M.shape[:-2], q.shape[:-1])
    M = np.broadcast_to(M, shape + (n, n))
    q = np.broadcast_to(q, shape + (n,))
    scale = np.maximum(1.0, np.maximum(np.abs(M).max(axis=(-1, -2)), np.abs(q).max(axis=-1)))

    z_out = np.full(shape + (n,), np.nan)
    solved = np.zeros(shape, dtype=bool)
    for alpha in _supports(n):
        alpha = list(alpha)
        z = np.zeros(shape + (n,))
        ok = ~solved
        if alpha:
            A = M[..., alpha, :][..., :, alpha]
            det = np.linalg.det(A)
            regular = np.abs(det) > 1e-12 * scale ** len(alpha)
            A = np.where(regular[..., None, None], A, np.eye(len(alpha)))
            z[..., alpha] = np.linalg.solve(A, -q[..., alpha, None])[..., 0]
            ok &= regular
        w = q + np.einsum("...ij,...j->...i", M, z)
        size = scale * np.maximum(1.0, np.abs(z).max(axis=-1))
        off = [i for i in range(n) if i not in alpha]
        ok &= np.all(z >= -tol * size[..., None], axis=-1)
        ok &= np.all(w[..., off] >= -tol * size[..., None], axis=-1)
        z_out[ok] = np.maximum(z[ok], 0.0)
        solved |= ok
        if solved.all():
            break
    w_out = q + np.einsum("...ij,...j->...i", M, np.nan_to_num(z_out))
    w_out[~solved] = np.nan
    return BatchLCPResult(z_out, w_out, solved)


# --- the link to quadratic programs -------------------------------------------------------

def qp_to_lcp(Q, c, A=None, b=None):
    """The KKT conditions of  min ½xᵀQx + cᵀx  s.t.  A x ≥ b, x ≥ 0  as an LCP.

    With multipliers y ≥ 0 for A x ≥ b, the optimality conditions are

        0 ≤ Q x + c − Aᵀ y ⊥ x ≥ 0,     0 ≤ A x − b ⊥ y ≥ 0,

    i.e. LCP(M, q) with z = [x, y],  M = [[Q, −Aᵀ], [A, 0]],  q = [c, −b].
    For Q positive semidefinite M is too (its off-diagonal blocks cancel in
    zᵀMz), and any LCP solution is a QP optimum (notes 000, "Complementarity
    formulations").

    >>> M, q = qp_to_lcp([[1.0]], [-3.0], [[1.0]], [5.0])
    >>> M, q
    (array([[ 1., -1.],
           [ 1.,  0.]]), array([-3., -5.]))
    >>> lemke(M, q).z                      # x = 5 (the constraint binds), y = 2
    array([5., 2.])
    """
    Q, c = check_lcp(Q, c)
    if A is None:
        return Q, c
    try:
        A = np.atleast_2d(np.asarray(A, dtype=float))
    except (TypeError, ValueError):
        raise ValueError(f"A must be a matrix of numbers, got {A!r}") from None
    if A.ndim != 2 or A.shape[1] != len(c):
        raise ValueError(f"A must have shape (k, {len(c)}), got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError("A must contain only finite numbers (found NaN or inf)")
    b = checks.vector("b", b, A.shape[0])
    k = A.shape[0]
    M = np.block([[Q, -A.T], [A, np.zeros((k, k))]])
    return M, np.concatenate([c, -b])
