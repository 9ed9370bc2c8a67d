"""The package's layout: the import graph of ``src/fastnardy`` has no circle, the shared facts
live in a leaf, the pure-Python twin is imported only for a second opinion, and the core
value module reaches its satellites only lazily.

The graph is read from the source (the AST of every module): every ``import`` and ``from``
statement anywhere in a file counts, inside functions and under ``TYPE_CHECKING`` too, since
each is a dependency a reader must follow. ``python tests/interfaces/test_layout.py`` prints it.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "fastnardy"


def _imports(tree: ast.AST, modules: Set[str], package: str = "") -> Set[str]:
    """The package modules that a module's statements import (relative or absolute); a
    module of the subpackage ``package`` (``engines``) is named ``engines.NAME``."""
    found: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            absolute = node.level == 0 and (node.module or "").split(".")[0] == "fastnardy"
            if absolute or node.level:
                parts = (node.module or "").split(".")[1 if absolute else 0:]
                base = package if node.level == 1 and package else ""
                if parts and parts[0]:
                    dotted = ".".join(filter(None, [base, *parts]))
                    found.add(dotted if dotted in modules else
                              ".".join(filter(None, [base, parts[0]])))
                else:  # from . import a, b / from fastnardy import a, b
                    found.update(".".join(filter(None, [base, alias.name]))
                                 for alias in node.names)
                    if base:
                        found.add(base)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "fastnardy" and len(parts) > 1:
                    found.add(".".join(parts[1:]) if ".".join(parts[1:]) in modules
                              else parts[1])
    return found & modules


def _pyx_import(line: str) -> str:
    """A Cython import line as a one-line Python statement naming the same module (the
    names imported may continue on the next lines)."""
    words = line.split()
    if words[0] == "import":
        return f"import {words[1].rstrip(',')}"
    names = line.split(" import ", 1)[1].strip("( \\")
    return f"from {words[1]} import {names.rstrip(',') or 'x'}"


def import_graph(package: Path = PACKAGE) -> Dict[str, List[str]]:
    """module -> the package modules it imports, for every ``.py`` module (the compiled
    kernel's ``.pyx`` too, whose Python-level imports are read the same way; a subpackage's
    modules as ``engines`` and ``engines.NAME``)."""
    sources = {path.stem: (path, "") for path in package.glob("*.py")}
    sources.update({path.stem: (path, "") for path in package.glob("*.pyx")})
    for init in package.glob("*/__init__.py"):
        sub = init.parent.name
        sources[sub] = (init, sub)
        sources.update({f"{sub}.{path.stem}": (path, sub) for path in init.parent.glob("*.py")
                        if path.stem != "__init__"})
    graph = {}
    for name, (path, sub) in sorted(sources.items()):
        text = path.read_text()
        if path.suffix == ".pyx":  # not Python: read its Python-level imports by line
            text = "\n".join(_pyx_import(line) for line in text.splitlines()
                             if line.startswith(("import ", "from ")) and " cimport " not in line)
        graph[name] = sorted(_imports(ast.parse(text), set(sources), sub) - {name})
    return graph


def cycles(graph: Dict[str, List[str]]) -> List[List[str]]:
    """Each import circle once, as the list of its modules (a depth-first search)."""
    found: List[List[str]] = []
    seen: Set[frozenset] = set()
    state: Dict[str, int] = {}  # 1 on the current path, 2 done
    path: List[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                circle = path[path.index(nxt):]
                if frozenset(circle) not in seen:
                    seen.add(frozenset(circle))
                    found.append(circle + [nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node)
    return found


def test_the_graph_reads_every_module():
    graph = import_graph()
    assert {"position", "reference", "basics", "_kernel", "__init__"} <= set(graph)
    assert "basics" in graph["position"] and "_kernel" in graph["position"]


def test_cycles_finds_a_circle():
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c", "a"]]
    assert cycles({"a": ["b"], "b": []}) == []


def test_no_import_circle():
    assert cycles(import_graph()) == []


def test_the_shared_facts_are_a_leaf():
    assert import_graph()["basics"] == []


def test_the_twin_is_imported_only_for_a_second_opinion():
    """The backend switch runs it; the referee names the broken rule with its step rules
    (of a whole turn, and of a single step the step encoding refuses); the reference engine
    adapter serves it to the cross-checker. The step encoding plays the kernel's partial
    turns (issue 38), and tests/rules/test_partial_turns.py holds them against the twin's."""
    importers = {name for name, deps in import_graph().items() if "reference" in deps}
    assert importers == {"backend", "referee", "engines.reference"}


