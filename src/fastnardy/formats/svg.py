"""SVG pictures of positions, as python-chess's ``chess.svg.board`` draws chess boards.

``board(position)`` returns an SVG document (text). The board is laid out in the viewer's own
numbering (RULES §0): white's, or black's when ``flipped``. The viewer's points 13-24 run left
to right along the top and its points 12-1 left to right along the bottom, so its head (long
nardy) or 24-point (short nardy) is at the top right and its home at the bottom right, with
its borne-off tray beside it.

* Short nardy is drawn as a backgammon board: the opponent moves the other way round (S2), its
  home is at the top right, and the bar (S5) runs down the middle.
* Long nardy: both sides move counter-clockwise (L2); the opponent's head is at the bottom
  left and its home (and tray) at the top left. The middle strip is only the board's hinge.

Elements carry classes and data attributes so programs can read the picture back: checkers
are ``<circle class="checker white" data-point="13">`` (``data-point`` is the board point,
white's numbering, or ``bar``); a stack drawn with more checkers than fit (five) has a
``<text class="stack-count ...">`` label; borne-off checkers are ``<rect class="off ...">``
slabs in the trays; a highlighted turn's steps are ``<g class="arrow">`` groups.

``to_png(document)`` rasterises a document through cairosvg (the ``[svg]`` extra) or headless
Chromium.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

from .. import notation, referee
from .._kernel import PackedPosition, PackedTurn
from ..basics import BLACK, LONG_GAME, SHORT_GAME, WHITE, StepTuple, mirror
from ..errors import FastNardyError, IllegalTurnError, InvalidPositionError
from ..rules import LONG

# Drawn from the kernel's PackedPosition and PackedTurn (the cores of Position and Turn), so
# that this module never imports fastnardy.position, which reaches it from _repr_svg_.
NUMBERINGS = (WHITE, BLACK, "mover")
RENDERERS = ("cairosvg", "chromium")
STACK = 5  # checkers drawn on one point or on the bar; a label counts the rest

# geometry, in viewBox units (1 unit = 1 px at the natural size)
POINT_W = 40.0     # width of a point
RADIUS = 17.5      # checker radius
PITCH = 36.0       # distance between stacked checkers
TRIANGLE_H = 190.0
MIDDLE_H = 40.0    # gap between the two rows
FRAME = 22.0       # wooden frame; the point numbers are printed on it
BAR_W = 44.0
TRAY_W = 44.0
CAPTION_H = 34.0
INNER_H = 2 * TRIANGLE_H + MIDDLE_H
SLAB_PITCH = (TRIANGLE_H - 8) / 15
SLAB_H = SLAB_PITCH - 2.5

COLOURS = {
    "frame": "#6b4423", "frame-edge": "#3e2512", "field": "#f1e2bf", "tray": "#d9c193",
    "point-dark": "#9c3b22", "point-light": "#c9a468", "number": "#f5e9cc",
    "white": "#fbf8f0", "white-edge": "#5a5a5a", "white-rim": "#d2ccbd",
    "black": "#2a2623", "black-edge": "#000000", "black-rim": "#4a443f",
    "arrow": "#1f78c8", "hit": "#d62728", "caption": "#2b2b2b", "background": "#ffffff",
}

Location = Tuple[str, Union[int, str]]  # ("point", board point) | ("bar", side) | ("off", side)


def board(position: PackedPosition, *, size: Optional[int] = None, flipped: bool = False,
          highlight: Union[PackedTurn, str, None] = None, numbering: str = WHITE) -> str:
    """The position as an SVG document.

    ``size`` is the picture's width in pixels (None: the natural size, 634 or 700); ``flipped``
    shows the board from black's side (black's home at the bottom right); ``highlight`` is a
    legal turn of this position, a :class:`~fastnardy.Turn` or its notation, drawn as one arrow per step;
    ``numbering`` labels the points in ``"white"``'s numbering (board coordinates, RULES §0),
    ``"black"``'s or the side to move's (``"mover"``).

    Raises InvalidPositionError for a non-Position, IllegalTurnError (rule id first) for a
    highlight that is not a legal turn of this position, FastNardyError for a bad option.
    """
    if not isinstance(position, PackedPosition):
        raise InvalidPositionError(f"board() draws a Position, not {position!r}")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise FastNardyError(f"size must be a positive number of pixels or None, not {size!r}")
    if not isinstance(flipped, bool):
        raise FastNardyError(f"flipped must be True or False, not {flipped!r}")
    if not isinstance(numbering, str) or numbering not in NUMBERINGS:
        raise FastNardyError(f"numbering must be one of {', '.join(map(repr, NUMBERINGS))}, "
                             f"not {numbering!r}")
    steps = _highlight_steps(position, highlight)
    layout = _Layout(position.rules.game == LONG, BLACK if flipped else WHITE)
    labels = position.turn if numbering == "mover" else numbering
    return _Drawing(position, layout, labels, size).document(steps, highlight is not None)


@dataclass(frozen=True)
class _Layout:
    """Where things are: the viewer's points 13-24 along the top, 12-1 along the bottom."""

    long_game: bool
    viewer: str

    @property
    def game(self) -> int:
        return LONG_GAME if self.long_game else SHORT_GAME

    @property
    def left_tray(self) -> bool:
        """Long nardy: the opponent's home, and so its tray, is at the top left."""
        return self.long_game

    @property
    def field_x(self) -> float:
        return FRAME + (TRAY_W + FRAME if self.left_tray else 0.0)

    @property
    def width(self) -> float:
        return self.field_x + 12 * POINT_W + BAR_W + FRAME + TRAY_W + FRAME

    @property
    def height(self) -> float:
        return FRAME + INNER_H + FRAME + CAPTION_H

    @property
    def bar_x(self) -> float:
        return self.field_x + 6 * POINT_W

    @property
    def middle_y(self) -> float:
        return FRAME + TRIANGLE_H + MIDDLE_H / 2

    def own(self, point: int) -> int:
        """A board point (white's numbering) in the viewer's numbering."""
        return point if self.viewer == WHITE else mirror(self.game, point)

    def on_top(self, point: int) -> bool:
        return self.own(point) >= 13

    def point_x(self, point: int) -> float:
        """The centre line of a board point."""
        mine = self.own(point)
        column = mine - 13 if mine >= 13 else 12 - mine
        return self.field_x + column * POINT_W + (BAR_W if column >= 6 else 0.0) + POINT_W / 2

    def checker_y(self, point: int, index: int) -> float:
        """Centre of the index-th checker (0 = at the edge) of a point's stack."""
        offset = RADIUS + 1 + index * PITCH
        return FRAME + offset if self.on_top(point) else FRAME + INNER_H - offset

    def bar_y(self, side: str, index: int) -> float:
        """Bar checkers stack from the middle outward, each side toward its own half."""
        offset = MIDDLE_H / 2 + 2 + index * PITCH
        return self.middle_y + offset if side == self.viewer else self.middle_y - offset

    def tray_x(self, side: str) -> float:
        """Left edge of a side's tray: the viewer's at the right; the opponent's at the right
        (short) or at the left (long), beside its home."""
        if side != self.viewer and self.left_tray:
            return FRAME
        return self.bar_x + BAR_W + 6 * POINT_W + FRAME

    def tray_y(self, side: str) -> float:
        """Top edge of a side's tray: the viewer's in the lower half, the opponent's above."""
        return FRAME + INNER_H - TRIANGLE_H if side == self.viewer else FRAME

    def slab_y(self, side: str, index: int) -> float:
        """Top of the index-th borne-off slab, stacked from the board's edge inward."""
        if side == self.viewer:
            return FRAME + INNER_H - 4 - (index + 1) * SLAB_PITCH + (SLAB_PITCH - SLAB_H) / 2
        return FRAME + 4 + index * SLAB_PITCH + (SLAB_PITCH - SLAB_H) / 2

    def anchor(self, where: Location, index: int) -> Tuple[float, float]:
        """Where an arrow starts or ends: the index-th checker of a stack or tray."""
        kind, key = where
        if kind == "point":
            point = int(key)
            return self.point_x(point), self.checker_y(point, min(index, STACK - 1))
        side = str(key)
        if kind == "bar":
            return self.bar_x + BAR_W / 2, self.bar_y(side, min(index, STACK - 1))
        return (self.tray_x(side) + TRAY_W / 2,
                self.slab_y(side, min(index, 14)) + SLAB_H / 2)


