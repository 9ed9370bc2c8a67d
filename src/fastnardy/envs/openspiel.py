"""Long and short nardy as OpenSpiel games: ``python_long_nardy`` and ``python_short_nardy``.

Importing this module registers both with ``pyspiel.register_game`` (importing it again is
harmless), so ``pyspiel.load_game("python_long_nardy")`` or
``pyspiel.load_game("python_short_nardy(hit_and_hide=forbidden)")`` load them. It needs
OpenSpiel: ``pip install 'fastnardy[openspiel]'``.

**Players.** 0 is white, 1 is black (RULES.md section 0).

**From a position.** ``game.new_state_from(position, dice=None)`` is a state after the
opening at any :class:`fastnardy.Position` of the game's rules (for an MCTS or rollout root,
say). A state computes its terminal test and its legal turns once, when it is made or
changed, not at every query.

**Chance nodes.** The game begins with the T6 opening throw, one chance node:

* long nardy: the throw only decides who starts, and by symmetry each side's die is the
  higher with probability 1/2 once ties are thrown again: two outcomes, 0 "white starts" and
  1 "black starts", 1/2 each. The starter then rolls at an ordinary roll node;
* short nardy: the throw decides who starts and is the starter's first roll: 30 outcomes, one
  per ordered pair of unequal dice (white's die, black's die), 1/30 each (a tie is thrown
  again, so the 30 unequal pairs of the 36 are equally likely). Outcome ``5 * (w - 1) + b - 1
  - (b > w)`` is white throwing w and black b; the higher die's side plays w-b at once.

Before every other turn a roll node has the 21 rolls of T5 as outcomes: outcome i is
``fastnardy.batch.ROLLS[i]`` with probability ``fastnardy.batch.PROBABILITY[i]`` (1/36 a
double, 2/36 any other roll).

**Actions.** At a player node action i is the i-th turn of ``position.legal_turns(dice)``,
in T2 order; ``action_to_string`` is its notation (``24/18 18/13``). A pass (T3) is the only
legal action, 0. ``num_distinct_actions`` is :data:`MAX_TURNS_PER_ROLL` = 5220, a bound on the
number of legal turns of one roll in either game, proved as follows. The position a turn
produces is fixed by its steps' (source, die) pairs whatever their order (the
``fastnardy._kernel`` docstring: a step from s with die d moves a checker from s to s - d or
off, and hits the blot on s - d if there is one; the opponent's checkers never arrive during
the turn). Follow the mover's checkers through a step sequence, giving each step to a checker
already moved this turn that stands on its source if there is one, else to a checker that was
there when the turn began: the steps fall into *chains*, one per moved checker, each a start
location p holding a mover's checker when the turn began (one of at most n <= 15 locations,
points and bar, since the mover has 15 checkers) and a run of steps from p. With a double d a
chain of k steps from p has the sources p, p - d, ..., p - (k-1)d, so the multiset of chains
{(p, k)}, with the k summing to the number of dice played m, fixes the position. For m = 4
that is at most, by the shape of the k (4; 3+1; 2+2; 2+1+1; 1+1+1+1):
``n + n*n + C(n+1, 2) + n*C(n+1, 2) + C(n+3, 4)`` = 15 + 225 + 120 + 1800 + 3060 = 5220 for
n = 15, and fewer for m < 4 (920, 135, 15). All legal turns of one roll use the same m (L7,
S6) except turns that bear off the mover's last checker; those exist only when the mover has
at most 4 checkers left (a step bears off at most one), so n <= 4 and all turns together,
over every m, are at most 105 + 40 + 14 + 4 = 163. With a non-double a-b the turn is a
checker for a and one for b (n*n) or one checker playing both, in either order (2n); one die
alone gives at most 2n: at most 255 + 30 = 285 together.

**Returns.** L10/S9 scoring (:meth:`fastnardy.Position.outcome`): the winner gets the points,
the loser minus them. ``max_utility`` is 2 for long nardy with ``scoring=oin_mars`` (mars)
and short nardy with ``backgammon=false``, else 3 (koks, backgammon).

**Length.** There is no finite bound on the length of a game: a pass leaves the checkers as
they are, and positions arise in play in which each side has a roll it cannot play (the tests
find one in a seeded game of each), so alternating those two rolls makes a game of any length
(short nardy also returns checkers by hitting). So, as OpenSpiel's own backgammon does, the
game is cut off: after ``max_turns`` turns (passes included; default 1000) the state is
terminal with returns 0 for both, and ``max_game_length`` is ``max_turns``. Random play never
came near it: in 20,000 random games of each the longest took 115 turns (long) and 388 (short).

**Parameters.** Long: ``head_rule`` (L5), ``block_rule``, ``block_check`` (L6), ``scoring``
(L10); short: ``hit_and_hide`` (S8), ``backgammon`` (S9); both: ``max_turns``. Values are
those of :class:`fastnardy.Rules`; a bad one raises InvalidRulesError.

**Observations.** The tensor is two pieces: ``board``, :func:`fastnardy.features` of the
position (kind ``nardy``, 248 values, for long nardy; ``tdgammon``, 198, for short), from the
view of the side to move (at a roll node the side about to roll; at the opening the start
position, which is the same from either side's view), whichever player asks: the game has
perfect information; and ``roll``, 21 values, a one-hot of the roll being played (all 0 at
chance nodes and at the end). The string is the position string and the dice, e.g.
``long w 24:15 24:15, white plays 6-5``. The information state string is the history.
States serialize through OpenSpiel's default for Python games (history and attributes).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

try:
    import pyspiel  # type: ignore[import-not-found]
    from open_spiel.python.observation import (  # type: ignore[import-untyped]
        IIGObserverForPublicInfoGame)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("fastnardy.envs.openspiel needs OpenSpiel: "
                      "pip install 'fastnardy[openspiel]'") from exc

from .. import _kernel, checks
from ..notation import format_roll
from ..basics import ALL_ROLLS, EPISODE_TURNS, MAX_TURNS_PER_ROLL, Roll
from ..batch import PROBABILITY, encode
from ..errors import IllegalTurnError, InvalidDiceError, InvalidRulesError
from ..search.inputs import WIDTHS, features
from ..position import Position, Turn
from ..rules import CUBE_VARIANTS, LONG, SHORT, VARIANTS, Rules, defaults

__all__ = ["LONG_NAME", "MAX_TURNS_PER_ROLL", "SHORT_NAME", "LongNardyGame", "NardyGame",
           "NardyObserver", "NardyState", "ShortNardyGame"]

LONG_NAME = "python_long_nardy"
SHORT_NAME = "python_short_nardy"
PLAYERS = ("white", "black")  # player 0, player 1
DEFAULT_MAX_TURNS = EPISODE_TURNS



# T6: long nardy's opening decides the starter only; short nardy's is also the first roll
LONG_OPENING = PLAYERS
SHORT_OPENING: Tuple[Roll, ...] = tuple((w, b) for w in range(1, 7) for b in range(1, 7)
                                        if w != b)
_LONG_OPENING_OUTCOMES = [(i, 1 / len(LONG_OPENING)) for i in range(len(LONG_OPENING))]
_SHORT_OPENING_OUTCOMES = [(i, 1 / len(SHORT_OPENING)) for i in range(len(SHORT_OPENING))]
# T5: the 21 rolls and their probabilities
_ROLLS: Tuple[Roll, ...] = tuple(ALL_ROLLS)
_ROLL_OUTCOMES = list(enumerate(PROBABILITY.tolist()))
_ROLL_INDEX = {roll: i for i, roll in enumerate(_ROLLS)}

# the game parameters: each game's rule variants with their defaults (rules.VARIANTS; no
# cube here, so none of rules.CUBE_VARIANTS), and max_turns
_LONG_VARIANTS = tuple(name for name in defaults(LONG) if name not in CUBE_VARIANTS)
_SHORT_VARIANTS = tuple(name for name in defaults(SHORT) if name not in CUBE_VARIANTS)
_LONG_PARAMETERS: Dict[str, Any] = {**{name: VARIANTS[name].default for name in _LONG_VARIANTS},
                                    "max_turns": DEFAULT_MAX_TURNS}
_SHORT_PARAMETERS: Dict[str, Any] = {**{name: VARIANTS[name].default
                                        for name in _SHORT_VARIANTS},
                                     "max_turns": DEFAULT_MAX_TURNS}


def _game_type(short_name: str, long_name: str,
               parameters: Dict[str, Any]) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters)


LONG_TYPE = _game_type(LONG_NAME, "Python Long Nardy", _LONG_PARAMETERS)
SHORT_TYPE = _game_type(SHORT_NAME, "Python Short Nardy (Backgammon)", _SHORT_PARAMETERS)


def _parameters(defaults: Dict[str, Any], params: object) -> Dict[str, Any]:
    """The game's parameters: the defaults, updated by ``params`` (None or a dict of them)."""
    if params is None:
        return dict(defaults)
    if not isinstance(params, dict) or not set(params) <= set(defaults):
        raise InvalidRulesError(f"parameters must be a dict of {', '.join(defaults)}, "
                                f"not {params!r}")
    return {**defaults, **params}


