"""JSON text from files a user or a suite author controls: parsed only when its nesting is bounded.

Python's json module recurses once per nesting level: a file nested 100,000 deep raises RecursionError
(or worse, deep inside the code that walks the result). Every JSON file opconform reads (case.json,
manifest.json, baselines, results files) goes through `loads`, which measures the depth first, in one
linear scan, and refuses too deep a document with ValueError like any other malformed JSON.
"""

from __future__ import annotations

import json
import re

# The deepest document opconform writes is a results record holding probe outputs (about 8 levels); a
# case.json's compare spec about 6. 64 leaves room for any honest file and for the walkers after it.
MAX_DEPTH = 64

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)  # strings (skipped whole) and brackets


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count)."""
    level = deepest = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            level += 1
            deepest = max(deepest, level)
        elif c in "]}":
            level -= 1
    return deepest


def loads(text: str | bytes, max_depth: int = MAX_DEPTH):
    """json.loads for untrusted text: ValueError (never RecursionError) when it is nested deeper than
    `max_depth`, or is not JSON. NaN and Infinity, which JSON does not have, are refused too."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")  # UnicodeDecodeError is a ValueError
    d = depth(text)
    if d > max_depth:
        raise ValueError(f"nested {d} levels deep, more than the {max_depth} taken")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:  # not reached with max_depth well below the interpreter's limit
        raise ValueError("nested too deep") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")
