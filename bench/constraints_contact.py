"""Chapters 4 and 5: constrained simulation speed, and explicit against stiff integrators on compliant contact."""

import time

import numpy as np

from bench._timing import median_time
from lib.constraints import simulate_constrained
from lib.contact import (CompliantContact, CompliantSystem, PlanarRigidBody, PlaneContact, explicit_step_limit,
                         required_stiffness, simulate_ivp)
from lib.linkages import FourBar, PlanarBiped


def steps_per_second(run, steps):
    return steps / median_time(run, repeat=3)


def four_bar_rows():
    fb = FourBar()
    q0, v0 = fb.assemble(theta1=0.3, theta1_dot=6.0)
    dt, t_final = 0.01, 2.0
    rate = steps_per_second(lambda: simulate_constrained(fb.tree, q0, v0, constraint=fb.closure, t_final=t_final,
                                                         h=dt, alpha=5.0),
                            round(t_final / dt))
    return [{"benchmark": "four-bar constrained simulation (RK4, dt 10 ms, Baumgarte)", "unit": "steps/s",
             "value": rate, "note": "n = 3, m = 2; 4 dynamics solves + 1 for λ per step"}]


def biped_rows():
    robot = PlanarBiped()
    pin = robot.foot_pin()
    q0 = robot.balanced()
    u0, _ = robot.holding_torques(q0)
    B = robot.tree.input_matrix()

    def policy(t, q, v):                                  # hold the joints: feed-forward plus PD
        return u0 - 300.0 * (B.T @ (q - q0)) - 30.0 * (B.T @ v)

    v0 = np.zeros(7)
    v0[0] = 0.05                                          # a small push at the hip...
    v0 = v0 - np.linalg.pinv(pin.H(q0)) @ (pin.H(q0) @ v0)  # ...that keeps the foot still
    dt, t_final = 0.005, 1.0
    rate = steps_per_second(lambda: simulate_constrained(robot.tree, q0, v0, constraint=pin, t_final=t_final, u=policy,
                                                         h=dt, alpha=10.0), round(t_final / dt))
    return [{"benchmark": "planar biped, foot pinned (RK4, dt 5 ms, Baumgarte)", "unit": "steps/s",
             "value": rate, "note": "n = 7, m = 2, PD-held joints"}]


def landing_rows(k=1e6, d=300.0, target=1e-8):
    """Work to reach the same accuracy on a stiff landing: the loosest rtol whose height error is within target.

    A 1 kg ball drops 1 cm onto a Hunt–Crossley contact (continuous force, so
    the reference is cheap to get right) damped enough to stay down; after the
    landing, an explicit method is held near its stability limit by the
    contact frequency, an implicit one is not.
    """
    ball = PlanarRigidBody.disk(m=1.0, r=0.1)
    system = CompliantSystem(ball, PlaneContact(ball), CompliantContact(k=k, model="hunt-crossley", d=d))
    q0, v0, t_final = [0.0, 0.11, 0.0], [0.0, 0.0, 0.0], 1.0
    reference = simulate_ivp(system, q0, v0, t_final=t_final, method="Radau", rtol=1e-9, atol=1e-12, num=200)
    rows = []
    for method in ("RK45", "DOP853", "Radau", "BDF"):
        best = None
        for rtol in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8):
            t0 = time.perf_counter()
            run = simulate_ivp(system, q0, v0, t_final=t_final, method=method, rtol=rtol, atol=rtol * 1e-3, num=200)
            seconds = time.perf_counter() - t0
            error = np.abs(run.q[:, 1] - reference.q[:, 1]).max()
            if error <= target:
                best = (run, rtol, seconds)
                break
        name = f"stiff landing k={k:.0e}, {method}, height error ≤ {target:g} m"
        if best is None:
            rows.append({"benchmark": name, "unit": "nfev", "value": np.nan, "note": "not reached at rtol 1e-8"})
            continue
        run, rtol, seconds = best
        rows.append({"benchmark": name, "unit": "nfev", "value": run.nfev,
                     "note": f"rtol {rtol:g}: {run.steps} steps (mean {1e3 * t_final / run.steps:.2f} ms), "
                             f"{run.njev} Jacobians, {seconds:.2f} s"})
    rows.append({"benchmark": f"explicit RK4 step limit at k = {k:.0e} N/m, m = 1 kg", "unit": "ms",
                 "value": 1e3 * explicit_step_limit(1.0, k, "rk4"), "note": "2√2/ω, ω = √(k/m)"})
    k_h = required_stiffness(180.0, 1e-3)
    rows.append({"benchmark": "humanoid 180 kg, 1 mm at rest: required stiffness", "unit": "N/m", "value": k_h,
                 "note": f"m g / 1 mm; whole mass on one spring: RK4 step limit "
                         f"{1e3 * explicit_step_limit(180.0, k_h, 'rk4'):.1f} ms"})
    return rows


def run():
    return four_bar_rows() + biped_rows() + landing_rows()
