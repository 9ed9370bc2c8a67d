"""fastnardy.formats.svg: the picture agrees with the position (RULES §0 board coordinates), the
layouts are the ones players know (L1/L2 long, S1/S2/S5 short), highlighted steps become
arrows, and bad arguments raise documented errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from fastnardy import (FastNardyError, IllegalTurnError, InvalidPositionError, NotationError,
                       Position, Rules)
from fastnardy.formats import svg
from fastnardy.cli import main
from fastnardy.basics import mirror

from strategies import dice, positions

NS = "{http://www.w3.org/2000/svg}"


def parse(document: str) -> ET.Element:
    return ET.fromstring(document)


def having(root: ET.Element, *classes: str) -> list:
    """Elements whose class attribute holds every one of ``classes``."""
    return [e for e in root.iter() if set(classes) <= set(e.get("class", "").split())]


def game_code(position: Position) -> int:
    return 0 if position.rules.game == "long" else 1


def board_points(position: Position, side: str) -> dict:
    """A side's counts by board point (white's numbering, RULES §0)."""
    own = position.white_points if side == "white" else position.black_points
    if side == "white":
        return {p: own[p - 1] for p in range(1, 25)}
    return {mirror(game_code(position), q): own[q - 1] for q in range(1, 25)}


def number_label(root: ET.Element, point: int) -> ET.Element:
    (label,) = [e for e in having(root, "point-number") if e.get("data-point") == str(point)]
    return label


def xy(element: ET.Element, x: str = "x", y: str = "y") -> tuple:
    return float(element.get(x)), float(element.get(y))


def top_row_right_to_left(root: ET.Element) -> list:
    """The board points along the top edge, from the right."""
    labels = having(root, "point-number")
    top = min(xy(e)[1] for e in labels)
    row = [e for e in labels if xy(e)[1] == top]
    return [int(e.get("data-point")) for e in sorted(row, key=lambda e: -xy(e)[0])]


def bottom_row_right_to_left(root: ET.Element) -> list:
    labels = having(root, "point-number")
    bottom = max(xy(e)[1] for e in labels)
    row = [e for e in labels if xy(e)[1] == bottom]
    return [int(e.get("data-point")) for e in sorted(row, key=lambda e: -xy(e)[0])]


# --------------------------------------------------------------------------- contents

@settings(max_examples=80, deadline=None)
@given(positions(), st.booleans())
def test_checkers_bar_and_trays_match_the_position(position, flipped):
    """Each stack is drawn with up to five checkers and, above five, a count label; the bar
    (S5) and the borne-off trays hold the position's checkers."""
    root = parse(svg.board(position, flipped=flipped))
    for side in ("white", "black"):
        drawn = Counter(e.get("data-point") for e in having(root, "checker", side))
        labels = {e.get("data-point"): e.text for e in having(root, "stack-count", side)}
        bar = position.white_bar if side == "white" else position.black_bar
        expected = {str(p): n for p, n in board_points(position, side).items()}
        expected["bar"] = bar
        for where, count in expected.items():
            assert drawn[where] == min(count, 5), (side, where)
            assert labels.get(where) == (str(count) if count > 5 else None), (side, where)
        assert set(drawn) <= set(expected)
        off = position.white_off if side == "white" else position.black_off
        assert len(having(root, "off", side)) == off
        assert [e.text for e in having(root, "off-count", side)] == ([str(off)] if off else [])


@settings(max_examples=60, deadline=None)
@given(positions(), st.booleans())
def test_checkers_stand_on_their_points(position, flipped):
    """Every checker is centred on its point's column, in the row where its number is, and no
    two checkers overlap."""
    root = parse(svg.board(position, flipped=flipped))
    middle = float(root.get("viewBox").split()[3]) / 2
    for checker in having(root, "checker"):
        where = checker.get("data-point")
        if where == "bar":
            continue
        label_x, label_y = xy(number_label(root, int(where)))
        cx, cy = xy(checker, "cx", "cy")
        assert cx == label_x
        assert (cy < middle) == (label_y < middle)
    circles = [(*xy(c, "cx", "cy"), float(c.get("r"))) for c in having(root, "checker")]
    for i, (x1, y1, r1) in enumerate(circles):
        for x2, y2, r2 in circles[:i]:
            assert (x1 - x2) ** 2 + (y1 - y2) ** 2 >= (r1 + r2) ** 2, "checkers overlap"


