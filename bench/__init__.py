"""Benchmarks: ``make bench`` (``python -m bench``) prints one table.

Each module here defines ``run()`` returning a list of rows, each a dict with
keys ``benchmark``, ``value`` (a number), ``unit`` and ``note``. Timings are
measured, printed with the machine they ran on, and never asserted in tests.
"""
