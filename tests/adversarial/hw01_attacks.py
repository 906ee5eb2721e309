"""Submissions that attack the grader, with the outcome each must get (autograder/THREATS.md).

Each entry starts from ``base`` ("reference": every answer right; "blank": the
released notebook) and replaces some answer cells (``replace``: grade_id ->
source) or edits the notebook (``edit``: a function of the notebook).
``expect`` is the outcome: ``status``; ``lost``, the test cells that must
score 0 (every other test cell keeps its points); ``flag``, text that must
appear in the evidence (status "flagged for review"); ``note``, text that must
appear in the notes (say why a part scored 0); ``reason``, text of the reason
when it could not be graded. tests/test_adversarial.py grades them all in one
batch with the real grading command, with a copy of the course (solutions
and hidden tests included) lying outside the course folder, in the grader's
home folder, as an instructor's own checkout would.
"""

from pathlib import Path

import nbformat

MASS_MATRIX = """\
def mass_matrix(q, m1, m2, l1, l2):
    c2 = np.cos(q[1])
    corner = m2 * l2**2 + m2 * l1 * l2 * c2
    return np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, corner],
                     [corner, m2 * l2**2]])
"""
CHAIN_PARAMETERS = "[m1, m2, l1, l2, l1, l2, 0.0, 0.0, 9.81]"  # the 2-link chain with lc = l, I = 0: this pendulum
HW01 = Path(__file__).resolve().parents[2] / "exercises" / "hw01" / "hw01.ipynb"
# every autograded test cell of homework 1 (the code cells with points), and their points
AUTOGRADED = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
              for c in nbformat.read(str(HW01), as_version=4).cells
              if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}
ALL = sorted(AUTOGRADED)
FULL = sum(AUTOGRADED.values())   # what an honest hand-in scores before the written answer is graded


def _drop_test_cell(nb):
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "test-mass-matrix"]


def _strip_metadata(nb):
    for cell in nb.cells:
        cell.metadata = {}


def _strip_ids(nb):
    nb.nbformat_minor = 4
    for cell in nb.cells:
        cell.pop("id", None)


def _move_tests_first(nb):
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test-")]
    nb.cells = tests + [c for c in nb.cells if c not in tests]


def _duplicate_test_cell(nb):
    twin = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test-energy"][0]
    nb.cells.append(nbformat.from_dict(dict(twin)))


def _edit_test_cell(nb):
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "test-mass-matrix":
            cell.source = "print('all good')"


def _break_nbformat(nb):
    nb.cells[3]["cell_type"] = "spreadsheet"


def _other_assignment(nb):
    nb.cells = [c for c in nb.cells if "nbgrader" not in c.metadata]
    nb.cells.append(nbformat.v4.new_markdown_cell("# Homework 9"))


