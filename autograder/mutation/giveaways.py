"""``giveaways``: does a visible test hand the student the answer?

A visible test may check properties of an answer (symmetry, definiteness, a
balance of energy, a limiting case, a finite difference against the
student's own other functions) and compare with numbers stored as numbers;
the formula or the code that makes the answer belongs below the hidden-test
marker. Two checks hold a homework to that, part by part:

* **a solution line in sight** (:func:`solution_lines_in_sight`, static): a
  line of a reference solution (between ``### BEGIN SOLUTION`` and ``###
  END SOLUTION``, comments and spaces dropped, at least
  :data:`SHORTEST_LINE` characters) that a visible test cell also holds, and
  that no setup cell prints;
* **a copy that passes** (:func:`copies` and :func:`check`): the answer a
  student would assemble from the visible test cell alone, the way one
  copies: every function and assignment of the cell pasted in, then each
  asked-for name defined from one of the cell's functions or expressions
  (a function with the reference's own parameters returning that
  expression, the test's argument names renamed to the parameters). Each
  copy replaces its answer cell and is graded by the mutation check's
  runner (autograder/mutation/mutants.py, one forked process per copy, visible and
  hidden tests, no nbgrader); a copy the part's tests let through is a
  give-away. A copy may call the student's *other* answers (those are the
  student's own work); it never calls the name it stands in for.

``python -m autograder.mutation.giveaways exercises/hw04/hw04.ipynb`` prints what it
finds; ``tests/test_giveaways.py`` runs it on every homework.

>>> normalized("    return  M @ v   # the product")
'returnM@v'
"""

import ast
import builtins
import re
import sys

from ..course.assignment import Assignment, binds_and_mentions, without_markers
from ..course.leaks import MARKERS, _regions

SHORTEST_LINE = 12        # characters, spaces dropped: "returnM@v" is too common to mean anything
LONGEST_EXPRESSION = 600  # characters: longer expressions are messages, not answers


def normalized(line):
    """A line without its comment and without any white space (how a copied line is recognized)."""
    code = line.split("#", 1)[0] if "#" in line and not re.search(r"['\"].*#.*['\"]", line) else line
    return re.sub(r"\s+", "", code)


def visible_code(source):
    """The visible part of a test cell: the source with its hidden-test regions taken out."""
    return "\n".join(_regions(source, MARKERS[2], MARKERS[3])[1])


def _solution_text(source):
    return _regions(source, MARKERS[0], MARKERS[1])[0]


_PLAIN_CALLS = {"asarray", "array", "float", "atleast_1d", "range", "len"}


def boilerplate(line):
    """Whether a solution line only unpacks or converts its inputs, or returns names (any answer has it).

    >>> boilerplate("q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)"), boilerplate("return J_L, J_A")
    (True, True)
    >>> boilerplate("k = m_load * g / depth"), boilerplate("r = int(np.argmin(q))")
    (False, False)
    """
    code = line.strip()
    try:
        tree = ast.parse(code)
    except SyntaxError:
        try:
            tree = ast.parse(code + "\n    pass")
        except SyntaxError:
            return False
    if len(tree.body) != 1:
        return False
    node = tree.body[0]
    if isinstance(node, ast.For):
        return all(isinstance(n, (ast.Name, ast.Call, ast.Constant, ast.Load, ast.Store, ast.Pass, ast.For))
                   or (isinstance(n, ast.Name)) for n in ast.walk(node)) and not _calls(node) - _PLAIN_CALLS
    if isinstance(node, ast.Return):
        value = node.value
        return value is None or all(isinstance(n, (ast.Name, ast.Tuple, ast.Load)) for n in ast.walk(value))
    if isinstance(node, ast.Assign):
        value = node.value
        if any(isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Compare)) for n in ast.walk(value)):
            return False
        return not _calls(value) - _PLAIN_CALLS
    return False


