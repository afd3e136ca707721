"""Playing Treachery: one table API (:mod:`table.table`) under every front end.

- :class:`Table`: people (``"human"``) and bots at one game, driven by a front end
  (:meth:`Table.advance`, :meth:`Table.answer`, per-seat :meth:`Table.events`,
  :meth:`Table.reveal`, the replay);
- :class:`Stops`: when a person is asked and when priority passes by itself (:mod:`table.stops`);
- :mod:`table.terminal`: ``treachery play``, a game in the terminal.
"""

from .stops import Stops
from .table import HUMAN, Prompt, Reveal, SeatReveal, Table, TableError, TableEvent

__all__ = ["Table", "Prompt", "TableEvent", "TableError", "Reveal", "SeatReveal", "Stops", "HUMAN"]
