"""The course kit (course-kit.zip, _ext/course_kit.py): a student's own Python on their own computer.

The kit is ``lib`` with its own short pinned requirements (kit/requirements.txt),
installed by ``python -m pip install .`` (kit/pyproject.toml). Checked here:

- its pins are the course's own versions and cover every package the
  chapters, lib and the homework import, and its ``requires-python`` names
  the Pythons checked below;
- every entry of the zip is readable by everyone;
- for every Python it admits (3.11 to 3.14) and every platform in
  ``PLATFORMS``, the whole kit, dependencies included, resolves to wheels
  alone on the package index, each wheel one that pip on that platform
  installs (``network``). The resolver is uv's (``uv pip compile
  --python-platform --python-version --only-binary :all:``), which
  evaluates the dependencies' environment markers for the target: pip's
  ``install --dry-run --platform`` evaluates them for the machine it runs
  on (asked for Windows, it lists pexpect, which Windows never installs,
  and leaves out pywinpty and colorama, which it does). Which wheel tags a
  platform installs is computed here with ``packaging.tags``, independently
  of uv. Not supported, and checked to stay so until the docs change:
  Windows on Arm, where clarabel (the QP solver) publishes no wheel;
- the kit installs for real into a fresh virtual environment on this
  machine's Python, and a released homework runs its visible tests in it,
  through Jupyter's own ``nbconvert --execute``: blank, every test fails on
  the student's stub; with the reference answers filled in, every visible
  test passes; and Jupyter warns of nothing.

The ``network`` tests ask PyPI (or ``RBD_KIT_INDEX_URL``); they are skipped
when it cannot be reached, unless ``RBD_REQUIRE_NETWORK=1`` (as in CI).
"""

import ast
import concurrent.futures
import importlib.metadata
import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
import tomllib
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging import tags
from packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "kit"
INDEX = os.environ.get("RBD_KIT_INDEX_URL", "https://pypi.org/simple/")

spec = importlib.util.spec_from_file_location("course_kit", ROOT / "_ext" / "course_kit.py")
course_kit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(course_kit)

PYTHONS = ("3.11", "3.12", "3.13", "3.14")


def _manylinux(arch):
    """Wheel platform tags a Linux with glibc 2.28 (Debian 10, Ubuntu 20.04, RHEL 8) installs."""
    return [f"manylinux_2_{minor}_{arch}" for minor in range(28, 4, -1)] + [f"manylinux2014_{arch}"]


# Each platform as the oldest system the kit promises: uv's name for it (``--python-platform``), and the
# platforms of the wheels pip installs there (packaging.tags adds the older macOS versions and universal2).
MACOS = "12.0"  # SciPy 1.17 has no wheel for macOS 11


@dataclass(frozen=True)
class Platform:
    uv: str           # uv pip compile --python-platform
    wheels: tuple     # the platform parts of the wheel tags pip installs there

    def tags(self, python):
        """Every wheel tag pip on this platform installs for CPython ``python``, most specific first."""
        version = tuple(int(part) for part in python.split("."))
        interpreter = f"cp{version[0]}{version[1]}"
        return (set(tags.cpython_tags(version, [interpreter, "abi3", "none"], self.wheels))
                | set(tags.compatible_tags(version, interpreter, self.wheels)))


PLATFORMS = {
    "linux-x86_64": Platform("x86_64-manylinux_2_28", tuple(_manylinux("x86_64"))),
    "linux-aarch64": Platform("aarch64-manylinux_2_28", tuple(_manylinux("aarch64"))),
    "macos-arm64": Platform("aarch64-apple-darwin", tuple(tags.mac_platforms((12, 0), "arm64"))),
    "macos-x86_64": Platform("x86_64-apple-darwin", tuple(tags.mac_platforms((12, 0), "x86_64"))),
    "windows-x86_64": Platform("x86_64-pc-windows-msvc", ("win_amd64",)),
}
# Platforms the kit does not support, with the package that stops it there.
UNSUPPORTED = {"windows-arm64": (Platform("aarch64-pc-windows-msvc", ("win_arm64",)), "clarabel")}

HOMEWORK = "hw08"  # uses the QP solver through qpsolvers and clarabel, SciPy and lib


