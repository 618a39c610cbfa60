"""Running suites: the runner (``runner.py``), where cells run (``executors.py``, with the
supervised worker pool of ``supervisor.py`` and the isolation of ``isolate.py``), what a worker
does with one cell (``cells.py``), exact references (``references.py``), and the one place a
scenario becomes a simulation (``simulation.py``) with its output files (``outputs.py``)."""
