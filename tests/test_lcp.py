"""Tests for lib.lcp: Lemke's algorithm against brute-force enumeration, the certificate, bad input."""

import numpy as np
import pytest
import qpsolvers
import scipy.sparse as sparse

from lib.lcp import (CYCLING_EXAMPLE, ITERATION_LIMIT, NO_SOLUTION, RAY_TERMINATION, SOLVED, brute_force_lcp,
                     complementarity_certificate, complementary_solutions, format_trace, lcp_batch, lemke,
                     qp_to_lcp)
from lib.box import Box

TOL = 1e-9


def assert_certified(M, q, z):
    """The issue's certificate: min w ≥ −1e-9, min z ≥ −1e-9, |wᵀz| ≤ 1e-9."""
    c = complementarity_certificate(M, q, z)
    assert c.min_w >= -TOL, f"w = q + M z has a negative entry {c.min_w}"
    assert c.min_z >= -TOL, f"z has a negative entry {c.min_z}"
    assert c.complementarity <= TOL, f"|wᵀz| = {c.complementarity} is not 0"


def random_spd(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + 0.1 * np.eye(n)


def random_feasible_psd(rng, n, rank):
    """A rank-deficient PSD M and a q built from a known complementary pair, so a solution exists."""
    A = rng.normal(size=(rank, n))
    M = A.T @ A
    z_star = np.where(rng.random(n) < 0.5, rng.random(n), 0.0)
    w_star = np.where(z_star > 0, 0.0, rng.random(n))
    return M, w_star - M @ z_star


def table_lcp(rng=None):
    """The four-legged table: a box resting flat on its four bottom corners, frictionless.

    The LCP matrix N M⁻¹ Nᵀ is 4×4 of rank 3 (four normals act on three
    rigid-body velocities: lift, roll, pitch), so the leg impulses are not
    unique but w (the legs' next normal velocities) is. At rest (no rng) only
    gravity acts; otherwise the table also moves at a random velocity.
    """
    box = Box(m=1.0, size=(0.4, 0.2, 0.1))
    R = np.eye(3)
    phi, J = box.ground_contacts([0.0, 0.0, 0.05], R)
    N = J[:4, 0, :]
    M = box.mass_matrix(R)
    h = 0.01
    v = np.zeros(6) if rng is None else np.concatenate([rng.normal(scale=0.2, size=3),
                                                        rng.normal(scale=0.5, size=3)])
    v_minus = v + h * np.linalg.solve(M, box.forces(R, v[3:]))
    W = N @ np.linalg.solve(M, N.T)
    return W, phi[:4] / h + N @ v_minus


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 8, 10, 12])
def test_lemke_matches_brute_force_on_spd(n):
    """SPD M has a unique solution: Lemke's z and w equal brute force's and pass the certificate."""
    rng = np.random.default_rng(100 + n)
    for _ in range(3 if n < 12 else 2):
        M, q = random_spd(rng, n), rng.normal(size=n)
        res, ref = lemke(M, q), brute_force_lcp(M, q)
        assert res.status == ref.status == SOLVED, res.reason
        assert_certified(M, q, res.z)
        np.testing.assert_allclose(res.z, ref.z, atol=1e-8)
        np.testing.assert_allclose(res.w, ref.w, atol=1e-8)


@pytest.mark.parametrize("n, rank", [(3, 1), (4, 2), (6, 3), (8, 4), (10, 5), (12, 6)])
def test_lemke_matches_brute_force_w_on_rank_deficient_psd(n, rank):
    """Rank-deficient PSD M: z may differ from brute force's, but w must not."""
    rng = np.random.default_rng(200 + n)
    for _ in range(3):
        M, q = random_feasible_psd(rng, n, rank)
        res, ref = lemke(M, q), brute_force_lcp(M, q)
        assert res.status == ref.status == SOLVED, res.reason
        assert_certified(M, q, res.z)
        np.testing.assert_allclose(res.w, ref.w, atol=1e-7)