def kit_pins():
    """{canonical name: version} of kit/requirements.txt; every line must be an exact pin."""
    pins = {}
    for line in (KIT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version, \
            f"kit/requirements.txt: '{line}' is not an exact pin (name==version)"
        pins[canonicalize_name(req.name)] = specs[0].version
    return pins


def course_pins():
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[canonicalize_name(name)] = version.strip()
    return pins


# --- the pins ---------------------------------------------------------------

def test_kit_pins_are_the_course_versions_of_what_a_student_needs():
    """Every pin is the version the website was computed with, and Jupyter and the numeric stack are pinned."""
    kit, course = kit_pins(), course_pins()
    needed = {"numpy", "scipy", "sympy", "matplotlib", "clarabel", "qpsolvers", "jupyterlab", "ipykernel"}
    assert needed <= set(kit), f"kit/requirements.txt lacks {sorted(needed - set(kit))}"
    differ = {name: (version, course.get(name)) for name, version in kit.items() if course.get(name) != version}
    assert not differ, ("kit pins that are not the course's requirements.txt version (kit, course): "
                        f"{differ}; a student would compute with other packages than the website")
    assert len(kit) <= 15, f"the kit pins {len(kit)} packages: it is meant to be short (what a student needs)"


def _catches_import_error(handler):
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names)


