"""Game records: the fastnardy text record and GNU Backgammon's .mat match export."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastnardy import Game, IllegalTurnError, InvalidRecordError, Match, Position, Rules
from fastnardy.formats.games import read_games
from fastnardy.formats.mat import MatGame, is_mat, read_mat, write_mat
from fastnardy.record import (RecordedCube, GameRecord, RecordedTurn, Win, check_name, read_record,
                              write_record)

GNUBG_DATA = Path(__file__).parents[1] / "data" / "gnubg"
MAT_FILES = sorted(GNUBG_DATA.glob("*.mat"))

EXAMPLE = """\
rules long(head_rule=tournament)
white Alice
black Bob
opening 3 5
1 black 6-5 24/18 18/13
2 white 3-3 24/21 24/21 21/18 21/18
3 black 2-1 24/22 22/21
"""


def without_comments(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith(";"))


# --------------------------------------------------------------------------- fastnardy record

def test_example_reads_and_writes_back_exactly():
    record = read_record(EXAMPLE)
    assert record.rules == Rules.long(head_rule="tournament")
    assert record.players == ("Alice", "Bob") and record.opening == (3, 5)
    assert record.start is None
    assert record.turns[1] == RecordedTurn(2, "white", (3, 3), "24/21 24/21 21/18 21/18")
    assert record.turns[1].line == 6
    assert write_record(record) == EXAMPLE
    assert Game.from_record(EXAMPLE).record() == EXAMPLE


def test_comments_blank_lines_and_spacing_are_skipped():
    text = "# a game\n\n  rules long  \nwhite Alice\nblack Bob\nopening 3  5\n" \
           "1   black 6-5 24/18 18/13\n"
    assert write_record(read_record(text)) == \
        "rules long\nwhite Alice\nblack Bob\nopening 3 5\n1 black 6-5 24/18 18/13\n"


def test_start_position_record():
    text = "rules short\nwhite a\nblack b\nstart short b bar:1,6:14 13:3,6:12\n" \
           "1 black 6-5 13/7 13/8\n2 white 6-6 pass\n"
    record = read_record(text)
    assert record.start == Position.from_string("short b bar:1,6:14 13:3,6:12")
    assert record.opening is None and write_record(record) == text


@pytest.mark.parametrize("text, match", [
    ("white a\nblack b\nopening 3 5\n", "no 'rules' line"),
    ("rules long\nblack b\nopening 3 5\n", "no 'white' line"),
    ("rules long\nwhite a\nblack b\n", "either an opening"),
    ("rules long\nwhite a\nblack b\nopening 3 5\nstart long w 24:15 24:15\n", "not both"),
    ("rules chess\nwhite a\nblack b\nopening 3 5\n", "line 1: rules must be"),
    ("rules long\nrules short\n", "line 2: a second 'rules' line"),
    ("rules long\nwhite\n", "line 2: a player's name"),
    ("rules long\nwhite a\nblack b\nopening 3\n", "line 4: 'opening' takes"),
    ("rules long\nwhite a\nblack b\nopening 3 3\n", "T6: equal opening dice"),
    ("rules long\nwhite a\nblack b\nstart long w 24:15 12:15\n", "line 4: T7"),
    ("rules long\nwhite a\nblack b\nstart long w 24:16 24:15\n", "line 4: white: cannot read"),
    ("rules short\nwhite a\nblack b\nstart long w 24:15 24:15\n", "line 4: the start position"),
    ("rules long\nwhite a\nblack b\nopening 3 5\n1 black 6-5 24/18 18/13\nwhite c\n",
     "line 6: a second 'white' line"),
    ("rules long\nwhite a\nblack b\n1 black 6-5 24/18 18/13\nopening 3 5\n",
     "line 5: the 'opening' line must come before the turns"),
    ("rules long\nwhite a\nblack b\nopening 3 5\n1 black 7-5 24/18\n", "line 5: expected"),
    ("rules long\nwhite a\nblack b\nopening 3 5\n1 black 6-5\n", "line 5: expected"),
    ("rules long\nwhite a\nblack b\nopening 3 5\nhello\n", "line 5: expected a header"),
    ("rules long\nwhite a\nblack b\nopening 3 5\n1 white 6-5 24/18 18/13\n",
     "line 5: move 1 is black's turn"),
    ("rules long\nwhite a\nblack b\nopening 3 5\n1 black 6-5 24/x\n", "line 5: cannot read"),
    ("rules long\nwhite a\nblack b\nopening 3 5\n0 black 6-5 24/18 18/13\n",
     "line 5: a move number"),
    ("rules long\nwhite a\nblack b\nopening 3 5\n2 black 6-5 24/18 18/13\n"
     "1 white 1-1 24/23\n", "line 6: move number 1 comes after move 2"),
    ("rules short\nwhite a\nblack b\nopening 3 5\n1 black 6-5 24/18 18/13\n",
     "line 5: T6: short nardy's first turn plays the opening throw 3 and 5"),
])
def test_reading_errors_name_the_line(text, match):
    with pytest.raises(InvalidRecordError, match=match):
        read_record(text)


def test_record_must_be_text():
    with pytest.raises(InvalidRecordError):
        read_record(b"rules long")  # type: ignore[arg-type]


@pytest.mark.parametrize("build", [
    lambda: GameRecord("long", ("a", "b"), None, (3, 5), ()),
    lambda: GameRecord(Rules.long(), ("a",), None, (3, 5), ()),
    lambda: GameRecord(Rules.long(), ("a", "b"), "long w 24:15 24:15", None, ()),
    lambda: GameRecord(Rules.long(), ("a", "b"), None, (3, 5), [RecordedTurn(1, "black", (6, 5),
                                                                             "24/18 18/13")]),
    lambda: RecordedTurn(1, "red", (6, 5), "pass"),
    lambda: RecordedTurn(1, "white", [6, 5], "pass"),
    lambda: RecordedTurn(True, "white", (6, 5), "pass"),
    lambda: RecordedTurn(1, "white", (6, 5), None),
    lambda: RecordedCube(1, "white", "redouble", 4),
    lambda: RecordedCube(1, "left", "double", 2),
    lambda: Win("white", 0),
    lambda: MatGame(-1, 1, ("a", "b"), (0, 0), ()),
    lambda: MatGame(5, 1, ("a", "b"), (0, -1), ()),
    lambda: MatGame(5, 1, ("a", ""), (0, 0), ()),
    lambda: MatGame(5, 1, ("a", "b"), (0, 0), ("24/18",)),
])
def test_record_values_check_their_fields(build):
    with pytest.raises(InvalidRecordError):
        build()


def test_rolls_are_written_high_die_first_and_read_in_either_order():
    game = Game("long", players=("a", "b"), opening=(6, 4))
    game.dice = (3, 6)  # thrown low die first
    game.play("24/21 21/15")
    text = game.record()
    assert "\n1 white 6-3 24/18 18/15\n" in text  # T2 form of the turn, 6-3 not 3-6
    assert game.history[0][0] == (6, 3)
    assert Game.from_record(text).history == game.history
    assert read_record(text.replace(" 6-3 ", " 3-6 ")).turns[0].roll == (3, 6)


# --------------------------------------------------------------------------- GNU Backgammon .mat

def test_mat_reads_turns_cube_actions_and_the_result():
    games = read_mat((GNUBG_DATA / "selfplay_0010.mat").read_text())
    assert len(games) == 1
    game = games[0]
    assert (game.match_length, game.number, game.players, game.scores) == \
        (5, 1, ("white", "black"), (0, 0))
    actions = game.actions
    assert actions[:2] == (RecordedTurn(1, "white", (5, 2), "13/8 24/22"),
                           RecordedTurn(1, "black", (3, 1), "6/5 8/5"))
    assert actions[2].line == 8
    # bar 25 -> bar, off 0 -> off, hits kept, an empty move is a pass
    assert RecordedTurn(3, "white", (4, 3), "bar/21 13/10") in actions
    assert RecordedTurn(22, "black", (6, 5), "5/off 5/off") in actions
    assert RecordedTurn(3, "black", (2, 1), "13/11 11/10*") in actions
    assert RecordedTurn(18, "white", (5, 1), "pass") in actions
    assert actions[7:9] == (RecordedCube(4, "black", "double", 2), RecordedCube(5, "white", "take", 2))
    assert game.cube == 8
    assert game.result == Win("black", 16) == actions[-1]


def test_mat_game_to_record_takes_t6_from_the_first_roll():
    record = read_mat((GNUBG_DATA / "selfplay_0010.mat").read_text())[0].to_record()
    assert record.opening == (5, 2) and record.start is None  # white threw the 5
    assert record.rules == Rules.short()
    assert all(isinstance(t, RecordedTurn) for t in record.turns)
    first_right = read_mat((GNUBG_DATA / "selfplay_0001.mat").read_text())[0].to_record()
    assert first_right.opening == (3, 6) and first_right.turns[0].side == "black"


def test_mat_rolls_are_written_high_die_first_as_gnubg_writes_them():
    game = MatGame(1, 1, ("white", "black"), (0, 0),
                   (RecordedTurn(1, "white", (2, 5), "13/8 24/22"),))
    assert " 52: 13/8 24/22" in write_mat([game])


def mat_game(*actions):
    return MatGame(1, 1, ("white", "black"), (0, 0), tuple(actions))


def test_a_roll_left_unplayed_before_the_opponents_win_is_a_resignation_not_a_pass():
    opening = RecordedTurn(1, "white", (3, 1), "8/5 6/5")
    resigned = mat_game(opening, RecordedTurn(1, "black", (6, 6), "pass"), Win("white", 1))
    assert resigned.to_record().turns == (opening,)
    passed = mat_game(opening, RecordedTurn(1, "black", (6, 6), "pass"), Win("black", 1))
    assert len(passed.to_record().turns) == 2


def test_mat_first_roll_cannot_be_a_double():
    with pytest.raises(InvalidRecordError, match="T6"):
        mat_game(RecordedTurn(1, "white", (3, 3), "8/5 8/5 6/3 6/3")).to_record()


def test_mat_game_without_turns_starts_at_the_start_position():
    record = mat_game(Win("white", 1)).to_record()
    assert record.start == Position.start("short") and record.turns == ()


@pytest.mark.parametrize("text, match", [
    (" Game 1\n", "line 1: expected the ' N point match' line"),
    ("", "no ' N point match' line"),
    (" 5 point match\n  1) 52: 13/8 24/22\n", "line 2: expected ' Game 1'"),
    (" 5 point match\n Game 1\n white 0 black 0\n", "line 3: expected the players"),
    (" 5 point match\n Game 1\n a : 0    b : 0\n  1) 52: 13/8 24/22 hello\n",
     "line 4: cannot read 'hello'"),
    (" 5 point match\n Game 1\n a : 0    b : 0\n  1) 52: 13/8 24/22\n bye\n",
     "line 5: cannot read 'bye'"),
    (" 5 point match\n Game 1\n a : 0    b : 0\n  1) 52: 13/8 24/22\n Wins\n",
     "line 5: cannot read 'Wins'"),
    (" 5 point match\n Game 1\n a : 0    b : 0\n     52: 13/8 24/22\n",
     "line 4: expected a numbered line"),
    (" 5 point match\n Game 1\n Game 2\n", "game 1 has no players"),
])
def test_mat_reading_errors_name_the_line(text, match):
    with pytest.raises(InvalidRecordError, match=match):
        read_mat(text)


@pytest.mark.parametrize("games", [
    [],
    ["not a game"],
    [mat_game(), MatGame(7, 2, ("white", "black"), (0, 0), ())],
    [mat_game(RecordedTurn(1, "white", (3, 1), "8/5 6/5"),
              RecordedTurn(2, "white", (3, 1), "8/5 6/5"))],
])
def test_write_mat_refuses_what_the_format_cannot_hold(games):
    with pytest.raises(InvalidRecordError):
        write_mat(games)


@pytest.mark.parametrize("path", MAT_FILES, ids=lambda p: p.name)
def test_gnubg_exports_are_written_back_byte_for_byte(path):
    text = path.read_text()
    games = read_mat(text)
    assert write_mat(games) == without_comments(text)
    assert read_mat(write_mat(games)) == games


@pytest.mark.parametrize("path", MAT_FILES, ids=lambda p: p.name)
def test_gnubg_games_replay_to_gnubgs_positions_and_scores(path):
    """After every turn gnubg played, the position has the Position ID gnubg printed (so
    both number each side's points alike: bar 25, off 0), and a game that ended on the board
    scores (S9 times the cube) as gnubg's 'Wins N points' says."""
    ids = path.with_suffix(".ids").read_text().split()
    replayed = []
    for mat_game_ in read_mat(path.read_text()):
        game = Game.from_record(mat_game_.to_record())
        replayed += [turn.position for _, turn in game.history]
        outcome = game.outcome(mat_game_.cube)
        if outcome is not None:
            assert mat_game_.result == Win(outcome.winner, outcome.points)
    assert [p.gnubg_id() if not p.is_game_over() else "-" for p in replayed] == ids


def test_format_is_chosen_by_extension_or_content():
    mat_text = (GNUBG_DATA / "selfplay_0010.mat").read_text()
    assert is_mat(mat_text) and is_mat("", "x.MAT") and not is_mat(EXAMPLE, "game.txt")
    assert len(read_games(mat_text, "match.txt")[0].turns) == 46
    assert read_games(EXAMPLE) == [read_record(EXAMPLE)]


MAT_SAMPLE = (GNUBG_DATA / "selfplay_0010.mat").read_text()


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` with a few characters replaced, inserted or deleted."""
    chars = list(text)
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(chars) - 1))
        kind = draw(st.sampled_from(["replace", "insert", "delete"]))
        new = draw(st.sampled_from(list("0123456789/*: \n-abcdefghijklmnopqrstuvwxyz()=,\t")))
        if kind == "replace":
            chars[where] = new
        elif kind == "insert":
            chars.insert(where, new)
        else:
            del chars[where]
    return "".join(chars)


@settings(max_examples=100, deadline=None)
@given(text=st.one_of(st.text(max_size=200), mutated(EXAMPLE)))
def test_bad_record_text_raises_only_documented_errors(text):
    try:
        Game.from_record(text)
    except (InvalidRecordError, IllegalTurnError):
        pass


@settings(max_examples=100, deadline=None)
@given(text=st.one_of(st.text(max_size=200), mutated(MAT_SAMPLE)))
def test_bad_mat_text_raises_only_documented_errors(text):
    try:
        games = read_mat(text)
        for game in games:
            Game.from_record(game.to_record())
        write_mat(games)
    except (InvalidRecordError, IllegalTurnError):
        pass


@pytest.mark.parametrize("separator", ["\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c",
                                       "\x1c", "\x1d", "\x1e"])
def test_a_name_with_any_line_break_is_refused_it_would_not_read_back(separator):
    """Issue 70 item 7: a name holding a line break that str.splitlines reads (U+2028 and
    its kin, not only \\r and \\n) was taken, and its record and .mat did not read back."""
    name = f"al{separator}ice"
    for make in (lambda: Game("short", seed=1, players=(name, "bob")),
                 lambda: Match("short", 3, seed=1, players=(name, "bob")),
                 lambda: check_name(name)):
        with pytest.raises(InvalidRecordError, match="one line"):
            make()
    game = Game("short", seed=1, players=("Алиса", "Боб"))  # any other text reads back
    assert Game.from_record(game.record()).players == ("Алиса", "Боб")


BLOCKED = ("short w bar:1,13:2,6:2,5:2,4:2,3:2,2:2,1:2 bar:1,13:2,6:2,5:2,4:2,3:2,2:2,1:2")


def _passes(count: int) -> str:
    """A legal record of ``count`` passes: each side on the bar against a closed board (T3:
    no step, a pass, for ever)."""
    import random

    chooser, lines = random.Random(count), []
    for i in range(count):
        high, low = sorted((chooser.randint(1, 6), chooser.randint(1, 6)), reverse=True)
        lines.append(f"{i + 1} {('white', 'black')[i % 2]} {high}-{low} pass\n")
    return f"rules short\nwhite a\nblack b\nstart {BLOCKED}\n" + "".join(lines)


def _traced(run):
    """``run()``'s result, the peak and the kept memory it allocated (tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    try:
        result = run()
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak, kept


def test_a_record_of_passes_replays_in_memory_proportional_to_the_file_T3():
    """Issue 70, item 4: 10^6 pass turns peaked at 26x the file (573 MB for 22 MB, 56 s of
    CPU through check-game). A game keeps each pass it has seen once: the replay's peak is
    under 10x the file, what the game keeps under 2x (22x and 15x before)."""
    text = _passes(30_000)
    game, peak, kept = _traced(lambda: Game.from_record(text))
    assert len(game.history) == 30_000 and game.record() == text
    assert peak < 10 * len(text) and kept < 2 * len(text), (peak, kept, len(text))


def test_a_huge_turn_line_is_refused_quoted_in_part_T1():
    """Issue 70, item 4: one 12 MB turn line peaked at 32x the file and its error quoted the
    whole turn (3 MB on stderr). The notation is refused unread past 200 characters."""
    text = "rules long\nwhite a\nblack b\nopening 5 3\n1 white 5-3 " + "24/19 " * 500_000
    with pytest.raises(InvalidRecordError) as caught:
        _traced(lambda: Game.from_record(text))
    message = str(caught.value)
    assert len(message) < 300 and "at most 200 characters" in message
    assert "(2,999,999 characters)" in message and message.startswith("line 5: ")

    def refused() -> None:
        try:
            Game.from_record(text)
        except InvalidRecordError:
            pass

    _, peak, kept = _traced(refused)
    assert peak < 6 * len(text) and kept < len(text) // 10, (peak, kept)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["long", "short"]))
def test_a_turn_written_as_the_game_writes_it_is_the_referees_turn_T1_T2(seed, game_name):
    """Game.play finds a turn written in its own notation (as records write turns) among the
    legal turns without the referee: the same Turn the referee returns, every turn of a
    random game."""
    import random

    chooser, game = random.Random(seed), Game(game_name, seed)
    while not game.is_over() and len(game.history) < 60:
        position, dice = game.position, game.dice
        turns = game.legal_turns()
        text = str(chooser.choice(list(turns)))
        assert game.play(text) == position.check_turn(dice, text)
