"""The keeper of one engine process: ``python -I -S _keeper.py COMMAND...`` runs COMMAND as
its child and is the child subreaper of everything it forks (Linux ``PR_SET_CHILD_SUBREAPER``),
so that a process the engine forked is the keeper's descendant even after it calls
``setsid()`` or its parent exits. When the engine exits, or on SIGTERM (the driver's stop),
the keeper kills every descendant left and exits with the engine's status (its signal, if it
died of one): nothing the engine forks outlives it. Standard library only, no fastnardy
import: it starts in about 15 ms. The command must be executable (the driver checks it)."""

import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def _children() -> "list[int]":
    """The keeper's live children, read from /proc."""
    me = os.getpid()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == me and fields[0] not in (b"Z", b"X"):
            found.append(int(name))
    return found


def _kill_all() -> "list[tuple[int, int]]":
    """SIGKILL the descendants until none is left (each one killed hands its own children to
    the keeper); returns the wait statuses reaped, as (pid, status)."""
    reaped = []
    while True:
        for pid in _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            while True:
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                reaped.append((pid, status))
        except ChildProcessError:  # no child at all: done
            return reaped
        time.sleep(0.002)


def main(argv: "list[str]") -> None:
    watched = {signal.SIGTERM, signal.SIGCHLD}
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # pending while blocked
    signal.pthread_sigmask(signal.SIG_BLOCK, watched)  # taken by sigtimedwait below
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the process group is still killed
        pass
    try:
        engine = os.posix_spawnp(argv[0], argv, os.environ, setsigmask=(),
                                 setsigdef=(signal.SIGCHLD,))
    except OSError as exc:
        sys.stderr.write(f"cannot start {argv[0]}: {exc.strerror}\n")
        os._exit(127)
    quiet = os.open(os.devnull, os.O_RDWR)  # the pipes are the engine's alone: its EOF is theirs
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    status = None
    while status is None:
        try:  # the engine, or an orphan handed to the keeper, that has exited
            while status is None:
                pid, code = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                if pid == engine:
                    status = code
        except ChildProcessError:
            break
        if status is None:
            got = signal.sigtimedwait(watched, 1.0)
            if got is not None and got.si_signo == signal.SIGTERM:
                break
    for pid, code in _kill_all():
        if pid == engine:
            status = code
    if status is None:
        os._exit(128 + signal.SIGTERM)
    exit_code = os.waitstatus_to_exitcode(status)
    if exit_code < 0:  # died of a signal: so does the keeper
        signal.pthread_sigmask(signal.SIG_UNBLOCK, watched)
        signal.signal(-exit_code, signal.SIG_DFL)
        os.kill(os.getpid(), -exit_code)
    os._exit(exit_code)


if __name__ == "__main__":
    main(sys.argv[1:])
