"""fastnardy.play.external: a player of short nardy (the network's at 0 ply by default)
served as GNU Backgammon's external player (FIBS board lines in, roll / double / take / drop
/ moves out), and GNU Backgammon itself playing a match against it (skipped where Debian's
gnubg is absent)."""

from __future__ import annotations

import socket
import subprocess
import threading
from pathlib import Path

import pytest

from fastnardy import FastNardyError, InvalidPositionError, Position
from fastnardy.play import external
from fastnardy.play.players import Greedy, player
from fastnardy.search.cubeful import Cube, shipped_met
from fastnardy.search.met import MatchEquityTable

GNUBG = Path("/usr/games/gnubg")
NET = player("net:0", "short")  # the served bot's default setting
# as gnubg 1.07 writes them for its player 1: the start, player 1 on roll with 2-1; and an
# offer from player 0 to player 1 (turn -1, the cube's flags player 1's)
START = ("board:gnubg:root:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:2:"
         "1:2:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")


def board_line(counts, turn=1, dice=(0, 0), cube=1, first_may=1, second_may=1, doubled=0,
               length=3, score=(0, 0)):
    """A FIBS board line in gnubg's layout: ``counts`` the 26 board entries."""
    fields = (["board", "gnubg", "root", length, *score, *counts, turn, *dice, *dice, cube,
               first_may, second_may, doubled, 1, -1, 0, 25, 0, 0, 0, 0, 0, 0, 0, 1])
    return ":".join(map(str, fields))


def served(setting=None, **options):
    """external.serve of ``setting``'s player on a free port in a thread: the listener, its
    port, the thread and the dict that gets what was served once the connections end."""
    listener = socket.create_server(("127.0.0.1", 0))
    done: dict = {}
    thread = threading.Thread(target=lambda: done.setdefault(
        "served", external.serve(ready=listener, setting=setting, **options)), daemon=True)
    thread.start()
    return listener, listener.getsockname()[1], thread, done


def test_a_board_line_reads_as_player_1s_position():
    board = external.read_board(START)
    assert board.position == Position.start("short") and board.dice == (2, 1)
    assert board.length == 3 and board.cube.value == 1 and board.cube.owner == "centered"
    assert external.answer(START, NET) in {str(t).replace("bar", "25").replace("off", "0")
                                          for t in Position.start("short").legal_turns((2, 1))}


def _move(turn) -> str:
    return str(turn).replace("bar", "25").replace("off", "0")


def test_the_bots_move_is_its_players_turn_with_the_cube_in_play_C6():
    board = external.read_board(START)
    assert board.cube == Cube(length=3)  # a 3-point match at 0-0, the cube centred
    assert external.answer(START, NET) == _move(NET.turn(board.position, (2, 1), board.cube))
    with player("greedy", "short") as greedy:
        assert external.answer(START, greedy) == _move(greedy.turn(board.position, (2, 1)))


class _Seeing(Greedy):
    """The greedy player, recording the cubes it is asked about; it has no cube decision."""

    def __init__(self) -> None:
        super().__init__()
        self.cubes: list = []

    def cube_equities(self, rules, rows, cubes):
        self.cubes.extend(cubes)
        return None


def test_a_player_without_a_cube_rolls_and_takes_and_sees_the_matchs_table_C2_C6():
    counts = [0] * 26
    counts[6] = 15
    counts[24] = -1
    offer = board_line(counts, turn=-1, doubled=1)  # a pass for a player with a cube
    mine = [0] * 26
    mine[1], mine[2], mine[24] = 2, 2, -4  # a double for a player with a cube
    table = shipped_met("long")  # another table than short nardy's own
    assert isinstance(table, MatchEquityTable)
    bot = _Seeing()
    assert external.answer(offer, bot, table) == "take"
    assert external.answer(board_line(mine), bot, table) == "roll"
    assert external.answer(board_line(mine), bot) == "roll"
    assert [cube.met for cube in bot.cubes] == [table, table, None]
    assert [cube.length for cube in bot.cubes] == [3, 3, 3]