def _highlight_steps(position: PackedPosition, highlight: object) -> Tuple[StepTuple, ...]:
    """The steps to draw: a Turn's own, or notation's in the order written (hits found by S3).
    Either must be a legal turn of ``position`` (``play`` referees it)."""
    if highlight is None:
        return ()
    if isinstance(highlight, PackedTurn):
        if not highlight._is_turn_of(position, None):
            referee.play(position, highlight, None)  # IllegalTurnError (T1): another's Turn
        return tuple(highlight.steps)
    if not isinstance(highlight, str):
        raise IllegalTurnError("T1", f"highlight must be a Turn of this position or turn "
                                     f"notation, not {highlight!r}")
    referee.play(position, highlight, None)
    me, _, opponent, _ = position.mover_frame()
    game = LONG_GAME if position.rules.game == LONG else SHORT_GAME
    landed = set()
    steps = []
    for src, dst in notation.parse_turn(highlight):
        # S3: a step hits a lone opponent checker; long nardy never hits (L3)
        hit = (game == 1 and 0 < dst < 25 and opponent[mirror(game, dst) - 1] == 1
               and dst not in landed)
        landed.add(dst)
        steps.append((src, dst, hit))
    return tuple(steps)


class _Drawing:
    """Builds the element tree of one picture."""

    def __init__(self, position: PackedPosition, layout: _Layout, labels: str,
                 size: Optional[int]):
        self.position = position
        self.layout = layout
        self.labels = labels
        self.size = size
        self.root = ET.Element("svg")
        self.counts = ET.Element("g", {"class": "stack-counts"})  # laid over the arrows

    # ------------------------------------------------------------------ helpers
    def add(self, tag: str, *, parent: Optional[ET.Element] = None, text: Optional[str] = None,
            cls: Optional[str] = None, data: Optional[Dict[str, object]] = None,
            **attributes: object) -> ET.Element:
        """A child element: ``cls`` is the class, ``data`` the ``data-*`` attributes, and the
        keywords the SVG attributes (``stroke_width`` → ``stroke-width``)."""
        names = {"class": cls} if cls is not None else {}
        names.update({f"data-{key}": _value(value) for key, value in (data or {}).items()})
        names.update({key.replace("_", "-"): _value(value) for key, value in attributes.items()})
        element = ET.SubElement(self.root if parent is None else parent, tag, names)
        if text is not None:
            element.text = text
        return element

    def points_of(self, side: str) -> Dict[int, int]:
        """A side's checker counts by board point (white's numbering)."""
        own = self.position.white_points if side == WHITE else self.position.black_points
        if side == WHITE:
            return {p: own[p - 1] for p in range(1, 25)}
        return {mirror(self.layout.game, q): own[q - 1] for q in range(1, 25)}

    def bar_of(self, side: str) -> int:
        return self.position.white_bar if side == WHITE else self.position.black_bar

    def off_of(self, side: str) -> int:
        return self.position.white_off if side == WHITE else self.position.black_off

    # ------------------------------------------------------------------ the picture
    def document(self, steps: Tuple[StepTuple, ...], highlighted: bool) -> str:
        layout = self.layout
        width, height = layout.width, layout.height
        shown = width if self.size is None else float(self.size)
        self.root.attrib.update({
            "xmlns": "http://www.w3.org/2000/svg", "version": "1.1",
            "class": f"fastnardy-board {'long' if layout.long_game else 'short'}",
            "viewBox": f"0 0 {_number(width)} {_number(height)}",
            "width": _number(shown), "height": _number(round(shown * height / width)),
        })
        played = notation.format_steps(steps) if highlighted else None
        self.add("title", text=self.title(played))
        self.add("rect", x=0, y=0, width=width, height=height, fill=COLOURS["background"])
        self.draw_frame()
        self.draw_points()
        for side in (WHITE, BLACK):
            self.draw_checkers(side)
            self.draw_tray(side)
        self.draw_caption(played)
        self.draw_arrows(steps)
        self.root.append(self.counts)
        ET.indent(self.root, space="")
        return ET.tostring(self.root, encoding="unicode") + "\n"

    def title(self, played: Optional[str]) -> str:
        position = self.position
        text = (f"{position.rules.game} nardy, {position.turn} to move: "
                f"{notation.format_position(position)}")
        if played is not None:
            text += f"; {position.turn} plays {played}"
        return text

    def draw_frame(self) -> None:
        layout = self.layout
        self.add("rect", cls="frame", x=0, y=0, width=layout.width,
                 height=FRAME + INNER_H + FRAME, rx=6, fill=COLOURS["frame"],
                 stroke=COLOURS["frame-edge"], stroke_width=2)
        for x in (layout.field_x, layout.bar_x + BAR_W):
            self.add("rect", cls="field", x=x, y=FRAME, width=6 * POINT_W,
                     height=INNER_H, fill=COLOURS["field"], stroke=COLOURS["frame-edge"],
                     stroke_width=1.5)
        self.add("rect", cls="hinge" if layout.long_game else "bar", x=layout.bar_x, y=FRAME,
                 width=BAR_W, height=INNER_H, fill=COLOURS["frame"])

    def draw_points(self) -> None:
        layout = self.layout
        for point in range(1, 25):
            x = layout.point_x(point)
            base = FRAME if layout.on_top(point) else FRAME + INNER_H
            tip = base + (TRIANGLE_H if layout.on_top(point) else -TRIANGLE_H)
            dark = layout.own(point) % 2 == 0
            self.add("polygon", cls="point", data={"point": point},
                     points=f"{_number(x - POINT_W / 2 + 1)},{_number(base)} "
                            f"{_number(x + POINT_W / 2 - 1)},{_number(base)} "
                            f"{_number(x)},{_number(tip)}",
                     fill=COLOURS["point-dark" if dark else "point-light"])
            label = point if self.labels == WHITE else mirror(layout.game, point)
            number_y = FRAME / 2 if layout.on_top(point) else FRAME + INNER_H + FRAME / 2
            self.add("text", text=str(label), cls="point-number", data={"point": point},
                     x=x, y=number_y, dy="0.35em", text_anchor="middle", font_size=12,
                     font_family="sans-serif", font_weight="bold", fill=COLOURS["number"])

    def draw_checkers(self, side: str) -> None:
        layout = self.layout
        for point, count in self.points_of(side).items():
            centres = [(layout.point_x(point), layout.checker_y(point, i))
                       for i in range(min(count, STACK))]
            self.draw_stack(side, str(point), count, centres)
        bar = self.bar_of(side)
        self.draw_stack(side, "bar", bar, [(layout.bar_x + BAR_W / 2, layout.bar_y(side, i))
                                           for i in range(min(bar, STACK))])

    def draw_stack(self, side: str, where: str, count: int,
                   centres: List[Tuple[float, float]]) -> None:
        for x, y in centres:
            self.add("circle", cls=f"checker {side}", data={"point": where},
                     cx=x, cy=y, r=RADIUS, fill=COLOURS[side], stroke=COLOURS[f"{side}-edge"],
                     stroke_width=1.5)
            self.add("circle", cls="rim", cx=x, cy=y, r=RADIUS - 5, fill="none",
                     stroke=COLOURS[f"{side}-rim"], stroke_width=1.5)
        if count > STACK:
            x, y = centres[-1]
            self.add("text", parent=self.counts, text=str(count),
                     cls=f"stack-count {side}", data={"point": where, "count": count},
                     x=x, y=y, dy="0.35em", text_anchor="middle", font_size=16,
                     font_family="sans-serif", font_weight="bold",
                     fill=COLOURS[BLACK if side == WHITE else WHITE])

    def draw_tray(self, side: str) -> None:
        layout = self.layout
        x, y = layout.tray_x(side), layout.tray_y(side)
        self.add("rect", cls="tray", data={"side": side}, x=x, y=y, width=TRAY_W,
                 height=TRIANGLE_H, fill=COLOURS["tray"], stroke=COLOURS["frame-edge"],
                 stroke_width=1.5)
        off = self.off_of(side)
        for index in range(off):
            self.add("rect", cls=f"off {side}", x=x + 5,
                     y=layout.slab_y(side, index), width=TRAY_W - 10, height=SLAB_H, rx=2,
                     fill=COLOURS[side], stroke=COLOURS[f"{side}-edge"], stroke_width=1)
        if off:
            # the count sits in the tray's free end
            free_y = y + TRIANGLE_H - 12 if side != layout.viewer else y + 12
            self.add("text", text=str(off), cls=f"off-count {side}", data={"count": off},
                     x=x + TRAY_W / 2, y=free_y, dy="0.35em", text_anchor="middle",
                     font_size=13, font_family="sans-serif", font_weight="bold",
                     fill=COLOURS["caption"])

    def draw_caption(self, played: Optional[str]) -> None:
        position, layout = self.position, self.layout
        y = FRAME + INNER_H + FRAME + CAPTION_H / 2
        self.add("circle", cls=f"turn-marker {position.turn}", cx=FRAME + 8, cy=y,
                 r=8, fill=COLOURS[position.turn], stroke=COLOURS[f"{position.turn}-edge"],
                 stroke_width=1.5)
        text = f"{position.turn} to move"
        self.add("text", text=text, cls="to-move", data={"side": position.turn},
                 x=FRAME + 22, y=y, dy="0.35em", font_size=15, font_family="sans-serif",
                 fill=COLOURS["caption"])
        game = f"{'long' if layout.long_game else 'short'} nardy"
        self.add("text", text=game if played is None else f"{game}: {played}",
                 cls="game", x=layout.width - FRAME, y=y, dy="0.35em",
                 text_anchor="end", font_size=15, font_family="sans-serif",
                 fill=COLOURS["caption"])

    def draw_arrows(self, steps: Tuple[StepTuple, ...]) -> None:
        """One arrow per step, from the checker that leaves to the place it lands; the
        stacks are followed through the turn so a chain of steps joins up."""
        mover, layout = self.position.turn, self.layout
        counts: Dict[Location, int] = {("point", p): n for p, n in self.points_of(mover).items()}
        counts[("bar", mover)] = self.bar_of(mover)
        counts[("off", mover)] = self.off_of(mover)
        for number, (src_point, dst_point, hit) in enumerate(steps, 1):
            src = self.location(mover, src_point)
            dst = self.location(mover, dst_point)
            counts[src] = max(counts[src] - 1, 0)
            start = layout.anchor(src, counts[src])
            end = layout.anchor(dst, counts[dst])
            counts[dst] += 1
            group = self.add("g", cls="arrow",
                             data={"step": number, "src": src_point, "dst": dst_point})
            self.draw_arrow(group, start, end)
            if hit:
                self.add("circle", parent=group, cls="hit", cx=end[0], cy=end[1],
                         r=RADIUS + 3, fill="none", stroke=COLOURS["hit"], stroke_width=3)

    def location(self, mover: str, point: int) -> Location:
        """A mover's point (25 = bar, 0 = off) as a place on the board."""
        if point == 25:
            return ("bar", mover)
        if point == 0:
            return ("off", mover)
        return ("point", point if mover == WHITE else mirror(self.layout.game, point))

    def draw_arrow(self, group: ET.Element, start: Tuple[float, float],
                   end: Tuple[float, float]) -> None:
        (x1, y1), (x2, y2) = start, end
        length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1e-9)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        head, half = min(18.0, length / 2), 10.0
        bx, by = x2 - ux * head, y2 - uy * head
        self.add("line", parent=group, x1=x1, y1=y1, x2=bx, y2=by, stroke=COLOURS["arrow"],
                 stroke_width=7, stroke_linecap="round", opacity=0.85)
        self.add("polygon", parent=group,
                 points=f"{_number(x2)},{_number(y2)} "
                        f"{_number(bx - uy * half)},{_number(by + ux * half)} "
                        f"{_number(bx + uy * half)},{_number(by - ux * half)}",
                 fill=COLOURS["arrow"], opacity=0.85)


