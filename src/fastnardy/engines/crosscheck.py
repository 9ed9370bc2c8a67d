"""Cross-checking another engine against fastnardy: a perftree for nardy.

:func:`crosscheck` asks another engine for its perft divide, compares it with fastnardy's by
**child position** (T1: turns are equal when their positions are), walks down to the first
position and roll where the two differ, and returns a :class:`Difference`: the turns the
engine misses (each with the rule it depends on), the extra turns it lists with the rule
each breaks, the children it lists more than once, and the path of turns from the root.
``fastnardy crosscheck ENGINE POSITION DEPTH`` is the same from the command line (exit 0
agree, 1 a difference, 2 bad input or an engine failure).

The engines and their protocol are :mod:`fastnardy.engines.protocol`'s; the explanation of a
difference, rule by rule, :mod:`fastnardy.engines.explain`'s.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from .. import checks
from ..basics import ALL_ROLLS, Roll
from ..counting import perft
from ..errors import FastNardyError
from ..notation import format_roll
from ..position import Position, Turn
from .explain import ExtraTurn as ExtraTurn
from .explain import Key, key_of, missing_rules, read_child
from .explain import explain as explain
from .protocol import FORMATS as FORMATS
from .protocol import Engine, request_words
from .protocol import EngineChild as EngineChild
from .protocol import OneShotEngine as OneShotEngine
from .protocol import ProcessEngine as ProcessEngine
from .protocol import default_format as default_format

# with the names this module held before the protocol and the explanations had modules of
# their own, still read from here (the ``as`` imports above)
__all__ = ["Difference", "EngineChild", "ExtraTurn", "FORMATS", "OneShotEngine", "ProcessEngine",
           "crosscheck", "default_format", "explain", "random_positions"]


_ROLLS: Tuple[Roll, ...] = tuple(sorted(((max(r), min(r)) for r in ALL_ROLLS), reverse=True))


# --------------------------------------------------------------------------- the walk

@dataclass(frozen=True)
class Difference:
    """Where the engine first differs from fastnardy: the turns (roll, Turn) from the root to
    ``position``, the ``roll`` at it, the ``depth`` left there, the legal turns the engine
    misses, the extra turns it lists (each with the rule it breaks), the children it lists
    more than once (text, times), when every child agrees but a count does not,
    ``counts``: (turn, fastnardy's count, the engine's), and ``missing_rules``: for each
    missing turn, the rule it depends on (the one the engine applies too strictly)."""

    root: Position
    path: Tuple[Tuple[Roll, Turn], ...]
    position: Position
    roll: Roll
    depth: int
    missing: Tuple[Turn, ...]
    extra: Tuple[ExtraTurn, ...]
    duplicates: Tuple[Tuple[str, int], ...]
    counts: Tuple[Tuple[Turn, int, int], ...] = ()
    missing_rules: Tuple[str, ...] = ()

    def _rule(self, index: int) -> str:
        return self.missing_rules[index] if index < len(self.missing_rules) else ""

    def summary(self) -> str:
        """The difference in one line: where it is, and how many turns of each kind the
        engine gets wrong, with the rules they depend on or break."""
        parts = []
        if self.missing:
            parts.append(f"misses {_turns(len(self.missing), 'legal turn')}"
                         f"{_tally(self._rule(i) for i in range(len(self.missing)))}")
        if self.extra:
            parts.append(f"lists {_turns(len(self.extra), 'illegal turn')}"
                         f"{_tally(extra.rule for extra in self.extra)}")
        if self.duplicates:
            parts.append(f"lists {_turns(len(self.duplicates), 'turn')} more than once")
        if self.counts:
            parts.append(f"counts {_turns(len(self.counts), 'turn')} differently")
        return (f"difference at {self.position.to_string()}, roll {format_roll(self.roll)}, "
                f"depth {self.depth}: the engine {' and '.join(parts)}")

    def report(self, most: Optional[int] = None) -> str:
        """The difference as text: the :meth:`summary`, the root, the path, then one turn a
        line, at most ``most`` of each kind (None: every one) and the number not shown."""
        if most is not None and (isinstance(most, bool) or not isinstance(most, int)
                                 or most < 1):
            raise FastNardyError(f"most must be a whole number of 1 or more, or None, not "
                                 f"{most!r}")
        path = ", ".join(f"{format_roll(roll)} {turn}" for roll, turn in self.path) or \
            "(the root)"
        lines = [self.summary(), f"root: {self.root.to_string()}", f"path: {path}"]
        kinds = (
            ("missing", [f"missing: {turn}  -> {turn.position.to_string()}"
                         + (f"  (depends on {self._rule(i)})" if self._rule(i) else "")
                         for i, turn in enumerate(self.missing)]),
            ("extra", [f"extra: {extra.text}{f' ({extra.steps})' if extra.steps else ''}  "
                       f"{extra.rule}: {extra.reason}"
                       + (f"  = {extra.position}" if extra.position != extra.text else "")
                       for extra in self.extra]),
            ("listed more than once", [f"listed {times} times: {text}"
                                       for text, times in self.duplicates]),
            ("count", [f"count: {turn}  fastnardy {ours}, engine {theirs}"
                       for turn, ours, theirs in self.counts]))
        for kind, listed in kinds:
            shown = listed if most is None else listed[:most]
            lines += shown
            if len(listed) > len(shown):
                lines.append(f"{kind}: {len(listed) - len(shown)} more (--json lists every "
                             f"one)")
        return "\n".join(lines)

    def as_dict(self) -> Dict[str, object]:
        """The difference as JSON-ready data."""
        return {
            "root": self.root.to_string(),
            "path": [{"roll": list(roll), "turn": str(turn),
                      "position": turn.position.to_string()} for roll, turn in self.path],
            "position": self.position.to_string(), "roll": list(self.roll),
            "depth": self.depth,
            "missing": [{"turn": str(t), "position": t.position.to_string(),
                         "rule": self._rule(index)} for index, t in enumerate(self.missing)],
            "extra": [{"child": e.text, "rule": e.rule, "reason": e.reason, "steps": e.steps,
                       "position": e.position} for e in self.extra],
            "duplicates": [{"child": text, "times": times} for text, times in self.duplicates],
            "counts": [{"turn": str(t), "fastnardy": ours, "engine": theirs}
                       for t, ours, theirs in self.counts],
        }


def _turns(count: int, what: str) -> str:
    """``1 legal turn``, ``3 legal turns``."""
    return f"{count} {what}{'' if count == 1 else 's'}"


def _tally(rules: Iterable[str]) -> str:
    """`` (S3)`` for one rule, `` (S4 12, T1 2)`` for several, most first; '' for none."""
    counted = Counter(rule for rule in rules if rule)
    if len(counted) == 1:
        return f" ({next(iter(counted))})"
    return f" ({', '.join(f'{rule} {n}' for rule, n in counted.most_common())})" \
        if counted else ""


def crosscheck(engine: Engine, position: Position, depth: int, *,
               movegen: bool = False) -> Optional[Difference]:
    """Compare ``engine``'s divide with fastnardy's from ``position`` to ``depth`` (1 or
    more) and walk down to the first difference; None when the engine agrees everywhere. At
    each position the 21 rolls, 6-6 first; the children of a roll are compared by position
    (T1). By default the engine counts: where depth is left, the first child (T2 order)
    whose count differs is entered (perftree's walk). With ``movegen`` the engine is asked
    only ``divide 1`` (its children) and fastnardy walks every child itself, each distinct
    position once per depth, so a pure move generator is checked at any depth. The engine is
    closed when the check raises, Ctrl-C (KeyboardInterrupt) included."""
    if not isinstance(engine, (ProcessEngine, OneShotEngine)):
        raise FastNardyError(f"engine must be a ProcessEngine or a OneShotEngine, not "
                             f"{engine!r}")
    if not isinstance(movegen, bool):
        raise FastNardyError(f"movegen must be True or False, not {movegen!r}")
    try:
        request_words(engine.format, depth, (6, 5), position)  # the same checks as every request
        if movegen:
            return _walk_children(engine, position, position, checks.depth(depth), (), {})
        return _walk(engine, position, position, checks.depth(depth), ())
    except BaseException:
        engine.close()
        raise


def _compare(engine: Engine, root: Position, position: Position, roll: Roll, depth: int,
             path: Tuple[Tuple[Roll, Turn], ...]
             ) -> Tuple[Optional[Difference], Dict[Key, Turn], Dict[Key, List[EngineChild]]]:
    """The engine's children of one position and roll against fastnardy's: a Difference
    when they differ, and both sides' children by key."""
    answer = engine.divide(position, roll, depth)
    theirs: Dict[Key, List[EngineChild]] = {}
    for child in answer:
        theirs.setdefault(read_child(position, child.text, f"the engine {engine.name!r}"),
                          []).append(child)
    ours = {key_of(t.position): t for t in position.legal_turns(roll)}
    missing = tuple(t for key, t in ours.items() if key not in theirs)
    extra = tuple(explain(position, roll, listed[0].text, listed[0].steps)
                  for key, listed in theirs.items() if key not in ours)
    duplicates = tuple((listed[0].text, len(listed)) for listed in theirs.values()
                       if len(listed) > 1)
    if not (missing or extra or duplicates):
        return None, ours, theirs
    rules = missing_rules(position, roll, missing,
                          [t for key, t in ours.items() if key in theirs])
    return (Difference(root, path, position, roll, depth, missing, extra, duplicates, (),
                       rules), ours, theirs)


def _walk(engine: Engine, root: Position, position: Position, depth: int,
          path: Tuple[Tuple[Roll, Turn], ...]) -> Optional[Difference]:
    if position.is_game_over():
        return None  # T4: nothing to compare
    for roll in _ROLLS:
        found, ours, theirs = _compare(engine, root, position, roll, depth, path)
        if found is not None:
            return found
        if depth == 1:
            continue
        for key, turn in ours.items():
            count = perft(turn.position, depth - 1)
            listed = theirs[key][0].count
            if listed != count:
                below = _walk(engine, root, turn.position, depth - 1, path + ((roll, turn),))
                return below or Difference(root, path, position, roll, depth, (), (), (),
                                           ((turn, count, listed),))
    return None


def _walk_children(engine: Engine, root: Position, position: Position, depth: int,
                   path: Tuple[Tuple[Roll, Turn], ...],
                   done: Dict[Position, int]) -> Optional[Difference]:
    """The movegen walk: the engine's children (``divide 1``) of the 21 rolls here, then
    every child's, depth first; ``done`` holds the positions that agreed, with the depth."""
    if position.is_game_over() or done.get(position, 0) >= depth:
        return None
    children = []
    for roll in _ROLLS:
        found, ours, _ = _compare(engine, root, position, roll, 1, path)
        if found is not None:
            return dataclasses.replace(found, depth=depth)
        children += [(roll, turn) for turn in ours.values()]
    if depth > 1:
        for roll, turn in children:
            below = _walk_children(engine, root, turn.position, depth - 1,
                                   path + ((roll, turn),), done)
            if below is not None:
                return below
    done[position] = depth
    return None


def random_positions(position: Position, count: int, seed: int,
                     stop: float = 0.05) -> Iterator[Position]:
    """``count`` positions of seeded random games from ``position`` (random rolls, random
    legal turns): each game is stopped after each turn with probability ``stop`` (0.05 stops
    early, 0.01 reaches races and bear-offs), or before its last turn, and gives the
    position it stopped at. Deterministic for a seed; the cross-checker's ``--random``."""
    position = checks.position(position, Position)
    if position.is_game_over():
        raise FastNardyError("random games cannot start from a game-over position (T4)")
    number = checks.number(count, "count", 1, 1_000_000)
    generator = random.Random(checks.number(seed, "seed", 0, 2 ** 64 - 1))
    if isinstance(stop, bool) or not isinstance(stop, (int, float)) or not 0 < stop <= 1:
        raise FastNardyError(f"stop must be a probability, more than 0 and at most 1, not "
                             f"{stop!r}")
    return (_random_game(position, generator, stop) for _ in range(number))


def _random_game(position: Position, generator: random.Random, stop: float) -> Position:
    """The position where one random game from ``position`` stops (see random_positions)."""
    while True:
        turns = position.legal_turns((generator.randint(1, 6), generator.randint(1, 6)))
        child = turns[generator.randrange(len(turns))].position
        if child.is_game_over():
            return position
        position = child
        if generator.random() < stop:
            return position