def _calls(node):
    """The names of the functions a piece of code calls (the last part of a dotted name)."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            found.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "?"))
    return found


def solution_lines_in_sight(assignment):
    """[(test cell, answer cell, line)]: reference-solution lines that a visible test cell holds."""
    public = set()
    for cell in assignment.cells:
        if cell.role == "locked":
            public.update(normalized(line) for line in cell.source.splitlines())
    secret = {}
    for cell in assignment.cells:
        if cell.role == "answer":
            for line in _solution_text(cell.source):
                key = normalized(line)
                if len(key) >= SHORTEST_LINE and key not in public and not boilerplate(line):
                    secret.setdefault(key, (cell.id, line.strip()))
    found = []
    for cell in assignment.cells:
        if cell.role != "test":
            continue
        for line in visible_code(cell.source).splitlines():
            hit = secret.get(normalized(line))
            if hit and (cell.id, hit[0], hit[1]) not in found:
                found.append((cell.id, hit[0], hit[1]))
    return found


# --- the copies ------------------------------------------------------------------------------------
def _reference_definitions(source):
    """The names an answer cell defines at top level: {name: its FunctionDef, or None for a value}."""
    names = {}
    for node in ast.parse(without_markers(source)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names.setdefault(sub.id, None)
    return names


def _mentions(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _free(node):
    """The names an expression reads that it does not bind itself (in a comprehension or a lambda)."""
    bound = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(node) if isinstance(n, ast.Lambda) for a in n.args.args}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound


def _worth_copying(node, name):
    """An expression that computes something (not a bare name or number, not a message, not the slice of
    a subscript) without ``name``."""
    if isinstance(node, (ast.Slice, ast.Constant, ast.Name, ast.JoinedStr, ast.Compare, ast.BoolOp, ast.Lambda, ast.Starred)):
        return False
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return False
    if name in _mentions(node):
        return False
    if not any(isinstance(n, (ast.BinOp, ast.Call, ast.UnaryOp, ast.Subscript, ast.List, ast.Tuple, ast.ListComp))
               for n in ast.walk(node)):
        return False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("isinstance", "print", "len", "type", "str", "repr"):
        return False
    if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Name) \
            and not _calls(node) - _PLAIN_CALLS:
        return False   # float(dt), np.asarray(q): a conversion of one input

    return len(ast.unparse(node)) <= LONGEST_EXPRESSION


def _expressions(tree, name):
    """Every expression of the cell a student could paste as ``name``'s answer, in order, without repeats.

    >>> [ast.unparse(node) for node in _expressions(ast.parse("b = a[:, ::-1] + 1"), "f")]
    ['a[:, ::-1] + 1']
    """
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)) and node.value is not None:
            found.append(node.value)
        elif isinstance(node, ast.Call):
            found.extend(node.args)
            found.extend(k.value for k in node.keywords)
        elif isinstance(node, ast.Compare):
            found.append(node.left)
            found.extend(node.comparators)
        elif isinstance(node, ast.Lambda):
            found.append(node.body)
        elif isinstance(node, (ast.Tuple, ast.List)):
            found.extend(node.elts)
    seen, kept = set(), []
    for node in found:
        if _worth_copying(node, name):
            text = ast.unparse(node)
            if text not in seen:
                seen.add(text)
                kept.append(node)
    return kept


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.mapping:
            return ast.copy_location(ast.Name(self.mapping[node.id], ast.Load()), node)
        return node


def _renamings(tree, name, params):
    """How the test names ``name``'s arguments: {test's name: parameter}, from each call ``name(a, b, ...)``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            mapping = {}
            for arg, param in zip(node.args, params):
                if isinstance(arg, ast.Name) and arg.id != param:
                    mapping[arg.id] = param
            for keyword in node.keywords:
                if keyword.arg in params and isinstance(keyword.value, ast.Name) and keyword.value.id != keyword.arg:
                    mapping[keyword.value.id] = keyword.arg
            if mapping and mapping not in found:
                found.append(mapping)
    return found


def _pasted(tree, avoid):
    """The cell's functions and assignments as a student pastes them above the answer (each may fail alone)."""
    lines = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            lines.append(ast.unparse(node))
        elif isinstance(node, (ast.FunctionDef, ast.Assign, ast.AnnAssign, ast.ClassDef)):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in avoid:
                continue
            if _mentions(node) & avoid:
                continue
            body = ast.unparse(node)
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                lines.append(body)
            else:
                lines.append("try:\n" + "\n".join("    " + line for line in body.splitlines())
                             + "\nexcept Exception:\n    pass")
    return "\n".join(lines)


