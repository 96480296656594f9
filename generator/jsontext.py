"""JSON text from files a user or a suite author controls: parsed only when its nesting is bounded.

Python's json module recurses once per nesting level: a file nested 100,000 deep raises RecursionError
(or worse, deep inside the code that walks the result). Every JSON file opconform reads (case.json,
manifest.json, baselines, results files) goes through `loads`, which measures the depth first, in one
linear scan, and refuses too deep a document with ValueError like any other malformed JSON.
"""

from __future__ import annotations

import itertools
import json
import re
import zlib

# The deepest document opconform writes is a results record holding probe outputs (about 8 levels); a
# case.json's compare spec about 6. 64 leaves room for any honest file and for the walkers after it.
MAX_DEPTH = 64

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)  # strings (skipped whole) and brackets


_ESCAPE = re.compile(r"\\.", re.S)  # a backslash and the character it escapes (inside strings only, in JSON)
_BRACKETS = re.compile(r"[\[\]{}]")


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count).
    Escapes go first (so no quote is escaped), then every other piece between quotes is a string; what is left
    is scanned for brackets and their running level summed at C speed (a suite's manifest holds some 100,000
    strings and 30,000 brackets). Text that is not JSON gets some depth; json refuses it after."""
    if "\\" in text:
        text = _ESCAPE.sub("", text)
    return max(itertools.accumulate(map(_STEP.__getitem__, _BRACKETS.findall("".join(text.split('"')[::2])))),
               default=0)


_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def loads(text: str | bytes, max_depth: int = MAX_DEPTH):
    """json.loads for untrusted text: ValueError (never RecursionError) when it is nested deeper than
    `max_depth`, or is not JSON. NaN and Infinity, which JSON does not have, are refused too."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if text.count("[") + text.count("{") > max_depth:  # else it cannot be too deep: no scan (read_case's cost)
        d = depth(text)
        if d > max_depth:
            raise ValueError(f"nested {d} levels deep, more than the {max_depth} taken")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:  # not reached with max_depth well below the interpreter's limit
        raise ValueError("nested too deep") from None


def prune_deep(text: str, max_depth: int, placeholder: str) -> str:
    """JSON text with every array / object that opens deeper than `max_depth` replaced by the string
    `placeholder` (one linear scan): what is left parses without deep recursion, and a reader can tell the
    parts that were cut (a results file's records one by one) from the rest."""
    out, level, last, start = [], 0, 0, None
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            level += 1
            if level > max_depth and start is None:
                start = m.start()
        elif c in "]}":
            if level == max_depth + 1 and start is not None:
                out.append(text[last:start] + json.dumps(placeholder))
                last, start = m.end(), None
            level -= 1
    out.append(text[last:] if start is None else text[last:start])  # unclosed: left for json to refuse
    return "".join(out)


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


GUNZIP_LIMIT = 1 << 30  # bytes a gzip-compressed document may expand to (scripts/scoreboard.py keeps runs gzipped)


def gunzipped(data: bytes) -> bytes:
    """data, or what it expands to where it is gzip-compressed; ValueError where that is corrupt or over the limit."""
    if data[:2] != b"\x1f\x8b":
        return data
    z = zlib.decompressobj(wbits=31)
    try:
        out = z.decompress(data, GUNZIP_LIMIT)
    except zlib.error as exc:
        raise ValueError(f"corrupt gzip data: {exc}") from None
    if z.unconsumed_tail:
        raise ValueError(f"its gzip data expands past {GUNZIP_LIMIT >> 20} MiB")
    return out
