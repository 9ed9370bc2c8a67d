"""Shared fixtures: every engine test runs against both backends (kernel and reference)."""

from __future__ import annotations

import atexit
import os
import random
import shutil
import tempfile
from typing import List

import numpy as np
import pytest

from fastnardy import Match, Position, Rules
from fastnardy import backend as backend_module
from fastnardy.batch import encode, expand, offsets
from fastnardy.play.gnubg import GNUBG

BACKENDS = ("kernel", "reference")

# The bear-off databases the tests build or find (fastnardy.search.bearoff.folder) live in a
# folder of the run's own, never in the user's cache: each worker builds the 6-checker one
# in memory, so every run values the same positions the same way.
os.environ["FASTNARDY_DATA"] = tempfile.mkdtemp(prefix="fastnardy-data-")
atexit.register(shutil.rmtree, os.environ["FASTNARDY_DATA"], True)


@pytest.fixture(params=[pytest.param(name, marks=pytest.mark.reference) if name == "reference"
                        else name for name in BACKENDS])
def backend(request, monkeypatch):
    """Run the test with the public API on this backend (the kernel must import: no skip);
    the reference's runs are marked ``reference`` (pyproject.toml's markers)."""
    backend_module.get(request.param)
    monkeypatch.setattr(backend_module, "DEFAULT_BACKEND", request.param)
    return request.param


def points(**counts: int) -> tuple:
    """24 counts in own numbering from keywords p24=15, p6=2 …"""
    board = [0] * 24
    for name, n in counts.items():
        board[int(name[1:]) - 1] = n
    return tuple(board)


def long_pos(white: dict, black: dict, turn: str = "white", **variants) -> Position:
    return Position.from_points(Rules.long(**variants), _board(white), _board(black), turn)


def short_pos(white: dict, black: dict, turn: str = "white", white_bar: int = 0,
              black_bar: int = 0, **variants) -> Position:
    return Position.from_points(Rules.short(**variants), _board(white), _board(black), turn,
                                white_bar, black_bar)


def _board(spec: dict) -> tuple:
    board = [0] * 24
    for p, n in spec.items():
        board[p - 1] = n
    return tuple(board)


def bearoff_home(rng, most: int) -> list:
    """1 to ``most`` checkers on the points 1 to 6 (a numpy Generator's draw)."""
    points = rng.integers(0, 6, size=int(rng.integers(1, most + 1)))
    return np.bincount(points, minlength=6).tolist()


def bear_off(rules: Rules, mover: list, other: list) -> Position:
    """White (to move) on its home points ``mover``, black on its own ``other``."""
    return Position.from_points(rules, list(mover) + [0] * 18, list(other) + [0] * 18)


@pytest.fixture(scope="session")
def db():
    """The two-sided bear-off database the evaluators use (fastnardy.search.bearoff)."""
    from fastnardy.search import bearoff

    return bearoff.database()


def texts(turns) -> list:
    return [str(t) for t in turns]


# Tests that drive GNU Backgammon itself (Debian's gnubg, headless) skip where it is absent.
needs_gnubg = pytest.mark.skipif(not os.path.exists(GNUBG),
                                 reason=f"GNU Backgammon is not installed ({GNUBG}): "
                                        "apt-get install gnubg")


def played(rules: Rules, count: int, seed: int) -> List[Position]:
    """``count`` positions of random games, each game's last (finished: L10, S9) among them."""
    rng = random.Random(seed)
    out: List[Position] = []
    position = Position.start(rules)
    while len(out) < count:
        if position.outcome() is not None:
            position = Position.start(rules)
        legal = position.legal_turns((rng.randint(1, 6), rng.randint(1, 6)))
        position = rng.choice(list(legal)).position if legal else position.pass_turn()
        out.append(position)
    return out


def rolls_with_choices(rules: Rules, count: int, seed: int, games: int = 40):
    """Up to ``count`` rows of random games (unfinished) with a roll each that has two
    legal turns or more, drawn from ``games`` x ``count`` positions: the rows, the dice,
    their children and the children's offsets."""
    rows = encode([p for p in played(rules, games * count, seed) if p.outcome() is None])
    dice = np.random.default_rng(seed).integers(1, 7, (len(rows), 2)).astype(np.int8)
    _, parent = expand(rules, rows, dice)
    keep = np.flatnonzero(np.diff(offsets(parent, len(rows))) > 1)[:count]
    rows, dice = rows[keep], dice[keep]
    children, parent = expand(rules, rows, dice)
    return rows, dice, children, offsets(parent, len(rows))


def random_match(rules: str, seed: int, length: int, offers: float = 0.05) -> Match:
    """A match of ``rules`` to ``length`` between alice (white) and bob (black), random turns,
    an offer before a roll with chance ``offers`` (taken three times in four), played out."""
    match, chooser = Match(rules, length, seed=seed, players=("alice", "bob")), \
        random.Random(seed)
    while True:
        game = match.game
        while not game.is_over():
            if game.may_offer() and chooser.random() < offers:
                game.offer()
                (game.take if chooser.random() < 0.75 else game.drop)()
                continue
            game.play(chooser.choice(list(game.legal_turns())))
        if match.is_over():
            return match
        match.next_game()
