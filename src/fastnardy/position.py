"""Positions, steps and turns: the values of the public API."""

from __future__ import annotations

from typing import Iterable, NamedTuple, Optional, SupportsIndex, Tuple, cast

from . import _kernel
from . import backend as _backend
from . import checks
from .basics import (BLACK, CHECKERS, LONG_GAME, SHORT_GAME, WHITE, Roll, mirror, six_block,
                     start_points, win_kind, win_points)
from .errors import IllegalTurnError, InvalidDiceError, InvalidPositionError
from .rules import LONG, SHORT, Rules

# The satellites (notation, referee, gnubg, svg) are imported inside the methods that use
# them: they work on the kernel's PackedPosition and never import this module.

Dice = Iterable[SupportsIndex]  # a roll as given: two ints from 1 to 6, in any order
Counts = Iterable[SupportsIndex]  # 24 checker counts, index 0 = the side's own point 1


class Step(NamedTuple):
    """One checker moved by one die, in the mover's numbering (25 = bar, 0 = off)."""

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        from . import notation

        return notation.format_step(self)


class Outcome(NamedTuple):
    """How a finished game ended (L10, S9): winner, points won, and the kind of win
    (``"oin"``, ``"mars"``, ``"koks"`` or ``"backgammon"``)."""

    winner: str
    points: int
    kind: str


# The values are compiled: Turn and Position extend the kernel's types (the package's
# __init__ imports the kernel first, so that a missing one fails loudly there).
class Turn(_kernel.PackedTurn):
    """A legal turn (T1): the resulting position (the other side to move) and its T2
    representative steps. Two turns are equal when their positions are. Compiled
    (:class:`fastnardy._kernel.PackedTurn`): ``steps`` decodes 64 bits on demand."""

    __slots__ = ()

    def __init__(self, steps: Iterable[Iterable[object]], position: Position) -> None:
        """A Turn built by hand (or unpickled): up to four steps, each (src, dst) or (src,
        dst, hit) in the mover's numbering, and the position they lead to (no rule is
        checked: :meth:`Position.check_turn` referees). IllegalTurnError for steps that do
        not read, InvalidPositionError for a position that is not one."""
        try:
            super().__init__(steps, position)
        except TypeError:  # numpy 2: a one-element array has __index__ but refuses it
            raise IllegalTurnError("T1", f"a step is (src, dst, hit) with points 0-25 "
                                         f"(25 = bar, 0 = off), not {steps!r}") from None

    def __str__(self) -> str:
        from . import notation

        return notation.format_steps(self.steps)

    def __repr__(self) -> str:
        return f"Turn({self.steps!r}, {self.position!r})"


LegalTurns = _kernel.LegalTurns


class PlayedTurn(NamedTuple):
    """A refereed turn (:meth:`Position.check_played`): the legal Turn, whose ``steps`` are
    its T2 representative, and the steps as they were played; ``str()`` writes the latter."""

    turn: Turn
    steps: Tuple[Step, ...]

    def __str__(self) -> str:
        from . import notation

        return notation.format_steps(self.steps)


