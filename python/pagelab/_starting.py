"""The `pagelab` command's first signal handler, installed before anything heavy is imported.

A signal that comes while the command is still starting (importing click, NumPy and the engine
takes a few hundred milliseconds) ends it at once with one line and 128 + the signal's number:
nothing has been written yet. The command's own handler (python/pagelab/interrupt.py) takes
over when it starts. Only the command installs it (pagelab/__init__.py, __main__.py): a program
that imports pagelab keeps its own handlers.
"""

# The C module, not `signal`: `signal` builds its enums at import, some milliseconds of the
# window this handler is there to close.
import _signal
import os

_NAMES = {_signal.SIGINT: "SIGINT", _signal.SIGTERM: "SIGTERM"}


def _starting(signum: int, frame: object) -> None:
    os.write(2, f"pagelab: interrupted by {_NAMES[signum]}; nothing written\n".encode())
    os._exit(128 + signum)


def install() -> None:
    """Makes SIGINT and SIGTERM end the starting command with one line."""
    for s in _NAMES:
        _signal.signal(s, _starting)