def test_four_legged_table_has_many_impulses_one_w():
    """The table at rest: several complementary solutions z, all with the same w; Lemke finds one of them."""
    W, q = table_lcp()
    assert np.linalg.matrix_rank(W) == 3
    solutions = complementary_solutions(W, q)
    assert len(solutions) >= 2, "a resting table should admit more than one set of leg impulses"
    ws = [q + W @ z for z in solutions]
    for w in ws[1:]:
        np.testing.assert_allclose(w, ws[0], atol=1e-9)
    res = lemke(W, q)
    assert res.solved, res.reason
    assert_certified(W, q, res.z)
    np.testing.assert_allclose(res.w, ws[0], atol=1e-9)


def test_table_lcp_random_states():
    """The table under random velocities: Lemke's w equals brute force's w every time."""
    rng = np.random.default_rng(4)
    for _ in range(20):
        W, q = table_lcp(rng)
        res, ref = lemke(W, q), brute_force_lcp(W, q)
        assert res.solved and ref.solved, res.reason
        assert_certified(W, q, res.z)
        np.testing.assert_allclose(res.w, ref.w, atol=1e-9)


def test_degenerate_instances_terminate():
    """Small-integer PSD problems are full of ratio-test ties; every run must end, and agree with brute force."""
    rng = np.random.default_rng(5)
    for _ in range(150):
        n = int(rng.integers(2, 7))
        A = rng.integers(-1, 2, size=(int(rng.integers(1, n + 1)), n)).astype(float)
        M, q = A.T @ A, rng.integers(-2, 2, size=n).astype(float)
        res, ref = lemke(M, q), brute_force_lcp(M, q)
        assert res.status in (SOLVED, RAY_TERMINATION), f"{res.status}: {res.reason}\nM = {M}\nq = {q}"
        assert res.solved == ref.solved, f"Lemke says {res.status}, brute force {ref.status}\nM = {M}\nq = {q}"
        if res.solved:
            assert_certified(M, q, res.z)
            np.testing.assert_allclose(res.w, ref.w, atol=1e-9)


def test_cycling_instance_terminates_only_with_the_lexicographic_rule():
    """The naive lowest-row tie rule revisits the same four bases forever; the lexicographic rule solves it."""
    M, q = CYCLING_EXAMPLE
    res = lemke(M, q)
    assert res.solved, res.reason
    np.testing.assert_allclose(res.z, brute_force_lcp(M, q).z, atol=1e-12)
    np.testing.assert_allclose(res.z, [0.5, 1.25, 0.0, 1.5], atol=1e-12)
    naive = lemke(M, q, ties="first", max_iter=40, trace=True)
    assert naive.status == ITERATION_LIMIT and naive.z is None
    bases = [step.basis for step in naive.trace]
    assert len(set(bases)) < len(bases) / 4, "the naive path should cycle through a handful of bases"


def test_fully_tied_first_pivot():
    """All q_i equal and M = all ones (every ratio ties at every pivot): solved, with w = 0 and Σz = 1."""
    M, q = np.ones((4, 4)), -np.ones(4)
    res = lemke(M, q)
    assert res.solved, res.reason
    assert_certified(M, q, res.z)
    np.testing.assert_allclose(res.w, 0.0, atol=1e-12)
    assert res.z.sum() == pytest.approx(1.0)


def test_no_solution_is_reported():
    """w1 + w2 = −2 for every z: infeasible. Lemke ends by ray termination with no z; brute force finds none."""
    M, q = np.array([[1.0, -1.0], [-1.0, 1.0]]), np.array([-1.0, -1.0])
    res = lemke(M, q)
    assert res.status == RAY_TERMINATION
    assert res.z is None and res.w is None and not res.solved
    assert "no solution" in res.reason
    assert brute_force_lcp(M, q).status == NO_SOLUTION


