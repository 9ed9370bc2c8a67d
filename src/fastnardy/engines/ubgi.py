"""Another engine that speaks UBGI v0.2 (:mod:`fastnardy.play.ubgi` is fastnardy's own side of
the protocol), driven as the cross-checker drives its engines
(:class:`~fastnardy.engines.protocol.ProcessEngine`): one process in a process group of its
own under a keeper, every answer bounded in time, lines and bytes, killed with everything it
forked when it ends, fails, hangs or when Ctrl-C comes. An ``error`` line, an engine that
exits or an answer that does not read raises :class:`~fastnardy.errors.EngineError` naming
the request.
"""

from __future__ import annotations

import time
from typing import Sequence, Tuple, Union

from ..errors import EngineError
from .protocol import ProcessEngine, _Timeout

__all__ = ["UbgiEngine"]


class UbgiEngine(ProcessEngine):
    """A UBGI engine's process (a context manager: leaving it sends ``quit`` and ends the
    process group); ``timeout`` seconds for each answer."""

    def __init__(self, command: Union[str, Sequence[str]], timeout: float = 60.0) -> None:
        super().__init__(command, "gnubg", timeout)

    def ask(self, requests: Sequence[str], final: Tuple[str, ...]) -> str:
        """Send ``requests`` (one a line; only the last is answered) and return the first
        answer line that begins with one of ``final`` (``info`` lines before it read over)."""
        pipes = self._started()
        request = requests[-1]
        self.requests += 1
        deadline = time.monotonic() + self.timeout
        try:
            try:
                pipes.send("".join(f"{line}\n" for line in requests).encode(), deadline)
            except OSError:
                raise self._failure(f"the engine {self.name!r} stopped reading before "
                                    f"{request!r}") from None
            pipes.start()
            while True:
                line = pipes.line(deadline, request)
                if line is None:
                    raise self._failure(f"the engine {self.name!r} exited while answering "
                                        f"{request!r}")
                if line.startswith("error"):
                    raise EngineError(f"the engine {self.name!r} answered {requests!r}: "
                                      f"{line[:200]!r}")
                if line.startswith(final):
                    return line
        except _Timeout:
            self._stop(0.0)
            raise EngineError(f"the engine {self.name!r} did not answer {request!r} within "
                              f"{self.timeout:g} s") from None
        except BaseException:
            self._stop(0.0)
            raise
