"""The rule book (fastnardy/docs/rules.md, fastnardy.rules, ``fastnardy rules``): every
rule id the sources cite, and every id an IllegalTurnError can carry, is defined there."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path
from typing import Dict, Iterator, Set

import pytest

from fastnardy import IllegalTurnError, InvalidRulesError, Position
from fastnardy import rules as rulebook
from fastnardy.cli import main

SOURCES = Path(__file__).resolve().parents[2] / "src" / "fastnardy"
SHARED_RULES = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"
RULE_ID = re.compile(r"\b[LSTC][0-9]+\b")
ALL_IDS = ([f"L{n}" for n in range(1, 11)] + [f"S{n}" for n in range(1, 10)]
           + [f"T{n}" for n in range(1, 8)] + [f"C{n}" for n in range(1, 10)])


def _source_files() -> Iterator[Path]:
    assert SOURCES.is_dir(), f"the package sources are not at {SOURCES}"
    for pattern in ("*.py", "*.pyi", "*.pyx", "*.pxd"):
        yield from sorted(SOURCES.glob(pattern))


def _cited_ids(path: Path) -> Set[str]:
    """Rule-id-shaped words in the comments and string literals (docstrings, messages) of a
    source file; ranges such as "L1-L10" give both ends. Identifiers are not citations."""
    prose = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)}
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return {rule_id for token in tokens if token.type in prose
            for rule_id in RULE_ID.findall(token.string)}


def _id_literals(node: ast.AST) -> Set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and re.fullmatch(r"[LSTC][0-9]+", n.value)}


def _raised_ids(tree: ast.Module) -> Set[str]:
    """The rule ids passed to IllegalTurnError(rule, ...) and reference.Problem(rule, ...)
    (whose rule the referee re-raises): literals in the argument, or the literals assigned
    to the variable passed, in the same function."""
    found: Set[str] = set()
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.Module, ast.FunctionDef)):
            continue
        assigned: Dict[str, Set[str]] = {}
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, set()).update(_id_literals(node.value))
        for node in ast.walk(scope):
            if isinstance(node, ast.Call) and node.args and (
                    getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            ) in ("IllegalTurnError", "Problem"):
                rule = node.args[0]
                found |= _id_literals(rule)
                if isinstance(rule, ast.Name):
                    found |= assigned.get(rule.id, set())
    return found


RAISED = set().union(*(_raised_ids(ast.parse(path.read_text(encoding="utf-8")))
                       for path in SOURCES.glob("*.py")))


def test_the_rule_book_defines_L1_to_L10_S1_to_S9_T1_to_T7_in_order():
    assert list(rulebook.titles()) == ALL_IDS
    assert all(rulebook.titles().values())


@pytest.mark.parametrize("path", list(_source_files()), ids=lambda path: path.name)
def test_every_rule_id_cited_in_the_sources_is_in_the_rule_book(path):
    assert _cited_ids(path) <= set(rulebook.titles())


def test_the_id_scan_sees_citations_and_ranges_but_not_identifiers():
    cited = _cited_ids(SOURCES / "rules.py")
    assert {"L1", "L5", "L10", "S8"} <= cited  # "# L5" comments, "L1-L10" in a docstring
    assert "S0" not in set().union(*map(_cited_ids, _source_files()))  # a kernel variable


def test_every_rule_id_an_IllegalTurnError_can_carry_is_in_the_rule_book():
    assert RAISED <= set(rulebook.titles())


@pytest.mark.parametrize("position, dice, turn, rule", [
    ("long w 24:15 24:15", (4, 2), "24/20 24/22", "L5"),
    ("long w 24:15 24:15", (6, 5), "24/18", "L7"),
    ("long w 12:1 14:15", (6, 4), "12/8", "L7"),
    ("long w 4:2,2:1,1:1 24:15", (4, 3), "4/off 2/off", "L8"),
    ("long w 24:15 24:15", (6, 5), "24/18 18/13 13/8", "L4"),
    ("short(hit_and_hide=forbidden) w 13:2,8:2,7:2,6:9 24:14,15:1", (3, 2), "13/10* 10/8",
     "S8"),
    ("short w bar:1,24:1,13:5,8:3,6:5 24:2,13:5,8:3,6:5", (6, 4), "13/7 13/9", "S5"),
])
def test_refused_turns_name_a_rule_the_scan_found(position, dice, turn, rule):
    with pytest.raises(IllegalTurnError) as error:
        Position.from_string(position).check_turn(dice, turn)
    assert error.value.rule == rule and rule in RAISED


@pytest.mark.skipif(not SHARED_RULES.is_file(), reason="shared/RULES.md is not beside the repo")
def test_every_rule_of_the_projects_RULES_md_is_in_the_rule_book():
    defined = re.findall(r"^- \*\*([LSTC][0-9]+) ", SHARED_RULES.read_text(encoding="utf-8"),
                         re.MULTILINE)
    assert defined == ALL_IDS


def test_describe_returns_one_rule_section():
    text = rulebook.describe("L5")
    assert text.startswith("L5 Head rule\n\n")
    assert "`tournament`" in text and "### L6" not in text and "Six-block" not in text
    assert rulebook.describe(" l5 ") == text


@pytest.mark.parametrize("bad", ["L11", "X1", "", "L", 5, None])
def test_describe_rejects_an_unknown_rule_id_naming_the_known_ones(bad):
    with pytest.raises(InvalidRulesError, match=r"unknown rule id .*; the rules are L1, L2"):
        rulebook.describe(bad)


def test_the_rules_command_lists_every_id_with_its_title(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ALL_IDS
    assert "L5   Head rule" in lines


def test_the_rules_command_prints_one_rule(capsys):
    assert main(["rules", "S8"]) == 0
    assert capsys.readouterr().out == rulebook.describe("S8") + "\n"


def test_the_rules_command_rejects_an_unknown_id_in_one_line(capsys):
    assert main(["rules", "Q7"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: unknown rule id 'Q7'") and err.count("\n") == 1
