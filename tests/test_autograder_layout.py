"""The autograder's folders are layers (DESIGN.md, "The autograder in five folders, in layers").

Every import of an autograder module is read from its source, those inside
functions included, so a late import that runs back up is caught as well.
"""

import ast
from pathlib import Path

AUTOGRADER = Path(__file__).resolve().parent.parent / "autograder"
# A folder may import its own modules and those of the folders of lower layers; handback and mutation are
# one layer, and neither imports the other.
LAYER = {"sandbox": 0, "course": 1, "grading": 2, "handback": 3, "mutation": 3, "": 4}


def module_name(path):
    parts = path.relative_to(AUTOGRADER.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path):
    """The autograder modules and packages one file imports, as dotted names."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            found |= {f"{base}.{alias.name}" for alias in node.names} | {base}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.split(".")[0] == "autograder"}


def folder(name):
    """The sub-package a dotted name lies in ('' for the top: autograder, cli, __main__)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYER else ""


SOURCES = sorted(AUTOGRADER.rglob("*.py"))


def test_the_walk_finds_every_module_and_its_imports():
    """The reading below sees the folders and the imports it judges (it would otherwise pass on nothing)."""
    assert {folder(module_name(p)) for p in SOURCES} == set(LAYER)
    grade = imports(AUTOGRADER / "grading" / "grade.py")
    assert {"autograder.course.outcomes", "autograder.grading.worker", "autograder.grading.on_dask"} <= grade


def test_no_folder_imports_one_of_a_higher_layer_or_its_sibling():
    wrong = []
    for path in SOURCES:
        here = folder(module_name(path))
        for name in imports(path):
            there = folder(name)
            if there != here and (LAYER[there] >= LAYER[here]):
                wrong.append(f"{path.relative_to(AUTOGRADER.parent)} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_no_import_runs_in_a_circle():
    modules = {module_name(p): p for p in SOURCES}
    graph = {name: {i for i in imports(path) if i in modules and i != name and not modules[i].name == "__init__.py"}
             for name, path in modules.items()}
    state = {}

    def visit(name, trail):
        if state.get(name) == "done":
            return
        assert state.get(name) != "open", "an import circle: " + " -> ".join(trail[trail.index(name):] + [name])
        state[name] = "open"
        for other in sorted(graph[name]):
            visit(other, trail + [name])
        state[name] = "done"

    for name in sorted(graph):
        visit(name, [])


def test_each_folder_is_small_and_says_what_it_owns():
    """No folder over 12 modules, no module over 500 lines, each sub-package's docstring names what it may import."""
    for sub in (p for p in AUTOGRADER.iterdir() if (p / "__init__.py").is_file()):
        modules = [p for p in sub.glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= 12, f"{sub.name}/ holds {len(modules)} modules"
        assert "may import" in ast.get_docstring(ast.parse((sub / "__init__.py").read_text())), sub.name
    assert len([p for p in AUTOGRADER.glob("*.py") if p.name != "__init__.py"]) <= 12
    long = {str(p.relative_to(AUTOGRADER)): n for p in SOURCES if (n := len(p.read_text().splitlines())) > 500}
    assert not long, long