ATTACKS = [
    # --- time -------------------------------------------------------------------
    {"name": "endless-loop", "base": "reference", "replace": {"answer-energy": "while True:\n    pass"},
     "expect": {"status": "graded", "lost": ["test-energy"]}},
    {"name": "ignores-interrupts", "base": "reference",
     "replace": {"answer-energy": "import signal\nfor s in (signal.SIGINT, signal.SIGALRM, signal.SIGTERM):\n"
                                  "    signal.signal(s, signal.SIG_IGN)\nwhile True:\n    pass"},
     "expect": {"status": "graded", "lost": ["test-energy"]}},
    {"name": "catches-everything", "base": "reference",
     "replace": {"answer-energy": "while True:\n    try:\n        while True:\n            pass\n"
                                  "    except BaseException:\n        pass"},
     "expect": {"status": "graded", "lost": ["test-energy"]}},
    {"name": "sleeps-forever", "base": "reference", "replace": {"answer-energy": "import time\ntime.sleep(10**6)"},
     "expect": {"status": "graded", "lost": ["test-energy"]}},
    {"name": "slow-function", "base": "reference",
     "replace": {"answer-mass-matrix": MASS_MATRIX.replace("    c2 =", "    import time\n    time.sleep(10**6)\n    c2 =")},
     "expect": {"status": "graded", "lost": ["test-mass-matrix"]}},
    # --- resources --------------------------------------------------------------------
    {"name": "memory-bomb", "base": "reference",
     "replace": {"answer-energy": "hoard = bytearray(64 * 2**30)"},
     "expect": {"status": "graded", "lost": ["test-energy"], "note": "answer-energy: it ran out of memory"}},
    {"name": "fork-bomb", "base": "reference",
     "replace": {"answer-energy": "import os\nwhile True:\n    os.fork()"},
     "expect": {"status": "flagged for review", "lost": ["test-energy"], "flag": "starts processes"}},
    {"name": "floods-output", "base": "reference",
     "replace": {"answer-mass-matrix": MASS_MATRIX + "print('x' * 50_000_000)\nimport sys\n"
                                                     "sys.stderr.write('y' * 5_000_000)"},
     "expect": {"status": "graded", "lost": []}},
    {"name": "fills-the-disk", "base": "reference",
     "replace": {"answer-mass-matrix": MASS_MATRIX + "with open('big', 'wb') as f:\n"
                                                     "    f.write(bytes(2 * 2**30))"},
     "expect": {"status": "graded", "lost": []}},
    # --- crashes ---------------------------------------------------------------------
    {"name": "os-exit", "base": "reference", "replace": {"answer-acceleration": "import os\nos._exit(0)"},
     "expect": {"status": "graded", "lost": ["test-acceleration"],
                "note": "answer-acceleration: this cell ended the student's Python process (it exited with status 0"}},
    {"name": "sys-exit-after-answer", "base": "reference",
     "replace": {"answer-mass-matrix": MASS_MATRIX + "import sys\nsys.exit(0)"},
     "expect": {"status": "graded", "lost": []}},
    {"name": "raises-keyboard-interrupt", "base": "reference",
     "replace": {"answer-mass-matrix": MASS_MATRIX + "raise KeyboardInterrupt"},
     "expect": {"status": "graded", "lost": []}},
    {"name": "segfault", "base": "reference",
     "replace": {"answer-acceleration": "import ctypes\nctypes.string_at(0)"},
     "expect": {"status": "flagged for review", "lost": ["test-acceleration"], "flag": "raw code",
                "note": "answer-acceleration: this cell ended the student's Python process (killed by SIGSEGV"}},
    {"name": "kills-every-process", "base": "reference",
     "replace": {"answer-mass-matrix": MASS_MATRIX + "import os, signal\nos.kill(-1, signal.SIGKILL)"},
     "expect": {"status": "flagged for review", "lost": [], "flag": "starts processes"}},
    {"name": "crash-inside-function", "base": "reference",
     "replace": {"answer-mass-matrix": "import os\ndef mass_matrix(q, m1, m2, l1, l2):\n    os._exit(1)"},
     "expect": {"status": "graded", "lost": ["test-mass-matrix"]}},
    # --- malformed ----------------------------------------------------------------------
    {"name": "deleted-test-cell", "base": "reference", "edit": _drop_test_cell,
     "expect": {"status": "graded", "lost": []}},
    {"name": "deleted-test-cell-blank", "base": "blank", "edit": _drop_test_cell,
     "expect": {"status": "graded", "lost": ALL}},
    {"name": "metadata-stripped", "base": "reference", "edit": _strip_metadata,
     "expect": {"status": "could not be graded", "reason": "not a hw01 notebook"}},
    {"name": "no-cell-ids", "base": "reference", "edit": _strip_ids,
     "expect": {"status": "graded", "lost": []}},
    {"name": "tests-moved-first", "base": "reference", "edit": _move_tests_first,
     "expect": {"status": "graded", "lost": []}},
    {"name": "duplicated-test-cell", "base": "blank", "edit": _duplicate_test_cell,
     "expect": {"status": "graded", "lost": ALL}},
    {"name": "not-nbformat", "base": "reference", "edit": _break_nbformat,
     "expect": {"status": "could not be graded", "reason": "not a valid Jupyter notebook"}},
    {"name": "another-homework", "base": "blank", "edit": _other_assignment,
     "expect": {"status": "could not be graded", "reason": "not a hw01 notebook"}},
    # --- tampering ------------------------------------------------------------------------
    {"name": "patches-numpy", "base": "blank",
     "replace": {"answer-mass-matrix": "np.isclose = lambda *a, **k: True\nnp.allclose = lambda *a, **k: True\n"
                                       "def mass_matrix(q, m1, m2, l1, l2):\n    return np.zeros((2, 2))"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "replaces part of a library"}},
    {"name": "patches-builtins", "base": "blank",
     "replace": {"answer-mass-matrix": "import builtins\nbuiltins.AssertionError = type('Quiet', (Exception,), {})\n"
                                       "builtins.abs = lambda x: 0\ndef mass_matrix(q, m1, m2, l1, l2):\n"
                                       "    return np.zeros((2, 2))"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "builtins"}},
    {"name": "patches-lib", "base": "blank",
     "replace": {"answer-mass-matrix": "lib.homework.without_lib = lambda *names: __import__('contextlib')"
                                       ".nullcontext()\ndef mass_matrix(q, m1, m2, l1, l2):\n"
                                       "    return lib.DoublePendulum(m1=m1, m2=m2, l1=l1, l2=l2).mass_matrix(q)"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "replaces part of a library"}},
    {"name": "lying-object", "base": "blank",
     "replace": {"answer-mass-matrix": "class Anything:\n    def __eq__(self, other):\n        return True\n"
                                       "    __array_priority__ = 1000\n"
                                       "def mass_matrix(q, m1, m2, l1, l2):\n    return Anything()"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "compare"}},
    {"name": "lying-ndarray", "base": "blank",
     "replace": {"answer-mass-matrix": "class Liar(np.ndarray):\n"
                                       "    def __array_ufunc__(self, *args, **kwargs):\n        return True\n"
                                       "def mass_matrix(q, m1, m2, l1, l2):\n"
                                       "    return np.zeros((2, 2)).view(Liar)"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "compare"}},
    {"name": "input-transformer", "base": "blank",
     "replace": {"answer-cartpole-energy": "get_ipython().input_transformers_cleanup.append(\n"
                                           "    lambda lines: ['pass\\n'])"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "IPython"}},
    {"name": "custom-exception-handler", "base": "blank",
     "replace": {"answer-cartpole-energy": "get_ipython().set_custom_exc((BaseException,), "
                                           "lambda *args, **kwargs: None)"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "IPython"}},
    {"name": "patched-run-cell", "base": "blank",
     "replace": {"answer-cartpole-energy": "shell = get_ipython()\nshell.run_cell = lambda *a, **k: None"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "IPython"}},
    {"name": "garbles-its-answers", "base": "blank",   # values the judge cannot rebuild: missing answers, not a crash
     "replace": {"answer-mass-matrix": "import autograder.sandbox.wire\n"
                                       "autograder.sandbox.wire.encode = lambda value, depth=0: {'__sympy__': ['Symbol']}\n"
                                       "def mass_matrix(q, m1, m2, l1, l2):\n    return np.zeros((2, 2))"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "the grader's own side"}},
    {"name": "redefines-test-helpers", "base": "blank",
     "replace": {"answer-mass-matrix": "def symbolic_difference(a, b):\n    return 0\n"
                                       "visible_tests_passed = {k: True for k in range(1, 7)}\n"
                                       "def without_lib(*names):\n    raise SystemExit"},
     "expect": {"status": "graded", "lost": ALL}},
    {"name": "edits-test-cell", "base": "blank", "edit": _edit_test_cell,
     "expect": {"status": "graded", "lost": ALL}},
    {"name": "reads-the-reference", "base": "blank",
     "replace": {"answer-mass-matrix": "import json, pathlib\n"
                                       "project = pathlib.Path(lib.__file__).resolve().parents[1]\n"
                                       "places = [project / 'exercises' / 'hw01' / 'hw01.ipynb', project / 'gradebook.db']\n"
                                       "places += list(project.parent.glob('*/exercises/hw01/hw01.ipynb'))\n"
                                       "for path in places:\n"
                                       "    if path.suffix == '.ipynb' and path.is_file():\n"
                                       "        for cell in json.loads(path.read_text())['cells']:\n"
                                       "            if 'def mass_matrix' in ''.join(cell['source']):\n"
                                       "                exec(''.join(cell['source']).replace('### BEGIN SOLUTION', ''))"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "reference"}},
    {"name": "reads-the-git-history", "base": "blank",
     "replace": {"answer-mass-matrix": "import pathlib, zlib\n"
                                       "project = pathlib.Path(lib.__file__).resolve().parents[1]\n"
                                       "for obj in (project / '.git' / 'objects').glob('??/*'):\n"
                                       "    text = zlib.decompress(obj.read_bytes()).decode(errors='ignore')\n"
                                       "    if 'def mass_matrix' in text and 'BEGIN SOLUTION' in text:\n"
                                       "        raise SystemExit('found it')"},
     "expect": {"status": "flagged for review", "lost": ALL, "flag": "reference"}},
    {"name": "walks-the-disk", "base": "blank",   # no flagged word: only the allow-list stops it
     "replace": {"answer-mass-matrix": "import json, os, sys\n"
                                       "skip = ('/proc', '/sys', '/dev', '/usr', sys.prefix, sys.base_prefix)\n"
                                       "for top, dirs, files in os.walk('/'):\n"
                                       "    dirs[:] = [d for d in dirs if not os.path.join(top, d).startswith(skip)]\n"
                                       "    for name in files:\n"
                                       "        if name.endswith('.ipynb'):\n"
                                       "            try:\n"
                                       "                cells = json.load(open(os.path.join(top, name)))['cells']\n"
                                       "            except (OSError, ValueError, KeyError):\n"
                                       "                continue\n"
                                       "            for cell in cells:\n"
                                       "                text = ''.join(cell['source'])\n"
                                       "                if 'def mass_matrix' in text and 'c2 =' in text:\n"
                                       "                    exec(text)"},
     "expect": {"status": "graded", "lost": ALL}},
    {"name": "writes-everywhere", "base": "reference",
     "replace": {"answer-mass-matrix": MASS_MATRIX + "import os\nfor place in ('/', '/tmp/', os.path.expanduser('~/'), "
                                                     "'/work/', '/root/'):\n    try:\n"
                                                     "        open(place + 'left-behind.txt', 'w').write('x')\n"
                                                     "    except OSError:\n        pass"},
     "expect": {"status": "graded", "lost": []}},
    # --- lib's own answer, reached around the switch (lib.homework.without_lib) ------------------
    {"name": "binds-lib-method-early", "base": "reference",
     "replace": {"answer-mass-matrix": "_MM = lib.DoublePendulum.mass_matrix\n"
                                       "def mass_matrix(q, m1, m2, l1, l2):\n"
                                       "    return _MM(lib.DoublePendulum(m1=m1, m2=m2, l1=l1, l2=l2), q)",
                 "answer-energy": "_E = lib.DoublePendulum.energy\n"
                                  "def double_pendulum_energy(q, v, m1, m2, l1, l2, g=9.81):\n"
                                  "    arm = lib.DoublePendulum(m1=m1, m2=m2, l1=l1, l2=l2, g=g)\n"
                                  "    return np.array([_E(arm, qk, vk) for qk, vk in zip(q, v)])"},
     "expect": {"status": "graded", "lost": ["test-mass-matrix", "test-energy"]}},
    {"name": "lib-by-another-route", "base": "reference",
     "replace": {"answer-mass-matrix": "from lib.manipulators import PlanarChain\n"
                                       "def mass_matrix(q, m1, m2, l1, l2):\n"
                                       "    arm = PlanarChain(m=[m1, m2], l=[l1, l2], lc=[l1, l2], I=[0.0, 0.0])\n"
                                       "    return arm.rnea_mass_matrix(q)",
                 "answer-acceleration": "def acceleration(M, C, tau_g, B, v, u):\n"
                                        "    tau = np.asarray(tau_g) + np.asarray(B) @ u - np.asarray(C) @ v\n"
                                        "    no_constraint = np.zeros((0, len(v)))\n"
                                        "    return lib.constraints.constrained_acceleration(M, tau, no_constraint, "
                                        "np.zeros(0))[0]"},
     "expect": {"status": "graded", "lost": ["test-mass-matrix", "test-acceleration"]}},
    {"name": "lib-internals", "base": "reference",
     "replace": {"answer-mass-matrix": "def mass_matrix(q, m1, m2, l1, l2):\n"
                                       "    M = lib.manipulators._compiled_chain(2)['M']\n"
                                       f"    return np.array(M(list(q), [0.0, 0.0], {CHAIN_PARAMETERS}), dtype=float)"},
     "expect": {"status": "flagged for review", "lost": ["test-mass-matrix"], "flag": "lib's internals"}},
    {"name": "lib-internals-bound-early", "base": "reference",
     "replace": {"answer-mass-matrix": "from lib.manipulators import _compiled_chain\n"
                                       "_M = _compiled_chain(2)['M']\n"
                                       "def mass_matrix(q, m1, m2, l1, l2):\n"
                                       f"    return np.array(_M(list(q), [0.0, 0.0], {CHAIN_PARAMETERS}), dtype=float)"},
     "expect": {"status": "flagged for review", "lost": ["test-mass-matrix"], "flag": "lib's internals"}},
    # --- harmless noise -----------------------------------------------------------------
    {"name": "asks-for-input", "base": "reference",
     "replace": {"answer-mass-matrix": "name = input('your name? ')\n" + MASS_MATRIX},
     "expect": {"status": "graded", "lost": []}},
    {"name": "warnings-on-stderr", "base": "reference",
     "replace": {"answer-mass-matrix": "import warnings, sys\nwarnings.warn('noise', DeprecationWarning)\n"
                                       "print('chatter', file=sys.stderr)\n" + MASS_MATRIX},
     "expect": {"status": "graded", "lost": []}},
]

