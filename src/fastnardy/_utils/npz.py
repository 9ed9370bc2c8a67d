"""``.npz`` files read against a schema, member by member, and written whole.

A member's ``.npy`` header is read and its dtype and shape checked against what is expected,
and its size against a cap, before any of its data is read (a small file that would inflate
to gigabytes is refused unread). Only plain real numbers or text are read, never pickles;
complex and non-finite numbers are refused. Every failure, of the archive, its compression
or a member, is a :class:`~fastnardy.errors.FastNardyError` naming the file and the member.
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import tokenize
import zipfile
import zlib
from typing import Any, Dict, Mapping, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt
from numpy.lib import format as npy

from .._utils import files as _files
from ..errors import FastNardyError

PathLike = Union[str, "os.PathLike[str]"]

MAX_MEMBER_BYTES = 64 << 20  # a member's data, as its header declares it
MAX_FILE_BYTES = 256 << 20  # the archive itself, checked before zipfile reads it
MAX_JSON_DEPTH = 32  # nesting of a JSON text member: objects and arrays
# a JSON text's strings (an unterminated one runs to the end) and brackets, each character
# read once: the depth scan is linear in the text, whatever it holds
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{\]}]', re.DOTALL)

# what goes wrong reading a damaged archive, its compression or a member (header or data)
_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError,
           NotImplementedError, RuntimeError, struct.error, OverflowError, SyntaxError,
           tokenize.TokenError)  # the last two: numpy parsing a damaged .npy header


class Member(NamedTuple):
    """What a member must be: dtype kinds (``"f"`` real floats, ``"U"`` text) and a shape,
    each dimension an int or None (any size); whether the file may lack it."""

    kinds: str
    shape: Tuple[Optional[int], ...]
    optional: bool = False


def read(path: PathLike, schema: Mapping[str, Member],
         max_bytes: int = MAX_MEMBER_BYTES) -> Dict[str, npt.NDArray[Any]]:
    """The members of the ``.npz`` file at ``path`` that ``schema`` names (``name`` is the
    archive's ``name.npy``; an optional one the file lacks is left out), each checked before
    its data is read: FastNardyError for a missing, misshapen, oversized, complex or
    non-finite member and for a damaged file; FileNotFoundError passes through."""
    where = repr(os.fspath(path))
    arrays: Dict[str, npt.NDArray[Any]] = {}
    member = ""
    _files.check_regular(path, MAX_FILE_BYTES)
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            for member, expected in schema.items():
                if f"{member}.npy" not in names and expected.optional:
                    continue
                if f"{member}.npy" not in names:
                    raise FastNardyError(f"{where} has no member {member!r}")
                with archive.open(f"{member}.npy") as stream:
                    arrays[member] = _member(stream, expected, max_bytes, where, member)
    except FileNotFoundError:
        raise
    except FastNardyError:
        raise
    except _DAMAGE as error:
        part = f", member {member!r}" if member else ""
        raise FastNardyError(f"{where} is damaged or not an .npz file{part}: "
                             f"{type(error).__name__}: {error}") from None
    return arrays


def _member(stream: Any, expected: Member, max_bytes: int, where: str,
            member: str) -> npt.NDArray[Any]:
    """One member: its header checked, then exactly its declared data read."""
    def refuse(why: str) -> FastNardyError:
        return FastNardyError(f"{where}, member {member!r}: {why}")

    version = npy.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = npy.read_array_header_1_0(stream)
    elif version == (2, 0):
        shape, fortran, dtype = npy.read_array_header_2_0(stream)
    else:
        raise refuse(f".npy format {version[0]}.{version[1]} is not read")
    if dtype.hasobject or dtype.kind not in expected.kinds or dtype.fields is not None:
        raise refuse(f"dtype {dtype} is not one of the kinds {expected.kinds!r}"
                     + (" (complex numbers are refused)" if dtype.kind == "c" else ""))
    if len(shape) != len(expected.shape) or any(
            want is not None and got != want for got, want in zip(shape, expected.shape)):
        wanted = tuple("N" if n is None else n for n in expected.shape)
        raise refuse(f"shape {shape} is not {wanted}")
    size = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if size > max_bytes:
        raise refuse(f"{size:,} bytes of data, more than the {max_bytes:,} read")
    data = stream.read(size)
    if len(data) != size:
        raise refuse(f"truncated: {len(data):,} of {size:,} bytes")
    if stream.read(1):  # and at the end, the archive checks the member's CRC
        raise refuse(f"more data than its shape {shape} holds")
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    if dtype.kind == "f" and not np.isfinite(array).all():
        raise refuse("holds a value that is not finite")
    return array


def json_text(array: npt.NDArray[Any], path: PathLike, member: str,
              max_depth: int = MAX_JSON_DEPTH) -> Any:
    """A 0-d text member holding JSON, nested at most ``max_depth`` deep: the value, or
    FastNardyError naming the file and the member."""
    document = str(array[()])
    depth = deepest = 0
    for token in _TOKENS.findall(document):
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    where = f"{os.fspath(path)!r}, member {member!r}"
    if deepest > max_depth:
        raise FastNardyError(f"{where}: JSON nested {deepest} deep, more than {max_depth}")
    try:
        return json.loads(document)
    except ValueError as error:
        raise FastNardyError(f"{where}: not JSON: {error}") from None


def write(path: PathLike, arrays: Mapping[str, npt.ArrayLike]) -> None:
    """Write ``arrays`` as a compressed ``.npz`` (no pickles) whole or not at all: built in
    memory, then written beside the target and renamed over it (see
    :func:`fastnardy._utils.files.write_whole`); FastNardyError when it cannot be, leaving no
    partial file."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, allow_pickle=False, **arrays)
    _files.write_whole(path, buffer.getvalue())
