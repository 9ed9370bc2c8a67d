"""fastnardy.formats.ids: eXtreme Gammon's XGID and GNU Backgammon's ``POSITION:MATCH`` ids,
read and written with the dice, the cube (C1, C2), an offer, the match's length and score
(C6) and the Crawford game (C7). GNU Backgammon 1.07 is the judge (skipped where it is
absent): it reads fastnardy's XGIDs and its Match IDs to the same states, position,
dice, cube, score and Crawford flag, as the side on roll sees them (gnubg puts the side on
roll at the bottom, so the colours may swap)."""

from __future__ import annotations

import random
import subprocess
from typing import List, Tuple

import pytest

from fastnardy import Game, InvalidPositionError, Position
from fastnardy.formats.ids import (MatchState, is_id, read_gnubg_ids, read_xgid,
                                   write_gnubg_ids, write_xgid)
from fastnardy.play.gnubg import GNUBG

from conftest import needs_gnubg

START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def random_states(count: int, seed: int) -> List[MatchState]:
    """``count`` states from random short-nardy games: dice or none, an offer now and then,
    the cube at 1 to 64, money play or a match to 1-25 at any score, Crawford games."""
    chooser, states = random.Random(seed), []
    while len(states) < count:
        game = Game("short", chooser.randrange(1 << 30))
        for _ in range(chooser.randrange(0, 60)):
            turns = game.legal_turns()
            if game.is_over() or not turns:
                break
            game.play(chooser.choice(list(turns)))
        if game.is_over():
            continue
        position = game.position
        length = chooser.choice([0, 0, 1, 3, 5, 7, 11, 25])
        score = (chooser.randrange(length), chooser.randrange(length)) if length else (0, 0)
        crawford = bool(length > 1 and (length - 1 in score) and score[0] != score[1]
                        and chooser.random() < 0.5)
        power = 0 if crawford else chooser.choice([0, 0, 1, 2, 3, 6])
        owner = None if not power else chooser.choice(["white", "black"])
        doubled = (not crawford and chooser.random() < 0.2 and power < 6
                   and owner in (None, position.turn))
        dice = None if doubled or chooser.random() < 0.3 else game.dice
        states.append(MatchState(position, dice, 1 << power, owner, doubled, length, score,
                                 crawford, not length and chooser.random() < 0.5).checked())
    return states


def mover_view(state: MatchState) -> Tuple[object, ...]:
    """What the side on roll sees: its board first, the dice (high first), the offer and the
    cube context (value, owner, score, length, Crawford), whatever the colours."""
    cube = state.cube_context()
    dice = None if state.dice is None else tuple(sorted(state.dice, reverse=True))
    return (state.position.mover_frame(), dice, state.doubled, cube.value, cube.owner,
            cube.score, cube.length, cube.crawford)


def test_the_start_reads_as_white_to_roll_in_money_play():
    state = read_xgid(START)
    assert state.position == Position.start("short") and state.dice is None
    assert (state.cube, state.owner, state.length, state.score) == (1, None, 0, (0, 0))
    assert write_xgid(state) == START
    assert write_gnubg_ids(state) == "4HPwATDgc/ABMA:cAkAAAAAAAAA"
    assert is_id(START) and is_id("4HPwATDgc/ABMA:cAkAAAAAAAAA") and not is_id("short")


def test_ids_round_trip_every_random_state_C1_C2_C6_C7():
    for state in random_states(2000, 1):
        assert read_gnubg_ids(write_gnubg_ids(state)) == state._replace(jacoby=False)
        if not state.doubled:
            assert read_xgid(write_xgid(state)) == state


def _mid(power=0, owner=3, on_roll=1, crawford=0, state=1, deciding=None, doubled=0,
         resigned=0, dice=(0, 0), length=0, score=(0, 0)):
    """A Match ID of these fields (gnubg's bit layout), checked or not."""
    import base64

    deciding = on_roll if deciding is None else deciding
    bits, shift = 0, 0
    for value, width in ((power, 4), (owner, 2), (on_roll, 1), (crawford, 1), (state, 3),
                         (deciding, 1), (doubled, 1), (resigned, 2), (dice[0], 3),
                         (dice[1], 3), (length, 15), (score[1], 15), (score[0], 15)):
        bits, shift = bits | value << shift, shift + width
    return base64.b64encode(bits.to_bytes(9, "little")).decode()