# --- the next student: what a submission leaves behind for whoever is graded after it ------------
# Each is graded right before an honest submission whose answer cell ends with NEIGHBOUR_PROBE
# (tests/test_adversarial.py): that one must keep its full marks, and print exactly what an
# untouched process sees.
_WRITABLE = ("import os\n"
             "def writable_folders():\n"
             "    found = [os.getcwd(), os.path.expanduser('~')]\n"
             "    for line in open('/proc/self/mounts'):\n"
             "        _, where, kind, options = line.split()[:4]\n"
             "        if 'rw' in options.split(',') and kind not in ('proc', 'sysfs'):\n"
             "            for top, dirs, files in os.walk(where):\n"
             "                found += [top] if os.access(top, os.W_OK) else []\n"
             "    return sorted(set(found))\n")
NEIGHBOUR_PROBE = ("\n" + _WRITABLE +
                   "import importlib.util, json, sys\n"
                   "seen = {'planted': sorted(os.path.join(top, name) for where in writable_folders()\n"
                   "                          for top, dirs, files in os.walk(where) for name in files + dirs\n"
                   "                          if 'neighbour' in name),\n"
                   "        'module': importlib.util.find_spec('neighbour_plant') is not None,\n"
                   "        'environ': sorted(k for k in os.environ if 'NEIGHBOUR' in k),\n"
                   "        'pi': float(np.pi), 'print': print.__module__,\n"
                   "        'lib': lib.DoublePendulum(m1=1.0, m2=2.0, l1=1.0, l2=0.5).mass_matrix([0.3, 0.4]).tolist(),\n"
                   "        'ipc': open('/proc/sysvipc/shm').read().count('\\n') - 1,\n"
                   "        'processes': len([p for p in os.listdir('/proc') if p.isdigit()])}\n"
                   "print(json.dumps(seen, sort_keys=True))\n")
