"""Advance reservations with deadlines (``papers/advance-reservation-with-deadlines.txt``;
rules pinned where the paper is vague: docs/design.md#pinned-semantics-where-a-paper-is-vague): the
paper's slot structure (``slots.py``), its seven fit policies (``fit.py``), requests
(``requests.py``), the driver that serves a request stream in arrival order (``driver.py``) and
the stream metrics (``metrics.py``). The ``reservation`` problem kind
(``simcore/kinds/reservation/``) poses one request as a decision problem on the same structure.

The package's own ``__init__`` imports nothing, so the kind can use ``slots.py`` and the driver
can use the kind without an import cycle.
"""