class Position(_kernel.PackedPosition):
    """A position of long or short nardy: both sides' checkers and the side to move.

    Immutable and hashable; a compiled value (:class:`fastnardy._kernel.PackedPosition`)
    holding its 128-bit packed key, so copies, children and comparisons are cheap. Points
    are in each side's own numbering (index 0 = its point 1).
    """

    __slots__ = ()

    def __init__(self, rules: object, turn: str, white: Counts, white_bar: SupportsIndex,
                 black: Counts, black_bar: SupportsIndex) -> None:
        """Checks the arguments and the position (T7); ``from_points`` is the same with
        keywords and defaults."""
        checked = Rules.of(rules)
        checks.side(turn)
        whites, white_on_bar = checks.side_checkers(WHITE, white, white_bar)
        blacks, black_on_bar = checks.side_checkers(BLACK, black, black_bar)
        _validate(checked, whites, white_on_bar, blacks, black_on_bar)
        if turn == WHITE:
            self._assign(checked, turn, whites, white_on_bar, blacks, black_on_bar)
        else:
            self._assign(checked, turn, blacks, black_on_bar, whites, white_on_bar)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def start(cls, game_or_rules: object = LONG) -> "Position":
        """The starting position (L1, S1), white to move (T6 is left to the caller)."""
        rules = Rules.of(game_or_rules)
        points = start_points(LONG_GAME if rules.game == LONG else SHORT_GAME)
        return cls(rules, WHITE, points, 0, points, 0)

    @classmethod
    def opening(cls, game_or_rules: object, white_die: SupportsIndex,
                black_die: SupportsIndex) -> Tuple["Position", Optional[Roll]]:
        """T6: each side throws one die and the higher moves first. Returns the start position
        with that side to move, and the dice it plays: in short nardy the two thrown numbers,
        in long nardy None (it throws both dice again). Equal dice must be re-thrown."""
        white, black = _dice((white_die, black_die))
        if white == black:
            raise InvalidDiceError(f"T6: equal opening dice ({white}) are thrown again")
        start = cls.start(game_or_rules)
        first = WHITE if white > black else BLACK
        position = cls(start.rules, first, start.white_points, 0, start.black_points, 0)
        dice = (max(white, black), min(white, black))
        return position, dice if start.rules.game == SHORT else None

    @classmethod
    def from_points(cls, rules: object, white: Counts, black: Counts, turn: str = WHITE,
                    white_bar: SupportsIndex = 0, black_bar: SupportsIndex = 0) -> "Position":
        """A position from 24 checker counts per side, each in its own numbering."""
        return cls(rules, turn, white, white_bar, black, black_bar)

    @classmethod
    def from_string(cls, text: str) -> "Position":
        """The inverse of :meth:`to_string` (see :mod:`fastnardy.notation`)."""
        from . import notation

        rules, turn, white, white_bar, black, black_bar = notation.parse_position(text)
        return cls(rules, turn, white, white_bar, black, black_bar)

    @classmethod
    def from_gnubg_id(cls, pid: str, rules: object = SHORT, turn: str = WHITE) -> "Position":
        """A short-nardy position from a GNU Backgammon Position ID; the player on roll is
        ``turn``."""
        rules = Rules.of(rules)
        if rules.game != SHORT:
            raise InvalidPositionError("GNU Backgammon Position IDs are for short nardy only")
        checks.side(turn)
        from . import notation

        mover, mover_bar, other, other_bar = notation.decode_position_id(pid)
        if turn == WHITE:
            return cls.from_points(rules, mover, other, WHITE, mover_bar, other_bar)
        return cls.from_points(rules, other, mover, BLACK, other_bar, mover_bar)

    # ------------------------------------------------------------------ turns
    def _backend_turns(self, name: object, d1: int, d2: int) -> LegalTurns:
        """legal_turns on a backend other than the kernel (the reference)."""
        me, me_bar, opp, opp_bar = self.mover_frame()
        turns = _backend.get(name).enumerate_packed(self.rules.code, me, me_bar, opp, opp_bar,
                                                    d1, d2)
        return LegalTurns.from_turns(self, turns, d1, d2)

    def check_turn(self, dice: Dice, turn: object) -> Turn:
        """Referee a turn someone else played: a notation string, a sequence of (src, dst)
        steps or a Turn. Returns the matching legal Turn, or raises IllegalTurnError naming the
        rule and the offending step (NotationError, T1, for text that does not read; a move
        of one checker over several dice, ``24/13``, reads as its steps). The steps may come in any order; the Turn carries the
        T2 representative (:meth:`check_played` also keeps the steps as played)."""
        return self.check_played(dice, turn).turn

    def check_played(self, dice: Dice, turn: object) -> PlayedTurn:
        """:meth:`check_turn`, keeping what was played: the legal Turn and the steps as the
        player played them (hits marked), in the order given, or, when that order cannot be
        played, the first reordering that can."""
        from . import referee

        found, played = referee.check_played(self, _dice(dice), turn)
        return PlayedTurn(cast(Turn, found), tuple(Step(*step) for step in played))

    def play(self, turn: object, dice: Optional[Dice] = None) -> "Position":
        """The position after ``turn`` (a Turn or notation). Without ``dice`` the turn must be
        legal for some roll. A Turn read from this position's ``legal_turns`` needs no check."""
        if isinstance(turn, Turn) and turn._is_turn_of(self, dice):
            return turn.position
        from . import referee

        return cast(Turn, referee.play(self, turn, None if dice is None else _dice(dice))).position

    def is_game_over(self) -> bool:
        """L9/S9: a side has borne off its 15th checker."""
        return self.white_off == 15 or self.black_off == 15

    def outcome(self, cube: int = 1) -> Optional[Outcome]:
        """The result of a finished game (L10 / S9), or None while it goes on. ``cube`` is the
        stake (C1); with ``cube_cancels_mars`` a raised stake (cube > 1) makes any win count
        as oin (C4); with the ``checkers_left`` scoring a win scores the loser's checkers
        left times the stake (C9). :meth:`fastnardy.Game.outcome` applies C8 too."""
        if not self.is_game_over():
            return None
        cube = checks.number(cube, "cube", 1)
        winner = WHITE if self.white_off == 15 else BLACK
        loser_points, loser_bar, loser_off = (
            (self.black_points, self.black_bar, self.black_off) if winner == WHITE
            else (self.white_points, self.white_bar, self.white_off))
        rules = self.rules
        kind = win_kind(LONG_GAME if rules.is_long else SHORT_GAME, loser_points, loser_bar,
                        loser_off, rules.scoring == "oin_mars_koks", bool(rules.backgammon))
        plain = rules.game == SHORT and bool(rules.cube_cancels_mars) and cube > 1
        if plain:
            kind = "oin"
        return Outcome(winner, win_points(kind, cube, CHECKERS - loser_off,
                                          rules.scoring == "checkers_left", plain), kind)

    # ------------------------------------------------------------------ text
    def to_string(self) -> str:
        """The position string (see :mod:`fastnardy.notation`); ``from_string`` reads it."""
        from . import notation

        return notation.format_position(self)

    def gnubg_id(self) -> str:
        """The GNU Backgammon Position ID (short nardy): the side not to move, then the side
        to move."""
        if self.rules.game != SHORT:
            raise InvalidPositionError("GNU Backgammon Position IDs are for short nardy only")
        from . import notation

        me, me_bar, opp, opp_bar = self.mover_frame()
        return notation.encode_position_id(me, me_bar, opp, opp_bar)

    def __repr__(self) -> str:
        return f"Position.from_string({self.to_string()!r})"

    def __str__(self) -> str:
        from . import notation

        return notation.draw_board(self)

    def _repr_svg_(self) -> str:
        """The board as SVG, for notebooks (:func:`fastnardy.formats.svg.board`)."""
        from .formats.svg import board

        return board(self)