def test_iteration_limit_is_reported():
    """A problem that needs three pivots, given one: status 'iteration limit', no z."""
    res = lemke([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0], max_iter=1)
    assert res.status == ITERATION_LIMIT
    assert res.z is None and "max_iter" in res.reason


def test_restart_recovers_a_failed_path():
    """For this non-copositive M the first path ray-terminates though a solution exists; a restart finds it."""
    M, q = [[1.0, 3.0, 3.0], [-2.0, 0.0, -3.0], [-3.0, 1.0, -3.0]], [2.0, 2.0, -2.0]
    assert lemke(M, q).status == RAY_TERMINATION
    res = lemke(M, q, restarts=3)
    assert res.solved and "restart" in res.reason
    np.testing.assert_allclose(res.z, brute_force_lcp(M, q).z, atol=1e-12)
    np.testing.assert_allclose(res.z, [0.0, 4.0, 2.0 / 3.0], atol=1e-12)


def test_trace_follows_the_complementary_pivot_rule():
    """z0 enters first and leaves last; every other entering variable is the complement of the last leaving one."""
    rng = np.random.default_rng(6)
    M, q = random_spd(rng, 4), -rng.random(4) - 0.1
    res = lemke(M, q, trace=True)
    assert res.solved
    steps = res.trace
    assert steps[0].entering == "z0" and steps[-1].leaving == "z0"
    assert steps[0].leaving == f"w{int(np.argmin(q)) + 1}", "the most negative q_i leaves first"
    complement = {f"w{i}": f"z{i}" for i in range(1, 5)} | {f"z{i}": f"w{i}" for i in range(1, 5)}
    for before, after in zip(steps, steps[1:]):
        assert after.entering == complement[before.leaving]
        assert np.all(after.values >= -1e-12), "every basic variable stays nonnegative"
    text = format_trace(res)
    assert text.count("\n") == len(steps) and "z0" in text


def test_nonnegative_q_needs_no_pivot():
    """q ≥ 0: z = 0, w = q, zero pivots."""
    res = lemke(np.eye(2), [1.0, 0.0])
    assert res.solved and res.iterations == 0
    np.testing.assert_array_equal(res.z, [0.0, 0.0])


def test_certificate_catches_wrong_answers():
    """A right z passes; a wrong z fails on the right condition; a w inconsistent with z shows a residual."""
    M, q = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-5.0, -6.0])
    z = lemke(M, q).z
    assert complementarity_certificate(M, q, z).holds()
    assert complementarity_certificate(M, q, z + [0.5, 0.0]).complementarity > 0.1
    assert complementarity_certificate(M, q, [0.0, 0.0]).min_w == -6.0
    assert complementarity_certificate(M, q, [-1.0, 3.0]).min_z == -1.0
    assert complementarity_certificate(M, q, z, w=[1.0, 0.0]).residual == pytest.approx(1.0)


def test_qp_as_lcp_matches_a_qp_solver():
    """min ½xᵀQx + cᵀx, A x ≥ b, x ≥ 0 through its KKT LCP equals Clarabel's answer to the QP."""
    rng = np.random.default_rng(7)
    n, k = 4, 2
    Q, c = random_spd(rng, n), rng.normal(size=n)
    A, b = rng.normal(size=(k, n)), rng.normal(size=k) - 1.0
    M, q = qp_to_lcp(Q, c, A, b)
    res = lemke(M, q)
    assert res.solved, res.reason
    x = res.z[:n]
    ref = qpsolvers.solve_qp(sparse.csc_matrix(Q), c, sparse.csc_matrix(-A), -b, lb=np.zeros(n), solver="clarabel")
    np.testing.assert_allclose(x, ref, atol=1e-6)


def test_batch_matches_lemke():
    """lcp_batch over a stack of 3×3 SPD problems gives Lemke's z for each one."""
    rng = np.random.default_rng(8)
    Ms = np.array([random_spd(rng, 3) for _ in range(50)])
    qs = rng.normal(size=(50, 3))
    res = lcp_batch(Ms, qs)
    assert res.solved.all()
    for M, q, z in zip(Ms, qs, res.z):
        np.testing.assert_allclose(z, lemke(M, q).z, atol=1e-9)


