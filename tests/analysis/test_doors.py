"""One request, one answer: the same position, roll, setting and cube context get the same
turns in the same order and the same equities (to 1e-6) at every door: the Python API
(``analysis.hint``, ``analysis.evaluate``), the command line (``fastnardy hint``, ``fastnardy
eval``), every player of the setting (``play.players.player``: ``fastnardy match``,
``benchmark-error``, ``play``, the rollouts), the bot ``fastnardy serve`` answers with and
the kernel's opponent of the RL environments; on positions of both games drawn from random
games (T1, T2, C1-C8)."""

from __future__ import annotations

import json
import random
from typing import List, Tuple

import numpy as np
import pytest

from fastnardy import Position, Rules, analysis
from fastnardy.basics import Roll
from fastnardy.batch import encode, expand, scores
from fastnardy.cli import main
from fastnardy.play import external
from fastnardy.play.players import player
from fastnardy.search.cubeful import Cube
from fastnardy.search.setting import Setting

from conftest import played

SETTINGS = ("net:0", "net:1", "net:2", "net:1:int16", "net:1:float", "net:1:full")


def requests(game: str, count: int, seed: int) -> List[Tuple[Position, Roll]]:
    """Positions of random games with a roll of two legal turns or more."""
    rng = random.Random(seed)
    out: List[Tuple[Position, Roll]] = []
    for position in played(Rules.of(game), 20 * count, seed):
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        if position.outcome() is None and len(position.legal_turns(roll)) > 1:
            out.append((position, roll))
    return rng.sample(out, count)


def cli_json(argv: List[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(argv) == 0
    document: dict = json.loads(capsys.readouterr().out)
    return document


@pytest.mark.parametrize("game", ["long", "short"])
@pytest.mark.parametrize("text", SETTINGS)
def test_hint_is_the_same_at_the_api_the_command_line_and_every_player_T1_C8(game, text,
                                                                                capsys):
    chosen = Setting.parse(text)
    cube = Cube.money(game)
    with player(chosen, game) as bot:
        for position, roll in requests(game, 3 if chosen.plies < 2 else 2, seed=len(text)):
            ranked = analysis.hint(position, roll, chosen)
            assert ranked.setting == chosen.resolved(game) and ranked.cube == cube
            argv = ["hint", position.to_string(), f"{roll[0]}-{roll[1]}", "--plies",
                    str(chosen.plies), "--json"]
            if chosen.precision is not None:
                argv += ["--precision", chosen.precision]
            if chosen.plies and chosen.filter is None:
                argv += ["--filter", "full"]
            document = cli_json(argv, capsys)
            assert document["setting"] == str(chosen.resolved(game)) == str(ranked.setting)
            assert [m["turn"] for m in document["moves"]] == [str(c.turn) for c in ranked]
            for move, candidate in zip(document["moves"], ranked):
                assert move["cubeful"] == pytest.approx(candidate.cubeful, abs=1e-6)
                assert move["equity"] == pytest.approx(candidate.equity, abs=1e-6)
                assert move["plies"] == candidate.plies
            # every player of the setting plays the hint's first turn, with the cube in play
            # and without it (cubeless: the cubeless hint's first)
            assert bot.turn(position, roll, cube) == ranked[0].turn
            cubeless = analysis.hint(position, roll, chosen.replace(cubeful=False))
            assert bot.turn(position, roll) == cubeless[0].turn
            rows = encode([position])
            children, _ = expand(position.rules, rows, np.array([roll]))
            picked = bot.pick(position.rules, rows, np.array([roll]), children,
                              np.array([0, len(children)]))
            assert position.legal_turns(roll)[int(picked[0])] == cubeless[0].turn


@pytest.mark.parametrize("game", ["long", "short"])
@pytest.mark.parametrize("text", ["net:0", "net:1", "net:2"])
def test_eval_is_the_same_at_the_api_and_the_command_line_C1_C8(game, text, capsys):
    chosen = Setting.parse(text)
    cubes = [Cube.money(game), Cube.money(game)._replace(length=7, score=(4, 2), value=2,
                                                         owner="mover")]
    for (position, _), cube in zip(requests(game, 2, seed=7), cubes):
        result = analysis.evaluate(position, chosen, cube=cube)
        argv = ["eval", position.to_string(), "--plies", str(chosen.plies), "--json"]
        if cube.length:
            argv += ["--match", "7", "--score", "4-2", "--cube", "2", "--owner", "mover"]
        document = cli_json(argv, capsys)
        assert document["setting"] == str(chosen.resolved(game))
        assert document["cube"] == cube.as_dict()
        assert document["equity"] == pytest.approx(result.equity, abs=1e-6)
        assert document["decision"]["action"] == result.decision.action
        for key in ("no_double", "double_take", "double_pass", "optimal"):
            assert document["decision"][key] == pytest.approx(getattr(result.decision, key),
                                                              abs=1e-6)
        assert list(document["probabilities"].values()) == pytest.approx(
            list(result.probabilities), abs=1e-6)


def test_the_bot_that_serves_gnubg_plays_its_setting_s_turn_and_cube_C2():
    """``fastnardy serve``'s answer to a board line with dice is the setting's player's turn
    (the hint's first) under the line's cube; to a line before the roll, the player's cube
    decision."""
    bot = player("net:1", "short")
    for position, roll in [(p, r) for p, r in requests("short", 12, seed=11)
                           if p.turn == "white"][:3]:  # gnubg's player 1 on roll
        line = _fibs_line(position, roll)
        expected = analysis.hint(position, roll, "net:1")[0].turn
        steps = " ".join(f"{src}/{dst}" for src, dst, *_ in expected.steps)
        assert external.answer(line, bot) == steps
        assert external.answer(_fibs_line(position, None), bot) in ("roll", "double")
    bot.close()


def _fibs_line(position: Position, dice: object) -> str:
    """A FIBS board line of ``position`` (white, gnubg's player 1, on roll), money play."""
    board = [0] * 26
    for point, count in enumerate(position.white_points, 1):
        board[point] += count
    for point, count in enumerate(position.black_points, 1):
        board[25 - point] -= count
    board[25], board[0] = position.white_bar, -position.black_bar
    die1, die2 = dice if dice is not None else (0, 0)
    fields = (["board", "You", "Opponent", "9999", "0", "0"] + [str(v) for v in board]
              + ["1", str(die1), str(die2), "0", "0", "1", "1", "1", "0", "1", "-1", "0", "25",
                 "0", "0", "0", "0", "2", "0", "0", "0"])
    return ":".join(fields)


def test_the_kernel_s_opponent_of_0_ply_is_the_player_of_its_setting():
    """An RL environment's opponent ``net`` (the kernel's network policy) chooses what the
    setting's player chooses: the first best child at 0 ply (T2)."""
    from fastnardy.envs.gymnasium import check_opponent

    for game in ("long", "short"):
        rules = Rules.of(game)
        code, network, _ = check_opponent(rules, "net:0")
        assert code == 3 and network is Setting().network(rules).network
        with player("net:0", rules) as bot:
            for position, roll in requests(game, 4, seed=3):
                rows = encode([position])
                children, _ = expand(rules, rows, np.array([roll]))
                ended = scores(rules, children)  # exact where a turn ends the game (L10, S9)
                values = np.where(np.isnan(ended), -network.equities(children), -ended)
                assert int(np.argmax(values)) == int(bot.pick(
                    rules, rows, np.array([roll]), children, np.array([0, len(children)]))[0])
