"""lib.deprecated: an old path answers with the object at its new home and a warning naming the release it leaves in."""

import importlib
import re
import sys
import tomllib
from pathlib import Path

import pytest

import lib
from lib import deprecated

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def moved(monkeypatch):
    """A synthetic move, lib.hybrid.OldWheel -> lib.rimless_wheel.RimlessWheel, installed for one test."""
    table = {"lib.hybrid.OldWheel": ("lib.rimless_wheel.RimlessWheel", "0.9")}
    monkeypatch.delattr(lib.hybrid, "__getattr__", raising=False)
    assert deprecated.install(table) == ["lib.hybrid"]
    yield table
    del sys.modules["lib.hybrid"].__getattr__


def test_an_old_path_is_the_object_at_its_new_home_with_a_warning_naming_the_release(moved):
    """lib.hybrid.OldWheel is lib.rimless_wheel.RimlessWheel, and says it moved and leaves in 0.9."""
    with pytest.warns(FutureWarning, match=r"lib\.hybrid\.OldWheel has moved to lib\.rimless_wheel\.RimlessWheel; "
                                           r"the old path leaves in release 0\.9"):
        old = lib.hybrid.OldWheel
    assert old is lib.rimless_wheel.RimlessWheel
    with pytest.warns(FutureWarning):
        namespace = {}
        exec("from lib.hybrid import OldWheel", namespace)
    assert namespace["OldWheel"] is lib.rimless_wheel.RimlessWheel


def test_a_name_not_in_the_table_is_still_an_attribute_error(moved):
    """Only the listed names answer: a typo is an AttributeError naming the module, with no warning."""
    with pytest.raises(AttributeError, match="module 'lib.hybrid' has no attribute 'OldWhel'"):
        lib.hybrid.OldWhel  # noqa: B018
    with pytest.raises(ImportError):
        exec("from lib.hybrid import NoSuchWheel", {})


def test_a_module_with_its_own_getattr_is_refused(monkeypatch):
    """Moved names go through lib.deprecated only: a module's own __getattr__ is an error, not overwritten."""
    monkeypatch.setattr(lib.hybrid, "__getattr__", lambda name: None, raising=False)
    with pytest.raises(RuntimeError, match="lib.hybrid has a __getattr__ of its own"):
        deprecated.install({"lib.hybrid.OldWheel": ("lib.rimless_wheel.RimlessWheel", "0.9")})


def test_every_listed_move_names_a_new_home_that_exists_and_a_later_release():
    """Each entry of MOVED: the old path is gone from its module, the new one exists, the release is after this one."""
    version = tuple(int(x) for x in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"].split("."))
    for old, (new, release) in deprecated.MOVED.items():
        module, _, name = old.rpartition(".")
        assert name not in vars(importlib.import_module(module)), f"{old} is still defined where it was"
        deprecated._resolve(new)
        assert re.fullmatch(r"\d+\.\d+(\.\d+)?", release), f"{old}: release {release!r} is not a version"
        assert tuple(int(x) for x in release.split(".")) > version, f"{old} should already have left in {release}"


def test_no_lib_module_keeps_old_paths_of_its_own():
    """No module of lib has a __getattr__ or a table of moved names besides what lib.deprecated installs."""
    for path in sorted((ROOT / "lib").glob("*.py")):
        text = path.read_text()
        assert "_MOVED" not in text and "def __getattr__(name" not in text, f"{path.name} keeps old paths of its own"
    assert not (ROOT / "lib" / "aliases.py").exists()
