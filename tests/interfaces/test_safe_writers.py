"""Every file the package writes goes through one writer (fastnardy._utils.files.write_whole:
a temporary file renamed over the target), and round five (issue 70 item 1) found it renamed
over whatever stood at the path: a device or a FIFO became a regular file (as root, ``match
--record /dev/null`` replaced the system's /dev/null) and a symbolic link became a file.
Now a link's target is written and the link kept, and anything but a regular file is
refused and left as it is."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from fastnardy import FastNardyError, Game
from fastnardy._utils import files
from fastnardy.cli import main
from fastnardy.search import Evaluator


def devices(tmp_path: Path) -> list:
    """Paths (named .npz, so that every writer takes them) holding a FIFO, a folder and,
    where this process may make one (root), a character device like /dev/null of its own
    (never the system's)."""
    fifo, folder = tmp_path / "fifo.npz", tmp_path / "folder.npz"
    os.mkfifo(fifo)
    folder.mkdir()
    found = [fifo, folder]
    try:
        os.mknod(tmp_path / "null.npz", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        found.append(tmp_path / "null.npz")
    except OSError:
        pass
    return found


def kinds(paths: list) -> list:
    return [stat.S_IFMT(os.lstat(path).st_mode) for path in paths]


def test_a_writer_refuses_a_device_a_fifo_or_a_folder_and_leaves_it(tmp_path: Path, capsys):
    paths = devices(tmp_path)
    before = kinds(paths)
    network = Evaluator.load("short", bearoff=False)
    for path in paths:
        with pytest.raises(FastNardyError, match="not a regular file"):
            files.write_whole(path, b"x")
        with pytest.raises(FastNardyError, match="not a regular file"):
            network.save(path)
        assert main(["play", "long", "--seed", "7", "--turns", "2", "--quiet", "--record",
                     str(path)]) == 2
        assert "not a regular file" in capsys.readouterr().err
    assert kinds(paths) == before
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in paths)  # no temporary left


def test_a_writer_writes_a_links_target_and_keeps_the_link(tmp_path: Path):
    target = tmp_path / "real.record"
    target.write_text("old\n")
    link = tmp_path / "link.record"
    link.symlink_to(target)
    files.write_whole(link, b"new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "later.txt")
    files.write_whole(dangling, b"made\n")
    assert dangling.is_symlink() and (tmp_path / "later.txt").read_text() == "made\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "later.txt",
                                                          "link.record", "real.record"]


WRITERS = {  # every file the command line writes: its command, the path last
    "match --record": ["match", "greedy", "random", "--games", "2", "--to", "1", "--record"],
    "play --record": ["play", "short", "--seed", "3", "--turns", "2", "--quiet", "--record"],
    "analyse --html": ["analyse", "{record}", "--html"],
    "board --svg": ["board", "long", "--svg"],
    "board --png": ["board", "long", "--png"],
    "benchmark-build --out": ["benchmark-build", "long", "--per-class", "1", "--games", "2",
                              "--played", "1", "--out"],
    "perft --checkpoint": ["perft", "long", "2", "--checkpoint"],
    "bearoff-build --out": ["bearoff-build", "--checkers", "1", "--out"],
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_command_line_writer_refuses_a_device_a_fifo_or_a_folder(tmp_path: Path, capsys,
                                                                        writer):
    """docs/safety.md, Writers: each command's file, given a FIFO, a folder or (as root) a
    device, is one line and exit 2, the path left as it was and no file left beside it.
    (perft --checkpoint reads its file first: that read refuses it.)"""
    import shutil

    if writer == "board --png" and not shutil.which("chromium"):
        pytest.importorskip("cairosvg", reason="PNG output needs cairosvg or Chromium")
    record = tmp_path / "game.txt"
    game = Game("short", seed=1)
    for _ in range(4):
        game.play(game.legal_turns()[0])
    record.write_text(game.record())
    folder = tmp_path / "targets"
    folder.mkdir()
    paths = devices(folder)
    before = kinds(paths)
    argv = [str(record) if word == "{record}" else word for word in WRITERS[writer]]
    for path in paths:
        assert main(argv + [str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, err
    assert kinds(paths) == before
    # nothing left beside them: no temporary file, no work in progress (bearoff-build's
    # .lock and .partial were left before it checked its target first)
    assert sorted(os.listdir(folder)) == sorted(path.name for path in paths)
