"""``python -m schedbench.bench.cli``: the ``schedbench`` command."""

from schedbench.bench.cli import entry

entry()
