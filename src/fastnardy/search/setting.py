"""The evaluation setting: what values a position and chooses a turn, as one value that every
door shares (the Python API, the command line, every player), as GNU Backgammon's
``evalcontext`` does. Its defaults are defined here and nowhere else.

A setting is written as text (:meth:`Setting.parse`; ``str`` writes it back):

* ``random``, ``greedy``: a policy of one turn, no search (``greedy``: the score of
  :func:`fastnardy.play.players.greedy_scores`);
* ``net[:PLIES][:float|:int16][:FILTER][:cubeless]``: the game's shipped network
  (:meth:`~fastnardy.search.network.Evaluator.load`), searched PLIES plies (0 to
  :data:`~fastnardy.search.tree.MAX_PLIES`; default 0) in float or int16 arithmetic (default
  the game's :data:`~fastnardy.search.setting.NET_PRECISION`);
* ``FILE.npz[...]``: the same with an evaluator saved in FILE.npz (default float);
* ``gnubg[:beginner|:expert][:PLIES]``: GNU Backgammon (short nardy), its preset (default
  expert) at PLIES (0 to 4), with its own move filters;
* ``gnubg-nn[:PLIES]``: GNU Backgammon's networks in this process (short nardy,
  ``pip install gnubg-nn``; :mod:`fastnardy.play.gnubg_nn`), no noise, at PLIES (0 to 4),
  its own move filters, cubeless;
* ``bgsage[:PLIES]``: bgsage (Open Sage, short nardy, ``pip install bgsage``;
  :mod:`fastnardy.play.bgsage`) at PLIES (0 to 3) in fastnardy's count, one less than
  bgsage's: 0 is its raw network (bgsage's "1ply"), 1 its "2ply", 2 its "3ply", 3 its
  "4ply", with its own move filter;
* ``ubgi:COMMAND``: another engine speaking UBGI v0.2, run as COMMAND (split as the shell
  would; :class:`fastnardy.play.players.UbgiPlayer`), its own search and settings.

FILTER is ``full`` (every child searched deeper) or ``KEEP,MARGIN`` per level of max nodes
from the root down, joined by ``/`` (the last for the levels below); by default at 1 ply or
more GNU Backgammon's, ``8,0.16/1,0`` (:data:`~fastnardy.search.tree.GNUBG_FILTERS`).
``cubeless`` ranks turns by their cubeless equity even where a cube is in play (by default
a turn is chosen by its cubeful equity there, as gnubg's ``fCubeful``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from functools import lru_cache
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from .. import checks
from ..errors import FastNardyError, shown
from ..rules import Rules
from .network import ARITHMETICS, Evaluator, checked
from .tree import GNUBG_FILTERS, MAX_PLIES, Filters, MoveFilter, Search, check_filters

__all__ = ["BGSAGE_PLIES", "GNUBG_PLIES", "NET_PRECISION", "POLICIES", "SHORT_ONLY", "Setting",
           "describe_filter", "parse_filter", "setting"]

POLICIES = ("random", "greedy")  # the settings without a search
GNUBG_PRESETS = ("beginner", "expert")  # GNU Backgammon's (noise 0.060 / none)
GNUBG_PLIES = 4  # GNU Backgammon's deepest evaluation here (gnubg and gnubg-nn)
BGSAGE_PLIES = 3  # bgsage's deepest evaluation here: its "4ply"
# the engines of backgammon (short nardy only): GNU Backgammon's presets, its networks in
# process and bgsage
SHORT_ONLY = tuple(f"gnubg:{preset}" for preset in GNUBG_PRESETS) + ("gnubg-nn", "bgsage")
# the arithmetic of each game's shipped network where a setting names none: int16 where its
# games against float showed it as strong (docs/weights.md: short +0.001 +- 0.003 points a
# game over 100,000; long -0.005 +- 0.003, so float)
NET_PRECISION = {"long": "float", "short": "int16"}


@dataclasses.dataclass(frozen=True)
class Setting:
    """How positions are valued and turns chosen (module docstring); checked once, here."""

    evaluator: Union[str, Evaluator] = "net"
    """``"net"`` (the game's shipped network), the path of a saved one (``FILE.npz``), an
    :class:`~fastnardy.search.network.Evaluator`, ``"gnubg:expert"`` or
    ``"gnubg:beginner"`` (GNU Backgammon), ``"gnubg-nn"`` (its networks in process),
    ``"bgsage"``, ``"ubgi:COMMAND"`` (a UBGI engine), ``"greedy"`` or ``"random"``."""
    plies: int = 0
    """The depth of the search: 0 values each turn's position by the evaluator itself."""
    filter: Filters = GNUBG_FILTERS
    """The move filters of the search (:mod:`fastnardy.search.tree`): a tuple of one per
    level, or None (full width). None at 0 ply and where the evaluator searches itself."""
    precision: Optional[str] = None
    """A network's arithmetic: ``"float"`` (the oracle) or ``"int16"``; None: the game's
    :data:`~fastnardy.search.setting.NET_PRECISION` for its shipped network (``"net"``),
    else float (:meth:`precision_for`)."""
    cubeful: bool = True
    """Where a cube is in play, turns are chosen by their cubeful equity; False: cubeless."""

    def __post_init__(self) -> None:
        given = self.evaluator
        precision: Optional[str]
        if isinstance(given, Evaluator):
            precision = given.arithmetic
        elif isinstance(given, str) and (given in POLICIES + ("net",) or _is_file(given)
                                         or given in SHORT_ONLY or _is_ubgi(given)):
            precision = self.precision
            if precision is not None or given != "net":  # None: the game's (precision_for)
                precision = checks.choice("float" if precision is None else precision,
                                          "precision", ARITHMETICS)
        else:
            raise FastNardyError(f"evaluator must be 'net', FILE.npz, an Evaluator, "
                                 f"{', '.join(map(repr, SHORT_ONLY))}, 'ubgi:COMMAND' or one "
                                 f"of {POLICIES}, not {given!r}")
        if given in POLICIES or _is_ubgi(given):  # a UBGI engine searches by its own keys
            plies = checks.number(self.plies, "plies", 0, 0)
        elif given == "bgsage":
            plies = checks.number(self.plies, "plies", 0, BGSAGE_PLIES)
        elif given in SHORT_ONLY:
            plies = checks.number(self.plies, "plies", 0, GNUBG_PLIES)
        else:
            plies = checks.number(self.plies, "plies", 0, MAX_PLIES)
        filters = check_filters(self.filter) if self.is_network and plies > 0 else None
        check_filters(self.filter)  # checked at every depth, read only where it searches
        if not self.is_network:
            precision = "float"
        object.__setattr__(self, "plies", plies)
        object.__setattr__(self, "filter", filters)
        object.__setattr__(self, "precision", precision)
        object.__setattr__(self, "cubeful", checks.flag(self.cubeful, "cubeful"))

    @property
    def is_network(self) -> bool:
        """Whether the evaluator is a network of fastnardy's (searched by
        :class:`~fastnardy.search.tree.Search`)."""
        return isinstance(self.evaluator, Evaluator) or self.evaluator == "net" \
            or _is_file(self.evaluator)

    @property
    def short_only(self) -> bool:
        """Whether the evaluator plays short nardy (backgammon) only: GNU Backgammon's and
        bgsage's (``SHORT_ONLY``)."""
        return isinstance(self.evaluator, str) and self.evaluator in SHORT_ONLY

    @classmethod
    def parse(cls, text: str) -> "Setting":
        """The setting ``text`` writes (module docstring); FastNardyError names what does
        not read."""
        text = checks.text(text, "setting")
        if text in POLICIES or _is_ubgi(text):
            return cls(text)
        head, _, rest = text.partition(":")
        if head == "gnubg":
            match = re.fullmatch(r"(?:(beginner|expert)(?::|$))?([0-9])?", rest)
            if match is None:
                raise FastNardyError(f"a GNU Backgammon setting is gnubg[:beginner|:expert]"
                                     f"[:PLIES], not {shown(text)}")
            return cls(f"gnubg:{match.group(1) or 'expert'}", int(match.group(2) or 0))
        if head in ("bgsage", "gnubg-nn"):
            if not re.fullmatch(r"[0-9]?", rest):
                raise FastNardyError(f"a {head} setting is {head}[:PLIES], not {shown(text)}")
            return cls(head, int(rest or 0))
        if head == "net":
            source = "net"
        elif text.endswith(".npz") or ".npz:" in text:  # a path may hold a colon
            cut = len(text) if text.endswith(".npz") else text.rindex(".npz:") + 4
            source, rest = text[:cut], text[cut + 1:]
        else:
            raise FastNardyError(
                f"unknown setting {shown(text)}: random, greedy, "
                f"net[:PLIES][:float|:int16][:FILTER][:cubeless], FILE.npz[...], "
                f"gnubg[:beginner|:expert][:PLIES], gnubg-nn[:PLIES], bgsage[:PLIES] or "
                f"ubgi:COMMAND")
        parts = rest.split(":") if rest else []
        fields: Dict[str, Any] = {"evaluator": source}
        for part in parts:
            if part.isdigit() and "plies" not in fields:
                fields["plies"] = int(part)
            elif part in ARITHMETICS and "precision" not in fields:
                fields["precision"] = part
            elif part == "cubeless" and "cubeful" not in fields:
                fields["cubeful"] = False
            elif "filter" not in fields and (part == "full" or _FILTER.fullmatch(part)):
                fields["filter"] = parse_filter(part)
            else:
                raise FastNardyError(f"{shown(text)}: {shown(part)} is not "
                                     f"PLIES, float, int16, full, KEEP,MARGIN[/KEEP,MARGIN] or "
                                     f"cubeless (each at most once)")
        return cls(**fields)

    def __str__(self) -> str:
        if not isinstance(self.evaluator, str):
            name = "evaluator"  # an Evaluator given as a value has no text of its own
        elif self.evaluator in SHORT_ONLY:
            return self.evaluator + (f":{self.plies}" if self.plies else "")
        elif _is_ubgi(self.evaluator):
            return self.evaluator
        else:
            name = self.evaluator
        if name in POLICIES:
            return name
        parts = [name, str(self.plies)]
        if self.precision is not None and (self.precision != "float" or name == "net"):
            parts.append(self.precision)
        if self.plies and self.filter != GNUBG_FILTERS:
            parts.append(describe_filter(self.filter))
        if not self.cubeful:
            parts.append("cubeless")
        return ":".join(parts)

    def replace(self, **changes: Any) -> "Setting":
        """This setting with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)

    def precision_for(self, rules: object) -> str:
        """The arithmetic this setting values ``rules``' game in: its own, or for the
        shipped network the game's :data:`~fastnardy.search.setting.NET_PRECISION`."""
        return self.precision or NET_PRECISION[Rules.of(rules).game]

    def resolved(self, rules: object) -> "Setting":
        """This setting with its precision in ``rules``' game named (:meth:`precision_for`):
        what an answer reports it was valued at (itself when that is named already: only the
        shipped network's setting leaves it None, __post_init__)."""
        if self.precision is not None:
            return self
        return self.replace(precision=self.precision_for(rules))

    def kernel_policy(self, rules: object) -> Tuple[int, Optional[Evaluator]]:
        """How the kernel's games play this setting in ``rules``' game, one turn at a time:
        (0, None) random, (1, None) greedy, or (3, its network) a network's setting at 0
        ply; FastNardyError for a deeper search or another engine."""
        if self.evaluator in POLICIES:
            return POLICIES.index(str(self.evaluator)), None
        if not self.is_network or self.plies:
            raise FastNardyError(f"the kernel plays at 0 ply: random, greedy or a network's "
                                 f"setting at 0 plies, not {self}")
        return 3, self.network(rules)

    def network(self, rules: object) -> Evaluator:
        """The network of ``rules``' game that this setting searches: the shipped one or a
        saved one in its precision (each read once), or the Evaluator given."""
        rules = Rules.of(rules)
        if isinstance(self.evaluator, Evaluator):
            return checked(self.evaluator, rules)
        if not self.is_network:
            raise FastNardyError(f"{self} is not a network of fastnardy's")
        if self.evaluator == "net":
            return _load(rules.game, self.precision_for(rules), None)
        try:
            stamp = os.stat(self.evaluator)
        except OSError as error:
            raise FastNardyError(f"cannot read {self.evaluator}: {error.strerror}") from None
        return checked(_load(self.evaluator, self.precision_for(rules),
                             (stamp.st_mtime_ns, stamp.st_size)), rules)

    def search(self, rules: object) -> Search:
        """The search of this setting's network for ``rules``."""
        rules = Rules.of(rules)
        return Search(rules, self.network(rules), self.filter)

    def as_dict(self) -> Dict[str, Any]:
        """The setting for JSON: its text and its parts (``precision`` None: the game's;
        :meth:`resolved` names it)."""
        return {"setting": str(self), "plies": self.plies,
                "filter": describe_filter(self.filter) if self.plies else None,
                "precision": self.precision, "cubeful": self.cubeful}


def _is_ubgi(evaluator: object) -> bool:
    """``ubgi:COMMAND``, the command not empty."""
    return isinstance(evaluator, str) and evaluator.startswith("ubgi:") \
        and bool(evaluator[len("ubgi:"):].strip())


_MARGIN = r"(?:[0-9]*\.?[0-9]+|inf)"
_FILTER = re.compile(rf"[0-9]+,{_MARGIN}(?:/[0-9]+,{_MARGIN})*")


def parse_filter(text: str) -> Optional[Tuple[MoveFilter, ...]]:
    """A filter as a setting writes it: ``full`` (None), or ``KEEP,MARGIN`` per level joined
    by ``/``."""
    text = checks.text(text, "filter")
    if text == "full":
        return None
    if not _FILTER.fullmatch(text):
        raise FastNardyError(f"a filter is full or KEEP,MARGIN per level joined by / (8,0.16 "
                             f"or 8,0.16/1,0), not {shown(text)}")
    return check_filters(tuple(MoveFilter(int(keep), float(margin))
                               for keep, margin in (level.split(",") for level in
                                                    text.split("/"))))


def describe_filter(given: Filters) -> str:
    """A filter as a setting writes it (:func:`parse_filter`)."""
    filters = check_filters(given)
    return "full" if filters is None else "/".join(
        f"{f.keep},{np.format_float_positional(f.margin, trim='-')}" for f in filters)


def _is_file(name: object) -> bool:
    return isinstance(name, str) and name.endswith(".npz")


@lru_cache(maxsize=16)
def _load(source: str, precision: str, stamp: Optional[Tuple[int, int]]) -> Evaluator:
    """An evaluator read once per source, precision and file version (``stamp``)."""
    return Evaluator.load(source, precision)


def setting(value: object = None) -> Setting:
    """``value`` as a Setting: a Setting, its text (:meth:`Setting.parse`), or None for the
    default, ``net:0``."""
    if value is None:
        return Setting()
    if isinstance(value, Setting):
        return value
    if isinstance(value, str):
        return Setting.parse(value)
    raise FastNardyError(f"a setting is a Setting or its text (net:2, greedy, ...), not "
                         f"{value!r}")
