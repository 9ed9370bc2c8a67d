"""Files as the package writes and reads them: written whole (a temporary file in the same
directory, flushed to disk, then renamed over the target, so a failed write leaves the old
file as it was) and read up to a limit (a record, a ``.mat`` export or a checkpoint larger
than ``MAX_READ_BYTES`` is refused, so an endless stream such as ``/dev/zero`` is not read
into memory)."""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from contextlib import contextmanager
from typing import IO, AnyStr, Iterator, List, Optional, Tuple, Union

from ..errors import FastNardyError

MAX_READ_BYTES = 64 << 20  # 64 MiB: a match export of thousands of games is a few MB

Path = Union[str, "os.PathLike[str]"]


def name(path: object) -> str:
    """``path`` as a file name: a str or an os.PathLike of one (not a file descriptor,
    which would read or write another file, nor bytes)."""
    try:
        named = os.fspath(path)  # type: ignore[call-overload]
    except TypeError:
        named = None
    if not isinstance(named, str) or not named or "\0" in named:
        raise FastNardyError(f"a file name (a str or os.PathLike) is needed, not {path!r}")
    return named


def writable(path: Path) -> str:
    """The file :func:`write_whole` writes for ``path`` (a symbolic link's target, which may
    not exist yet); FastNardyError, before anything is written, when the path holds
    something other than a regular file (a device such as /dev/null, a FIFO, a socket, a
    folder) or cannot be looked at."""
    given = name(path)
    target = os.path.realpath(given)
    try:
        mode: Optional[int] = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise FastNardyError(f"cannot write {given}: {exc.strerror or exc}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise FastNardyError(f"{given} is not a regular file (a device, a FIFO, a socket or a "
                             f"folder): fastnardy writes files, and leaves it as it is")
    return target


def write_whole(path: Path, *parts: Union[bytes, memoryview]) -> None:
    """Write ``parts`` one after another to ``path``, whole or not at all: FastNardyError
    (naming the file and the system's reason) when it cannot, the old file untouched. A
    symbolic link's target is written, the link kept; a path that holds something other than
    a regular file (a device such as /dev/null, a FIFO, a socket, a folder) is refused, left
    as it is."""
    given = name(path)
    target = writable(given)
    folder = os.path.dirname(target)
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".fastnardy-",
                                                 suffix=".tmp")
    except OSError as exc:
        raise FastNardyError(f"cannot write {given}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for part in parts:
                handle.write(part)
            handle.flush()
            os.fsync(handle.fileno())
        mode = os.stat(target).st_mode & 0o7777 if os.path.exists(target) else 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        raise FastNardyError(f"cannot write {given}: {exc.strerror or exc}") from None
    except BaseException:
        _remove(temporary)
        raise


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold the lock file ``path`` while the block runs (FastNardyError at once when another
    process or thread holds it): one writer of a file's work in progress at a time."""
    target = name(path)
    try:
        descriptor = os.open(target, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise FastNardyError(f"cannot open {target}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise FastNardyError(f"{target} is held: another build of the same file is "
                                 f"running") from None
        yield
    finally:
        os.close(descriptor)


def check_regular(path: Path, limit: int) -> None:
    """``path`` is a regular file of at most ``limit`` bytes (checked before it is opened: a
    FIFO would block the open, a device never end): FastNardyError otherwise;
    FileNotFoundError and the other OSErrors of ``os.stat`` pass through."""
    status = os.stat(name(path))
    if not stat.S_ISREG(status.st_mode):
        raise FastNardyError(f"{os.fspath(path)} is not a regular file (a FIFO, a device or "
                             f"a socket): fastnardy reads files")
    if status.st_size > limit:
        raise FastNardyError(f"{os.fspath(path)} is {status.st_size:,} bytes, more than the "
                             f"{limit:,} fastnardy reads")


def read_bytes(path: Path, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of ``path``, read up to ``limit``: FastNardyError for a larger file (or
    stream), a FIFO or a socket (whose open would block); OSError when it does not open."""
    target = name(path)
    mode = os.stat(target).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise FastNardyError(f"{target} is a FIFO or a socket: fastnardy reads files")
    with open(target, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FastNardyError(f"{target} is larger than {limit:,} bytes, the limit of what "
                             f"fastnardy reads")
    return data


def read_text(path: Path, limit: int = MAX_READ_BYTES) -> str:
    """The UTF-8 text of ``path``, read up to ``limit`` bytes (:func:`read_bytes`):
    FastNardyError also for one that is not UTF-8."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FastNardyError(f"{name(path)} is not UTF-8 text: {exc.reason} at byte "
                             f"{exc.start}") from None


BLOCK = 1 << 16  # characters of a text split into lines at a time


def blocks(text: str) -> Iterator[Tuple[int, List[str]]]:
    """``text.splitlines()`` about 64 K characters at a time, each block cut after a
    newline (so its lines are the whole text's): (where the block ends, its lines). A reader
    that walks these holds one block's lines, never a list of the whole text's."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + BLOCK)
        end = len(text) if end < 0 else end + 1
        yield end, text[start:end].splitlines()
        start = end


def numbered_lines(text: str) -> Iterator[Tuple[int, str]]:
    """``enumerate(text.splitlines(), 1)``, a block at a time (:func:`blocks`)."""
    number = 0
    for _, lines in blocks(text):
        for line in lines:
            number += 1
            yield number, line


def bounded_lines(stream: IO[AnyStr], most: int) -> Iterator[Optional[AnyStr]]:
    """Each line of ``stream`` (bytes or text, its line end kept), or None for a line longer
    than ``most``: that one is read to its end but never held whole (an untrusted peer)."""
    while True:
        line = stream.readline(most + 1)
        if not line:
            return
        if len(line) > most and line[-1:] not in ("\n", b"\n"):
            while line and line[-1:] not in ("\n", b"\n"):
                line = stream.readline(most + 1)
            yield None
            continue
        yield line


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