class NardyGame(pyspiel.Game):  # type: ignore[misc]
    """Long or short nardy under one :class:`fastnardy.Rules`, as an OpenSpiel game."""

    def __init__(self, game_type: "pyspiel.GameType", rules: Rules, max_turns: object,
                 params: Dict[str, Any]):
        if not isinstance(game_type, pyspiel.GameType) or not isinstance(rules, Rules) \
                or not isinstance(params, dict):
            raise InvalidRulesError("NardyGame needs a pyspiel.GameType, a Rules and a dict of "
                                    "parameters (LongNardyGame and ShortNardyGame give them)")
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise InvalidRulesError(f"max_turns must be a positive integer, not {max_turns!r}")
        self.rules = rules
        self.max_turns = max_turns
        self.start = Position.start(rules)  # every new state's (pyspiel.clone makes one too)
        top = rules.max_points  # L10, S9, C9
        info = pyspiel.GameInfo(
            num_distinct_actions=MAX_TURNS_PER_ROLL,
            max_chance_outcomes=len(_ROLLS) if rules.is_long else len(SHORT_OPENING),
            num_players=2,
            min_utility=-float(top),
            max_utility=float(top),
            utility_sum=0.0,
            max_game_length=max_turns)
        super().__init__(game_type, info, params)

    def new_initial_state(self) -> "NardyState":
        """The state before the T6 opening throw."""
        return NardyState(self)

    def new_state_from(self, position: Position, dice: object = None) -> "NardyState":
        """A state at ``position`` (of this game's rules), after the opening: its side to
        move rolls next (a chance node of the 21 rolls, T5) or, with ``dice``, plays them;
        ``max_turns`` counts from here. A finished game (L9/S9) is a terminal state."""
        position = checks.position(position, Position)
        if position.rules != self.rules:
            raise InvalidRulesError(f"the position is of {position.rules}, the game of "
                                    f"{self.rules}")
        state = NardyState(self)
        state._opened = True
        state._set(position, None if dice is None else _kernel.dice_pair(dice))
        return state

    def max_chance_nodes_in_history(self) -> int:
        """The opening, and a roll before each turn but short nardy's first."""
        return self.max_turns + 1 if self.rules.is_long else self.max_turns

    def make_py_observer(self, iig_obs_type: Optional["pyspiel.IIGObservationType"] = None,
                         params: Optional[Dict[str, Any]] = None) -> object:
        """The board-and-roll observer; perfect-recall views get the history."""
        if iig_obs_type is not None and not isinstance(iig_obs_type,
                                                       pyspiel.IIGObservationType):
            raise InvalidRulesError(f"iig_obs_type must be a pyspiel.IIGObservationType or "
                                    f"None, not {iig_obs_type!r}")
        if params is not None and not isinstance(params, dict):
            raise InvalidRulesError(f"observation params must be a dict or None, not {params!r}")
        if iig_obs_type is None or (iig_obs_type.public_info
                                    and not iig_obs_type.perfect_recall):
            return NardyObserver(self.rules, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class LongNardyGame(NardyGame):
    """``python_long_nardy``: long nardy (L1-L10) with the L5, L6 and L10 variants."""

    def __init__(self, params: Optional[Dict[str, Any]] = None):
        values = _parameters(_LONG_PARAMETERS, params)
        rules = Rules.long(**{name: values[name] for name in _LONG_VARIANTS})
        super().__init__(LONG_TYPE, rules, values["max_turns"], values)


class ShortNardyGame(NardyGame):
    """``python_short_nardy``: short nardy / backgammon (S1-S9) with the S8 and S9 variants."""

    def __init__(self, params: Optional[Dict[str, Any]] = None):
        values = _parameters(_SHORT_PARAMETERS, params)
        rules = Rules.short(**{name: values[name] for name in _SHORT_VARIANTS})
        super().__init__(SHORT_TYPE, rules, values["max_turns"], values)


class NardyState(pyspiel.State):  # type: ignore[misc]
    """A state: the position, the dice of the side to move (None before its roll) and the
    number of turns played."""

    def __init__(self, game: NardyGame):
        if not isinstance(game, NardyGame):  # pyspiel would crash the interpreter on it
            raise InvalidRulesError(f"a NardyState needs a NardyGame, not {game!r}")
        super().__init__(game)
        self._opened = False
        self._turns = 0
        self._max_turns = game.max_turns
        self._set(game.start, None)

    def _set(self, position: Position, dice: Optional[Roll]) -> None:
        """Move to ``position`` with ``dice``; the answers to the terminal and legal-action
        queries are computed here, once per state (OpenSpiel and its bots ask them many
        times)."""
        self._position = position
        self._dice = dice
        self._over = position.is_game_over()
        self._legal: List[Turn] = ([] if dice is None or self.is_terminal()
                                   else list(position.legal_turns(dice)))

    @property
    def position(self) -> Position:
        """The position (at the opening throw: the start position, white to move)."""
        return self._position

    @property
    def dice(self) -> Optional[Roll]:
        """The roll the side to move plays, or None at chance nodes and at the end."""
        return self._dice

    def legal_turns(self) -> List[Turn]:
        """The legal turns at a player node, in action order (T2); none elsewhere."""
        return list(self._legal)

    # ---------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self._dice is None:
            return int(pyspiel.PlayerId.CHANCE)
        return PLAYERS.index(self._position.turn)

    def is_terminal(self) -> bool:
        """L9/S9 a side has borne off 15, or ``max_turns`` turns were played."""
        return self._over or self._turns >= self._max_turns

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        """T6 at the opening, else the 21 rolls of T5 (see the module docstring)."""
        if self._opened:
            return list(_ROLL_OUTCOMES)
        return list(_LONG_OPENING_OUTCOMES if self._position.rules.is_long
                    else _SHORT_OPENING_OUTCOMES)

    def _legal_actions(self, player: int) -> List[int]:
        return list(range(len(self._legal)))

    def _apply_action(self, action: int) -> None:
        if self.is_terminal():
            raise IllegalTurnError("T4", "the game is over: there is no legal turn")
        if self._dice is not None:
            position = self._turn(action).position
            self._turns += 1
            self._set(position, None)
        elif self._opened:
            self._set(self._position,
                      _ROLLS[self._chance_index(action, len(_ROLLS), "T5 roll")])
        elif self._position.rules.is_long:
            first = LONG_OPENING[self._chance_index(action, len(LONG_OPENING), "T6 opening")]
            start = self._position
            self._opened = True
            self._set(Position.from_points(start.rules, start.white_points,
                                           start.black_points, first), None)
        else:
            white_die, black_die = SHORT_OPENING[
                self._chance_index(action, len(SHORT_OPENING), "T6 opening")]
            self._opened = True
            self._set(*Position.opening(self._position.rules, white_die, black_die))

    def _action_to_string(self, player: int, action: int) -> str:
        if player != pyspiel.PlayerId.CHANCE:
            return str(self._turn(action))
        if self._opened:
            return "roll " + format_roll(_ROLLS[self._chance_index(action, len(_ROLLS),
                                                                  "T5 roll")])
        if self._position.rules.is_long:
            return LONG_OPENING[self._chance_index(action, len(LONG_OPENING),
                                                   "T6 opening")] + " starts"
        white_die, black_die = SHORT_OPENING[self._chance_index(action, len(SHORT_OPENING),
                                                                "T6 opening")]
        return f"opening white {white_die} black {black_die}"

    def returns(self) -> List[float]:
        """L10/S9 points to the winner, minus them to the loser; 0 before the end and after
        the ``max_turns`` cut-off."""
        outcome = self._position.outcome()
        if outcome is None:
            return [0.0, 0.0]
        sign = 1.0 if outcome.winner == PLAYERS[0] else -1.0
        return [sign * outcome.points, -sign * outcome.points]

    def __str__(self) -> str:
        return f"{self.observation()} ({self._turns} turns played)"

    # ---------------------------------------------------------------- helpers
    def observation(self) -> str:
        """The position string and the dice (the observation string)."""
        position = self._position
        if position.is_game_over():
            outcome = position.outcome()
            assert outcome is not None
            what = f"game over, {outcome.winner} wins {outcome.points} ({outcome.kind})"
        elif self._turns >= self._max_turns:
            what = f"game over, cut off after {self._max_turns} turns"
        elif not self._opened:
            what = "opening throw"
        elif self._dice is None:
            what = f"{position.turn} to roll"
        else:
            what = f"{position.turn} plays {format_roll(self._dice)}"
        return f"{position.to_string()}, {what}"

    def _turn(self, action: int) -> Turn:
        if self._dice is None or self.is_terminal():
            raise IllegalTurnError("T1", f"action {action} is not a turn: no player is to "
                                         f"play dice here")
        turns = self._legal
        if not isinstance(action, int) or not 0 <= action < len(turns):
            raise IllegalTurnError("T1", f"action {action!r} is not one of the "
                                         f"{len(turns)} legal turns (0-{len(turns) - 1}) of "
                                         f"{self._position.turn}'s {format_roll(self._dice)}")
        return turns[action]

    @staticmethod
    def _chance_index(action: int, count: int, what: str) -> int:
        if not isinstance(action, int) or not 0 <= action < count:
            raise InvalidDiceError(f"{what} outcome must be 0-{count - 1}, not {action!r}")
        return action


class NardyObserver:
    """OpenSpiel's PyObserver for both games: ``tensor`` (board and roll, see the module
    docstring), ``dict`` (views ``board`` and ``roll`` into it) and ``string_from``."""

    def __init__(self, rules: Rules, params: Optional[Dict[str, Any]]):
        if not isinstance(rules, Rules):
            raise InvalidRulesError(f"a NardyObserver needs a Rules, not {rules!r}")
        if params:
            raise InvalidRulesError(f"observation parameters are not supported, got {params!r}")
        self._rules = rules
        self._kind = "nardy" if rules.is_long else "tdgammon"
        width = WIDTHS[self._kind]
        self.tensor = np.zeros(width + len(_ROLLS), np.float32)
        self.dict = {"board": self.tensor[:width], "roll": self.tensor[width:]}

    def set_from(self, state: NardyState, player: int) -> None:
        """The state from the side to move's view (perfect information: any player)."""
        self.dict["board"][:] = features(self._rules, encode([state.position]), self._kind)[0]
        roll = self.dict["roll"]
        roll.fill(0.0)
        if state.dice is not None and not state.is_terminal():
            roll[_ROLL_INDEX[min(state.dice), max(state.dice)]] = 1.0

    def string_from(self, state: NardyState, player: int) -> str:
        return state.observation()


pyspiel.register_game(LONG_TYPE, LongNardyGame)
pyspiel.register_game(SHORT_TYPE, ShortNardyGame)
