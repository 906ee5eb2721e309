"""Old import paths: a name that moved to another module stays importable where it was.

Students keep the homework notebooks they were handed, and those import
``lib.hybrid.RimlessWheel`` or ``lib.timestepping.cart_wall_step``. When a
worked example moves to a module of its own, the module it left lists it in
a table ``_MOVED`` (name → new module) and answers for it with

    def __getattr__(name):
        return aliases.moved(__name__, _MOVED, name)

(Python calls a module's ``__getattr__`` for a name it does not define,
PEP 562). The new module is imported only when an old path is used, so the
old module does not depend on its examples, and the name is then stored in
the old module like any of its own.

Introduced in: chapter 4.
"""

import importlib
import sys


def moved(module, table, name):
    """The object ``name`` of the module ``lib.<table[name]>``, stored in ``module`` too; AttributeError otherwise.

    >>> import lib.hybrid
    >>> moved("lib.hybrid", {"RimlessWheel": "rimless_wheel"}, "RimlessWheel").__module__
    'lib.rimless_wheel'
    >>> moved("lib.hybrid", {}, "Wheel")
    Traceback (most recent call last):
    ...
    AttributeError: module 'lib.hybrid' has no attribute 'Wheel'
    """
    if name not in table:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"lib.{table[name]}"), name)
    setattr(sys.modules[module], name, value)
    return value