@pytest.mark.parametrize("text, match", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0", "XGID"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10", "'D'"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10", "'B'"),
    ("XGID=-b----E-C---eE---c-e----B-:1:0:1:00:0:0:0:0:10", "C2"),
    ("XGID=-b----E-C---eE---c-e----B-:0:1:1:00:0:0:0:0:10", "C2"),
    ("XGID=-b----E-C---eE---c-e----B-:7:1:1:00:0:0:0:0:10", "64"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10", "score"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:3:0:1:7:10", "C7"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:1:10", "C7"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:0:0:0:10", "C6"),
    ("XGID=-b----E-C---eE---c-e----F-:0:0:1:00:0:0:0:0:10", "T7"),
    ("XGID=bb----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "T7"),
    ("XGID=-b----E-C---eE---c-e----Bb:0:0:1:00:0:0:0:0:10", "other side"),
    ("4HPwATDgc/ABMA:cAkAAAAAAAA", "Position ID"),
    ("4HPwATDgc/ABMA:cAkAAAAAAAA!", "Position ID"),
    ("4HPwATDgc/ABMA:" + _mid(state=0), "not being played"),
    ("4HPwATDgc/ABMA:" + _mid(resigned=1), "not being played"),
    ("4HPwATDgc/ABMA:" + _mid(dice=(3, 0)), "dice"),
    ("4HPwATDgc/ABMA:" + _mid(dice=(7, 1)), "dice"),
    ("4HPwATDgc/ABMA:" + _mid(doubled=1), "offer"),  # the side on roll decides its own offer
    ("4HPwATDgc/ABMA:" + _mid(owner=2), "owner"),
    ("4HPwATDgc/ABMA:" + _mid(length=7, score=(7, 0)), "score"),
])
def test_an_id_that_does_not_read_is_refused_naming_the_field(text, match):
    with pytest.raises(InvalidPositionError, match=match):
        (read_xgid if text.startswith("XGID") else read_gnubg_ids)(text)


def test_an_offer_is_not_written_as_an_xgid_but_in_gnubgs_ids_C2():
    state = MatchState(Position.start("short"), cube=2, owner="white", doubled=True,
                       length=7, score=(2, 3)).checked()
    with pytest.raises(InvalidPositionError, match="offer"):
        write_xgid(state)
    assert read_gnubg_ids(write_gnubg_ids(state)) == state


def _gnubg(commands: List[str], setup: str = "") -> List[MatchState]:
    """Run ``commands`` in one ``gnubg -t``, each followed by ``show board``, and read the
    state each left: the last Position ID and Match ID printed before the next command (an
    unknown word marks each end, gnubg answering "Unknown keyword")."""
    script = setup + "new game\n" + "".join(f"{command}\nshow board\nzzend{i}\n"
                                            for i, command in enumerate(commands))
    out = subprocess.run([str(GNUBG), "-t", "-q"], input=script, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=600).stdout
    states, pid, mid = [], "", ""
    for line in out.splitlines():
        if "Position ID:" in line:
            pid = line.split(":", 1)[1].strip()
        elif "Match ID   :" in line:
            mid = line.split(":", 1)[1].strip()
        elif "Unknown keyword `zzend" in line:
            states.append(read_gnubg_ids(f"{pid}:{mid}"))
    assert len(states) == len(commands), (len(states), out[-2000:])
    return states


@needs_gnubg
def test_gnubg_reads_fastnardys_xgids_to_the_same_states():
    """GNU Backgammon's ``set xgid`` of 1,000 random states (no offers: module docstring of
    fastnardy.formats.ids) shows the same position, dice, cube, score and Crawford game."""
    states = [s for s in random_states(1000, 2) if not s.doubled]
    shown = _gnubg([f"set xgid {write_xgid(s)}" for s in states])
    differences = [(write_xgid(s), write_gnubg_ids(g)) for s, g in zip(states, shown)
                   if mover_view(s) != mover_view(g)]
    assert not differences, differences[:5]


@needs_gnubg
def test_gnubg_reads_fastnardys_match_ids_to_the_same_states():
    """GNU Backgammon's ``set matchid`` and ``set board`` of 1,000 random states' ids show
    each state as written. (gnubg 1.07's ``set matchid`` clears an offer: offers are the
    next test's.)"""
    states = [s for s in random_states(1000, 3) if not s.doubled]
    commands = []
    for state in states:
        pid, mid = write_gnubg_ids(state).split(":")
        commands.append(f"set matchid {mid}\nset board {pid}")
    shown = _gnubg(commands)
    differences = [write_gnubg_ids(s) for s, g in zip(states, shown)
                   if mover_view(s) != mover_view(g)]
    assert not differences, differences[:5]


