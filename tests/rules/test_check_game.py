"""``fastnardy check-game FILE...``: replays records, names the first illegal turn of each game;
exit 0 all legal, 1 an illegal turn, 2 a file that cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastnardy import Game, Position
from fastnardy.cli import main

GNUBG_DATA = Path(__file__).parents[1] / "data" / "gnubg"

LEGAL = "rules long\nwhite a\nblack b\nopening 6 1\n1 white 6-5 24/18 18/13\n"
ILLEGAL = LEGAL + "2 black 4-2 24/20 24/22\n"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_every_gnubg_self_play_move_is_legal(capsys):
    """Every move GNU Backgammon played in the committed self-play matches is legal here, and
    every roll it could not play is a pass here (T3)."""
    files = sorted(map(str, GNUBG_DATA.glob("*.mat")))
    assert len(files) == 20
    assert main(["check-game", *files]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 20 and all(line.endswith("all legal") for line in out)


def test_legal_record_exits_0(tmp_path, capsys):
    path = write(tmp_path, "game.txt", LEGAL)
    assert main(["check-game", path]) == 0
    assert capsys.readouterr().out == f"{path}: 1 game, 1 turns, all legal\n"


def test_illegal_turn_exits_1_naming_file_game_move_roll_rule_and_line(tmp_path, capsys):
    path = write(tmp_path, "game.txt", ILLEGAL)
    assert main(["check-game", path]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: game 1: illegal turn: L5: ")
    assert "move 2, black 4-2 24/20 24/22, line 6" in out


def test_illegal_move_in_a_mat_file(tmp_path, capsys):
    """A gnubg move altered to break S5 (a checker on the bar must enter first)."""
    text = (GNUBG_DATA / "selfplay_0010.mat").read_text()
    assert "  3) 43: 25/21 13/10" in text
    path = write(tmp_path, "bad.mat", text.replace("  3) 43: 25/21 13/10", "  3) 43: 13/9 13/10"))
    assert main(["check-game", path]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: game 1: illegal turn: S5: ")
    assert "move 3, white 4-3 13/9 13/10, line 9" in out


def test_a_pass_that_is_not_forced_is_illegal(tmp_path, capsys):
    text = (GNUBG_DATA / "selfplay_0010.mat").read_text()
    path = write(tmp_path, "bad.mat", text.replace(" 11) 65: 11/6 8/2 ", " 11) 65:          "))
    assert main(["check-game", path]) == 1
    assert "illegal turn: S6: a play using both dice exists (move 11, white 6-5 pass" \
        in capsys.readouterr().out


def test_each_game_of_a_file_is_checked(tmp_path, capsys):
    """A .mat read by content (not by extension); the illegal first game does not hide the
    second."""
    text = (GNUBG_DATA / "selfplay_0001.mat").read_text()
    broken = text.replace("  1)                             63: 24/18 18/15",
                          "  1)                             63: 24/18 18/14", 1) \
        .replace("  1) 65: 24/18 18/13", "  1) 65: 24/18 18/12", 1)  # game 2's first line
    path = write(tmp_path, "match.txt", broken)
    assert main(["check-game", path]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0].startswith(f"{path}: game 1: illegal turn: S4: ") and "line 7" in out[0]
    assert out[1].startswith(f"{path}: game 2: illegal turn: S4: ") and "line 22" in out[1]


def test_a_record_written_by_game_checks_clean(tmp_path, capsys):
    game = Game("short", seed=3)
    while not game.is_over():
        game.play(game.legal_turns()[0])
    path = write(tmp_path, "short.txt", game.record())
    assert main(["check-game", path]) == 0
    assert f"{len(game.history)} turns, all legal" in capsys.readouterr().out


@pytest.mark.parametrize("name, content", [
    ("missing.txt", None),
    ("garbage.txt", "hello world\n"),
    ("garbage.mat", "hello world\n"),
    ("latin1.txt", b"rules long\nwhite J\xf6rg\n"),
])
def test_unreadable_file_exits_2(tmp_path, capsys, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert main(["check-game", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"{path}: error: ")


def test_worst_status_of_several_files(tmp_path, capsys):
    legal, illegal = write(tmp_path, "a.txt", LEGAL), write(tmp_path, "b.txt", ILLEGAL)
    assert main(["check-game", legal, illegal]) == 1
    assert main(["check-game", str(tmp_path / "none.txt"), illegal, legal]) == 2
    out = capsys.readouterr().out
    assert out.count("all legal") == 2 and out.count("illegal turn") == 2


def test_a_turn_whose_notation_does_not_read_is_exit_2_not_illegal_T1(tmp_path, capsys):
    game = Game.from_position(Position.start("short"), seed=1)
    game.dice = (6, 5)
    game.play("24/13")
    record = tmp_path / "game.txt"
    record.write_text(game.record().replace("24/18 18/13", "24/1x"))
    assert main(["check-game", str(record)]) == 2
    captured = capsys.readouterr()
    assert "T1: cannot read point '1x'" in captured.err and "all legal" not in captured.out
    record.write_text(game.record().replace("24/18 18/13", "24/13"))
    assert main(["check-game", str(record)]) == 0