def test_an_offer_to_player_1_is_judged_from_the_doublers_side_C2():
    # player 0 (the doubler, on roll) has borne off 14 checkers: a pass
    counts = [0] * 26
    counts[6] = 15  # player 1: 15 checkers on its 6 point
    counts[24] = -1  # player 0: one checker on its own 1 point (player 1's 24)
    line = board_line(counts, turn=-1, doubled=1)
    board = external.read_board(line)
    assert board.position.turn == "black" and board.doubled
    assert external.answer(line, NET) == "drop"
    # and player 1 on roll with that race won offers
    mine = [0] * 26
    mine[1], mine[2], mine[24] = 2, 2, -4  # a last-rolls race player 1 wins 5 times in 6
    assert external.answer(board_line(mine, length=0), NET) == "double"
    mine[24] = -1  # and one it loses unless it bears off at once: no double
    mine[1], mine[2], mine[6] = 0, 0, 4
    assert external.answer(board_line(mine, length=0), NET) == "roll"


@pytest.mark.parametrize("line, error, match", [
    ("hello", FastNardyError, "not a FIBS board"),
    (START.replace(":2:1:2:1:", ":x:1:2:1:", 1), FastNardyError, "numbers"),
    (START.replace(":2:1:2:1:", ":9:1:9:1:", 1), FastNardyError, "dice"),
    (START.replace("board:gnubg:root:3:0:0:0:-2", "board:gnubg:root:3:0:0:0:-9", 1),
     InvalidPositionError, "T7"),
])
def test_a_board_line_that_does_not_read_is_refused(line, error, match):
    with pytest.raises(error, match=match):
        external.read_board(line)


@pytest.mark.parametrize("setting", [None, "greedy"])
def test_the_server_answers_errors_as_gnubg_reads_them(setting):
    listener, port, thread, done = served(setting)
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(START.encode() + b"\n\0")
        client.sendall(b"nonsense\n\0")
        with client.makefile("rb") as answers:  # (its socket closes with the file)
            first, second = answers.readline().decode(), answers.readline().decode()
    thread.join(10)
    listener.close()
    assert "/" in first and second.startswith("Error (not a FIBS board")
    assert done["served"] == external.Served(games=1, decisions=1, errors=1)
    with player(setting, "short") as bot:  # the player of the setting served (net:0 if None)
        assert first.strip() == external.answer(START, bot)


def test_the_server_refuses_a_long_nardy_network(tmp_path):
    from fastnardy.search.network import Evaluator

    path = tmp_path / "long.npz"
    Evaluator.load("long").save(path)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        with pytest.raises(FastNardyError, match="for long nardy, not short nardy"):
            external.serve(ready=listener, setting=str(path))


@pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon (gnubg) is absent: "
                                               "apt-get install gnubg")
def test_gnubg_plays_a_match_against_the_served_network():
    """gnubg (player 0) plays a 3-point match against fastnardy served as its external player
    1 to the end: every move, offer and answer of the bot accepted, the match won by one."""
    listener, port, thread, done = served()
    script = (f"set player 1 external localhost:{port}\nset player 0 gnubg\n"
              f"set player 1 name fastnardy\nnew match 3\n")
    result = subprocess.run([str(GNUBG), "-t", "-q"], input=script, capture_output=True,
                            text=True, timeout=600)
    thread.join(30)
    listener.close()
    out = result.stdout
    assert "wins the match" in out or "wins a" in out
    assert "Warning" not in out and "Error (" not in out, out[-2000:]
    assert done["served"].decisions >= 10 and done["served"].errors == 0


