"""Stopping when asked: Ctrl-C (SIGINT) and SIGTERM end a command within a second.

The command line installs a Python handler for both signals, then the Rust one
(`pagelab_core::interrupt`): a signal sets the flag the long Rust loops check every few
thousand events or every chunk, and the Python handler raises :class:`Interrupted` in Python
code. The work unwinds like an error: temporary files are removed by their owners, no result
file is written, a child process (valgrind under `trace capture`) is killed and reaped. The
command then prints one line and exits with 128 + the signal's number (130, 143).
"""

from __future__ import annotations

import signal
from types import FrameType

#: Signals that stop a command.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """The command was stopped by a signal (`signum`).

    A `BaseException` like `KeyboardInterrupt`, so that no `except Exception` swallows it, but
    not a `KeyboardInterrupt`, which click would turn into its own `Abort`.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """128 + the signal's number, as a shell reports a process the signal ended."""
        return 128 + self.signum

    def __str__(self) -> str:
        return f"interrupted by {signal.Signals(self.signum).name}"


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def install() -> None:
    """Makes SIGINT and SIGTERM raise :class:`Interrupted`, in Python code and in Rust loops."""
    from . import _core

    for s in SIGNALS:
        signal.signal(s, _raise)
    _core.install_signal_handlers()
