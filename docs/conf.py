"""Sphinx configuration of fastnardy's documentation site.

Build it from the top of the source tree, with the package installed (``pip install -e
".[docs]"``)::

    sphinx-build -W --keep-going -n -b html docs docs/_build/html
    sphinx-build -W --keep-going -n -b doctest docs docs/_build/doctest

A page is one line in the ``toctree`` of ``index.md``. The API reference needs no line at
all: ``_ext/apiref.py`` writes one page per public module (every module of the package
whose name has no leading underscore) and fails the build when a public name of one of them
is not documented. The speed plots are drawn from ``speed/results.json`` by
``speed/plot.py`` at the start of each build.
"""

import sys
from pathlib import Path

import fastnardy

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS / "_ext"), str(DOCS / "speed")]

project = "fastnardy"
author = "fastnardy developers"
copyright = "fastnardy developers (MIT licence)"
release = version = fastnardy.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "apiref",
    "pydoctest",
]

root_doc = "index"
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "README.md"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
html_theme = "furo"
html_title = f"fastnardy {release}"
html_static_path = ["_static"]
html_css_files = ["code.css"]  # code blocks wrap: nothing hidden past the column

# Offline: no intersphinx; references into other projects' types (numpy, Gymnasium, the
# standard library's typing forms) are left as text instead of being reported as broken.
nitpicky = True
nitpick_ignore_regex = [
    ("py:.*", r"(numpy|np|numpy\.typing|npt|gymnasium|pettingzoo|pyspiel|distributed|"
              r"concurrent\.futures|collections\.abc|typing|typing_extensions|os|re|io|"
              r"pathlib|dataclasses|enum|types|builtins|random|argparse|abc|socket)\..*"),
    # the compiled kernel is private: its values are documented as Position, Turn ...
    ("py:.*", r"fastnardy\.(.*\.)?_.*"),  # and a module's private names
    ("py:class", r"(PackedPosition|PackedTurn)"),
    # type aliases of signatures that their module does not export (not in its __all__)
    ("py:class", r"(fastnardy\.envs\.vector\.)?Observation"),
    ("py:class", r"(fastnardy\.play\.players\.)?(Rows|Indices)"),
    ("py:class", r"(ndarray|NDArray|ArrayLike|DTypeLike|Executor|Future|Generator|"
                 r"PathLike|Path|Enum|Process|Popen|TextIO|IO|Callable|Iterable|Iterator|"
                 r"Sequence|Mapping|Any|Optional|Union|Tuple|List|Dict|Set|FrozenSet|Type|"
                 r"TypeVar|Literal|SupportsIndex|AECEnv|Env|Wrapper|Space|Discrete|Box|"
                 r"Dict|MultiBinary|np\..*|dtype|float32|int8|int64|uint8|bool_|"
                 r"_ctypes\..*|ModuleType|NoneType|ellipsis)"),
    ("py:obj", r"(typing|numpy|np)\..*"),
    ("py:data", r"(typing|numpy|np)\..*"),
]

# Type hints name aliases by their short name (Counts, Rules); where two modules bind the
# same name the link goes to the first, instead of a warning.
suppress_warnings = ["ref.python"]

autodoc_default_options = {"members": True, "inherited-members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_preserve_defaults = True

doctest_test_doctest_blocks = "default"

import plot  # noqa: E402 (docs/speed, put on the path above)

plot.draw(DOCS / "speed" / "plots")
