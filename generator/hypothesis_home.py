"""Where hypothesis keeps its caches during a search of opconform's (gen-cases --find-witnesses, opconform hunt)."""

from __future__ import annotations

import tempfile
from contextlib import contextmanager


@contextmanager
def hypothesis_home():
    """hypothesis keeps caches (its unicode tables, even with database=None) under .hypothesis/ in the working
    directory: a witness search (and opconform hunt) puts them in a temporary directory instead."""
    try:
        from hypothesis import configuration
    except ImportError:  # the searches say so themselves
        yield
        return
    with tempfile.TemporaryDirectory(prefix="gen-cases-hypothesis-") as tmp:
        configuration.set_hypothesis_home_dir(tmp)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(None)