@settings(max_examples=40, deadline=None)
@given(positions())
def test_the_side_to_move_and_the_title(position):
    root = parse(svg.board(position))
    assert root.tag == f"{NS}svg"
    assert root[0].tag == f"{NS}title"
    assert position.to_string() in root[0].text
    (marker,) = having(root, "to-move")
    assert marker.get("data-side") == position.turn
    assert marker.text == f"{position.turn} to move"


def test_output_is_deterministic_and_has_no_ids():
    position = Position.start("short")
    document = svg.board(position, highlight="24/18 13/8")
    assert document == svg.board(position, highlight="24/18 13/8")
    assert all(e.get("id") is None for e in parse(document).iter())


def test_start_positions_stack_fifteen_on_the_heads():
    """L1: each side's 15 checkers on its head: white's board point 24, black's 12."""
    root = parse(svg.board(Position.start("long")))
    for side, head in (("white", "24"), ("black", "12")):
        assert [e.get("data-point") for e in having(root, "checker", side)] == [head] * 5
        assert [e.text for e in having(root, "stack-count", side)] == ["15"]


# --------------------------------------------------------------------------- layout

def test_white_view_of_both_games():
    """RULES §0: white's points 13-24 along the top from the left, 12-1 along the bottom, so
    white's head (long) / 24-point (short) is at the top right and its home at the bottom
    right, for both games."""
    for game in ("long", "short"):
        root = parse(svg.board(Position.start(game)))
        assert top_row_right_to_left(root) == list(range(24, 12, -1))
        assert bottom_row_right_to_left(root) == list(range(1, 13))


