"""Workloads, system presets and decision-problem generators, plus PROBLEM.json files.

``instances`` depends on ``simcore`` only (``bench -> solvers -> simcore <- instances``).
"""
