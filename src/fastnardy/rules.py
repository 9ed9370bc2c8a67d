"""Rule sets: which game and which variants of ``RULES.md`` are in force.

The rule book shipped with the package (``fastnardy/docs/rules.md``) is read here by rule id
(:func:`describe`, :func:`titles`, :func:`text`): every rule is a ``### <id> <title>`` section
of that document (L1-L10, S1-S9, T1-T7, C1-C9), the ids cited by the code and by every
:class:`~fastnardy.IllegalTurnError`.

    >>> from fastnardy import rules
    >>> rules.describe("L9").splitlines()[0]
    'L9 End'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Dict, NamedTuple, Optional, Tuple

from .errors import InvalidRulesError

LONG = "long"
SHORT = "short"

HEAD_RULES = ("classic", "tournament", "blocked")  # L5
BLOCK_RULES = ("opponent_ahead", "opponent_home", "none")  # L6
BLOCK_CHECKS = ("every_step", "turn_end")  # L6
LONG_SCORINGS = ("oin_mars", "oin_mars_koks", "checkers_left")  # L10, C9
HIT_AND_HIDE = ("allowed", "forbidden")  # S8
STAKES = ("geometric", "arithmetic")  # C3
MAX_STAKE = 64  # C1: the cube's last face

class Variant(NamedTuple):
    """A rule variant: the game it belongs to (None: both games), its allowed values, its
    default, the rule id that defines it and what it sets."""

    game: Optional[str]
    values: Tuple[object, ...]
    default: object
    rule: str
    description: str


# The variant table, the one source of the variants' names, values and defaults: the Rules
# fields, the position string (notation), the CLI options and the OpenSpiel parameters are
# derived from it.
VARIANTS: Dict[str, Variant] = {
    "head_rule": Variant(LONG, HEAD_RULES, "classic", "L5",
                         "when a second checker may leave the head"),
    "block_rule": Variant(LONG, BLOCK_RULES, "opponent_ahead", "L6",
                          "when a six-point block is allowed"),
    "block_check": Variant(LONG, BLOCK_CHECKS, "every_step", "L6",
                           "when the six-block rule is checked"),
    "scoring": Variant(LONG, LONG_SCORINGS, "oin_mars", "L10",
                       "whether a koks scores 3, or a win the loser's checkers left (C9)"),
    "hit_and_hide": Variant(SHORT, HIT_AND_HIDE, "allowed", "S8",
                            "whether a hitter may move on to its own point"),
    "backgammon": Variant(SHORT, (True, False), True, "S9", "whether a backgammon scores 3"),
    "cube_cancels_mars": Variant(SHORT, (True, False), False, "C4",
                                 "whether a raised stake makes any win an oin"),
    "stakes": Variant(None, STAKES, "geometric", "C3", "how an accepted offer raises the stake"),
    "crawford": Variant(None, (True, False), True, "C7",
                        "whether no one may offer in a match's Crawford game"),
    "jacoby": Variant(None, (True, False), False, "C8",
                      "whether a money game's mars, koks and backgammon count only once the "
                      "stake is raised"),
}
# the variants of what a game is worth (section 5), which move generation never reads
CUBE_VARIANTS = ("cube_cancels_mars", "stakes", "crawford", "jacoby")
# the variants that move generation reads (Rules.code), in the order of the code
MOVE_VARIANTS = ("head_rule", "block_rule", "block_check", "hit_and_hide")


def defaults(game: str) -> Dict[str, object]:
    """The variants of ``game`` (``"long"`` or ``"short"``) with their defaults."""
    if not isinstance(game, str) or game not in (LONG, SHORT):
        raise InvalidRulesError(f"game must be 'long' or 'short', not {game!r}")
    return {name: v.default for name, v in VARIANTS.items() if v.game in (game, None)}


_LONG_DEFAULTS = defaults(LONG)
_SHORT_DEFAULTS = defaults(SHORT)
_ONLY = {game: tuple(name for name, v in VARIANTS.items() if v.game == game)
         for game in (LONG, SHORT)}  # each game's own variants, not the other's


def _check(name: str, value: object) -> None:
    """``value`` is one of the allowed values of the variant ``name`` (exactly: a str for
    the named variants, a bool for the flags), or InvalidRulesError listing them."""
    allowed = VARIANTS[name].values
    kind = bool if isinstance(allowed[0], bool) else str
    if not isinstance(value, kind) or value not in allowed:
        raise InvalidRulesError(
            f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


@dataclass(frozen=True)
class Rules:
    """A game and its rule variants. Build one with :meth:`long` or :meth:`short`.

    Fields that do not apply to the game are None. Direct construction validates the same
    way: ``game`` is ``"long"`` or ``"short"``, a variant of the game left None takes its
    default, and a variant of the other game must stay None (InvalidRulesError otherwise).
    """

    game: str
    head_rule: Optional[str] = None
    block_rule: Optional[str] = None
    block_check: Optional[str] = None
    scoring: Optional[str] = None
    hit_and_hide: Optional[str] = None
    backgammon: Optional[bool] = None
    cube_cancels_mars: Optional[bool] = None
    stakes: Optional[str] = None
    crawford: Optional[bool] = None
    jacoby: Optional[bool] = None

    def __post_init__(self) -> None:
        if not isinstance(self.game, str) or self.game not in (LONG, SHORT):
            raise InvalidRulesError(f"game must be 'long' or 'short', not {self.game!r}")
        mine = _LONG_DEFAULTS if self.game == LONG else _SHORT_DEFAULTS
        for name, default in mine.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)
            _check(name, getattr(self, name))
        for name in _ONLY[SHORT if self.game == LONG else LONG]:
            if getattr(self, name) is not None:
                raise InvalidRulesError(f"{name} is not a {self.game}-nardy variant; it must "
                                        f"be None, not {getattr(self, name)!r}")

    @classmethod
    def long(
        cls,
        head_rule: str = str(_LONG_DEFAULTS["head_rule"]),
        block_rule: str = str(_LONG_DEFAULTS["block_rule"]),
        block_check: str = str(_LONG_DEFAULTS["block_check"]),
        scoring: str = str(_LONG_DEFAULTS["scoring"]),
        *,
        stakes: str = str(_LONG_DEFAULTS["stakes"]),
        crawford: bool = bool(_LONG_DEFAULTS["crawford"]),
        jacoby: bool = bool(_LONG_DEFAULTS["jacoby"]),
    ) -> "Rules":
        """Long nardy (L1-L10) with the given L5 head rule, L6 block rule and check, L10 (or
        C9) scoring, and the C3, C7 and C8 variants of the stake."""
        given = {"head_rule": head_rule, "block_rule": block_rule, "block_check": block_check,
                 "scoring": scoring, "stakes": stakes, "crawford": crawford, "jacoby": jacoby}
        for name, value in given.items():
            _check(name, value)  # before the constructor: None is no default here
        return cls(LONG, **given)  # type: ignore[arg-type]

    @classmethod
    def short(
        cls,
        hit_and_hide: str = str(_SHORT_DEFAULTS["hit_and_hide"]),
        backgammon: bool = bool(_SHORT_DEFAULTS["backgammon"]),
        cube_cancels_mars: bool = bool(_SHORT_DEFAULTS["cube_cancels_mars"]),
        *,
        stakes: str = str(_SHORT_DEFAULTS["stakes"]),
        crawford: bool = bool(_SHORT_DEFAULTS["crawford"]),
        jacoby: bool = bool(_SHORT_DEFAULTS["jacoby"]),
    ) -> "Rules":
        """Short nardy / backgammon (S1-S9) with the S8 hit-and-hide and S9 scoring variants,
        and the C3, C4, C7 and C8 variants of the stake."""
        given = {"hit_and_hide": hit_and_hide, "backgammon": backgammon,
                 "cube_cancels_mars": cube_cancels_mars, "stakes": stakes,
                 "crawford": crawford, "jacoby": jacoby}
        for name, value in given.items():
            _check(name, value)
        return cls(SHORT, **given)  # type: ignore[arg-type]

    @classmethod
    def of(cls, game_or_rules: object) -> "Rules":
        """``"long"``, ``"short"`` or a Rules value, as a Rules value."""
        if isinstance(game_or_rules, Rules):
            return game_or_rules
        if isinstance(game_or_rules, str) and game_or_rules in _DEFAULT_RULES:
            return _DEFAULT_RULES[game_or_rules]  # immutable, so shared
        raise InvalidRulesError(f"game must be 'long', 'short' or a Rules, not {game_or_rules!r}")

    @property
    def is_long(self) -> bool:
        """True for long nardy, False for short."""
        return self.game == LONG

    def variants(self) -> Dict[str, object]:
        """The variant fields that differ from the game's defaults."""
        defaults = _LONG_DEFAULTS if self.is_long else _SHORT_DEFAULTS
        return {k: getattr(self, k) for k, v in defaults.items() if getattr(self, k) != v}

    @property
    def max_points(self) -> int:
        """The most a game scores at stake 1: L10 3 with koks, else 2; S9 3 with
        backgammons, else 2; C9 15 (every checker of the loser left)."""
        if self.is_long:
            return {"oin_mars": 2, "oin_mars_koks": 3, "checkers_left": 15}[str(self.scoring)]
        return 3 if self.backgammon else 2

    def kernel_scoring(self) -> Tuple[bool, bool]:
        """(koks, backgammon): the scoring of the games the kernel plays (self-play, the
        environments), by the kind of win (L10, S9). InvalidRulesError for C9's
        ``checkers_left``, which the kernel does not score."""
        if self.scoring == "checkers_left":
            raise InvalidRulesError("C9: the kernel's games score by the kind of win (L10); "
                                    "play scoring='checkers_left' with fastnardy.Game")
        return self.scoring == "oin_mars_koks", bool(self.backgammon)

    @property
    def code(self) -> Tuple[int, int, int, int, int]:
        """The move-generation rules as small ints, for the kernel:
        (game 0 long / 1 short, head_rule index, block_rule index, block_check index,
        hit_and_hide index). Indices follow the tuples in this module; unused ones are 0."""
        if self.is_long:
            return (0, HEAD_RULES.index(self.head_rule), BLOCK_RULES.index(self.block_rule),
                    BLOCK_CHECKS.index(self.block_check), 0)
        return (1, 0, 0, 0, HIT_AND_HIDE.index(self.hit_and_hide))

    def __reduce__(self) -> Tuple[type, Tuple[object, ...]]:
        """Pickles rebuild through the constructor, so a damaged pickle is refused."""
        return (Rules, tuple(getattr(self, f) for f in self.__dataclass_fields__))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.variants().items())
        return f"Rules.{self.game}({args})"


# each game's default rules, built once: Rules.of of a game name returns them
_DEFAULT_RULES = {LONG: Rules.long(), SHORT: Rules.short()}


# --------------------------------------------------------------------------- the rule book
# a rule is a level-3 heading "### L5 Head rule" and the text up to the next heading
_RULE_SECTION = re.compile(r"^### ([LSTC][0-9]+) ([^\n]+)\n(.*?)(?=^#|\Z)",
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
    """Every rule id with its title, in the document's order (L1 … L10, S1 … S9, T1 … T7,
    C1 … C9)."""
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
