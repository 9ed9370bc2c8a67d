"""Any record file and its games: GNU Backgammon's SGF (:mod:`fastnardy.formats.sgf`) and
``.mat`` exports (:mod:`fastnardy.formats.mat`), a fastnardy match record or one fastnardy
record (:mod:`fastnardy.record`), told apart by the file's name, else by its content.
"""

from __future__ import annotations

from typing import Callable, Iterator, List, Optional

from ..record import GameRecord, is_match_record, read_match, read_record
from .mat import MatGame, is_mat, iter_mat
from .sgf import is_sgf, read_sgf

__all__ = ["iter_games", "match_file", "read_games"]

Progress = Optional[Callable[[int, int], None]]


def match_file(text: str, name: str = "", progress: Progress = None
               ) -> Optional[Iterator[MatGame]]:
    """The games of GNU Backgammon's match file (an SGF by its ``.sgf`` name or ``(;``
    content, else a ``.mat`` export), each as soon as it is read; None for fastnardy's own
    records. ``progress(characters read, characters)`` as
    :func:`~fastnardy.formats.mat.read_mat`'s (an SGF is read whole first)."""
    if is_sgf(text, name) and not name.lower().endswith(".mat"):
        games = read_sgf(text)
        if progress is not None:
            progress(len(text), len(text))
        return iter(games)
    if is_mat(text, name):
        return iter_mat(text, progress)
    return None


def read_games(text: str, name: str = "", progress: Progress = None) -> List[GameRecord]:
    """The games of a record file (module docstring) as records to replay."""
    return list(iter_games(text, name, progress))


def iter_games(text: str, name: str = "", progress: Progress = None) -> Iterator[GameRecord]:
    """:func:`read_games`'s games one at a time (a ``.mat``'s each as soon as it is read)."""
    games = match_file(text, name, progress)
    if games is not None:
        return (game.to_record() for game in games)
    if is_match_record(text):
        return iter(read_match(text).games)
    return iter([read_record(text)])
