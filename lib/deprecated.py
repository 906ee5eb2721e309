"""Names on their way out: the one place where a moved or renamed lib name is kept for a while.

Students keep the notebooks they were handed. Once a release of the course
has gone to a class, a lib name that moves or is renamed is not simply
deleted: it is listed in :data:`MOVED` with its new home and the release it
leaves in. Its old path then still answers, with the object at the new home,
and says so with a ``FutureWarning`` (shown to notebook users, unlike a
``DeprecationWarning``). In the release named, the entry and the old path go.

The old module needs no code of its own: :func:`install` gives every module
named in the table a module ``__getattr__`` (PEP 562, called only for a name
the module does not define), and the new home is imported only when an old
path is used, so no module comes to depend on the one its name moved to.

Nothing has moved since the first release, so the table is empty.

Introduced in: chapter 1.
"""

import importlib
import sys
import warnings

MOVED = {}
"""Old dotted path ("lib.module.name") -> (new dotted path, the release in which the old path leaves)."""


def _resolve(path):
    """The object at a dotted path "lib.module.name"."""
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def lookup(module, name, table=None):
    """The object an old path ``module.name`` now names, with a ``FutureWarning``; AttributeError if not listed.

    >>> table = {"lib.hybrid.Wheel": ("lib.rimless_wheel.RimlessWheel", "0.3")}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     lookup("lib.hybrid", "Wheel", table).__name__
    'RimlessWheel'
    >>> print(caught[0].message)
    lib.hybrid.Wheel has moved to lib.rimless_wheel.RimlessWheel; the old path leaves in release 0.3
    >>> lookup("lib.hybrid", "Wheel")
    Traceback (most recent call last):
    ...
    AttributeError: module 'lib.hybrid' has no attribute 'Wheel'
    """
    table = MOVED if table is None else table
    old = f"{module}.{name}"
    if old not in table:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new, release = table[old]
    warnings.warn(f"{old} has moved to {new}; the old path leaves in release {release}", FutureWarning, stacklevel=3)
    return _resolve(new)


def install(table=None):
    """Give every module with an entry in ``table`` (default :data:`MOVED`) a ``__getattr__`` that looks it up.

    ``lib/__init__.py`` calls it once. Returns the names of the modules it
    gave one (none while the table is empty).

    >>> install()
    []
    """
    table = MOVED if table is None else table
    modules = sorted({old.rpartition(".")[0] for old in table})
    for name in modules:
        module = importlib.import_module(name)

        def __getattr__(attribute, _module=name):
            return lookup(_module, attribute, table)

        if getattr(module, "__getattr__", None) is not None and not hasattr(module.__getattr__, "_deprecated"):
            raise RuntimeError(f"{name} has a __getattr__ of its own; a moved name goes through lib.deprecated only")
        __getattr__._deprecated = True
        sys.modules[name].__getattr__ = __getattr__
    return modules
