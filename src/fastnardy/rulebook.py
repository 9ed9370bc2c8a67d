"""The rule book shipped with the package (``fastnardy/docs/rules.md``), read by rule id.

Every rule is a ``### <id> <title>`` section of that document (L1-L10, S1-S9, T1-T7); the
ids are the ones cited by the code and by every :class:`~fastnardy.IllegalTurnError`.

    >>> from fastnardy import rulebook
    >>> rulebook.describe("L9").splitlines()[0]
    'L9 End'
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files
from typing import Dict, Tuple

from .errors import InvalidRulesError

# a rule is a level-3 heading "### L5 Head rule" and the text up to the next heading
_RULE_SECTION = re.compile(r"^### ([LST][0-9]+) ([^\n]+)\n(.*?)(?=^#|\Z)",
                           re.MULTILINE | re.DOTALL)


def text() -> str:
    """The whole rule book, as Markdown."""
    return files("fastnardy").joinpath("docs").joinpath("rules.md").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _sections() -> Dict[str, Tuple[str, str]]:
    """Rule id → (title, text up to the next heading), in the order of the document."""
    return {match.group(1): (match.group(2), match.group(3).strip())
            for match in _RULE_SECTION.finditer(text())}


def titles() -> Dict[str, str]:
    """Every rule id with its title, in the document's order (L1 … L10, S1 … S9, T1 … T7)."""
    return {rule_id: title for rule_id, (title, _) in _sections().items()}


def describe(rule_id: str) -> str:
    """One rule: a first line ``"<id> <title>"``, a blank line, then the rule's text.

    ``rule_id`` is read case-insensitively (``"l5"`` is L5); an unknown id raises
    :class:`~fastnardy.InvalidRulesError` listing the known ones."""
    sections = _sections()
    key = rule_id.strip().upper() if isinstance(rule_id, str) else None
    if key is None or key not in sections:
        raise InvalidRulesError(f"unknown rule id {rule_id!r}; the rules are "
                                f"{', '.join(sections)}")
    title, body = sections[key]
    return f"{key} {title}\n\n{body}"