def _value(value: object) -> str:
    return _number(value) if isinstance(value, float) else str(value)


def _number(value: float) -> str:
    """Short, deterministic decimal text."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# --------------------------------------------------------------------------- PNG

def to_png(document: str, *, renderer: Optional[str] = None) -> bytes:
    """Rasterise an SVG document to PNG bytes at its width and height, through ``cairosvg``
    (``pip install 'fastnardy[svg]'``) or headless Chromium (``chromium`` on the PATH),
    whichever is found first, or the one ``renderer`` names. FastNardyError when none is."""
    if renderer is not None and (not isinstance(renderer, str) or renderer not in RENDERERS):
        raise FastNardyError(f"renderer must be one of {', '.join(map(repr, RENDERERS))}, "
                             f"not {renderer!r}")
    try:
        root = ET.fromstring(document)
        width = round(float(root.attrib["width"]))
        height = round(float(root.attrib["height"]))
    except (ET.ParseError, KeyError, ValueError, TypeError):
        raise FastNardyError("to_png needs an SVG document with a width and a height, "
                             "as board() makes") from None
    if renderer in (None, "cairosvg"):
        try:
            cairosvg = importlib.import_module("cairosvg")
        except (ImportError, OSError):  # OSError: the package is there, libcairo2 is not
            if renderer == "cairosvg":
                raise FastNardyError("PNG output through cairosvg needs the package and "
                                     "libcairo2: pip install 'fastnardy[svg]'") from None
        else:
            return bytes(cairosvg.svg2png(bytestring=document.encode("utf-8")))
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser",
                                                   "google-chrome"))), None)
    if browser is None:
        raise FastNardyError("PNG output needs cairosvg (pip install 'fastnardy[svg]', with "
                             "libcairo2) or Chromium (apt-get install chromium)")
    return _chromium_png(browser, document, width, height)


def _chromium_png(browser: str, document: str, width: int, height: int) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        page, picture = Path(folder, "board.svg"), Path(folder, "board.png")
        page.write_text(document, encoding="utf-8")
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                   f"--user-data-dir={Path(folder, 'profile')}",
                   f"--window-size={width},{height}", f"--screenshot={picture}",
                   page.as_uri()]
        try:
            subprocess.run(command, capture_output=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise FastNardyError(f"Chromium could not render the picture: {exc}") from None
        if not picture.exists():
            raise FastNardyError("Chromium did not write the picture")
        return picture.read_bytes()
