"""What the reference's values are when its tests run: the probes that steer some mutation operators.

A transpose of a vector, a product of two vectors swapped, a list made of
what is not an array change nothing and would only be declared equivalent
by hand. So before any mutant is made, the reference runs once with each
value an operator cares about (:func:`~autograder.mutation.syntax.value_sites`)
wrapped in a probe that records what it held (:func:`kind_of`).

>>> import numpy as np
>>> kind_of(np.eye(2)), kind_of(np.ones(3)), kind_of(np.ones((1, 1))), kind_of(2.0), kind_of("N")
('matrix', 'vector', 'scalar', 'scalar', 'other')
"""

import ast
import json
import time

from .replay import Runner
from .syntax import site, site_key, value_sites

PROBE = "__rbd_probe__"


def kind_of(value):
    """'matrix' (ndim >= 2, not 1x1), 'vector' (a 1-D array), 'scalar' (a number, a 0-d or 1x1 array,
    a sympy expression) or 'other' (a string, a dict, an object)."""
    import numbers

    import numpy as np
    import sympy as sp

    if isinstance(value, np.ndarray):
        return ("vector" if value.ndim == 1 else "matrix" if value.ndim >= 2 and value.size > 1 else
                "scalar" if value.dtype.kind in "biufc" else "other")
    if isinstance(value, sp.MatrixBase):
        return "matrix" if value.shape != (1, 1) else "scalar"
    if isinstance(value, (numbers.Number, sp.Basic)) and not isinstance(value, bool):
        return "scalar"
    return "other"


class _Probe(ast.NodeTransformer):
    """Wrap each site in __rbd_probe__(site, value) to learn what the value is when the tests run."""

    def __init__(self, cell_id, sites):
        self.cell_id, self.sites = cell_id, sites

    def generic_visit(self, node):
        node = super().generic_visit(node)
        if isinstance(node, ast.expr) and hasattr(node, "lineno") and site(node) in self.sites:
            wrapped = ast.Call(ast.Name(PROBE, ast.Load()), [ast.Constant(site_key(self.cell_id, node)), node], [])
            return ast.copy_location(wrapped, node)
        return node


def observe(assignment, timeout):
    """Run the reference once with its value sites probed; returns what each held and what went wrong.

    ``{"seen": {site key: [kinds]}, "problems": [...], "slowest_cell_s": s}``: a problem is an
    answer cell that raises, or a test the reference fails; the last is the
    seconds of the reference's slowest cell (its student side and tests).
    """
    seen = {}
    runner = Runner(assignment, timeout)

    def probe(key, value):
        seen.setdefault(key, set()).add(kind_of(value))
        return value
    runner.student[PROBE] = probe
    problems = []
    slowest = 0.0
    for cell in assignment.cells:
        started = time.monotonic()
        if cell.student_side:
            code = None
            if cell.role == "answer":
                tree = ast.parse(cell.source)
                tree = ast.fix_missing_locations(_Probe(cell.id, value_sites(tree, cell.solution)).visit(tree))
                code = compile(tree, f"<{cell.id}>", "exec")
            error = runner.run_student(cell, code=code)
            if error:
                problems.append(f"{cell.id} raises {error}")
        if cell.test_side:
            failure = runner.run_test(cell)
            if failure:
                problems.append(f"the reference fails {cell.id}: {failure[1]}")
        slowest = max(slowest, time.monotonic() - started)
    return {"seen": {k: sorted(v) for k, v in seen.items()}, "problems": problems, "slowest_cell_s": slowest}


def kinds_seen(observed):
    """The ``seen`` table of :func:`observe`'s result, back from JSON."""
    return {k: set(v) for k, v in json.loads(json.dumps(observed["seen"])).items()}
