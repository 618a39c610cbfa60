"""``python -m schedbench.bench.cli``: the ``schedbench`` command."""

import sys

from schedbench.bench.cli import main

sys.exit(main())