def _validate(rules: Rules, white: Tuple[int, ...], white_bar: int, black: Tuple[int, ...],
              black_bar: int) -> None:
    """T7 beyond each side's counts (checks.side_checkers): one colour a point, no bar in
    long nardy, not both sides off, and no six-block that L6 forbids under the rules (for
    either side)."""
    long_game = rules.game == LONG
    if long_game and (white_bar or black_bar):
        raise InvalidPositionError("T7: long nardy has no bar")
    game = LONG_GAME if long_game else SHORT_GAME
    for q in range(1, 25):
        white_point = mirror(game, q)
        if black[q - 1] and white[white_point - 1]:
            raise InvalidPositionError(
                f"T7: board point {white_point} holds both white and black checkers")
    if sum(white) + white_bar == 0 and sum(black) + black_bar == 0:
        raise InvalidPositionError("T7: both sides have borne off 15 checkers")
    if long_game:
        for side, me, opp in ((WHITE, white, black), (BLACK, black, white)):
            block = six_block(str(rules.block_rule), me, opp)
            if block:
                raise InvalidPositionError(
                    f"T7/L6: {side} holds a forbidden six-block on the opponent's points "
                    f"{block[0]}-{block[1]}")

_dice = _kernel.dice_pair

_kernel.bind(Turn, Step, _backend)

