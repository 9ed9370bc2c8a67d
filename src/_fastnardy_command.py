"""The ``fastnardy`` command's entry point: :func:`fastnardy.cli.main`, with Ctrl-C while the
package loads (its first 0.1-0.3 s) ending the command as a later Ctrl-C does, one line and
exit status 130, not a traceback. It lives outside the package because importing anything in
the package runs the package's own import first, where nothing of fastnardy can catch it."""

import sys

EXIT_INTERRUPTED = 130  # fastnardy.cli.options.EXIT_INTERRUPTED, not importable yet here


def main() -> int:
    """Load the command line and run it."""
    try:
        from fastnardy.cli import main as run
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return run()
