"""The dependency rule of docs/architecture.md, read from the code's own import statements
(every one: at the top, inside functions and under ``TYPE_CHECKING``):

- no import circle between the modules of engine/, render/, ai/ and bot/;
- the engine imports none of the others; render and ai import only the engine;
- the service sees the storage only through its interface (``bot.storage.api``), and only
  ``bot/storage/__init__.py`` names a backend module;
- the storage knows nothing of the service or the front ends; the two front ends know nothing
  of each other; only the Discord front end imports discord.py;
- no function over 80 lines and no class over 300 (read in one look).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "render", "ai", "bot")
BACKENDS = {"bot.storage.sqlite", "bot.storage.postgres"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """Every module ``name`` (at ``path``) imports: project modules by their full name,
    others by their top-level package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name if alias.name in known else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target not in known and target.split(".")[0] not in PACKAGES:
                yield target.split(".")[0]
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield sub if sub in known else target


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: set(imported(name, path, known)) - {name} for name, path in known.items()}


GRAPH = graph()


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in edges:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_is_read() -> None:
    assert "bot.service.dispatcher" in GRAPH["bot.discord.app"]
    assert "engine" in GRAPH["render.board"] or any(
        in_package(m, "engine") for m in GRAPH["render.board"])


def test_no_import_circle() -> None:
    assert circles(GRAPH) == []


def test_a_circle_is_found() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize(("package", "allowed"), [
    ("engine", ()),
    ("render", ("engine",)),
    ("ai", ("engine",)),
])
def test_the_core_packages_import_only_what_they_may(package: str,
                                                     allowed: tuple[str, ...]) -> None:
    for name, deps in GRAPH.items():
        if in_package(name, package):
            for dep in deps:
                others = [p for p in PACKAGES if p != package and p not in allowed]
                assert not any(in_package(dep, p) for p in others), f"{name} imports {dep}"


def test_only_the_storage_package_names_a_backend() -> None:
    for name, deps in GRAPH.items():
        if in_package(name, "bot") and not in_package(name, "bot.storage"):
            assert not deps & BACKENDS, f"{name} imports {deps & BACKENDS}"
    users = {name for name, deps in GRAPH.items() if deps & BACKENDS}
    assert users <= {"bot.storage", *BACKENDS}


def test_the_service_sees_the_storage_only_through_its_interface() -> None:
    for name, deps in GRAPH.items():
        if in_package(name, "bot.service"):
            storage = {d for d in deps if in_package(d, "bot.storage")}
            assert storage <= {"bot.storage.api"}, f"{name} imports {storage}"
            front = {d for d in deps if in_package(d, "bot.discord") or
                     in_package(d, "bot.terminal") or d in ("discord", "aiohttp")}
            assert not front, f"{name} imports {front}"


def test_the_storage_knows_nothing_above_it() -> None:
    above = ("bot.service", "bot.discord", "bot.terminal", "bot.commands", "bot.images")
    for name, deps in GRAPH.items():
        if in_package(name, "bot.storage"):
            bad = {d for d in deps if any(in_package(d, a) for a in above)}
            assert not bad, f"{name} imports {bad}"


def test_the_front_ends_are_apart_and_only_one_imports_discord() -> None:
    for name, deps in GRAPH.items():
        if in_package(name, "bot.terminal"):
            assert not any(in_package(d, "bot.discord") for d in deps), name
        if in_package(name, "bot.discord"):
            assert not any(in_package(d, "bot.terminal") for d in deps), name
        elif name != "bot.health":  # the heartbeat reads the client it is given
            assert "discord" not in deps, f"{name} imports discord.py"


# --- units short enough to read in one look ---------------------------------------------------

MAX_FUNCTION = 80  # lines of a function or method, its decorators and docstring included
MAX_CLASS = 300  # lines of a class


def long_units(path: Path, root: Path = ROOT) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = (node.end_lineno or node.lineno) - first + 1
            limit = MAX_CLASS if isinstance(node, ast.ClassDef) else MAX_FUNCTION
            if lines > limit:
                yield f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines} lines)"


def test_no_function_over_80_lines_and_no_class_over_300() -> None:
    found = [unit for path in modules().values() for unit in long_units(path)]
    assert found == []


def test_a_long_unit_is_found(tmp_path: Path) -> None:
    source = tmp_path / "long.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION))
    source.write_text(f"def short():\n    pass\n\n\ndef long():\n{body}\n")
    assert [u.split(" ")[1] for u in long_units(source, tmp_path)] == ["long"]