def test_batch_grid_of_scalar_problems():
    """A shared 1×1 M over a (q) grid of shape (30, 40): z = max(−q/M, 0), broadcast shapes kept."""
    q = np.linspace(-1.0, 1.0, 1200).reshape(30, 40, 1)
    res = lcp_batch([[0.01]], q)
    assert res.z.shape == (30, 40, 1) and res.solved.shape == (30, 40)
    np.testing.assert_allclose(res.z[..., 0], np.maximum(-q[..., 0] / 0.01, 0.0), atol=1e-9)


def test_batch_marks_unsolvable_problems():
    """An infeasible problem in the stack is flagged unsolved with NaN, its neighbours solved."""
    M = np.array([[[1.0, -1.0], [-1.0, 1.0]], [[2.0, 1.0], [1.0, 2.0]]])
    q = np.array([[-1.0, -1.0], [-5.0, -6.0]])
    res = lcp_batch(M, q)
    assert res.solved.tolist() == [False, True]
    assert np.isnan(res.z[0]).all()


@pytest.mark.parametrize("M, q, name", [
    ([[1.0, 2.0]], [1.0], "M"),
    ([[1.0, 0.0], [0.0, 1.0]], [1.0, 2.0, 3.0], "q"),
    ([[np.nan, 0.0], [0.0, 1.0]], [1.0, 2.0], "M"),
    ([[1.0, 0.0], [0.0, 1.0]], [np.inf, 2.0], "q"),
    ("abc", [1.0], "M"),
    (np.zeros((0, 0)), [], "M"),
])
def test_bad_input_raises_value_error_naming_it(M, q, name):
    """Non-square or mismatched M and q, NaN or inf: a ValueError naming the culprit, from every entry point."""
    for solver in (lemke, brute_force_lcp, complementary_solutions):
        with pytest.raises(ValueError, match=name):
            solver(M, q)
    with pytest.raises(ValueError, match=name):
        complementarity_certificate(M, q, np.zeros(np.shape(q)))


def test_bad_solver_options():
    """A nonpositive covering vector, max_iter or restarts below range: ValueErrors naming them."""
    with pytest.raises(ValueError, match="d must"):
        lemke(np.eye(2), [-1.0, -1.0], d=[1.0, 0.0])
    with pytest.raises(ValueError, match="max_iter"):
        lemke(np.eye(2), [-1.0, -1.0], max_iter=0)
    with pytest.raises(ValueError, match="restarts"):
        lemke(np.eye(2), [-1.0, -1.0], restarts=-1)
    with pytest.raises(ValueError, match="ties"):
        lemke(np.eye(2), [-1.0, -1.0], ties="bland")
    with pytest.raises(ValueError, match="brute force"):
        brute_force_lcp(np.eye(17), -np.ones(17))


def test_batch_bad_input():
    """lcp_batch: a non-square stack, a q of the wrong length, NaN, or n too large for enumeration."""
    with pytest.raises(ValueError, match="M must"):
        lcp_batch(np.ones((5, 2, 3)), np.ones((5, 2)))
    with pytest.raises(ValueError, match="q must"):
        lcp_batch(np.eye(2), np.ones((5, 3)))
    with pytest.raises(ValueError, match="q must"):
        lcp_batch(np.eye(2), [[np.nan, 1.0]])
    with pytest.raises(ValueError, match="lemke"):
        lcp_batch(np.eye(9), np.ones(9))


def test_qp_to_lcp_bad_input():
    """A constraint matrix with the wrong number of columns is rejected by name."""
    with pytest.raises(ValueError, match="A must"):
        qp_to_lcp(np.eye(2), [0.0, 0.0], [[1.0, 2.0, 3.0]], [1.0])
