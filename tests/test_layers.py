"""docs/internals.md's layers are the code's: every module of memctl/ is in its layer table,
and no module imports from a layer above its own except the upward imports it lists (each
with its reason). Imports under `if TYPE_CHECKING:` are types only and do not count.

No import circle either: modules that import each other, however far round, cannot be
read (or loaded) one before the other.

`python tests/test_layers.py` prints each module's layer and the memctl modules it imports.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "memctl"
DOC = ROOT / "docs" / "internals.md"
ROW = re.compile(r"^(?P<layer>[a-z][a-z-]*)?\s+(?P<module>[\w/]+\.py)(\s|$)")
UPWARD = re.compile(r"^- `(?P<source>[\w/]+\.py)` -> `(?P<target>[\w/]+\.py)`")


def modules() -> dict[str, Path]:
    """{"search/hybrid.py": path, "cli/__init__.py": path, ...} for every module."""
    return {p.relative_to(PACKAGE).as_posix(): p for p in sorted(PACKAGE.rglob("*.py"))}


def _dotted(rel: str) -> str:
    parts = ["memctl", *rel.removesuffix(".py").split("/")]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node except what sits under `if TYPE_CHECKING:`."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def imports() -> dict[str, set[str]]:
    """{module: the memctl modules it imports at run time (at the top or inside functions)}."""
    files = modules()
    by_name = {_dotted(rel): rel for rel in files}
    graph: dict[str, set[str]] = {}
    for rel, path in files.items():
        targets: set[str] = set()
        package = _dotted(rel) if rel.endswith("__init__.py") else _dotted(rel).rpartition(".")[0]
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                # `from memctl.search import candidates`: the submodule, not the package.
                names = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in by_name else base
                    for alias in node.names
                ]
            for name in names:
                while name and name not in by_name:
                    name = name.rpartition(".")[0]
                if name and by_name[name] != rel:
                    targets.add(by_name[name])
        graph[rel] = targets
    return graph


def documented_layers() -> tuple[dict[str, int], list[str]]:
    """({module: layer index, 0 = top}, [layer names]) from the doc's "## Layers" block."""
    text = DOC.read_text(encoding="utf-8")
    block = text[text.index("## Layers") :]
    block = block[block.index("```") + 3 :]
    block = block[: block.index("```")]
    layer_of: dict[str, int] = {}
    names: list[str] = []
    for line in block.splitlines():
        match = ROW.match(line)
        if not match:
            continue
        if match.group("layer"):
            names.append(match.group("layer"))
        assert names, f"docs/internals.md: {line!r} comes before any layer name"
        module = match.group("module")
        assert module not in layer_of, f"docs/internals.md names {module} twice"
        layer_of[module] = len(names) - 1
    return layer_of, names


def documented_upward() -> set[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    return {
        (m.group("source"), m.group("target"))
        for line in text.splitlines()
        if (m := UPWARD.match(line))
    }


def upward_imports() -> set[tuple[str, str]]:
    layer_of, _ = documented_layers()
    return {
        (source, target)
        for source, targets in imports().items()
        for target in targets
        if source in layer_of and target in layer_of and layer_of[target] < layer_of[source]
    }


def test_every_module_is_in_the_layer_table() -> None:
    layer_of, names = documented_layers()
    assert len(names) >= 5
    assert sorted(set(modules()) - set(layer_of)) == [], "missing from docs/internals.md"
    assert sorted(set(layer_of) - set(modules())) == [], "in docs/internals.md, not in memctl/"


def test_no_module_imports_from_a_layer_above_except_those_listed() -> None:
    assert sorted(upward_imports() - documented_upward()) == [], "undocumented upward imports"
    assert sorted(documented_upward() - upward_imports()) == [], "listed but no longer there"


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's import circles: its strongly connected parts of more than one module
    (Tarjan's algorithm, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            if targets:
                target = targets.pop()
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, sorted(graph.get(target, ()))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return sorted(found)


def test_no_import_circle() -> None:
    assert circles(imports()) == []


def test_the_circle_finder_finds_a_long_circle_and_passes_a_fork() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d", "a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}) == []


def test_the_import_reader_sees_lazy_imports_and_skips_type_checking_ones() -> None:
    graph = imports()
    # cli/app.py imports index/damage.py inside a function (lazily)...
    assert "index/damage.py" in graph["cli/app.py"]
    # ...and index/protocol.py imports index/chunker.py only for its type hints.
    assert "index/chunker.py" not in graph["index/protocol.py"]
    assert "index/sqlite/lexical.py" in graph["index/sqlite/candidates.py"]


if __name__ == "__main__":
    layer_of, names = documented_layers()
    for module, targets in imports().items():
        layer = names[layer_of[module]] if module in layer_of else "?"
        print(f"{layer:10} {module:34} -> {' '.join(sorted(targets))}")
