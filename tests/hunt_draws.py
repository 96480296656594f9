"""Seeded draws of a hunt strategy for the strategy tests (tests/test_hunt_<family>.py): the same examples on
every run for one hypothesis version, no database (tests/conftest.py's hypothesis_home keeps hypothesis' caches
in a temporary directory)."""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, Phase, given, seed, settings


@contextlib.contextmanager
def _no_local_constants():
    """Hypothesis draws now and then a literal it found in the source of the project's own modules (those
    imported at the time): the draws, and so these tests, would change with any edit of any module and with
    what a test process happened to import. Draws for tests use hypothesis' own constants only."""
    from hypothesis.internal.conjecture import providers

    if not hasattr(providers, "_get_local_constants"):  # a hypothesis without the feature
        yield
        return
    saved = providers._get_local_constants
    providers._get_local_constants = providers.Constants  # an empty set of constants
    providers.CONSTANTS_CACHE.cache.clear()  # what it holds was drawn from the local constants too
    try:
        yield
    finally:
        providers._get_local_constants = saved
        providers.CONSTANTS_CACHE.cache.clear()


def draw_examples(strategy, n: int, at: int = 0) -> list:
    """n examples of the strategy, hypothesis seeded with `at` (generation only: no shrinking)."""
    out: list = []

    @seed(at)
    @settings(max_examples=n, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example):
        out.append(example)

    with _no_local_constants():
        collect()
    return out


def draw_runs(strategy, runs: int, per_run: int) -> list:
    """`runs` seeded runs (seeds 0..runs-1) of `per_run` draws: hypothesis' generation clusters a run's later
    examples around its earlier ones, so several short runs spread the draws wider than one long run."""
    return [e for k in range(runs) for e in draw_examples(strategy, per_run, k)]


class _Found(Exception):
    """Ends any_drawn's draws at the first example that answers it."""


def any_drawn(strategy, n: int, predicate, at: int = 0) -> bool:
    """Whether one of draw_examples(strategy, n, at) satisfies predicate, drawing only up to the first that does:
    the same examples in the same order (seeded generation, no shrinking), and no more of them."""
    @seed(at)
    @settings(max_examples=n, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(strategy)
    def look(example):
        if predicate(example):
            raise _Found

    with _no_local_constants():
        try:
            look()
        except _Found:
            return True
    return False