@needs_gnubg
def test_an_offer_reads_as_gnubg_writes_it_C2():
    """gnubg's own offer (its ``double`` command, both players human) on 200 random states:
    its Match ID reads to the state with the offer, as fastnardy writes it. gnubg declines
    some offers the rules allow (a dead cube in a match): those are not compared."""
    states = [s for s in random_states(1000, 4) if s.doubled][:200]
    commands = []
    for state in states:
        pid, mid = write_gnubg_ids(state._replace(doubled=False)).split(":")
        commands.append(f"set matchid {mid}\nset board {pid}\ndouble")
    shown = _gnubg(commands, "set player 0 human\nset player 1 human\n")
    compared = [(s, g) for s, g in zip(states, shown) if g.doubled]
    assert len(compared) >= len(states) // 2
    differences = [write_gnubg_ids(s) for s, g in compared if mover_view(s) != mover_view(g)]
    assert not differences, differences[:5]
    assert all(write_gnubg_ids(s).split(":")[1] == write_gnubg_ids(g).split(":")[1]
               or s.position.turn != g.position.turn for s, g in compared)


# --------------------------------------------------------------------------- the doors

def _run(capsys, *argv: str) -> Tuple[int, str, str]:
    from fastnardy.cli import main

    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


MATCH_XGID = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:2:3:0:7:10"  # black owns the 2-cube


def test_eval_of_an_id_is_eval_of_its_position_with_the_same_cube_C2_C6(capsys):
    """One request, one answer: eval of an XGID, of gnubg's ids of the same state and of the
    position string with the cube options give the same numbers."""
    import json

    state = read_xgid(MATCH_XGID)
    answers = []
    for argv in (["eval", MATCH_XGID], ["eval", write_gnubg_ids(state)],
                 ["eval", state.position.to_string(), "--match", "7", "--score", "2-3",
                  "--cube", "2", "--owner", "opponent"]):
        status, out, err = _run(capsys, *argv, "--json")
        assert status == 0, err
        answers.append(json.loads(out))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["cube"]["length"] == 7 and answers[0]["cube"]["owner"] == "opponent"


def test_hint_plays_the_ids_roll_and_refuses_other_dice(capsys):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    status, out, _ = _run(capsys, "hint", xgid, "--json")
    status_typed, typed, _ = _run(capsys, "hint", "short", "5-2", "--json")
    assert status == status_typed == 0
    import json

    assert json.loads(out)["moves"] == json.loads(typed)["moves"]
    status, _, err = _run(capsys, "hint", xgid, "6-4")
    assert status == 2 and "differ from the id's 5-2" in err and err.count("\n") == 1
    status, _, err = _run(capsys, "hint", START)
    assert status == 2 and "give DICE" in err


def test_a_cube_option_beside_an_id_is_refused(capsys):
    status, _, err = _run(capsys, "eval", MATCH_XGID, "--score", "1-1")
    assert status == 2 and "--score: the id gives the cube and the score" in err


@pytest.mark.parametrize("text", [MATCH_XGID, "4HPwATDgc/ABMA:cAkAAAAAAAAA",
                                  "XGID=-b----E-C---eE---c-e----B-:0:0:-1:63:0:0:1:0:10"])
def test_board_writes_the_ids_of_the_state_it_read(capsys, text):
    import json

    status, out, _ = _run(capsys, "board", text, "--json")
    document = json.loads(out)
    read = read_xgid(text) if text.startswith("XGID") else read_gnubg_ids(text)
    assert status == 0 and read_gnubg_ids(document["gnubg_ids"]) == read._replace(jacoby=False)
    assert read_xgid(document["xgid"]) == read._replace(
        jacoby=read.jacoby if text.startswith("XGID") else False)
    status, out, _ = _run(capsys, "board", text)
    assert f"xgid: {document['xgid']}" in out and f"gnubg_ids: {document['gnubg_ids']}" in out


def test_play_begins_with_the_ids_roll_and_refuses_a_match(capsys):
    status, out, _ = _run(capsys, "play", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
                          "--turns", "1", "--seed", "3", "--quiet")
    assert status == 0 and "1. white 5-2: " in out
    status, _, err = _run(capsys, "play", MATCH_XGID)
    assert status == 2 and "a match, a raised cube or an offer" in err


@pytest.mark.parametrize("text", ["XGID=garbage", "XGID=" + "-" * 26 + ":0:0:1:00:0:0:0:0:10",
                                  "4HPwATDgc/ABMA:!!!!!!!!!!!!", "XGID=" + "x" * 100_000])
def test_an_id_that_does_not_read_is_one_line_and_exit_2(capsys, text):
    status, out, err = _run(capsys, "eval", text)
    assert status == 2 and not out and err.count("\n") == 1 and len(err) < 300
