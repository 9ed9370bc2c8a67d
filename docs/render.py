"""Draw the README's pictures, docs/img/long.png and docs/img/short.png, with fastnardy.formats.svg.

    PYTHONPATH=src python docs/render.py [--out docs/img] [--size 760]

Long nardy: after white's opening 6-5 (24/18 18/13), black's 5-3 reply 24/19 19/16 drawn
as arrows. Short nardy: a middle game where white, with a checker on the bar, throws 4-3 and
plays bar/21 21/18*, entering and hitting black's blot (S3, S5). Both are rasterised in
headless Chromium (Debian's ``chromium`` package), so the pictures look as a browser shows
the SVG.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fastnardy import Position, Turn
from fastnardy.formats import svg

SHORT_MIDDLE_GAME = "short w bar:1,13:4,8:3,6:4,4:2,2:1 24:2,13:4,8:3,7:1,6:3,5:2"


def pictures() -> dict[str, tuple[Position, Turn]]:
    """File name → (position, highlighted turn)."""
    long_reply = Position.start("long").play("24/18 18/13")
    short = Position.from_string(SHORT_MIDDLE_GAME)
    return {
        "long.png": (long_reply, long_reply.check_turn((5, 3), "24/19 19/16")),
        "short.png": (short, short.check_turn((4, 3), "bar/21 21/18*")),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "img")
    parser.add_argument("--size", type=int, default=760, help="width in pixels")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (position, turn) in pictures().items():
        document = svg.board(position, size=args.size, highlight=turn)
        (args.out / name).write_bytes(svg.to_png(document, renderer="chromium"))
        print(f"{args.out / name}: {position.to_string()}, {turn}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
