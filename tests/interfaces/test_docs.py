"""Docs that run: the ``>>>`` examples of README.md, of every page of the documentation site
(docs/) and of the rule book, and the command lines of the README and of the site's
Getting started page. (The site's build runs the same examples as Sphinx doctests.)"""

from __future__ import annotations

import ast
import doctest
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fastnardy import rules as rulebook
from fastnardy.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)
GETTING_STARTED = ROOT / "docs" / "getting-started.md"
CONF = ROOT / "docs" / "conf.py"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELL_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)


def run_examples(markdown: str, name: str) -> int:
    """Run the examples of every ```python block of ``markdown`` in order, in one namespace,
    as doctest would; fail with doctest's report. Returns the number of examples."""
    parser = doctest.DocTestParser()
    examples: List[doctest.Example] = []
    for block in PYTHON_BLOCK.finditer(markdown):
        first_line = markdown.count("\n", 0, block.start(1))
        for example in parser.get_examples(block.group(1)):
            example.lineno += first_line
            examples.append(example)
    globs: Dict[str, Any] = {}
    report: List[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(doctest.DocTest(examples, globs, name, name, 0, None), out=report.append)
    assert runner.failures == 0, "".join(report)
    return len(examples)


def test_readme_examples_run():
    assert run_examples(README.read_text(encoding="utf-8"), "README.md") >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_site_page_examples_run(page, monkeypatch):
    """Each page in its own namespace, as sphinx.ext.doctest runs a page's default group,
    from the top of the source tree (as the site is built; the cross-check page starts an
    engine from bench/)."""
    monkeypatch.chdir(ROOT)
    run_examples(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT)))


def test_site_has_examples_on_every_tutorial():
    for page in (ROOT / "docs" / "tutorials").glob("*.md"):
        assert ">>> " in page.read_text(encoding="utf-8"), page


def test_rule_book_worked_examples_run():
    assert run_examples(rulebook.text(), "fastnardy/docs/rules.md") >= 20


def _command_lines() -> List[str]:
    """The ``fastnardy ...`` lines of the README's shell blocks and of the first shell block
    of Getting started's "Command line" section."""
    text = GETTING_STARTED.read_text(encoding="utf-8")
    block = SHELL_BLOCK.search(text[text.index("## Command line"):])
    assert block is not None
    blocks = [block.group(1)] + [b.group(1) for b in
                                 SHELL_BLOCK.finditer(README.read_text(encoding="utf-8"))]
    lines = [line.split("  #")[0].strip() for b in blocks for line in b.splitlines()
             if line.startswith("fastnardy ")]
    return list(dict.fromkeys(lines))


@pytest.mark.parametrize("line", _command_lines())
def test_command_lines_run(line, capsys):
    argv = shlex.split(line)[1:]
    assert main(argv) == 0
    assert capsys.readouterr().out


