"""Numeric evaluation cost of the chapter 1 systems."""

import numpy as np

from bench._timing import median_time
from lib import DoublePendulum


def run():
    dp = DoublePendulum()
    q, v = np.array([0.3, -0.2]), np.array([0.1, 0.5])
    return [
        {"benchmark": "double pendulum forward_dynamics, per call", "unit": "µs",
         "value": 1e6 * median_time(lambda: dp.forward_dynamics(q, v), number=2000), "note": "closed form + solve"},
        {"benchmark": "double pendulum simulate 10 s (DOP853, tol 1e-10)", "unit": "s",
         "value": median_time(lambda: dp.simulate([1.0, 0.5], [0.0, 0.0], 10.0), repeat=3), "note": ""},
    ]
