"""The API reference: one page per public module, written at the start of each build, and
a check that fails the build when a public name is not documented.

A public module is every module of the package whose dotted name has no part with a leading
underscore (found by walking the package, so a new module needs no line anywhere). Its
public names are its ``__all__`` or, without one, the names its own source binds at the top
level (functions, classes, assignments) that do not start with an underscore. A name counts
as documented when autodoc wrote an entry for it: ``automodule`` with ``:members:`` writes
the functions and classes that have a docstring (one without is the error this check
reports) and the constants with a ``#:`` comment; the page lists every other public
constant or type alias with ``autodata``, which shows its value. Classes show the members
they inherit from fastnardy's own classes (the compiled ``PackedPosition`` gives
``Position`` its ``legal_turns``), not those of numpy, Gymnasium or the builtins.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from sphinx.pycode import ModuleAnalyzer

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

PACKAGE = "fastnardy"
logger = logging.getLogger(__name__)


def public_modules() -> List[str]:
    """The package and every module under it with no underscore-led part, sorted."""
    package = importlib.import_module(PACKAGE)
    names = [PACKAGE] + [info.name for info in pkgutil.walk_packages(package.__path__,
                                                                     PACKAGE + ".")]
    return sorted(n for n in names if not any(p.startswith("_") for p in n.split(".")))


def public_names(module_name: str) -> List[str]:
    """``__all__``, or the public names the module's own source binds at the top level."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__all__"):
        return list(module.__all__)
    tree = ast.parse(inspect.getsource(module))
    names: List[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in dict.fromkeys(names) if not n.startswith("_")]


def page(module_name: str) -> str:
    """The module's page: automodule, then autodata for each public name it leaves out: a
    class or function bound here but defined elsewhere (shown as an alias of it), and data
    or a type alias without a ``#:`` comment (shown by its value)."""
    module = importlib.import_module(module_name)
    commented = {name for (space, name) in _comments(module_name) if space == ""}
    extra: List[str] = []
    for name in public_names(module_name):
        value = getattr(module, name, None)
        defined_here = getattr(value, "__module__", None) == module_name
        if inspect.isclass(value) or inspect.isroutine(value):
            if not hasattr(module, "__all__") and not defined_here:  # an alias, shown so
                extra.append(f".. autodata:: {module_name}.{name}")
        elif name not in commented:
            extra.append(f".. autodata:: {module_name}.{name}")
    title = f"``{module_name}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {module_name}", ""] + extra
    return "\n".join(lines) + "\n"


def drop_value_docstrings(app: Sphinx, what: str, name: str, value: Any, options: Any,
                          lines: List[str]) -> None:
    """Data is described by its ``#:`` comment or, without one, by its value alone: not by
    the docstring of the value's type (a tuple's, an ndarray's), which autodoc would print."""
    module_name, _, attribute = name.rpartition(".")
    if what == "data" and ("", attribute) not in _comments(module_name):
        lines.clear()


def _comments(module_name: str) -> Dict[Tuple[str, str], List[str]]:
    return ModuleAnalyzer.for_module(module_name).find_attr_docs()


def _home(member: Any) -> Optional[str]:
    """The module that defines a class member (a method, property or descriptor), if known."""
    for owner in (getattr(member, "__objclass__", None), getattr(member, "fget", None),
                  member):
        module = getattr(owner, "__module__", None)
        if isinstance(module, str):
            return module
    return None


def skip_foreign(app: Sphinx, what: str, name: str, member: Any, skip: bool,
                 options: Any) -> Optional[bool]:
    """Leave out the members a class inherits from outside fastnardy."""
    home = _home(member)
    if what in ("class", "exception") and home is not None and home.split(".")[0] != PACKAGE:
        return True
    return None


def write_pages(app: Sphinx) -> None:
    """docs/api/<module>.rst for every public module; stale pages are removed."""
    folder = Path(app.srcdir) / "api"
    folder.mkdir(exist_ok=True)
    wanted: Dict[Path, str] = {folder / f"{name}.rst": page(name) for name in public_modules()}
    for old in folder.glob("*.rst"):
        if old not in wanted:
            old.unlink()
    for path, text in wanted.items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def check_coverage(app: Sphinx, env: BuildEnvironment) -> None:
    """A warning (an error under -W) for each public name without an entry."""
    documented = set(env.get_domain("py").objects)  # type: ignore[attr-defined]
    for module_name in public_modules():
        for name in public_names(module_name):
            if f"{module_name}.{name}" not in documented:
                logger.warning("API reference: %s.%s is public but not documented (give it "
                               "a docstring, or a #: comment for a constant)", module_name,
                               name, type="apiref")


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", write_pages)
    app.connect("autodoc-skip-member", skip_foreign)
    app.connect("autodoc-process-docstring", drop_value_docstrings)
    app.connect("env-check-consistency", check_coverage)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
