"""The datasets shipped with schedbench: one folder per dataset, ``manifest.toml`` listing every
file with its size, sha256, provenance and terms, and ``README.md`` with the formats.

Not code: read them through :mod:`schedbench.instances.datasets` (``datasets.path("kth-sp2")``)
or list them with ``schedbench data``.
"""
