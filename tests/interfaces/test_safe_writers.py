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

from fastnardy import FastNardyError
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
