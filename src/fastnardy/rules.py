"""Rule sets: which game and which variants of ``RULES.md`` are in force."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InvalidRulesError

LONG = "long"
SHORT = "short"

HEAD_RULES = ("classic", "tournament", "blocked")  # L5
BLOCK_RULES = ("opponent_ahead", "opponent_home", "none")  # L6
BLOCK_CHECKS = ("every_step", "turn_end")  # L6
LONG_SCORINGS = ("oin_mars", "oin_mars_koks")  # L10
HIT_AND_HIDE = ("allowed", "forbidden")  # S8

_LONG_DEFAULTS = {
    "head_rule": "classic",
    "block_rule": "opponent_ahead",
    "block_check": "every_step",
    "scoring": "oin_mars",
}
_SHORT_DEFAULTS = {"hit_and_hide": "allowed", "backgammon": True, "cube_cancels_mars": False}


def _choose(name: str, value: object, allowed: tuple) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise InvalidRulesError(
            f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}"
        )


def _flag(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise InvalidRulesError(f"{name} must be True or False, not {value!r}")


@dataclass(frozen=True)
class Rules:
    """A game and its rule variants. Build one with :meth:`long` or :meth:`short`.

    Fields that do not apply to the game are None.
    """

    game: str
    head_rule: "str | None" = None
    block_rule: "str | None" = None
    block_check: "str | None" = None
    scoring: "str | None" = None
    hit_and_hide: "str | None" = None
    backgammon: "bool | None" = None
    cube_cancels_mars: "bool | None" = None

    @classmethod
    def long(
        cls,
        head_rule: str = "classic",
        block_rule: str = "opponent_ahead",
        block_check: str = "every_step",
        scoring: str = "oin_mars",
    ) -> "Rules":
        """Long nardy (L1-L10) with the given L5 head rule, L6 block rule and check, L10 scoring."""
        _choose("head_rule", head_rule, HEAD_RULES)
        _choose("block_rule", block_rule, BLOCK_RULES)
        _choose("block_check", block_check, BLOCK_CHECKS)
        _choose("scoring", scoring, LONG_SCORINGS)
        return cls(LONG, head_rule=head_rule, block_rule=block_rule,
                   block_check=block_check, scoring=scoring)

    @classmethod
    def short(
        cls,
        hit_and_hide: str = "allowed",
        backgammon: bool = True,
        cube_cancels_mars: bool = False,
    ) -> "Rules":
        """Short nardy / backgammon (S1-S9) with the S8 hit-and-hide and S9 scoring variants."""
        _choose("hit_and_hide", hit_and_hide, HIT_AND_HIDE)
        _flag("backgammon", backgammon)
        _flag("cube_cancels_mars", cube_cancels_mars)
        return cls(SHORT, hit_and_hide=hit_and_hide, backgammon=backgammon,
                   cube_cancels_mars=cube_cancels_mars)

    @classmethod
    def of(cls, game_or_rules: object) -> "Rules":
        """``"long"``, ``"short"`` or a Rules value, as a Rules value."""
        if isinstance(game_or_rules, Rules):
            return game_or_rules
        if game_or_rules == LONG:
            return cls.long()
        if game_or_rules == SHORT:
            return cls.short()
        raise InvalidRulesError(f"game must be 'long', 'short' or a Rules, not {game_or_rules!r}")

    @property
    def is_long(self) -> bool:
        return self.game == LONG

    def variants(self) -> dict:
        """The variant fields that differ from the game's defaults."""
        defaults = _LONG_DEFAULTS if self.is_long else _SHORT_DEFAULTS
        return {k: getattr(self, k) for k, v in defaults.items() if getattr(self, k) != v}

    @property
    def code(self) -> tuple:
        """The move-generation rules as small ints, for the kernel:
        (game 0 long / 1 short, head_rule index, block_rule index, block_check index,
        hit_and_hide index). Indices follow the tuples in this module; unused ones are 0."""
        if self.is_long:
            return (0, HEAD_RULES.index(self.head_rule), BLOCK_RULES.index(self.block_rule),
                    BLOCK_CHECKS.index(self.block_check), 0)
        return (1, 0, 0, 0, HIT_AND_HIDE.index(self.hit_and_hide))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.variants().items())
        return f"Rules.{self.game}({args})"