NEIGHBOUR_SEES = {"planted": [], "module": False, "environ": [], "pi": 3.141592653589793, "print": "builtins",
                  "ipc": 0}   # and "lib": lib's mass matrix at that configuration, as the grader's own lib computes it
_PLANT = (MASS_MATRIX + _WRITABLE +
          "import sys\n"
          "planted = []\n"
          "for where in writable_folders() + sys.path[:3]:\n"
          "    for name in ('neighbour-was-here.txt', 'neighbour_plant.py', 'sitecustomize.py', 'usercustomize.py'):\n"
          "        try:\n"
          "            with open(os.path.join(where or '.', name), 'w') as planted_file:\n"
          "                planted_file.write('import os\\nos.environ[\"NEIGHBOUR_PLANTED\"] = \"1\"\\n')\n"
          "            planted.append(os.path.join(where, name))\n"
          "        except OSError:\n"
          "            pass\n"
          "os.makedirs(os.path.expanduser('~/.ipython/profile_default/startup'), exist_ok=True)\n"
          "open(os.path.expanduser('~/.ipython/profile_default/startup/neighbour.py'), 'w').write('x = 1')\n"
          "assert planted, 'nowhere to write'\n")
_DAEMON = (MASS_MATRIX +
           "import os, signal, sys, time\n"
           "student = os.getpid()\n"
           "if os.fork() == 0:\n"
           "    os.setsid()\n"
           "    if os.fork() == 0:   # a daemon: no parent, no session of the grader's, no terminal\n"
           "        while True:   # wait for this student's process to end: then the next one is graded\n"
           "            try:\n"
           "                os.kill(student, 0)\n"
           "            except ProcessLookupError:\n"
           "                break\n"
           "            time.sleep(0.02)\n"
           "        end = time.time() + 120\n"
           "        while time.time() < end:\n"
           "            for pid in os.listdir('/proc'):\n"
           "                if pid.isdigit() and int(pid) != os.getpid():\n"
           "                    try:\n"
           "                        os.kill(int(pid), signal.SIGKILL)\n"
           "                    except OSError:\n"
           "                        pass\n"
           "            for top, dirs, files in os.walk('/tmp'):\n"
           "                for name in files:\n"
           "                    try:\n"
           "                        open(os.path.join(top, name), 'w').write('neighbour')\n"
           "                    except OSError:\n"
           "                        pass\n"
           "            time.sleep(0.02)\n"
           "    os._exit(0)\n"
           "time.sleep(0.2)\n")
