"""Fixtures shared by the project's tests."""

from __future__ import annotations

import pytest
from hypothesis import configuration


@pytest.fixture(scope="module")
def hypothesis_home(tmp_path_factory):
    """hypothesis keeps its caches in a temporary directory, not .hypothesis/ in the working directory."""
    configuration.set_hypothesis_home_dir(tmp_path_factory.mktemp("hypothesis"))
    yield
    configuration.set_hypothesis_home_dir(None)