def _imports(source):
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with IPython magic: look at its import lines only
        return set(re.findall(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", source, re.M))
    # an import guarded by ``except ImportError`` is optional: the code runs without it
    optional = {id(node) for t in ast.walk(tree) if isinstance(t, ast.Try)
                and any(_catches_import_error(h) for h in t.handlers)
                for stmt in t.body for node in ast.walk(stmt)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def student_imports():
    """Top-level modules imported by lib, the chapters' code cells and the homework notebooks."""
    import jupytext

    found = set()
    for path in (ROOT / "lib").rglob("*.py"):
        found |= _imports(path.read_text())
    notebooks = [jupytext.read(p) for p in sorted((ROOT / "chapters").glob("*.md"))]
    notebooks += [nbformat.read(p, as_version=4) for p in sorted((ROOT / "exercises").glob("hw*/hw*.ipynb"))]
    for nb in notebooks:
        for cell in nb.cells:
            if cell.cell_type == "code":
                found |= _imports(cell.source)
    return found


def test_kit_pins_every_package_the_course_imports():
    """Each third-party module that lib, a chapter or a homework imports comes from a pinned package of the kit."""
    imported = student_imports() - set(sys.stdlib_module_names) - {"lib", "__future__"}
    assert {"numpy", "scipy", "sympy", "matplotlib", "clarabel"} <= imported, "the import scan found too little"
    providers = importlib.metadata.packages_distributions()
    kit = set(kit_pins())
    unpinned = {module: providers.get(module) for module in imported
                if not kit & {canonicalize_name(d) for d in providers.get(module, [])}}
    assert not unpinned, f"imported by the course but not pinned in kit/requirements.txt (module: packages): {unpinned}"


def kit_pythons():
    """The Python versions 3.0 to 3.29 that the kit's requires-python admits."""
    project = tomllib.loads((KIT / "pyproject.toml").read_text())["project"]
    allowed = SpecifierSet(project["requires-python"])
    return tuple(f"3.{minor}" for minor in range(30) if f"3.{minor}" in allowed)


def test_requires_python_names_the_pythons_whose_wheels_are_checked():
    """kit/pyproject.toml admits exactly the Pythons the wheel check resolves for, and takes its pins from the kit."""
    assert kit_pythons() == PYTHONS, (f"kit/pyproject.toml's requires-python admits {kit_pythons()}, "
                                      f"the wheels are checked for {PYTHONS}: make them say the same")
    setuptools = tomllib.loads((KIT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    assert setuptools["packages"] == ["lib"]
    course = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert PYTHONS[0] in SpecifierSet(course), f"the course's own pyproject ({course}) does not admit {PYTHONS[0]}"


# --- the zip ----------------------------------------------------------------

def test_kit_zip_is_readable_by_everyone(tmp_path):
    """Every file of the zip unpacks as 0644 and every folder as 0755, each folder with its own entry."""
    kit = course_kit.write_kit(ROOT, tmp_path / "course-kit.zip")
    with zipfile.ZipFile(kit) as z:
        infos = z.infolist()
    names = {info.filename for info in infos}
    wrong = []
    for info in infos:
        mode = info.external_attr >> 16
        want = (stat.S_IFDIR | 0o755) if info.is_dir() else (stat.S_IFREG | 0o644)
        if mode != want or info.create_system != 3:
            wrong.append(f"{info.filename}: {oct(mode)} (system {info.create_system}), want {oct(want)}")
        parent = str(Path(info.filename).parent.as_posix()) + "/"
        if info.filename.count("/") > 1 and parent not in names:
            wrong.append(f"{info.filename}: its folder {parent} has no entry")
    assert not wrong, "course-kit.zip entries not readable by everyone:\n" + "\n".join(wrong)
    assert {"course-kit/pyproject.toml", "course-kit/requirements.txt", "course-kit/README.txt",
            "course-kit/jupyter_config.json", "course-kit/lib/__init__.py"} <= names
    assert not [n for n in names if "exercises" in n or "autograder" in n], "the kit must hold no grading material"
    again = course_kit.write_kit(ROOT, tmp_path / "again.zip")
    assert again.read_bytes() == kit.read_bytes(), "the same sources gave two different zips"


# --- wheels on the package index --------------------------------------------

def _index_reachable():
    try:
        with urllib.request.urlopen(INDEX.rstrip("/") + "/pip/", timeout=30):
            return True
    except OSError:
        return False


def require_network():
    if not _index_reachable():
        if os.environ.get("RBD_REQUIRE_NETWORK") == "1":
            pytest.fail(f"the package index {INDEX} cannot be reached (RBD_REQUIRE_NETWORK=1)")
        pytest.skip(f"the package index {INDEX} cannot be reached")


def _index_only_env():
    """This environment for uv, without the machine's package configuration (local mirrors, find-links, constraints).

    The question is what the package index offers a student, not what lies on this disk.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    env["MACOSX_DEPLOYMENT_TARGET"] = MACOS
    return env


def resolve(platform, python, workdir):
    """uv's resolution of the whole kit for a platform and a Python, wheels only: (ok, uv's errors, lock).

    ``lock``: {canonical name: (version, [wheel file names])}, read from the
    pylock.toml uv writes (PEP 751), which lists the wheels of each package
    that fit the target.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / "pylock.toml"
    cmd = [str(Path(sys.executable).parent / "uv"), "pip", "compile", "--quiet", "--no-config",
           "--index-url", INDEX, "--only-binary", ":all:", "--python-version", python,
           "--python-platform", platform.uv, "--output-file", str(out), str(KIT / "requirements.txt")]
    done = subprocess.run(cmd, env=_index_only_env(), capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not out.is_file():
        return False, done.stderr[-3000:], None
    lock = {canonicalize_name(p["name"]): (p["version"], [w["url"].rsplit("/", 1)[-1] for w in p.get("wheels", [])])
            for p in tomllib.loads(out.read_text())["packages"]}
    return True, "", lock


@pytest.fixture(scope="module")
def resolutions(tmp_path_factory):
    """Every (platform, Python) of the checks, resolved side by side: uv mostly waits on the index."""
    require_network()
    base = tmp_path_factory.mktemp("resolve")
    jobs = {(name, python): platform for name, platform in PLATFORMS.items() for python in PYTHONS}
    jobs.update({(name, PYTHONS[-1]): platform for name, (platform, _) in UNSUPPORTED.items()})
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {key: pool.submit(resolve, platform, key[1], base / f"{key[0]}-{key[1]}")
                   for key, platform in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


def not_installable(lock, wanted_tags):
    """The packages of a resolution with no wheel whose tags pip installs on the platform (or no wheel at all)."""
    missing = {}
    for name, (_, wheels) in lock.items():
        fits = [w for w in wheels if w.endswith(".whl") and parse_wheel_filename(w)[3] & wanted_tags]
        if not fits:
            missing[name] = wheels
    return missing


@pytest.mark.network
@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_pin_has_wheels(resolutions, platform, python):
    """The kit and all it depends on resolve to wheels on the index, at the pinned versions, for this platform."""
    ok, errors, lock = resolutions[(platform, python)]
    assert ok, f"the kit does not install from wheels alone on {platform}, Python {python}:\n{errors}"
    pins = kit_pins()
    wrong = {name: lock[name][0] if name in lock else None
             for name, version in pins.items() if name not in lock or lock[name][0] != version}
    assert not wrong, f"pins resolved to other versions on {platform}, Python {python}: {wrong}"
    missing = not_installable(lock, PLATFORMS[platform].tags(python))
    assert not missing, f"on {platform}, Python {python}, no wheel pip would install for: {missing}"
    tag = "cp" + python.replace(".", "")
    assert any(f"-{tag}-" in wheel for wheel in lock["numpy"][1]), \
        f"numpy's wheels {lock['numpy'][1]} are not built for CPython {python}"


def test_a_wheel_for_another_platform_is_not_installable():
    """The tag check itself: a Windows wheel does not fit Linux, a universal2 wheel fits macOS on Arm."""
    linux, mac = PLATFORMS["linux-x86_64"].tags("3.12"), PLATFORMS["macos-arm64"].tags("3.12")
    windows_only = {"numpy": ("2.4.6", ["numpy-2.4.6-cp312-cp312-win_amd64.whl"])}
    assert not_installable(windows_only, linux) == {"numpy": ["numpy-2.4.6-cp312-cp312-win_amd64.whl"]}
    universal = {"kiwisolver": ("1.5.1", ["kiwisolver-1.5.1-cp312-cp312-macosx_10_13_universal2.whl"])}
    assert not_installable(universal, mac) == {}
    newer_mac = {"scipy": ("1.17.1", ["scipy-1.17.1-cp312-cp312-macosx_14_0_arm64.whl"])}
    assert list(not_installable(newer_mac, mac)) == ["scipy"], "a wheel for macOS 14 does not install on macOS 12"
    other_python = {"numpy": ("2.4.6", ["numpy-2.4.6-cp313-cp313-manylinux_2_27_x86_64.whl"])}
    assert list(not_installable(other_python, linux)) == ["numpy"]
    pure = {"six": ("1.17.0", ["six-1.17.0-py2.py3-none-any.whl"])}
    assert not_installable(pure, linux) == {}


@pytest.mark.network
@pytest.mark.parametrize("platform", UNSUPPORTED)
def test_unsupported_platform_still_lacks_its_wheel(resolutions, platform):
    """Windows on Arm is named unsupported because clarabel has no wheel there; when one appears, the docs must change."""
    _, blocker = UNSUPPORTED[platform]
    ok, errors, _ = resolutions[(platform, PYTHONS[-1])]
    assert not ok, (f"the kit now resolves to wheels on {platform}: add it to PLATFORMS and say so in "
                    "kit/requirements.txt, kit/README.txt and homework.md")
    assert blocker in errors, f"on {platform} something else than {blocker} lacks a wheel now:\n{errors}"


def reference_filled(released, source):
    """The released notebook with every answer cell replaced by the source's (the reference solution)."""
    answers = {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in source.cells
               if cell.metadata.get("nbgrader", {}).get("solution")}
    filled = nbformat.from_dict(json.loads(nbformat.writes(released)))
    for cell in filled.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            cell.source = answers[grade_id]
    return filled


def run_in_kit(kit, venv, notebook, name):
    """Run ``notebook`` as a student does, with the kit's Jupyter from its folder: (executed notebook, stderr)."""
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    path = kit / f"{name}.ipynb"
    nb = nbformat.from_dict(json.loads(nbformat.writes(notebook)))
    nb.cells.append(nbformat.v4.new_code_cell("import sys\nprint('kernel prefix:', sys.prefix)"))
    nbformat.write(nb, path)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER", "PYTHON", "VIRTUAL_ENV", "IPYTHON"))}
    home = kit.parent / "home"  # a student's empty home: no config of this machine's user
    home.mkdir(exist_ok=True)
    env.update(PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}", HOME=str(home), USERPROFILE=str(home))
    done = subprocess.run([str(bindir / "jupyter"), "nbconvert", "--to", "notebook", "--execute", "--allow-errors",
                           "--ExecutePreprocessor.timeout=300", "--output", f"{name}.out.ipynb", path.name],
                          cwd=kit, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"jupyter nbconvert failed on {name}:\n{done.stderr[-3000:]}"
    return nbformat.read(kit / f"{name}.out.ipynb", as_version=4), done.stderr


def outcome(nb):
    """(grade ids of the cells that raised, with the error name; the notebook's printed text)."""
    raised, printed = {}, []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                raised[cell.metadata.get("nbgrader", {}).get("grade_id", "?")] = output.ename
            elif output.output_type == "stream":
                printed.append(output.text)
    return raised, "".join(printed)


def self_checked(printed):
    found = re.search(r"The visible tests pass for (\d+) of the (\d+) autograded points", printed)
    assert found, f"the self-check cell printed no summary:\n{printed[-1500:]}"
    return int(found[1]), int(found[2])


@pytest.mark.slow
@pytest.mark.network
def test_kit_installs_and_runs_a_released_homework(tmp_path):
    """pip install . from the unpacked kit, then a released homework's visible tests: failing blank, passing filled in."""
    require_network()
    released_path = ROOT / "release" / HOMEWORK / f"{HOMEWORK}.ipynb"
    if not released_path.is_file():
        pytest.fail(f"{released_path.relative_to(ROOT)} is missing: run `make release` first")
    with zipfile.ZipFile(course_kit.write_kit(ROOT, tmp_path / "course-kit.zip")) as z:
        z.extractall(tmp_path)
    kit, venv = tmp_path / "course-kit", tmp_path / "course-kit" / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "."], cwd=kit,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"pip install . failed in the kit:\n{done.stderr[-3000:]}"
    assert (venv / "etc" / "jupyter" / "jupyter_config.json").is_file(), "the install left out the Jupyter setting"
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True,
                            check=True, timeout=300)
    installed = {canonicalize_name(p["name"]): p["version"] for p in json.loads(listed.stdout)}
    assert {n: installed.get(n) for n in kit_pins()} == kit_pins(), "the kit's venv does not hold the pinned versions"
    assert "nbgrader" not in installed and "jupyter-book" not in installed, "the kit pulled in the instructor's tools"

    released = nbformat.read(released_path, as_version=4)
    source = nbformat.read(ROOT / "exercises" / HOMEWORK / f"{HOMEWORK}.ipynb", as_version=4)
    tests = [cell.metadata["nbgrader"]["grade_id"] for cell in released.cells
             if cell.metadata.get("nbgrader", {}).get("grade") and not cell.metadata["nbgrader"].get("solution")]
    assert len(tests) >= 4, f"{HOMEWORK} has only {len(tests)} autograded test cells"

    blank, blank_err = run_in_kit(kit, venv, released, f"{HOMEWORK}-blank")
    raised, printed = outcome(blank)
    assert f"kernel prefix: {venv}" in printed, f"the notebook did not run in the kit's environment:\n{printed[-500:]}"
    assert {t: raised.get(t) for t in tests} == {t: "NotImplementedError" for t in tests}, \
        f"blank, every visible test should stop at the student's stub (NotImplementedError): {raised}"
    passing, total = self_checked(printed)
    assert passing == 0 and total > 0, f"blank, the self-check counts {passing} of {total} points"

    filled, filled_err = run_in_kit(kit, venv, reference_filled(released, source), f"{HOMEWORK}-reference")
    raised, printed = outcome(filled)
    assert not raised, f"with the reference answers, cells raised in the kit's environment: {raised}"
    assert self_checked(printed) == (total, total), "with the reference answers the visible tests do not all pass"

    for stderr in (blank_err, filled_err):
        noise = [line for line in stderr.splitlines() if "WARNING" in line.upper() or "without encryption" in line]
        assert not noise, "Jupyter warned while running a homework from the kit:\n" + "\n".join(noise)


def test_the_import_scan_counts_an_import_the_code_cannot_run_without():
    """An import the code needs counts; one behind ``except ImportError`` (a fallback) does not."""
    needed = "import numpy\nfrom myst_nb import glue\n"
    optional = "try:\n    from myst_nb import glue\nexcept ImportError:\n    glue = None\nimport numpy\n"
    other = "try:\n    import myst_nb\nexcept KeyError:\n    pass\n"
    assert _imports(needed) == {"numpy", "myst_nb"}
    assert _imports(optional) == {"numpy"}
    assert _imports(other) == {"myst_nb"}
