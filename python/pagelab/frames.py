"""Results of the replacement lab that are also DataFrames.

`pagelab.curve` returns :class:`Rows`, a list of dicts as before that also becomes a pandas (or
polars) DataFrame; the one-pass curves return :class:`Curve`, a dict whose ``rows`` do, with its
other keys (the policy, the warm-up, the trace's pages, ...) kept as the frame's ``attrs``:

>>> rows = Rows([{"policy": "fifo", "frames": 3, "faults": 9}])
>>> rows[0]["faults"], list(rows.to_frame().columns)
(9, ['policy', 'frames', 'faults'])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import extras

if TYPE_CHECKING:
    import pandas
    import polars


class Rows(list):
    """Rows of a table (one dict each) that become a DataFrame on demand."""

    def to_frame(self) -> pandas.DataFrame:
        """The rows as a pandas DataFrame, one column per key."""
        extras.need("frames", "a DataFrame")
        import pandas as pd

        return pd.DataFrame.from_records(list(self))

    def to_polars(self) -> polars.DataFrame:
        """The rows as a polars DataFrame (polars is not a dependency: `pip install polars`)."""
        from .errors import PagelabError

        try:
            import polars as pl
        except ModuleNotFoundError:
            raise PagelabError(
                "to_polars() needs polars, not installed: pip install polars"
            ) from None
        return pl.DataFrame(list(self))


class Curve(dict):
    """A one-pass curve: the dict it always was (``c["rows"]``, ...), and its rows as a frame."""

    @property
    def rows(self) -> Rows:
        return Rows(self.get("rows") or [])

    def to_frame(self) -> pandas.DataFrame:
        """The rows as a pandas DataFrame; the curve's other keys are its ``attrs``."""
        frame = self.rows.to_frame()
        frame.attrs.update({k: v for k, v in self.items() if k != "rows"})
        return frame

    def to_polars(self) -> polars.DataFrame:
        return self.rows.to_polars()