def test_the_engine_adapters_are_read_as_a_subpackage():
    graph = import_graph()
    assert {"engines", "engines.reference", "engines.openspiel", "engines.gnubg",
            "engines.bgsage"} <= set(graph)
    assert "engines" in graph["engines.reference"] and "notation" in graph["engines"]
    adapters = {"engines", "engines.reference", "engines.openspiel", "engines.gnubg",
                "engines.bgsage"}
    for checker in ("engines.crosscheck", "engines.protocol", "engines.explain"):
        assert not adapters & set(graph[checker]), checker


SATELLITES = ("analysis", "cli", "engines", "envs", "formats", "play", "search", "testing",
              "training")
# The core's lazy ways into a satellite: the package's two names that are satellites'
# functions (fastnardy.features, fastnardy.simulate, read when first used) and a
# notebook's picture of a Position (python-chess's Board._repr_svg_ imports chess.svg so).
LAZY_INTO_SATELLITES = {"__init__": {"search.inputs", "search.selfplay"},
                        "position": {"formats.svg"}}
ENTRY_POINT = "__main__"  # python -m fastnardy: the command line (cli) and nothing else


def test_the_top_of_the_package_is_the_core_and_small():
    """At most 15 Python modules beside the compiled kernel; every other module is in a
    folder of one concern, and the core imports none of them but lazily (the two
    exceptions above, each inside a function or under TYPE_CHECKING)."""
    top = sorted(path.stem for path in PACKAGE.glob("*.py"))
    assert len(top) <= 15, top
    folders = sorted(init.parent.name for init in PACKAGE.glob("*/__init__.py"))
    assert set(folders) == set(SATELLITES) | {"_utils"}
    graph = import_graph()
    assert graph[ENTRY_POINT] == ["cli"]
    for name in set(top) - {ENTRY_POINT}:
        into = {dep for dep in graph[name] if dep.split(".")[0] in SATELLITES}
        assert into == LAZY_INTO_SATELLITES.get(name, set()), name
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        at_module_level = [node for node in tree.body if isinstance(node, (ast.Import,
                                                                         ast.ImportFrom))]
        eager = _imports(ast.Module(body=at_module_level, type_ignores=[]), set(graph))
        assert not {dep for dep in eager if dep.split(".")[0] in SATELLITES}, name


def test_no_kernel_file_is_over_1000_lines():
    for path in [*PACKAGE.glob("_*.pyx"), *PACKAGE.glob("_*.pxd")]:
        assert len(path.read_text().splitlines()) <= 1000, path.name


def test_the_plumbing_imports_no_module_of_the_game():
    graph = import_graph()
    for name in ("_utils", "_utils.files", "_utils.executors", "_utils.npz"):
        assert set(graph[name]) <= {"errors", "_utils", "_utils.files"}, name


def test_the_core_value_module_reaches_satellites_only_lazily():
    tree = ast.parse((PACKAGE / "position.py").read_text())
    top = {"position"} | set(import_graph())
    at_module_level = _imports(ast.Module(body=[node for node in tree.body
                                                 if isinstance(node, (ast.Import, ast.ImportFrom))],
                                           type_ignores=[]), top)
    assert at_module_level <= {"_kernel", "backend", "basics", "checks", "errors", "rules"}



