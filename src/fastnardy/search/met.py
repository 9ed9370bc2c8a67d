"""Match equity tables (C6, C7): the chance that a player wins the match from a score, before
a game. ``pre[i, j]`` is the chance of the player who needs ``i + 1`` points against one who
needs ``j + 1`` in a game that is not post-Crawford (row or column 0: the Crawford game, C7);
``post[n]`` the chance of the trailer who needs ``n + 1`` against a leader who needs 1 in a
post-Crawford game. A table reads GNU Backgammon's ``.xml`` files (:func:`read_met`, its
explicit tables: Kazaross-XG2 in Debian's ``gnubg-data``); fastnardy's own tables for both
games are made by :func:`fastnardy.search.cubeful.model_met`."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree
from typing import Any, List

import numpy as np
import numpy.typing as npt

from .. import checks
from .._utils import files as _files
from ..errors import FastNardyError, MatchEquityError

__all__ = ["MatchEquityTable", "read_met", "MAX_MET_BYTES"]

MAX_MET_BYTES = 1 << 20  # a table of 64 x 64 entries is about 300 KB of XML


class MatchEquityTable:
    """A match equity table (module docstring): ``pre`` (L, L) and ``post`` (L,) float64,
    read-only, ``name`` and ``description``; ``length`` is L, the most points a player may
    still need."""

    def __init__(self, pre: npt.ArrayLike, post: npt.ArrayLike, name: str = "",
                 description: str = "") -> None:
        try:
            if any(np.iscomplexobj(table) for table in (pre, post)):
                raise TypeError("complex")  # a cast to float64 would drop the imaginary part
            pre_array = np.array(pre, dtype=np.float64)
            post_array = np.array(post, dtype=np.float64)
        except (TypeError, ValueError):
            raise MatchEquityError("a match equity table is numbers: pre (L, L) and post "
                                   "(L,)") from None
        length = len(post_array) if post_array.ndim == 1 else 0
        if pre_array.shape != (length, length) or length < 1:
            raise MatchEquityError(f"pre must be (L, L) and post (L,), not {pre_array.shape} "
                                   f"and {post_array.shape}")
        for array, which in ((pre_array, "pre"), (post_array, "post")):
            if not (np.isfinite(array).all() and (array >= 0).all() and (array <= 1).all()):
                raise MatchEquityError(f"the {which}-Crawford table holds a value outside "
                                       f"[0, 1]")
            array.setflags(write=False)
        _check_sound(pre_array, post_array)
        self.pre, self.post, self.length = pre_array, post_array, length
        self.name, self.description = str(name), str(description)

    def __repr__(self) -> str:
        return f"MatchEquityTable({self.name!r}, length={self.length})"

    def mwc(self, away: int, other: int, post_crawford: bool = False) -> float:
        """The chance to win the match of the player who needs ``away`` points against one who
        needs ``other``, before a game (``post_crawford``: one of them needs 1 and the
        Crawford game has been played); 1 once ``away`` <= 0, 0 once ``other`` <= 0."""
        away, other = (checks.number(v, n, -(1 << 30), 1 << 30, MatchEquityError)
                       for v, n in ((away, "away"), (other, "other")))
        post_crawford = checks.flag(post_crawford, "post_crawford")
        if away <= 0:
            return 1.0
        if other <= 0:
            return 0.0
        if max(away, other) > self.length:
            raise MatchEquityError(f"{self.name or 'the table'} goes to {self.length} away, "
                                   f"not {max(away, other)}")
        if post_crawford and other == 1:
            return float(self.post[away - 1])
        if post_crawford and away == 1:
            return 1.0 - float(self.post[other - 1])
        return float(self.pre[away - 1, other - 1])


def _check_sound(pre: npt.NDArray[np.float64], post: npt.NDArray[np.float64]) -> None:
    """C6: the fewer points a player needs, the likelier it wins the match: ``pre``'s rows
    fall and its columns rise, ``post`` falls; and at every score winning a game at stake 1
    is worth strictly more than losing it (every larger stake then too: the cube model
    divides by that difference). MatchEquityError naming the first score that breaks it."""
    if not ((np.diff(pre, axis=0) <= 0).all() and (np.diff(pre, axis=1) >= 0).all()
            and (np.diff(post) <= 0).all()):
        raise MatchEquityError("a match equity table is not monotone: the fewer points a "
                               "player needs, the likelier it wins (pre's rows fall, its "
                               "columns rise, post falls)")
    # the chance before a game at every score, with the ended matches: 1 won, 0 lost
    chance = np.zeros((len(pre) + 1, len(pre) + 1))
    chance[0, 1:] = 1.0
    chance[1:, 1:] = pre
    gain = chance[:-1, 1:] - chance[1:, :-1]  # [a - 1, o - 1]: after a won less a lost game
    if (gain <= 0).any() or (post <= 0).any():
        if (gain <= 0).any():
            away, other = (int(i) + 1 for i in np.argwhere(gain <= 0)[0])
        else:
            away, other = int(np.argmax(post <= 0)) + 1, 1
        raise MatchEquityError(f"a match equity table where winning a game at {away}-away "
                               f"{other}-away is worth no more than losing it: the cube's "
                               f"values are undefined there")


def _numbers(element: Any, where: str) -> List[float]:
    values = []
    for item in element.iter("me"):
        try:
            values.append(float(item.text))
        except (TypeError, ValueError):
            raise MatchEquityError(f"{where}: {str(item.text)[:40]!r} is not a number") from None
    return values


def read_met(path: "str | os.PathLike[str]") -> MatchEquityTable:
    """GNU Backgammon's match equity table file (``met/*.xml``) with an explicit pre-Crawford
    table and one explicit post-Crawford row for both players: a table of its length.
    MatchEquityError for a file that is not one (tables from parameters, such as
    ``zadeh.xml``, are GNU Backgammon's to compute)."""
    try:
        data = _files.read_bytes(path, MAX_MET_BYTES)
    except OSError as error:
        raise MatchEquityError(f"cannot read {path}: {error.strerror}") from None
    except FastNardyError as error:
        raise MatchEquityError(str(error)) from None
    if b"<!ENTITY" in data:
        raise MatchEquityError(f"{path}: entity declarations are not read")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        raise MatchEquityError(f"{path} is not XML: {error}") from None
    pre, posts = root.find("pre-crawford-table"), root.findall("post-crawford-table")
    if pre is None or len(posts) != 1:
        raise MatchEquityError(f"{path} has no pre-Crawford table and one post-Crawford "
                               f"table for both players")
    for table in (pre, posts[0]):
        if table.get("type") != "explicit":
            raise MatchEquityError(f"{path}: a {table.get('type')!r} table is computed from "
                                   f"parameters; fastnardy reads explicit tables")
    if posts[0].get("player", "both") != "both":
        raise MatchEquityError(f"{path}: post-Crawford tables per player are not read")
    rows = [_numbers(row, f"{path}, row {i + 1}") for i, row in enumerate(pre.iter("row"))]
    post = _numbers(posts[0], f"{path}, post-Crawford")
    if not rows or any(len(row) != len(rows) for row in rows):
        raise MatchEquityError(f"{path}: the pre-Crawford rows are not a square table")
    if len(post) < len(rows):
        raise MatchEquityError(f"{path}: the post-Crawford row has {len(post)} entries, "
                               f"not {len(rows)}")
    info = root.find("info")
    name = info.findtext("name", "") if info is not None else ""
    description = info.findtext("description", "") if info is not None else ""
    return MatchEquityTable(rows, post[:len(rows)], name.strip(), description.strip())
