"""What git sees changed in the checkout: for tests that must leave it as they found it."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def checkout_state() -> str:
    """``git status`` of the checkout, untracked files included (ignored ones aside); empty
    where git or a repository is missing, so the comparison then holds trivially."""
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else ""
