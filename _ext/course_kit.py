"""The course kit, ``course-kit.zip``: what a student needs to run a homework notebook.

It holds the package ``lib`` and the files of ``kit/``: the kit's own pinned
``requirements.txt`` (the packages the chapters and homework import, and
Jupyter; not the instructor's whole environment), a ``pyproject.toml`` that
installs both with ``python -m pip install .`` and refuses a Python the pins
have no wheels for, the Jupyter setting ``jupyter_config.json`` and a
``README.txt`` with the set-up on Linux, macOS and Windows. The Homework page
links it; ``_ext/course_site.py`` writes it beside the built pages.

Every entry is readable by everyone (files 0644, folders 0755), whoever
built it and whatever their umask, and carries a fixed date, so the same
sources give the same zip.
"""

import zipfile
from pathlib import Path

TOP = "course-kit"
KIT_FILES = ("README.txt", "requirements.txt", "pyproject.toml", "jupyter_config.json")
FILE_MODE, DIR_MODE = 0o644, 0o755
DATE = (2026, 1, 1, 0, 0, 0)


def kit_members(root):
    """(name in the zip, source file) for everything in the kit, in order.

    >>> names = [name for name, _ in kit_members(Path(__file__).resolve().parents[1])]
    >>> names[:2], "course-kit/lib/__init__.py" in names
    (['course-kit/README.txt', 'course-kit/requirements.txt'], True)
    """
    root = Path(root)
    members = [(f"{TOP}/{name}", root / "kit" / name) for name in KIT_FILES]
    members += [(f"{TOP}/{path.relative_to(root).as_posix()}", path)
                for path in sorted((root / "lib").rglob("*.py"))]
    return members


def _info(name, mode, is_dir=False):
    info = zipfile.ZipInfo(name, DATE)
    info.create_system = 3  # Unix: unzip applies the mode bits below
    info.external_attr = ((0o040000 if is_dir else 0o100000) | mode) << 16
    if is_dir:
        info.external_attr |= 0x10  # the MS-DOS directory flag
    else:
        info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_kit(root, target):
    """Write the kit of the course at ``root`` to the zip file ``target``; return ``target``."""
    members = kit_members(root)
    missing = [str(source) for _, source in members if not source.is_file()]
    if missing:
        raise FileNotFoundError(f"the course kit needs files that are missing: {', '.join(missing)}")
    folders = sorted({str(Path(name).parent.as_posix()) for name, _ in members})
    target = Path(target)
    with zipfile.ZipFile(target, "w") as kit:
        for folder in folders:
            kit.writestr(_info(folder + "/", DIR_MODE, is_dir=True), b"")
        for name, source in members:
            kit.writestr(_info(name, FILE_MODE), source.read_bytes())
    return target
