"""Small timing helpers shared by the benchmark modules."""

import time


def median_time(fn, repeat=7, number=1):
    """Median wall time of ``fn()`` in seconds over ``repeat`` runs of ``number`` calls each."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    times.sort()
    return times[len(times) // 2]