def copies(assignment):
    """Every copy a student could make from the visible tests: dicts with id, cell, part, what and source."""
    found = []
    for cell in assignment.cells:
        if cell.role != "answer" or not cell.solution or not assignment.parts.get(cell.id):
            continue
        test = assignment.cell(assignment.parts[cell.id])
        try:
            tree = ast.parse(visible_code(test.source))
        except SyntaxError:
            continue
        reference = without_markers(cell.source)
        asked = binds_and_mentions(test.source)[1]   # what the part's tests take from the answer
        defined = _reference_definitions(cell.source)
        names = {n: d for n, d in defined.items() if n in asked}
        known = set(dir(builtins)).union(*(c.binds for c in assignment.cells
                                            if c.student_side and c.index <= cell.index))
        known |= binds_and_mentions(visible_code(test.source))[0]
        helpers = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name not in defined]
        count = 0
        for name, definition in names.items():
            pasted = _pasted(tree, {name})
            bodies = []
            if definition is not None:
                params = [a.arg for a in definition.args.posonlyargs + definition.args.args]
                signature = ast.unparse(definition.args)
                for helper in helpers:
                    wanted = [a.arg for a in helper.args.args]
                    given = wanted if set(wanted) <= set(params) else params[:len(wanted)]
                    bodies.append((f"{helper.name}({', '.join(given)})", f"the test's own {helper.name}"))
                renamings = [{}] + _renamings(tree, name, params)
                for node in _expressions(tree, name):
                    for mapping in renamings:
                        if mapping and not _mentions(node) & set(mapping):
                            continue
                        renamed = _Rename(mapping).visit(ast.parse(ast.unparse(node), mode="eval"))
                        free = _free(renamed)
                        if not free & set(params) or not free <= known | set(params):
                            continue   # a constant, or names the answer cannot have: it cannot pass
                        text = ast.unparse(renamed)
                        bodies.append((text, f"the test's expression `{_short(text)}`"))
                made = [(f"def {name}({signature}):\n    return {body}", what) for body, what in bodies]
            else:
                made = [(f"{name} = {ast.unparse(node)}", f"the test's expression `{_short(ast.unparse(node))}`")
                        for node in _expressions(tree, name) if _free(node) <= known]
            seen = set()
            for code, what in made:
                if code in seen:
                    continue
                seen.add(code)
                count += 1
                others = _without(reference, name)
                found.append({"id": f"copy:{cell.id}:{name}:{count}", "cell": cell.id, "part": test.id,
                              "what": f"{name} from {what}",
                              "source": "\n\n".join(s for s in (others, pasted, code) if s.strip()) + "\n"})
    return found


def _without(source, name):
    """The reference cell without the statements that only make ``name`` (the rest of the cell stays the student's)."""
    kept = []
    for node in ast.parse(source).body:
        binds = binds_and_mentions(ast.unparse(node))[0]
        if binds and binds <= {name}:
            continue
        kept.append(ast.unparse(node))
    return "\n".join(kept)


def _short(text, limit=100):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def passing_copies(assignment, jobs=2, timeout=None):
    """The copies that the part's tests let through (each: the copy's dict); runs them as the mutation check does."""
    from .mutants import run

    made = copies(assignment)
    if not made:
        return []
    result = run(assignment.path, jobs=jobs, timeout=timeout, only=set(), extra=made)
    return passing(assignment, made, {m["id"]: m["verdict"] for m in result["mutants"]})


def passing(assignment, made, verdicts):
    """Of the copies ``made``, those whose verdicts (copy id -> the runner's verdict dict) pass their part."""
    order = {c.id: c.index for c in assignment.cells}
    passed = []
    for copy in made:
        verdict = verdicts[copy["id"]]
        if verdict["outcome"] != "ran" or copy["part"] in verdict["failed"]:
            continue
        if any(order[test] < order[copy["part"]] and where == "visible"
               for test, (where, _) in verdict["failed"].items()):
            continue   # stopped by an earlier test before the part's ran: not a pass
        passed.append(copy)
    return passed


def check(path, jobs=2, timeout=None):
    """Every give-away of one source notebook, one sentence each (an empty list: none)."""
    assignment = Assignment(path)
    found = [f"{test}: the visible test holds {answer}'s reference line `{line}`"
             for test, answer, line in solution_lines_in_sight(assignment)]
    found += [f"{copy['part']}: a copy passes the part ({copy['what']})"
              for copy in passing_copies(assignment, jobs=jobs, timeout=timeout)]
    return found


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    clean = True
    for path in argv:
        found = check(path)
        print(f"{path}: {len(found)} give-away(s)")
        for line in found:
            print("  " + line)
        clean &= not found
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