def _conf(*names: str) -> Dict[str, Any]:
    """The values docs/conf.py assigns to ``names`` (literals, read without running it)."""
    values: Dict[str, Any] = {}
    for node in ast.parse(CONF.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in names:
                    values[target.id] = ast.literal_eval(node.value)
    return values


# each code block's width against what it shows, in a window 1,280 px wide
_MEASURE = """<script>
const out=document.createElement('output');
out.id='measured';
out.textContent=JSON.stringify([...document.querySelectorAll('pre')].map(
  pre=>[pre.scrollWidth,pre.clientWidth]));
document.body.append(out);
</script></body>"""


@pytest.mark.skipif(not shutil.which("chromium"), reason="headless Chromium is not installed "
                    "(apt-get install chromium)")
def test_site_code_blocks_show_their_long_lines_whole(tmp_path):
    """A code block's line longer than the theme's text column wraps: nothing of it is
    hidden past the column (furo's column is 46em, a command's output often wider). Built
    with docs/conf.py's theme and style sheets, seen in headless Chromium at 1,280 px."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed (pip install -e "
                                         "'.[docs]')")
    pytest.importorskip("furo", reason="the docs extra is not installed")
    settings = _conf("html_theme", "html_static_path", "html_css_files")
    settings["html_static_path"] = [str(CONF.parent / path)
                                    for path in settings["html_static_path"]]
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text("".join(f"{name} = {value!r}\n"
                                            for name, value in settings.items()))
    long_line = " ".join(f"24/{n}" for n in range(1, 120))
    (source / "index.rst").write_text(f"Code\n====\n\n.. code-block:: text\n\n   "
                                      f"{long_line}\n\n>>> print('{long_line}')\n"
                                      f"{long_line}\n")
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(source),
                    str(tmp_path / "html")], check=True, capture_output=True, timeout=300)
    page = tmp_path / "html" / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", _MEASURE),
                    encoding="utf-8")
    dom = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                          "--window-size=1280,900", "--dump-dom", f"file://{page}"],
                         capture_output=True, text=True, timeout=60).stdout
    found = re.search(r'<output id="measured">(.*?)</output>', dom)
    assert found is not None, dom[-2000:]
    blocks = json.loads(found.group(1))
    assert len(blocks) == 2
    assert all(0 < shown < 1280 and wide <= shown for wide, shown in blocks), blocks


# --------------------------------------------------------------------------- the safety page

SAFETY = ROOT / "docs" / "safety.md"
PINNED_SECTIONS = ("Shared objects", "Writers", "Readers", "Servers", "Other engines")
TEST_REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
FENCE = re.compile(r"^```.*?^```[^\n]*\n?", re.MULTILINE | re.DOTALL)


def _sections(markdown: str) -> Dict[str, str]:
    """The text of each ``## `` section of ``markdown`` (fenced blocks left out), by title."""
    parts = re.split(r"^## +(.+?) *$", FENCE.sub("", markdown), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


def _statements(section: str) -> List[str]:
    """The statements of a section: each table row (not a table's header nor its separator)
    and each bullet, with the lines that continue it."""
    statements: List[str] = []
    bullet: List[str] = []
    in_table = False
    for line in section.splitlines() + [""]:
        row = line.strip().startswith("|")
        starts = re.match(r"\s*[-*+] ", line) is not None
        if bullet and (row or starts or not line.strip() or not line[:1].isspace()):
            statements.append(" ".join(bullet))
            bullet = []
        if row:
            if in_table and not re.fullmatch(r"\|[\s:|-]+\|", line.strip()):
                statements.append(line)  # a body row (the first row is the header)
            in_table = True
            continue
        in_table = False
        if starts or bullet:
            bullet.append(line.strip())
    return statements


def test_every_statement_of_the_safety_page_names_a_test_that_exists():
    """docs/safety.md: every table row and bullet of its Shared objects, Writers, Readers,
    Servers and Other engines sections ends with the tests that pin it, as
    ``tests/<folder>/<file>.py::<test>`` code spans, and each test named is a function of
    that file (a renamed or removed test fails here, as does a statement without one)."""
    text = SAFETY.read_text(encoding="utf-8")
    sections = _sections(text)
    assert set(PINNED_SECTIONS) <= set(sections), sorted(sections)
    unpinned = []
    for title in PINNED_SECTIONS:
        statements = _statements(sections[title])
        assert statements, f"no statement under {title}"
        unpinned += [f"{title}: {s[:100]}" for s in statements if not TEST_REFERENCE.search(s)]
    assert not unpinned, "\n".join(unpinned)
    spans = re.findall(r"`(tests/[^`]*)`", text)
    malformed = [span for span in spans if "::" in span
                 and not TEST_REFERENCE.fullmatch(f"`{span}`")]
    assert not malformed, malformed  # e.g. a parametrization id: name the function
    missing = []
    defined: Dict[str, set] = {}
    for path, name in TEST_REFERENCE.findall(text):
        if path not in defined:
            source = ROOT / path
            defined[path] = ({node.name for node in ast.parse(source.read_text(
                encoding="utf-8")).body if isinstance(node, (ast.FunctionDef,
                                                            ast.AsyncFunctionDef))}
                             if source.is_file() else set())
        if not name.startswith("test_") or name not in defined[path]:
            missing.append(f"{path}::{name}")
    assert not missing, missing


def test_the_safety_pages_check_finds_a_statement_without_a_test():
    """The parser above reads rows and bullets as the page writes them: a bullet over
    several lines is one statement, a table's header and separator are none."""
    section = ("Intro text.\n\n| a | b |\n|---|---|\n| x | `tests/t.py::test_x` |\n"
               "| y | none |\n\n- **One.** Said over\n  two lines. `tests/t.py::test_one`\n"
               "- **Two.** Said once.\n\nAfter.\n")
    statements = _statements(section)
    assert len(statements) == 4
    assert [bool(TEST_REFERENCE.search(s)) for s in statements] == [True, False, True, False]
