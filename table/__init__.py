"""Playing Treachery (and Throne Magic, ``GameConfig(game="throne_magic")``): one table API under
every front end.

- :class:`Table` (:mod:`table.table`): people (``"human"``) and bots at one game, driven by a
  front end (:meth:`Table.advance`, :meth:`Table.answer`, per-seat :meth:`Table.events` and
  :meth:`Table.view`, :meth:`Table.reveal`, the replay);
- :class:`Stops` (:mod:`table.stops`): when a person is asked and when priority passes by itself;
- :mod:`table.terminal`: ``treachery play``, a game in the terminal;
- :mod:`table.server`: ``treachery serve``, the web table (private seat links, spectators, replays);
- :mod:`table.widgets`: play and replay in a notebook (ipywidgets);
- :mod:`table.html` (what a seat sees, as HTML), :mod:`table.replay` (a game step by step),
  :mod:`table.options` (the table's command-line options).
"""

from .stops import Stops
from .table import HUMAN, Prompt, Reveal, SeatReveal, Table, TableError, TableEvent

__all__ = ["Table", "Prompt", "TableEvent", "TableError", "Reveal", "SeatReveal", "Stops", "HUMAN"]
