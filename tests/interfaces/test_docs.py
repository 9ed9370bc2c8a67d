"""Docs that run: the ``>>>`` examples of README.md, of every page of the documentation site
(docs/) and of the rule book, and the command lines of the README and of the site's
Getting started page. (The site's build runs the same examples as Sphinx doctests.)"""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fastnardy import rules as rulebook
from fastnardy.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)
GETTING_STARTED = ROOT / "docs" / "getting-started.md"
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
