"""Chapters 6 and 9: the rimless-wheel limit cycle by collocation and by shooting, hybrid events per second."""

import time

import numpy as np

from bench._timing import median_time
from lib.bouncing import bouncing_ball_modes
from lib.hybrid import simulate_hybrid
from lib.impulse import SpinningBall, coulomb_impact
from lib.rimless_wheel import RimlessWheel
from lib.trajopt import hopper_collocation, rimless_wheel_collocation


def events_per_second(modes, mode, x0, t_final):
    t0 = time.perf_counter()
    run = simulate_hybrid(modes, mode, x0, t_final)
    return len(run.events) / (time.perf_counter() - t0), len(run.events)


def run():
    wheel = RimlessWheel()
    omega = wheel.rolling_fixed_point()
    res = rimless_wheel_collocation(wheel, N=20)
    err_col = abs(res.x[0][0, 1] - omega)
    err_shoot = abs(wheel.fixed_point_by_shooting(1.5) - omega)
    rows = [
        {"benchmark": "rimless wheel limit cycle: collocation N=20 (SLSQP)", "unit": "s",
         "value": median_time(lambda: rimless_wheel_collocation(wheel, N=20), repeat=5),
         "note": f"|θ̇0 − closed form| = {err_col:.1e}, {res.nit} iterations"},
        {"benchmark": "rimless wheel limit cycle: collocation N=40 (SLSQP)", "unit": "s",
         "value": median_time(lambda: rimless_wheel_collocation(wheel, N=40), repeat=3), "note": ""},
        {"benchmark": "rimless wheel limit cycle: collocation N=20 (trust-constr)", "unit": "s",
         "value": median_time(lambda: rimless_wheel_collocation(wheel, N=20, method="trust-constr"), repeat=3),
         "note": ""},
        {"benchmark": "rimless wheel limit cycle: shooting on the simulator", "unit": "s",
         "value": median_time(lambda: wheel.fixed_point_by_shooting(1.5), repeat=5),
         "note": f"|θ̇0 − closed form| = {err_shoot:.1e}"},
        {"benchmark": "rimless wheel collocation, infeasible (h_max too small)", "unit": "s",
         "value": median_time(lambda: rimless_wheel_collocation(wheel, N=20, h_min=0.005, h_max=0.02, maxiter=30),
                              repeat=3), "note": "reported at its iteration limit, maxiter = 30"},
        {"benchmark": "hopper apex-to-apex collocation, 3 phases", "unit": "s",
         "value": median_time(hopper_collocation, repeat=3), "note": ""},
    ]
    rate, n = events_per_second(wheel.modes(), "stance", [wheel.gamma - wheel.alpha, 2.0], 60.0)
    rows.append({"benchmark": "hybrid simulator: rimless wheel (closed-form stance)", "unit": "events/s",
                 "value": rate, "note": f"{n} collisions in 60 s simulated"})
    rate, n = events_per_second(bouncing_ball_modes(0.9), "free", [1.0, 0.0], 10.0)
    rows.append({"benchmark": "hybrid simulator: bouncing ball, contact_modes (protocol)", "unit": "events/s",
                 "value": rate, "note": f"{n} events to rest, e = 0.9"})
    ball = SpinningBall()
    q = np.array([0.0, ball.r, 0.0])
    M, J = ball.mass_matrix(q), ball.contact_jacobian(q)
    rows.append({"benchmark": "coulomb_impact (SOCP, Clarabel), sliding ball", "unit": "µs",
                 "value": 1e6 * median_time(lambda: coulomb_impact(M, J, [1.0, -2.0, 0.0], 0.5, 0.1), number=50),
                 "note": "friction cone active"})
    return rows
