"""A tiny seeded random-number generator for numba kernels (``ga``, ``moo``).

SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014;
the seeding generator of xoshiro): the whole state is one ``uint64`` kept in a length-1 array that
the kernels update in place. It is written out here rather than using numba's ``np.random`` so that
a solver's answer depends only on its seed — not on numba's thread-local global state, on other code
that draws from it, or on the numba version.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schedbench.simcore.jit import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2^-53


def new_state(seed: int) -> np.ndarray:
    """The generator state for ``seed`` (any Python int; hashed into 64 bits)."""
    return np.array([np.uint64(seed & 0xFFFFFFFFFFFFFFFF) ^ np.uint64(0x5DEECE66D)], np.uint64)


@njit(cache=True, inline="always")
def next_u64(state: Any) -> Any:
    """Next 64 random bits (advances ``state[0]``)."""
    z = state[0] + _GAMMA
    state[0] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def uniform(state: Any) -> Any:
    """A float uniform in [0, 1) with 53 random bits."""
    return float(next_u64(state) >> _S11) * _TO_UNIT


@njit(cache=True, inline="always")
def randint(state: Any, n: Any) -> Any:
    """An integer uniform in 0..n-1 (n >= 1)."""
    k = int(uniform(state) * n)
    return k if k < n else n - 1


@njit(cache=True, inline="always")
def geometric_gap(state: Any, log_keep: Any) -> Any:
    """Number of Bernoulli(p) failures before the next success, ``log_keep = log(1 - p)``.

    Used to skip straight to the next mutated gene instead of drawing one number per gene; the
    gaps of i.i.d. Bernoulli trials are exactly geometric, so the two are the same process.
    ``log_keep = 0`` (p = 0) never succeeds; ``-inf`` (p = 1) succeeds every time.
    """
    if log_keep == 0.0:
        return np.int64(2**62)
    if log_keep == -np.inf:
        return np.int64(0)
    u = 1.0 - uniform(state)  # in (0, 1]
    gap = np.log(u) / log_keep
    if gap > 2.0**62:
        return np.int64(2**62)
    return np.int64(gap)
