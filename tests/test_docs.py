"""Docs that run: the ``>>>`` examples of README.md and of the rule book, and the README's
command lines."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fastnardy import rulebook
from fastnardy.__main__ import main

README = Path(__file__).resolve().parents[1] / "README.md"
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


def test_rule_book_worked_examples_run():
    assert run_examples(rulebook.text(), "fastnardy/docs/rules.md") >= 20


def _readme_command_lines() -> List[str]:
    """The ``fastnardy ...`` lines of the README's "Command line" section."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Command line"):]
    block = SHELL_BLOCK.search(section)
    assert block is not None
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines()
            if line.startswith("fastnardy ")]


@pytest.mark.parametrize("line", _readme_command_lines())
def test_readme_command_lines_run(line, capsys):
    argv = shlex.split(line)[1:]
    assert main(argv) == 0
    assert capsys.readouterr().out