def test_the_serve_command_prints_its_address_and_serves(tmp_path):
    import os
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with subprocess.Popen([sys.executable, "-m", "fastnardy", "serve"], stdout=subprocess.PIPE,
                          text=True, env=env) as server:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith("listening on 127.0.0.1:")
        port = int(first.split()[2].rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as client:
            client.sendall(START.encode() + b"\n\0")
            with client.makefile("rb") as answers:
                assert b"/" in answers.readline()
        rest = server.stdout.read()
        assert server.wait(timeout=60) == 0
    assert "served 1 decisions in 1 games" in rest


@pytest.mark.parametrize("argv", [["serve", "--port", "99999"], ["serve", "--port", "x"]])
def test_the_serve_command_refuses_a_bad_port(argv, capsys):
    from fastnardy.cli import main

    assert main(argv) == 2
    assert "port" in capsys.readouterr().err


def test_the_crawford_flag_counts_only_when_one_player_needs_1_C7():
    line = START.replace("board:gnubg:root:3:0:0:", "board:gnubg:root:3:2:2:", 1)
    fields = line.split(":")
    fields[51] = "1"  # gnubg's flag beside 1-away 1-away: no Crawford game
    assert not external.read_board(":".join(fields)).cube.crawford
    fields[4] = "0"  # 0-2 of 3: the Crawford game
    assert external.read_board(":".join(fields)).cube.crawford


def _exchange(port, payload, answers=1):
    """Send ``payload`` to the server and read ``answers`` lines back."""
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(payload)
        with client.makefile("rb") as stream:
            return [stream.readline() for _ in range(answers)]


def test_a_byte_beyond_ascii_is_answered_an_error_and_the_server_goes_on():
    """Item 2 of issue 70: one non-ASCII byte ended the server (UnicodeEncodeError)."""
    listener, port, thread, done = served("greedy")
    first, second = _exchange(port, b"board:\xff\xfe\n" + START.encode() + b"\n", 2)
    thread.join(10)
    listener.close()
    assert first.startswith(b"Error (not a FIBS board line: 'board:\\\\xff\\\\xfe')")
    assert b"/" in second and done["served"] == external.Served(1, 1, 1)


def test_a_line_longer_than_the_bound_gets_one_answer():
    """A line over MAX_LINE bytes is read to its end and answered once, not once a piece."""
    listener, port, thread, done = served("greedy")
    payload = b"x" * (3 * external.MAX_LINE + 17) + b"\n" + START.encode() + b"\n"
    first, second = _exchange(port, payload, 2)
    thread.join(10)
    listener.close()
    assert first == b"Error (a FIBS board line is at most 4,096 bytes)\n"
    assert b"/" in second and done["served"] == external.Served(1, 1, 1)


def _leave(port, how):
    """A client that sends lines and goes: ``reset`` (RST), ``unread`` (closes with the
    answers unread) or ``silent`` (connects and says nothing, waiting to be dropped)."""
    import struct

    client = socket.create_connection(("127.0.0.1", port))
    if how == "silent":
        client.settimeout(30)
        assert client.recv(1) == b""  # the server ended the connection
    else:
        client.sendall(((START + "\n") * 200 + "nonsense\n" * 200).encode())
        if how == "reset":
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()


@pytest.mark.parametrize("how", ["reset", "unread", "silent"])
def test_the_server_survives_a_client_that_leaves_and_serves_the_next_game(how):
    """A client that resets, leaves its answers unread or stays silent past the timeout ends
    its own game only: the next connection is served (issue 70, item 2)."""
    listener, port, thread, done = served("greedy", games=2, timeout=0.5)
    _leave(port, how)
    assert b"/" in _exchange(port, START.encode() + b"\n")[0]
    thread.join(30)
    listener.close()
    assert not thread.is_alive() and done["served"].games == 2


def test_the_server_keeps_nothing_a_client_sends():
    """20 MB of garbage lines: answered line by line, the server's memory flat (it kept
    every line before: 229 MiB took it from 52 to 281 MiB)."""
    import tracemalloc

    tracemalloc.start()
    try:
        listener, port, thread, done = served("greedy")
        garbage = (b"y" * 999 + b"\n") * 1000  # 1 MB, sent 20 times
        with socket.create_connection(("127.0.0.1", port)) as client:
            reader = threading.Thread(target=lambda: all(client.makefile("rb")), daemon=True)
            reader.start()
            for _ in range(20):
                client.sendall(garbage)
            client.shutdown(socket.SHUT_WR)
            reader.join(60)
        thread.join(60)
        listener.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert done["served"] == external.Served(1, 0, 20_000)
    assert peak < 4 << 20, peak


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), "5", True])
def test_a_bad_timeout_is_refused(timeout):
    with pytest.raises(FastNardyError, match="timeout"):
        external.serve(timeout=timeout)


def test_the_serve_command_survives_a_client_that_leaves_unread():
    """``fastnardy serve --games 2``: a client that sends 400 lines and closes at once ended
    the command with exit 141 (SIGPIPE) and never served the second game."""
    import os
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with subprocess.Popen([sys.executable, "-m", "fastnardy", "serve", "--games", "2",
                           "--player", "greedy"], stdout=subprocess.PIPE, text=True,
                          env=env) as server:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[2].rsplit(":", 1)[1])
        _leave(port, "unread")
        assert b"/" in _exchange(port, START.encode() + b"\n")[0]
        rest = server.stdout.read()
        assert server.wait(timeout=60) == 0
    assert "in 2 games" in rest


def test_the_serve_commands_timeout_default_is_the_servers():
    from fastnardy.cli import build_parser

    text = build_parser()._subparsers._group_actions[0].choices["serve"].format_help()
    assert f"(default {external.TIMEOUT:g})" in " ".join(text.split())