def test_one_variant_table_rules_notation_cli_and_openspiel_derive_from_it():
    from fastnardy import Rules, notation
    from fastnardy.cli import build_parser
    from fastnardy.rules import CUBE_VARIANTS, MOVE_VARIANTS, VARIANTS, defaults

    assert [field.name for field in dataclasses.fields(Rules)] == ["game", *VARIANTS]
    for game, make in (("long", Rules.long), ("short", Rules.short)):
        signature = inspect.signature(make).parameters
        assert {name: p.default for name, p in signature.items()} == defaults(game)
        assert make().variants() == {}
        assert notation._RULE_FIELDS[game] == {name: VARIANTS[name].values
                                               for name in defaults(game)}
    options = {action.dest: action for action in build_parser()._subparsers._group_actions[0]
               .choices["perft"]._actions if action.dest in VARIANTS}
    assert set(options) == set(MOVE_VARIANTS)
    for name, action in options.items():
        assert tuple(action.choices) == VARIANTS[name].values
        assert f"{VARIANTS[name].rule}:" in action.help
        assert f"(default {VARIANTS[name].default})" in action.help
    try:
        from fastnardy.envs import openspiel
    except ImportError:  # open_spiel is an optional dependency
        return
    for game_type, game in ((openspiel.LONG_TYPE, "long"), (openspiel.SHORT_TYPE, "short")):
        parameters = dict(game_type.parameter_specification)
        parameters.pop("max_turns")
        # OpenSpiel's games have no cube: none of the variants of what a game is worth
        expected = {k: v for k, v in defaults(game).items() if k not in CUBE_VARIANTS}
        assert parameters == expected



def test_no_public_name_of_the_package_shadows_one_of_its_modules():
    import fastnardy

    modules = {info.name for info in pkgutil.iter_modules(fastnardy.__path__)}
    assert not modules & set(fastnardy.__all__)
    # nor a name a folder gives shadows one of the folder's modules (fastnardy.analysis.rollout
    # would be the function, and `from fastnardy.analysis import rollout` not the module)
    import importlib

    for folder in SATELLITES:
        package = importlib.import_module(f"fastnardy.{folder}")
        for info in pkgutil.iter_modules(package.__path__):
            value = getattr(package, info.name, None)
            assert value is None or inspect.ismodule(value), (folder, info.name)


OLD_PATHS = ("perft", "features", "inputs", "network", "selfplay", "bearoff", "analysis_page",
             "svg", "gnubg", "rulebook", "match", "crosscheck", "gymnasium_env",
             "pettingzoo_env", "vector", "step_actions", "openspiel", "samples", "benchmark")


def test_no_compatibility_layer_for_the_unreleased_flat_layout():
    """0.2.0: the flat layout of the unreleased 0.1.0 left no import hook and no renamed
    name behind (CHANGELOG.md): an old path is a ModuleNotFoundError, an old name an
    AttributeError."""
    code = ("import importlib, fastnardy\n"
            "for old in %r:\n"
            "    try:\n"
            "        importlib.import_module('fastnardy.' + old)\n"
            "    except ModuleNotFoundError:\n"
            "        continue\n"
            "    raise AssertionError(old)\n") % (OLD_PATHS,)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    from fastnardy import analysis, batch, record
    from fastnardy.search import inputs

    for module, name in ((batch, "BOARD_WIDTH"), (inputs, "KINDS"), (record, "read_mat"),
                         (analysis, "CubeAction")):
        assert not hasattr(module, name), (module, name)


MOVED_MODULES = {  # the evaluation spine's moves: old module -> where its names went
    "analysis.cube": "search.cubeful", "analysis.met": "search.met",
    "analysis.outputs": "batch", "play.match": "play.duel", "play.labels": "training.labels"}


def test_the_evaluation_spines_moved_modules_are_gone_and_their_homes_import():
    """The evaluation spine left no module behind at an old path (API_CHANGES): each is a
    ModuleNotFoundError, and its new home imports."""
    import importlib

    code = ("import importlib\n"
            "for old in %r:\n"
            "    try:\n"
            "        importlib.import_module('fastnardy.' + old)\n"
            "    except ModuleNotFoundError:\n"
            "        continue\n"
            "    raise AssertionError(old)\n") % (sorted(MOVED_MODULES),)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    graph = import_graph()
    for old, new in MOVED_MODULES.items():
        assert old not in graph and new in graph, (old, new)
        assert inspect.ismodule(importlib.import_module(f"fastnardy.{new}"))


if __name__ == "__main__":
    graph = import_graph(Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE)
    for module, imported in graph.items():
        print(f"{module} -> {', '.join(imported)}")
    for circle in cycles(graph):
        print("circle:", " -> ".join(circle))