_SHARED_MEMORY = (MASS_MATRIX +
                  "import ctypes\n"
                  "libc = ctypes.CDLL(None)\n"
                  "segment = libc.shmget(0x4E45, 4096, 0o1000 | 0o666)   # IPC_CREAT, open to every user\n"
                  "assert segment >= 0, 'no shared memory'\n")
_MODULE_STATE = (MASS_MATRIX +
                 "import builtins, os, sys\n"
                 "np.pi = 3.0\n"
                 "lib.DoublePendulum.mass_matrix = lambda self, q: np.zeros((2, 2))\n"
                 "builtins.print = lambda *a, **k: None\n"
                 "os.environ['NEIGHBOUR_STATE'] = '1'\n"
                 "sys.path.insert(0, '/tmp/neighbour')\n"
                 "sys.modules['json'] = None\n")
NEIGHBOUR_ATTACKS = [
    {"name": "neighbour-plants-files", "base": "reference", "replace": {"answer-mass-matrix": _PLANT},
     "expect": {"status": "graded", "lost": []}},
    {"name": "neighbour-daemon", "base": "reference", "replace": {"answer-mass-matrix": _DAEMON},
     "expect": {"status": "flagged for review", "lost": [], "flag": "starts processes"}},
    {"name": "neighbour-shared-memory", "base": "reference", "replace": {"answer-mass-matrix": _SHARED_MEMORY},
     "expect": {"status": "flagged for review", "lost": [], "flag": "raw code"}},
    {"name": "neighbour-module-state", "base": "reference", "replace": {"answer-mass-matrix": _MODULE_STATE},
     "expect": {"status": "flagged for review", "lost": [], "flag": "replaces part of a library"}},
]
ATTACKS += NEIGHBOUR_ATTACKS
