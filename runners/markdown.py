"""Text shown in Markdown (the report, step summaries): every value escaped, so data can make no HTML, no
link, image or autolink, and no markup that ends a table cell or opens a code span."""

from __future__ import annotations

import re

from runners.escape import printable


class Markdown(str):
    """Text already escaped for Markdown (what md_code returns)."""


# A backslash, a backtick or a pipe would end a code span or a table cell; HTML would be HTML; [ ] ! make
# links, images and footnotes (no link without a "[": parentheses stay as they are), * _ ~ emphasis, # a
# heading (at the start of a list item). A backslash escape works
# on any ASCII punctuation in GFM. Autolinks need "://" (url), "www." or "@" (e-mail, also after "mailto:" /
# "xmpp:"): GFM finds an e-mail address in text whatever its escapes, so "@" goes in a code span of its own.
_MD_ESCAPES = str.maketrans({"\\": "\\\\", "`": "\\`", "|": "\\|", "&": "&amp;", "<": "&lt;", ">": "&gt;",
                             "\n": " ", "[": "\\[", "]": "\\]", "!": "\\!",
                             "*": "\\*", "_": "\\_", "~": "\\~", "#": "\\#", "@": "`@`"})
_AUTOLINK = re.compile(r"(www)\.|:(?=//)", re.I)  # "www." and a scheme's "://" start GFM autolinks
_LIST_START = re.compile(r"^(\s*)(?:([-+])|([0-9]+)\.)")  # a list marker, were the text at a line's start


def md_text(value) -> str:
    """Any text shown in Markdown (a table cell, a list item, a heading): one line, control characters
    escaped, no HTML, no markup that ends a cell or opens a code span, no link, image or autolink."""
    text = printable(str(value).replace("\n", " ")).translate(_MD_ESCAPES)
    text = _AUTOLINK.sub(lambda m: f"{m.group(1)}\\." if m.group(1) else "\\:", text)
    return _LIST_START.sub(lambda m: m.group(1) + (f"\\{m.group(2)}" if m.group(2) else f"{m.group(3)}\\."),
                           text, count=1)


def md_code(value, cell: bool = False) -> Markdown:
    """`value` as a code span (the text shown as it is, control characters escaped), on one line; in a table
    cell (`cell`), its pipes escaped as GFM requires. The fence is longer than any run of backticks in the
    text."""
    text = printable(str(value).replace("\n", " "))
    if not text:
        return Markdown("")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    if cell:
        text = text.replace("|", "\\|")
    return Markdown(f"{fence}{pad}{text}{pad}{fence}")
