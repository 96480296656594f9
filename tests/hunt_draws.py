"""Seeded draws of a hunt strategy for the strategy tests (tests/test_hunt_<family>.py): the same examples on
every run for one hypothesis version, no database (tests/conftest.py's hypothesis_home keeps hypothesis' caches
in a temporary directory)."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, seed, settings


def draw_examples(strategy, n: int, at: int = 0) -> list:
    """n examples of the strategy, hypothesis seeded with `at` (generation only: no shrinking)."""
    out: list = []

    @seed(at)
    @settings(max_examples=n, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example):
        out.append(example)

    collect()
    return out


def draw_runs(strategy, runs: int, per_run: int) -> list:
    """`runs` seeded runs (seeds 0..runs-1) of `per_run` draws: hypothesis' generation clusters a run's later
    examples around its earlier ones, so several short runs spread the draws wider than one long run."""
    return [e for k in range(runs) for e in draw_examples(strategy, per_run, k)]