def test_flipped_long_board_puts_blacks_head_top_right():
    """L2: both sides go counter-clockwise, so black's view is the board turned round: black's
    head (board point 12) top right, black's home (board points 13-18) bottom right."""
    root = parse(svg.board(Position.start("long"), flipped=True))
    assert top_row_right_to_left(root) == [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert bottom_row_right_to_left(root) == list(range(13, 25))


def test_flipped_short_board_puts_blacks_home_bottom_right():
    """S2: black moves the other way round, so its view is the board mirrored top to bottom:
    black's 24-point (board point 1) top right and its home (board points 19-24) bottom
    right."""
    root = parse(svg.board(Position.start("short"), flipped=True))
    assert top_row_right_to_left(root) == list(range(1, 13))
    assert bottom_row_right_to_left(root) == list(range(24, 12, -1))


def test_trays_sit_beside_each_home():
    """White's tray beside its home at the bottom right; black's at the top, on the right in
    short nardy (S2) and on the left, beside its home, in long nardy (L2)."""
    for game, black_side in (("short", "right"), ("long", "left")):
        root = parse(svg.board(Position.start(game)))
        width = float(root.get("viewBox").split()[2])
        trays = {e.get("data-side"): xy(e) for e in having(root, "tray")}
        assert trays["white"][0] > width / 2 and trays["white"][1] > trays["black"][1]
        assert (trays["black"][0] > width / 2) == (black_side == "right")


def test_short_boards_have_a_bar_and_long_boards_a_hinge():
    assert having(parse(svg.board(Position.start("short"))), "bar")
    assert not having(parse(svg.board(Position.start("long"))), "bar")
    assert having(parse(svg.board(Position.start("long"))), "hinge")


@pytest.mark.parametrize("game", ["long", "short"])
@pytest.mark.parametrize("turn", ["white", "black"])
def test_numbering(game, turn):
    """Points are labelled in white's numbering (board coordinates), black's (the mirror of
    RULES §0) or the side to move's."""
    position = Position.from_points(Rules.of(game), Position.start(game).white_points,
                                    Position.start(game).black_points, turn)
    code = 0 if game == "long" else 1
    expected = {"white": lambda p: p, "black": lambda p: mirror(code, p)}
    expected["mover"] = expected[turn]
    for numbering, label in expected.items():
        for flipped in (False, True):
            root = parse(svg.board(position, numbering=numbering, flipped=flipped))
            for point in range(1, 25):
                assert number_label(root, point).text == str(label(point))


def test_size_sets_the_width_and_keeps_the_shape():
    natural = parse(svg.board(Position.start("short")))
    _, _, width, height = map(float, natural.get("viewBox").split())
    assert (float(natural.get("width")), float(natural.get("height"))) == (width, height)
    scaled = parse(svg.board(Position.start("short"), size=300))
    assert scaled.get("width") == "300"
    assert scaled.get("height") == str(round(300 * height / width))


def test_repr_svg_is_the_board():
    position = Position.start("long")
    assert position._repr_svg_() == svg.board(position)


# --------------------------------------------------------------------------- arrows

@settings(max_examples=60, deadline=None)
@given(positions(), dice, st.booleans(), st.data())
def test_a_highlighted_turn_is_one_arrow_per_step(position, roll, flipped, data):
    turns = position.legal_turns(roll)
    if not turns:  # T4: a finished game has no turns to draw
        return
    turn = data.draw(st.sampled_from(list(turns)))
    document = svg.board(position, highlight=turn, flipped=flipped)
    root = parse(document)
    arrows = having(root, "arrow")
    assert [(int(a.get("data-src")), int(a.get("data-dst"))) for a in arrows] == \
        [(s.src, s.dst) for s in turn.steps]
    assert len(having(root, "hit")) == sum(s.hit for s in turn.steps)
    # notation draws the same picture, hits (S3) included
    assert svg.board(position, highlight=str(turn), flipped=flipped) == document
    if turn.steps:
        # the first arrow leaves from a checker of the mover on the step's source
        first = turn.steps[0]
        source = "bar" if first.src == 25 else str(
            first.src if position.turn == "white" else mirror(game_code(position), first.src))
        starts = {xy(c, "cx", "cy") for c in having(root, "checker", position.turn)
                  if c.get("data-point") == source}
        (line,) = arrows[0].iter(f"{NS}line")
        assert xy(line, "x1", "y1") in starts


def test_a_chain_of_steps_joins_up():
    """L4: one checker's steps are drawn end to start, 24/18 18/13 as two joined arrows."""
    root = parse(svg.board(Position.start("long"), highlight="24/18 18/13"))
    first, second = having(root, "arrow")
    tip = next(first.iter(f"{NS}polygon")).get("points").split()[0]
    (line,) = second.iter(f"{NS}line")
    assert tip == f"{line.get('x1')},{line.get('y1')}"


def test_a_hit_is_marked():
    """S3: bar/21 21/18* enters and hits black's blot on board point 18."""
    position = Position.from_string(
        "short w bar:1,13:4,8:3,6:4,4:2,2:1 24:2,13:4,8:3,7:1,6:3,5:2")
    root = parse(svg.board(position, highlight="bar/21 21/18*"))
    assert [a.get("data-dst") for a in having(root, "arrow")] == ["21", "18"]
    (hit,) = having(root, "hit")
    (blot,) = [c for c in having(root, "checker", "black") if c.get("data-point") == "18"]
    assert xy(hit, "cx", "cy") == xy(blot, "cx", "cy")


def test_only_the_first_checker_to_land_on_a_blot_hits():
    """S3: 13/10* 13/10 hits once; the second checker lands beside the first."""
    position = Position.from_string("short w 13:5,8:3,6:5,24:2 24:2,15:1,13:4,8:3,6:5")
    (turn,) = [t for t in position.legal_turns((3, 3)) if str(t) == "24/21 24/21 13/10* 13/10"]
    for highlight in (turn, "24/21(2) 13/10(2)", "24/21 24/21 13/10 13/10"):
        root = parse(svg.board(position, highlight=highlight))
        arrows = having(root, "arrow")
        assert [a.get("data-dst") for a in arrows] == ["21", "21", "10", "10"]
        assert [len(having(a, "hit")) for a in arrows] == [0, 0, 1, 0]


def test_a_pass_draws_no_arrow():
    """T3: white on the bar facing a closed home board passes."""
    position = Position.from_string("short w bar:1,13:14 6:2,5:2,4:2,3:2,2:2,1:2,13:3")
    (turn,) = position.legal_turns((6, 6))
    assert turn.is_pass()
    root = parse(svg.board(position, highlight=turn))
    assert not having(root, "arrow")
    assert having(root, "game")[0].text == "short nardy: pass"
    assert root[0].text.endswith("white plays pass")


# --------------------------------------------------------------------------- bad arguments

@pytest.mark.parametrize("kwargs", [
    {"size": 0}, {"size": -5}, {"size": True}, {"size": "600"}, {"size": 2.5},
    {"flipped": "yes"}, {"flipped": None},
    {"numbering": "red"}, {"numbering": None}, {"numbering": 1},
])
def test_bad_options_raise_fastnardy_errors(kwargs):
    with pytest.raises(FastNardyError):
        svg.board(Position.start("long"), **kwargs)


@pytest.mark.parametrize("thing", [None, "long w 24:15 24:15", 42])
def test_only_positions_are_drawn(thing):
    with pytest.raises(InvalidPositionError):
        svg.board(thing)


def test_a_highlight_must_be_a_legal_turn_of_the_position():
    start = Position.start("long")
    with pytest.raises(IllegalTurnError) as caught:
        svg.board(start, highlight="24/20 24/22")  # L5: two checkers off the head
    assert caught.value.rule == "L5"
    with pytest.raises(NotationError):
        svg.board(start, highlight="24/seven")
    other = Position.start("short").legal_turns((6, 5))[0]
    with pytest.raises(IllegalTurnError) as caught:
        svg.board(start, highlight=other)
    assert caught.value.rule == "T1"
    with pytest.raises(IllegalTurnError):
        svg.board(start, highlight=[(24, 18)])


# --------------------------------------------------------------------------- PNG and CLI

def no_renderer(monkeypatch):
    def missing(name):
        raise ImportError(name)
    monkeypatch.setattr(svg.importlib, "import_module", missing)
    monkeypatch.setattr(svg.shutil, "which", lambda name: None)


def test_to_png_without_a_renderer_says_what_to_install(monkeypatch):
    no_renderer(monkeypatch)
    with pytest.raises(FastNardyError, match="cairosvg.*Chromium"):
        svg.to_png(svg.board(Position.start("long")))


@pytest.mark.parametrize("document", ["", "<svg", "<svg xmlns='http://www.w3.org/2000/svg'/>"])
def test_to_png_needs_an_svg_document_with_a_size(document):
    with pytest.raises(FastNardyError):
        svg.to_png(document)


def test_to_png_renderer_names():
    with pytest.raises(FastNardyError, match="renderer"):
        svg.to_png(svg.board(Position.start("long")), renderer="inkscape")


def test_to_png_through_cairosvg():
    pytest.importorskip("cairosvg")
    picture = svg.to_png(svg.board(Position.start("short"), size=200), renderer="cairosvg")
    assert picture.startswith(b"\x89PNG\r\n\x1a\n")
    assert int.from_bytes(picture[16:20], "big") == 200  # the IHDR width


def test_to_png_through_chromium():
    if svg.shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed")
    picture = svg.to_png(svg.board(Position.start("long"), size=240), renderer="chromium")
    assert picture.startswith(b"\x89PNG\r\n\x1a\n")
    assert int.from_bytes(picture[16:20], "big") == 240


def test_cli_board_writes_svg_and_png(tmp_path, capsys):
    pytest.importorskip("cairosvg")
    picture, png = tmp_path / "board.svg", tmp_path / "board.png"
    assert main(["board", "long", "--svg", str(picture), "--png", str(png),
                 "--highlight", "24/18 18/13", "--flipped"]) == 0
    root = parse(picture.read_text())
    assert len(having(root, "arrow")) == 2
    assert top_row_right_to_left(root)[0] == 12  # flipped: black's head top right
    assert png.read_bytes().startswith(b"\x89PNG")
    assert "long nardy" in capsys.readouterr().out


def test_cli_png_without_a_renderer_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    no_renderer(monkeypatch)
    assert main(["board", "short", "--png", str(tmp_path / "board.png")]) == 2
    captured = capsys.readouterr()
    error = captured.err
    assert error.startswith("error: ") and error.count("\n") == 1
    assert captured.out == ""  # it fails before the board is printed
    assert not (tmp_path / "board.png").exists()


def test_cli_bad_highlight_is_an_error(tmp_path, capsys):
    assert main(["board", "long", "--svg", str(tmp_path / "b.svg"),
                 "--highlight", "24/20 24/22"]) == 2
    assert "L5" in capsys.readouterr().err
