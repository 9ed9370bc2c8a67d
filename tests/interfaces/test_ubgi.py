"""``fastnardy ubgi``: fastnardy as a UBGI v0.2 engine (fastnardy.play.ubgi), driven by a
controller written from the spec alone (bungogood/bgci, docs/ubgi-v0.2-spec.md): the
handshake, the keys, legal moves on random positions of both games, the cube, the four
errors, exit on ``quit`` and at the end of input, and nothing on stdout the protocol does
not define."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from typing import List

import pytest

from fastnardy import Game, Position
from fastnardy.play.ubgi import Engine

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
# every line the spec lets an engine write begins with one of these
DEFINED = ("id ", "proto ", "ubgiok", "readyok", "key ", "value ", "info ", "bestmove ",
           "bestcube ", "bestturn ", "error ")
FINAL = ("ubgiok", "readyok", "value ", "bestmove ", "bestcube ", "bestturn ", "error ")


class Controller:
    """A UBGI controller: one engine process, a command at a time, its answer lines read up
    to the final one (the spec's final answers, ``readyok``, ``ubgiok``, ``value`` or an
    ``error``)."""

    def __init__(self) -> None:
        self.engine = subprocess.Popen([sys.executable, "-m", "fastnardy", "ubgi"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True, env=ENV, bufsize=1)
        self.seen: List[str] = []

    def send(self, line: str) -> None:
        assert self.engine.stdin is not None
        self.engine.stdin.write(line + "\n")
        self.engine.stdin.flush()

    def ask(self, line: str) -> List[str]:
        """Send ``line``; the answer lines up to the final one."""
        self.send(line)
        out = []
        assert self.engine.stdout is not None
        while True:
            answer = self.engine.stdout.readline().rstrip("\n")
            assert answer, f"the engine closed its output after {line!r}"
            self.seen.append(answer)
            out.append(answer)
            if answer.startswith(FINAL):
                return out

    def close(self) -> int:
        self.send("quit")
        return self.engine.wait(timeout=60)


@pytest.fixture
def controller():
    one = Controller()
    yield one
    one.engine.kill()
    one.engine.wait()
    assert all(line.startswith(DEFINED) for line in one.seen), one.seen


def positions(game: str, count: int, seed: int) -> List[Position]:
    """``count`` positions of random games (not over), each with the dice of its next turn."""
    chooser, out = random.Random(seed), []
    while len(out) < count:
        played = Game(game, chooser.randrange(1 << 30))
        for _ in range(chooser.randrange(1, 80)):
            if played.is_over():
                break
            turns = played.legal_turns()
            played.play(chooser.choice(list(turns)) if turns else "pass")
        if not played.is_over():
            out.append(played.position)
    return out


def test_the_handshake_and_the_keys(controller):
    assert controller.ask("ubgi") == [f"id name fastnardy {__import__('fastnardy').__version__}",
                                      "id author the fastnardy authors", "proto 0.2",
                                      "ubgiok"]
    keys = controller.ask("keys\nisready")[:-1]
    assert keys[0].startswith("key engine.ply int 1..4 1 ")
    assert {line.split()[1] for line in keys} == {"engine.ply", "engine.evaluator",
                                                  "game.variant"}
    assert controller.ask("get engine.ply") == ["value engine.ply 1"]
    assert controller.ask("set engine.ply 2\nget engine.ply") == ["value engine.ply 2"]
    assert controller.close() == 0


@pytest.mark.parametrize("game, variant", [("short", "backgammon"), ("long", "long")])
def test_legal_moves_on_random_positions_of_both_games_T1(controller, game, variant):
    """60 random positions of each game, with random dice: every bestmove is a legal turn
    of that position and roll (the referee reads it, T1), ``pass`` when none is."""
    chooser = random.Random(7)
    assert controller.ask("ubgi")[-1] == "ubgiok"
    controller.send(f"set game.variant {variant}")
    assert controller.ask("isready") == ["readyok"]
    for position in positions(game, 60, 3):
        dice = (chooser.randint(1, 6), chooser.randint(1, 6))
        controller.send("newgame")
        where = (f"position gnubgid {position.gnubg_id()}" if game == "short"
                 else f"position fastnardy {position.to_string()}")
        controller.send(where)
        controller.send(f"dice {dice[0]} {dice[1]}")
        answer = controller.ask("go")
        assert answer[0].startswith("info depth 1 ") and answer[-1].startswith("bestmove ")
        move = answer[-1][len("bestmove "):]
        legal = position.legal_turns(dice)
        if len(legal) == 1 and legal[0].is_pass():
            assert move == "pass"
        else:
            assert position.check_turn(dice, move) in list(legal)
    assert controller.close() == 0


def test_the_cube_and_the_whole_turn_C2(controller):
    """go cube answers bestcube; go turn the cube and the move; a match's state comes with
    an XGID or gnubg's ids."""
    controller.ask("ubgi")
    controller.send("position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
    cube = controller.ask("go cube")
    assert cube[-1] in ("bestcube double", "bestcube nodouble")
    turn = controller.ask("go turn")
    assert turn[-1].startswith("bestturn cube=") and " move=" in turn[-1]
    move = turn[-1].split(" move=")[1]
    assert Position.start("short").check_turn((5, 2), move)
    # gnubg's whole ids (the Position ID and the Match ID of a money game at 1)
    controller.send("position gnubgid 4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert controller.ask("go cube")[-1] == "bestcube nodouble"  # the start: no double


@pytest.mark.parametrize("command, code", [
    ("fly", "bad_command"), ("set engine.ply", "bad_command"), ("set engine.ply 9", "bad_value"),
    ("set nothing 1", "unsupported"), ("get nothing", "unsupported"),
    ("position pgn x", "unsupported"), ("go", "bad_state"), ("dice 7 1", "bad_value"),
    ("dice 5", "bad_command"), ("position gnubgid nonsense", "bad_value"),
    ("position xgid XGID=-b----E-C---eE---c-e----F-:0:0:1:00:0:0:0:0:10", "bad_value"),
    ("go sideways", "bad_command"), ("x" * 5000, "bad_command"),
])
def test_bad_input_gets_one_of_the_four_errors_and_the_engine_goes_on(controller, command,
                                                                      code):
    answer = controller.ask(command)
    assert len(answer) == 1 and answer[0].startswith(f"error {code}"), answer
    assert controller.ask("isready") == ["readyok"]


def test_go_without_dice_or_after_the_game_is_bad_state():
    engine = Engine()
    engine.handle("position gnubgid 4HPwATDgc/ABMA")
    assert engine.handle("go")[0] == ["error bad_state missing dice"]
    engine.handle("set game.variant long")
    engine.handle("position fastnardy long b - 24:15")  # white has borne off: L9
    engine.handle("dice 3 1")
    assert engine.handle("go")[0] == ["error bad_state the game is over (T4)"]
    engine.close()


def test_the_engine_ends_at_the_end_of_input():
    done = subprocess.run([sys.executable, "-m", "fastnardy", "ubgi"], input="ubgi\nisready\n",
                          capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "readyok"
    assert all(line.startswith(DEFINED) for line in done.stdout.splitlines())


# --------------------------------------------------------------------------- the client side

FAKE = """
import sys
mode = sys.argv[1]
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "ubgi":
        print("id name fake", "proto 0.2", "ubgiok", sep="\\n", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        if mode == "illegal":
            print("bestmove 24/23 24/23", flush=True)
        elif mode == "dies":
            sys.exit(3)
        elif mode == "hangs":
            import time; time.sleep(60)
    elif word == "quit":
        break
"""


def _fake(tmp_path, mode: str) -> str:
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE)
    return f"ubgi:{sys.executable} {script} {mode}"


def test_a_duel_of_two_ubgi_engines_in_mirror_pairs_C2(capsys):
    """fastnardy match between two UBGI engines (fastnardy's own, by two commands), with the
    cube, in mirror pairs (the same dice, the sides swapped): the same engine on both sides
    wins one match of the pair and loses the other by the same points."""
    from fastnardy.cli import main

    assert main(["match", "ubgi:fastnardy ubgi", f"ubgi:{sys.executable} -m fastnardy ubgi",
                 "--game", "short", "--to", "3", "--games", "2", "--seed", "2", "--json",
                 "--no-progress"]) == 0
    import json

    document = json.loads(capsys.readouterr().out)
    assert document["points"]["mean"] == 0.0 and document["matches"] == 2


@pytest.mark.parametrize("mode, message", [
    ("illegal", "played '24/23 24/23'"), ("dies", "exited while answering"),
])
def test_an_engine_that_breaks_the_rules_or_dies_is_an_engine_error(tmp_path, mode, message):
    from fastnardy import EngineError
    from fastnardy.play.players import player
    from fastnardy.play.duel import play_games
    from fastnardy.rules import Rules

    with pytest.raises(EngineError, match=message):
        with player(_fake(tmp_path, mode), "short") as one, player("greedy", "short") as two:
            play_games(Rules.short(), one, two, 2, 1, 2, None)


def test_a_hung_engine_is_killed_at_its_deadline(tmp_path):
    from fastnardy import EngineError
    from fastnardy.play.players import UbgiPlayer
    from fastnardy.search.setting import Setting
    from fastnardy.rules import Rules

    one = UbgiPlayer(Setting(_fake(tmp_path, "hangs")), Rules.short(), timeout=1.0)
    try:
        with pytest.raises(EngineError, match="did not answer"):
            one.turn(Position.start("short"), (6, 5))
    finally:
        one.close()


def test_crosscheck_reads_a_ubgi_engines_moves_and_names_the_rule_it_breaks(tmp_path, capsys):
    """crosscheck ubgi:COMMAND: fastnardy's own engine plays a legal move for every roll of
    10 random positions of each game (exit 0); an engine that always plays 24/23 24/23 is
    refused at the first roll with the rule (exit 1), in text and in JSON."""
    import json

    from fastnardy.cli import main

    for game in ("short", "long"):
        assert main(["crosscheck", "ubgi:fastnardy ubgi", game, "1", "--random", "10",
                     "--json"]) == 0
        document = json.loads(capsys.readouterr().out)
        assert document["agree"] and document["requests"] == 2 + 21 * 10
    assert main(["crosscheck", _fake(tmp_path, "illegal"), "short", "1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("the engine plays an illegal move (S") and "'24/23 24/23'" in out
    assert main(["crosscheck", _fake(tmp_path, "illegal"), "short", "1", "--json"]) == 1
    illegal = json.loads(capsys.readouterr().out)["illegal"]
    assert illegal["rule"].startswith("S") and illegal["dice"] == [1, 1]
    assert main(["crosscheck", "ubgi:fastnardy ubgi", "short", "1", "--movegen"]) == 2
