"""A game in progress, for people and scripts: dice, turns, undo, records.

``Game(rules, seed)`` starts from the start position with the T6 opening throw: each side
throws one die, ties are thrown again, and the higher die moves first; in short nardy the first
player plays those two numbers, in long nardy it then throws both dice.

**Dice.** The roll of the side to move is thrown lazily, from the game's dice stream (stream 0
of ``seed``: :class:`fastnardy.basics.DiceStream`, the dice the kernel's self-play and
environments throw for their game 0 of the same seed; a fresh random seed when ``seed`` is
None), when it is first needed: reading :attr:`Game.dice`, :meth:`Game.legal_turns` or
:meth:`Game.play`. A caller may set the dice instead (``game.dice = (6, 5)``: physical dice, a
replayed record); setting them before they are thrown leaves the generator untouched, and
setting them after replaces the thrown roll. After a turn the next roll is thrown when needed,
unless the game is over. Short nardy's first roll is the opening throw and cannot be set to
other numbers (T6).

**The stake** (section 5 of the rule book). A game is played for a stake, 1 at the start (C1).
The side to move may :meth:`~Game.offer` to raise it before its roll is thrown, when it holds
the right: both sides hold it at the start (a centred cube), only the taker after an offer
is taken (C2). The other side answers at once: :meth:`~Game.take` raises the stake (C3: doubled,
or by one with ``stakes="arithmetic"``; never past 64) and gives it the right;
:meth:`~Game.drop` ends the game, the offering side winning the stake as it stood (C2). A
finished game scores its L10/S9 result times the stake (C1), with C4, C8 (money play) and C9
as the rules say. :meth:`~Game.offer_refusal` says why an offer is not allowed now, with the
rule id, as every refused action does (:class:`~fastnardy.errors.IllegalActionError`).
:class:`Match` plays games one after another to a set score (C6, C7).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from itertools import islice
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import checks, notation
from ._kernel import dice_pair
from ._utils.threads import Serialized, serialized
from .basics import BLACK, CHECKERS, WHITE, DiceStream, Roll, win_points
from .errors import (FastNardyError, IllegalActionError, IllegalTurnError, InvalidDiceError,
                     InvalidRecordError, NotationError)
from .position import Outcome, Position, Turn
from .record import (ROLLS, GameRecord, MatchRecord, RecordedCube, RecordedTurn, check_name,
                     read_match, read_record, write_match, write_record)
from .rules import MAX_STAKE, Rules


__all__ = ["CubeEvent", "Game", "Match"]


class CubeEvent(NamedTuple):
    """An offer, take or drop in a game: ``turns`` played before it, the ``side`` that made
    it, the ``action`` (``"offer"``, ``"take"`` or ``"drop"``) and the ``stake`` offered (the
    stake a take makes, C3)."""

    turns: int
    side: str
    action: str
    stake: int


def next_stake(rules: Rules, stake: int) -> int:
    """C3: the stake an accepted offer makes: doubled (geometric) or one more (arithmetic)."""
    return stake * 2 if rules.stakes == "geometric" else stake + 1


def scored(position: Position, stake: int, money: bool) -> Optional[Outcome]:
    """A borne-off game's result at ``stake`` (C1): the L10/S9 result times the stake, with
    C4 and C9 as :meth:`fastnardy.Position.outcome`, and C8 in ``money`` play: with
    ``jacoby`` mars, koks and backgammon count only once the stake is raised. None while the
    game goes on."""
    outcome = position.outcome(stake)
    rules = position.rules
    if (outcome is not None and money and rules.jacoby and stake == 1
            and rules.scoring != "checkers_left" and outcome.kind != "oin"):
        return Outcome(outcome.winner, win_points(outcome.kind, stake, CHECKERS, False, True),
                       "oin")
    return outcome


def _other(side: str) -> str:
    return BLACK if side == WHITE else WHITE


def _roll(dice: object) -> Roll:
    """Two dice as a tuple of ints 1-6 (the kernel's parser, InvalidDiceError otherwise); an
    iterator is read no further than a third item, so that an endless one is refused."""
    return dice_pair(tuple(islice(dice, 3)) if isinstance(dice, Iterator) else dice)


def _written(turns: Sequence[Turn], text: object) -> Optional[Turn]:
    """The one legal turn whose own notation (T2) is ``text``, as records write turns: found
    without the referee (which reads any other way of writing it)."""
    if not isinstance(text, str):
        return None
    found = [turn for turn in turns if str(turn) == text]
    return found[0] if len(found) == 1 else None


def _stream(seed: object, stream: object = 0) -> DiceStream:
    number = checks.number(stream, "stream", 0, (1 << 63) - 1)
    if seed is None:
        return DiceStream(secrets.randbits(64), number)
    return DiceStream(checks.number(seed, "seed", 0), number)


class Game(Serialized):
    """A mutable game of long or short nardy: the position, the dice and the turns played.

    ``history`` holds ``(roll, Turn)`` pairs, the roll high die first as records print it,
    the Turn being the legal turn played (its ``str()`` is the T2 notation, its ``position``
    the position after it).
    """

    def __init__(self, rules: object = "long", seed: Optional[int] = None, *,
                 players: Tuple[str, str] = ("white", "black"),
                 opening: Optional[Sequence[int]] = None, stream: int = 0):
        """A new game from the start position (L1, S1) after the T6 opening throw: thrown
        from the dice (stream ``stream`` of ``seed``: the kernel's game ``stream`` of that
        seed), or ``opening=(white's die, black's die)`` when thrown by the caller."""
        self._stream = _stream(seed, stream)
        if opening is None:
            white_die, black_die = self._stream.opening()
        else:
            white_die, black_die = _roll(opening)
        position, first_dice = Position.opening(rules, white_die, black_die)
        self._begin(position, players, (white_die, black_die), first_dice)

    @classmethod
    def from_position(cls, position: Position, seed: Optional[int] = None, *,
                      players: Tuple[str, str] = ("white", "black")) -> "Game":
        """A game from a set position, with its side to move (T6 is skipped)."""
        position = checks.position(position, Position)
        game = cls.__new__(cls)
        game._stream = _stream(seed)
        game._begin(position, players, None, None)
        return game

    def _begin(self, position: Position, players: Tuple[str, str], opening: Optional[Roll],
               dice: Optional[Roll]) -> None:
        if not (isinstance(players, tuple) and len(players) == 2):
            raise FastNardyError(f"players must be a (white, black) pair of names, "
                                 f"not {players!r}")
        self._players = (check_name(players[0]), check_name(players[1]))
        self._opening = opening
        self._positions: List[Position] = [position]
        self._history: List[Tuple[Roll, Turn]] = []
        self._passes: Dict[Tuple[Roll, Turn], Tuple[Roll, Turn]] = {}  # each pass played, once
        self._dice = dice
        self._stake = 1  # C1
        self._owner: Optional[str] = None  # C2: None while both hold the right (centred)
        self._offer: Optional[str] = None  # the side whose offer awaits its answer
        self._dropped: Optional[str] = None  # C2: the side that won by a drop
        self._cube: List[CubeEvent] = []
        self._offers_allowed = True  # C7: False in a match's Crawford game
        self._money = True  # C8: a game outside a match

    # ------------------------------------------------------------------ state
    @property
    def rules(self) -> Rules:
        """The game's rules (those of its position)."""
        return self.position.rules

    @property
    def players(self) -> Tuple[str, str]:
        """The players' names: (white, black)."""
        return self._players

    @property
    def opening(self) -> Optional[Roll]:
        """The T6 opening throw (white's die, black's die), or None for a game begun with
        :meth:`from_position`."""
        return self._opening

    @property
    def position(self) -> Position:
        """The current position (its ``turn`` is the side to move)."""
        return self._positions[-1]

    @property
    def history(self) -> Tuple[Tuple[Roll, Turn], ...]:
        """The turns played: ``(roll, Turn)`` pairs, oldest first, each roll high die first."""
        return tuple(self._history)

    def is_over(self) -> bool:
        """L9/S9: a side has borne off its 15th checker; or C2: an offer was dropped."""
        return self._dropped is not None or self.position.is_game_over()

    @serialized
    def outcome(self, cube: Optional[int] = None) -> Optional[Outcome]:
        """The result once the game is over, else None: a drop wins the stake as it stood
        (kind ``"drop"``, C2); a borne-off game scores its L10/S9 result times the stake (C1;
        ``cube`` another stake), with C4 and C9 as :meth:`~fastnardy.Position.outcome`, and
        C8 in money play: with ``jacoby`` mars, koks and backgammon count only once the stake
        is raised."""
        stake = self._stake if cube is None else cube
        if self._dropped is not None:
            return Outcome(self._dropped, stake, "drop")
        return scored(self.position, stake, self._money)

    # ------------------------------------------------------------------ the stake
    @property
    def stake(self) -> int:
        """What the game is played for (C1): 1 at the start, raised by each offer taken."""
        return self._stake

    @property
    def cube_owner(self) -> Optional[str]:
        """The side that alone holds the right to offer (the last taker, C2), or None while
        both hold it (a centred cube)."""
        return self._owner

    @property
    def offered(self) -> Optional[str]:
        """The side whose offer awaits the other side's take or drop, or None."""
        return self._offer

    @property
    def cube_history(self) -> Tuple[CubeEvent, ...]:
        """Every offer, take and drop of the game, oldest first."""
        return tuple(self._cube)

    @serialized
    def offer_refusal(self) -> Optional[IllegalActionError]:
        """Why the side to move may not offer now (the error :meth:`offer` would raise, with
        its rule id), or None when it may."""
        mover = self.position.turn
        if self.is_over():
            return IllegalActionError("C2", "the game is over: no offer in a finished game")
        if self._offer is not None:
            return IllegalActionError("C2", f"{self._offer}'s offer awaits its answer")
        if self._dice is not None:
            return IllegalActionError("C2", f"{mover} has thrown {self._dice[0]}-"
                                            f"{self._dice[1]}: an offer comes before the "
                                            f"dice, never during a turn")
        if self._owner is not None and self._owner != mover:
            return IllegalActionError("C2", f"{mover} does not hold the right to offer: "
                                            f"{self._owner} took the last offer")
        if not self._offers_allowed:
            return IllegalActionError("C7", "no one may offer in the Crawford game")
        if next_stake(self.rules, self._stake) > MAX_STAKE:
            return IllegalActionError("C1", f"the stake is {self._stake}: it never goes "
                                            f"past {MAX_STAKE}")
        return None

    @serialized
    def may_offer(self) -> bool:
        """Whether the side to move may offer now (:meth:`offer_refusal` is None)."""
        return self.offer_refusal() is None

    @serialized
    def offer(self) -> int:
        """The side to move offers to raise the stake (C2), before it throws; returns the
        stake offered. The other side must :meth:`take` or :meth:`drop` before anything
        else. IllegalActionError names the rule that forbids it now."""
        refusal = self.offer_refusal()
        if refusal is not None:
            raise refusal
        self._offer = self.position.turn
        offered = next_stake(self.rules, self._stake)
        self._cube.append(CubeEvent(len(self._history), self._offer, "offer", offered))
        return offered

    def _answer(self, action: str) -> str:
        if self._offer is None:
            raise IllegalActionError("C2", f"there is no offer to {action}")
        return _other(self._offer)

    @serialized
    def take(self) -> int:
        """The other side takes the offer (C2): the stake is raised (C3) and the taker alone
        holds the right to offer; the offering side then throws and plays. Returns the
        stake."""
        taker = self._answer("take")
        self._stake = next_stake(self.rules, self._stake)
        self._owner, self._offer = taker, None
        self._cube.append(CubeEvent(len(self._history), taker, "take", self._stake))
        return self._stake

    @serialized
    def drop(self) -> Outcome:
        """The other side drops the offer (C2): the game ends, the offering side winning the
        stake as it stood before the offer. Returns that outcome."""
        dropper = self._answer("drop")
        self._cube.append(CubeEvent(len(self._history), dropper, "drop",
                                    next_stake(self.rules, self._stake)))
        self._dropped, self._offer = _other(dropper), None
        outcome = self.outcome()
        assert outcome is not None
        return outcome

    # ------------------------------------------------------------------ dice and turns
    @property
    @serialized
    def dice(self) -> Optional[Roll]:
        """The roll of the side to move, thrown now if it has not been (None once the game is
        over, or while an offer awaits its answer). Set it to use other dice; see the
        module's docstring."""
        if self._dice is None and not self.is_over() and self._offer is None:
            self._dice = self._stream.throw()
        return self._dice

    @dice.setter
    @serialized
    def dice(self, value: Sequence[int]) -> None:
        roll = _roll(value)
        if self.is_over():
            raise InvalidDiceError("T4: the game is over; there is no roll to set")
        self._check_no_offer()
        if self._first_short_turn() and sorted(roll) != sorted(self._dice or ()):
            raise InvalidDiceError(f"T6: short nardy's first turn plays the opening throw "
                                   f"{self._dice}, not {roll}")
        self._dice = roll

    def _check_no_offer(self) -> None:
        if self._offer is not None:
            raise IllegalActionError("C2", f"{self._offer}'s offer awaits its answer: take or "
                                           f"drop first")

    def _first_short_turn(self) -> bool:
        return not self.rules.is_long and self._opening is not None and not self._history

    @serialized
    def legal_turns(self) -> Sequence[Turn]:
        """The legal turns for the current dice (T1, in T2 order); none once the game is over.
        IllegalActionError (C2) while an offer awaits its answer."""
        self._check_no_offer()
        dice = self.dice
        return () if dice is None else self.position.legal_turns(dice)

    @serialized
    def play(self, turn: Union[Turn, str]) -> Turn:
        """Play a turn (a Turn or notation, ``pass`` for a pass) with the current dice and
        return the legal Turn it is. IllegalTurnError names the rule it breaks (T4 once the
        game is over); NotationError (T1) says the text does not read. A Turn taken from this
        game's :meth:`legal_turns` (same position, same dice) is legal by construction and is
        played without a referee call. IllegalActionError (C2) while an offer awaits its
        answer."""
        self._check_no_offer()
        dice = self.dice
        if dice is None:
            if self._dropped is not None:
                raise IllegalActionError("C2", f"the game is over: {self._dropped} won it "
                                               f"when the offer was dropped")
            raise IllegalTurnError("T4", "the game is over: there is no legal turn")
        position = self.position
        if isinstance(turn, Turn) and turn._is_turn_of(position, dice):
            played = turn
        else:
            played = _written(position.legal_turns(dice), turn) or position.check_turn(dice,
                                                                                     turn)
        entry = (ROLLS[f"{max(dice)}{min(dice)}"], played)
        if played.is_pass():  # kept once: blocked sides may pass for ever (T3)
            entry = self._passes.setdefault(entry, entry)
        self._history.append(entry)
        self._positions.append(entry[1].position)
        self._dice = None
        return entry[1]

    @serialized
    def undo(self) -> Tuple[Roll, Turn]:
        """Take back the last turn; its roll (high die first) becomes the current roll again.
        Returns the ``(roll, Turn)`` taken back. IllegalActionError (C5) once the turn is
        final: the opponent has thrown its dice (:attr:`dice` throws them; after an undo, the
        roll given back was thrown after the turn before) or made an offer."""
        if not self._history:
            raise FastNardyError("there is no turn to undo")
        if self._cube and self._cube[-1].turns == len(self._history):
            raise IllegalActionError("C5", "the last turn is final: an offer came after it")
        if self._dice is not None:
            raise IllegalActionError("C5", f"the last turn is final: {self.position.turn} has "
                                           f"thrown {self._dice[0]}-{self._dice[1]}")
        self._positions.pop()
        roll, turn = self._history.pop()
        self._dice = roll
        return roll, turn

    # ------------------------------------------------------------------ records
    @serialized
    def to_record(self) -> GameRecord:
        """The game as a :class:`fastnardy.record.GameRecord` (turns numbered 1, 2, 3 …)."""
        turns = tuple(RecordedTurn(number, before.turn, roll, str(turn))
                      for number, (before, (roll, turn))
                      in enumerate(zip(self._positions, self._history), 1))
        start = None if self._opening is not None else self._positions[0]
        cube = tuple((event.turns, RecordedCube(event.turns + 1, event.side,  # the next move's
                                              "double" if event.action == "offer"
                                              else event.action, event.stake))
                     for event in self._cube)
        return GameRecord(self.rules, self._players, start, self._opening, turns, cube)

    def record(self) -> str:
        """The game as a fastnardy text record (:mod:`fastnardy.record`)."""
        return write_record(self.to_record())

    @classmethod
    def from_record(cls, record: Union[str, GameRecord], seed: Optional[int] = None) -> "Game":
        """Replay a record (text or a GameRecord). A turn the rules forbid raises
        IllegalTurnError naming the rule, the move and the record line; a record that does not
        read, or a turn whose notation does not (T1), raises InvalidRecordError. ``seed``
        seeds the dice thrown after the record ends."""
        if not isinstance(record, GameRecord):
            record = read_record(record)
        return cls._replayed(record, seed, None)

    @classmethod
    def _replayed(cls, record: GameRecord, seed: Optional[int], stream: Optional[int],
                  prepare: Optional[Callable[["Game"], None]] = None) -> "Game":
        """:meth:`from_record` of a GameRecord, ``prepare`` called on the game before its
        actions are replayed (a match's: C7, C8), its later dice stream ``stream``."""
        if record.start is not None:
            game = cls.from_position(record.start, seed, players=record.players)
        else:
            game = cls(record.rules, seed, players=record.players, opening=record.opening,
                       stream=stream or 0)
        if prepare is not None:
            prepare(game)
        for entry in record.actions():
            if isinstance(entry, RecordedCube):
                game._replay_cube(entry)
                continue
            where = (f"move {entry.number}, {entry.side} {notation.format_roll(entry.roll)} "
                     f"{entry.turn}" + (f", line {entry.line}" if entry.line else ""))
            if game.is_over():
                raise IllegalTurnError("T4", f"the game is over: there is no legal turn "
                                             f"({where})")
            try:
                game.dice = entry.roll
                game.play(entry.turn)
            except NotationError as exc:
                raise InvalidRecordError(f"cannot read the turn: {exc} ({where})") from None
            except IllegalTurnError as exc:  # an IllegalActionError stays one (C2)
                reason = str(exc)[len(exc.rule) + 2:]
                raise type(exc)(exc.rule, f"{reason} ({where})", exc.step) from None
        return game

    def _replay_cube(self, action: RecordedCube) -> None:
        """One recorded offer or answer, refereed (C1-C3, C7): its side must be the one that
        makes it, an offer's stake the one C3 gives."""
        where = (f"move {action.number}, {action.side} {action.action}"
                 + (f", line {action.line}" if action.line else ""))
        maker = self.position.turn if action.action == "double" else (
            _other(self._offer) if self._offer is not None else None)
        try:
            if maker is not None and action.side != maker:
                raise IllegalActionError("C2", f"{maker} would make it, not {action.side}")
            if action.action == "double":
                offered = self.offer()
                if action.cube != offered:
                    raise IllegalActionError("C3", f"the offer raises the stake to {offered}, "
                                                   f"not {action.cube}")
            elif action.action == "take":
                self.take()
            else:
                self.drop()
        except IllegalActionError as exc:
            raise IllegalActionError(exc.rule, f"{str(exc)[len(exc.rule) + 2:]} ({where})"
                                     ) from None

    @serialized
    def __repr__(self) -> str:
        return (f"<Game {self.position.to_string()!r}, {len(self._history)} turns played, "
                f"dice {self._dice}>")


class Match(Serialized):
    """A match to ``length`` points (C6): games one after another, each from the start with
    its T6 opening; each game's winner adds its score (C1: the stake times the L10/S9
    result, or the stake as it stood for a drop) to its total, and the first total to reach
    ``length`` wins. With the ``crawford`` variant (C7, the default) no one may offer in the
    game that starts right after a player's total first reaches ``length - 1``; offers are
    allowed again in the games after it; a match to 1 point has no Crawford game. Game ``g``
    (0 = the first) throws stream ``g`` of ``seed`` (:class:`fastnardy.basics.DiceStream`).
    C8 (``jacoby``) is money play's, not a match's."""

    def __init__(self, rules: object = "short", length: int = 1, seed: Optional[int] = None,
                 *, players: Tuple[str, str] = ("white", "black")) -> None:
        self._rules = Rules.of(rules)
        self._length = checks.number(length, "length", 1, 1 << 16)
        self._seed = secrets.randbits(64) if seed is None else checks.number(seed, "seed", 0)
        self._players = players
        self._games: List[Game] = []
        # the totals of the first n games, n, white's, black's (every game but the last is
        # over, C6: its outcome is final)
        self._banked = (0, 0, 0)
        self._crawford: Optional[int] = None  # the number of the Crawford game, once played
        self._start_game()

    def _start_game(self) -> None:
        self._bank()
        game = Game(self._rules, self._seed, players=self._players, stream=len(self._games))
        self._prepare(game)
        self._games.append(game)

    def _bank(self) -> None:
        """Before a game begins: the totals of the games so far (each over, C6), kept, so
        that :attr:`score` reads one game, not all of them."""
        self._banked = (len(self._games), *self.score)

    def _prepare(self, game: Game) -> None:
        """A new game of the match: not money play (C8), and no offers in the Crawford game
        (C7), the one that starts right after a total first reaches ``length - 1``."""
        game._money = False
        # a match to 1 point has no Crawford game: no total reaches N - 1 = 0 after a game
        if (self._rules.crawford and self._crawford is None and self._length > 1
                and max(self.score) == self._length - 1):
            self._crawford = len(self._games)
            game._offers_allowed = False

    @serialized
    def to_record(self) -> MatchRecord:
        """The match as a :class:`fastnardy.record.MatchRecord`."""
        return MatchRecord(self._length, tuple(game.to_record() for game in self._games))

    def record(self) -> str:
        """The match as a fastnardy match record (:mod:`fastnardy.record`)."""
        return write_match(self.to_record())

    @classmethod
    def from_record(cls, record: Union[str, MatchRecord], seed: Optional[int] = None
                    ) -> "Match":
        """Replay a match record (text or a MatchRecord): each game as
        :meth:`Game.from_record` replays it, under the match's C7 and C8; a game recorded
        before the one before it is over, or after the match is over, is an
        InvalidRecordError (C6)."""
        if not isinstance(record, MatchRecord):
            record = read_match(record)
        first = record.games[0]
        match = cls.__new__(cls)
        match._rules, match._length = first.rules, record.length
        match._seed = secrets.randbits(64) if seed is None else checks.number(seed, "seed", 0)
        match._players, match._games, match._crawford = first.players, [], None
        match._banked = (0, 0, 0)
        for number, game_record in enumerate(record.games, 1):
            if match._games and not match.game.is_over():
                raise InvalidRecordError(f"C6: game {number} begins before game "
                                         f"{number - 1} is over")
            if match._games and match.is_over():
                white, black = match.score
                raise InvalidRecordError(f"C6: the match was over at {white}-{black} before "
                                         f"game {number}")
            if game_record.start is not None:
                raise InvalidRecordError(f"T6: game {number} of a match begins with its "
                                         f"opening throw, not a start position")
            match._bank()
            match._games.append(Game._replayed(game_record, match._seed, number - 1,
                                               match._prepare))
        return match

    @property
    def rules(self) -> Rules:
        """The match's rules."""
        return self._rules

    @property
    def length(self) -> int:
        """The points that win the match (C6)."""
        return self._length

    @property
    def players(self) -> Tuple[str, str]:
        """The players' names: (white, black), in every game."""
        return self._players

    @property
    @serialized
    def score(self) -> Tuple[int, int]:
        """The totals of the finished games (C6): (white's, black's)."""
        banked, white, black = self._banked
        totals = [white, black]
        for game in self._games[banked:]:  # the last game, once it has begun
            outcome = game.outcome()
            if outcome is not None:
                totals[outcome.winner == BLACK] += outcome.points
        return totals[0], totals[1]

    @property
    def game(self) -> Game:
        """The game being played (or the last one, once the match is over)."""
        return self._games[-1]

    @property
    def games(self) -> Tuple[Game, ...]:
        """Every game of the match so far, the first first."""
        return tuple(self._games)

    @property
    def crawford_game(self) -> Optional[int]:
        """The index in :attr:`games` of the Crawford game (C7) once it has begun, else
        None."""
        return self._crawford

    @serialized
    def is_crawford(self) -> bool:
        """Whether the current game is the Crawford game (C7: no offers)."""
        return self._crawford == len(self._games) - 1

    @serialized
    def is_over(self) -> bool:
        """C6: a total has reached the match's length (only a game's end adds to one)."""
        return max(self.score) >= self._length

    @property
    @serialized
    def winner(self) -> Optional[str]:
        """The side whose total reached the length, or None while the match goes on."""
        white, black = self.score
        if max(white, black) < self._length:
            return None
        return WHITE if white >= self._length else BLACK

    @serialized
    def next_game(self) -> Game:
        """Start the next game (T6) once the current one is over; returns it.
        FastNardyError while the current game goes on, or once the match is over."""
        if not self.game.is_over():
            raise FastNardyError("C6: the current game is not over: finish it before the "
                                 "next")
        if self.is_over():
            white, black = self.score
            raise FastNardyError(f"C6: the match is over: {self.winner} won {white}-{black}")
        self._start_game()
        return self.game

    @serialized
    def __repr__(self) -> str:
        white, black = self.score
        return (f"<Match to {self._length}, {white}-{black}, game {len(self._games)}"
                f"{' (Crawford)' if self.is_crawford() else ''}>")
