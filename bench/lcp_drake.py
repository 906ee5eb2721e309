"""The LCP benchmark (bench/lcp.py) again, with Drake's MobyLcpSolver side by side.

Drake is not a dependency of the course: this module makes a separate virtual
environment, ``_build/bench-drake/``, installs the PyPI package ``drake``
(pinned below) into it, and lets it see the course's environment through a
``.pth`` file, so that lib and the other peers are the very same packages.
Then it runs bench/lcp.py in that interpreter, where ``pydrake`` imports: our
Lemke, scipy, Clarabel and Drake are timed in one run on the same problems.
If the install fails (no network, no wheel), one row says so.
"""

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = ROOT / "_build" / "bench-drake"
DRAKE = "drake==1.51.1"


def _python():
    return ENV / "bin" / "python"


def _prepare():
    """Create the environment once; returns '' when pydrake imports there, else why not."""
    if not _python().exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(ENV)
        site = subprocess.run([str(_python()), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        ours = sysconfig.get_paths()["purelib"]
        # after its own packages, the course's environment (and its editable lib) is visible too
        Path(site, "zz_course_env.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
        import numpy  # the same numpy as the course, so that scipy and lib see what they were built for

        install = subprocess.run([str(_python()), "-m", "pip", "install", "-q", DRAKE, f"numpy=={numpy.__version__}"],
                                 capture_output=True, text=True)
        if install.returncode != 0:
            return f"pip install {DRAKE} failed: {install.stderr.strip().splitlines()[-1:]}"
    probe = subprocess.run([str(_python()), "-c", "import pydrake.solvers"], capture_output=True, text=True)
    return "" if probe.returncode == 0 else f"pydrake does not import: {probe.stderr.strip()[-200:]}"


def run():
    problem = _prepare()
    if problem:
        return [{"benchmark": "Drake MobyLcpSolver", "value": float("nan"), "unit": "µs", "note": problem}]
    script = "import json, bench.lcp as b; print('ROWS' + json.dumps(b.run()))"
    result = subprocess.run([str(_python()), "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    rows = json.loads(result.stdout.split("ROWS", 1)[1])
    for row in rows:
        row["note"] = (row.get("note", "") + f"; in {ENV.relative_to(ROOT)} with {DRAKE}").lstrip("; ")
    return rows


if __name__ == "__main__":
    sys.exit(print(json.dumps(run(), indent=1)))
