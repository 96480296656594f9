"""Text from a suite or a backend, made safe to show: control and bidi characters escaped.

Case names, backend messages and probe values are data an attacker may write. Printed raw, an escape
sequence can retitle the terminal, clear the screen or paint a fake "ALL TESTS PASSED"; a CR can overwrite
a line; U+202E reverses what follows; a NUL truncates a log line in some viewers. Every text output
(terminal, Markdown, HTML) passes data through `printable`, which keeps all other characters and shows
each dangerous one as a visible escape (\\x1b, \\r, \\u202e). JSON keeps the raw text (json escapes it).
"""

from __future__ import annotations

import unicodedata

# Bidi controls (embeddings, overrides, isolates, marks) and other format characters that change how the
# text around them is shown: Unicode category Cf covers them, and the zero-width characters too.
_KEEP = {"\t"}  # a tab shows as blank space


def _unsafe(c: str) -> bool:
    if c in _KEEP:
        return False
    cat = unicodedata.category(c)
    return cat in ("Cc", "Cf", "Zl", "Zp", "Cs") or c == "\x7f"


def _escape(c: str) -> str:
    o = ord(c)
    if c == "\n":
        return "\\n"
    if c == "\r":
        return "\\r"
    if o < 0x100:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def printable(text, newlines: bool = False) -> str:
    """`text` (str() of anything) with control, bidi and other format characters escaped (a backslash
    stays as it is: nothing here is parsed back). newlines=True keeps line feeds (a multi-line message)."""
    s = str(text)
    if s.isprintable() and "\x7f" not in s:  # the common case: nothing to do
        return s
    return "".join(c if (newlines and c == "\n") or not _unsafe(c) else _escape(c) for c in s)


def has_unsafe(text: str) -> bool:
    """Whether `text` holds a character printable() would escape (line feeds included)."""
    return any(_unsafe(c) for c in text)
