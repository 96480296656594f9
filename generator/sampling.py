"""Seeded, derandomized draws from hypothesis strategies, for writing suites.

Suites must be byte-identical for the same options, so hypothesis runs with an explicit seed,
no example database and the generate phase only (no shrinking). The values depend on the
hypothesis version too: .ci/constraints.txt pins the version the committed suite was made with.

Hypothesis (6.131+) also mixes in literal constants it finds in the "local" modules imported at the
time (our own package when installed editable), so the same seed would give other values depending on
which modules were imported, whether the package is installed editable, and every literal we edit.
`draw` switches that source off: the values depend on the seed, the strategy and hypothesis only.
"""

from __future__ import annotations

import contextlib
import zlib

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st


def case_seed(base_seed: int, name: str) -> int:
    """A per-case seed that is stable across runs and Python versions (no hash())."""
    return (base_seed * 1_000_003 + zlib.crc32(name.encode())) % (2**32)


def draw(strategy: st.SearchStrategy, n: int, seed: int) -> list:
    """n examples of `strategy` (fewer if hypothesis exhausts a small space), deterministically."""
    out: list = []

    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), derandomize=False)
    @hypothesis_seed(seed)
    @given(strategy)
    def collect(x):
        out.append(x)

    with _without_local_constants():
        collect()
    return out[:n]


@contextlib.contextmanager
def _without_local_constants():
    """Make hypothesis see no constants from local modules (private API; absent in older versions)."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a hypothesis without the feature
        yield
        return
    saved = getattr(providers, "_get_local_constants", None)
    if saved is None or not hasattr(providers, "Constants"):  # pragma: no cover
        yield
        return
    providers._get_local_constants = providers.Constants
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = saved
        providers.CONSTANTS_CACHE.cache.clear()
