"""Where `opconform report -o` may write: a new path, an empty file, or a report opconform wrote (MARK);
never a symbolic link, a FIFO, a directory, an opconform data file or a user's file."""

from __future__ import annotations

from pathlib import Path

from runners.results import HEAD, existing_file, head_format

# ---- what says a file is a report opconform wrote ----------------------------------------------------

# An HTML comment in every report (the HTML's second line, the Markdown's last): `-o` replaces a file that
# holds it, or an empty one, and refuses any other (a user's notes.md). GitHub hides it in a step summary.
MARK = "<!-- written by opconform report: it replaces this file when run again with -o -->"
_OLD_HEADS = (b"# opconform conformance report\n",  # reports from before MARK
              b'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
              b"<title>opconform conformance report</title>\n")
MARK_BYTES = 4096  # the head and the tail of a file looked at for MARK


def is_report(head: bytes, tail: bytes) -> bool:
    """Whether a file whose first and last MARK_BYTES bytes are `head` and `tail` is a report opconform wrote:
    MARK on one of its first two or last two lines, or the first lines of a report from before MARK."""
    mark = MARK.encode()
    lines = head.split(b"\n")[:2] + tail.rstrip(b"\n").split(b"\n")[-2:]
    return any(line.strip() == mark for line in lines) or head.startswith(_OLD_HEADS)


def check_output(path: Path | str) -> None:
    """`opconform report -o`'s policy, as `--report`'s: ValueError (one line) for a path the report must not
    be written to: a symbolic link, a directory, a FIFO or any file that is not a regular one (never opened
    in a way that blocks), an opconform data file (results, baseline, manifest), or an existing file that
    is not a report opconform wrote (MARK; an empty file may be written over)."""
    found = existing_file(path, HEAD + 1, MARK_BYTES)
    if found is None or not found[0]:
        return
    head, tail = found
    if head_format(head):
        raise ValueError(f"{path}: is an opconform data file, not a report (choose another path)")
    if not is_report(head, tail):
        raise ValueError(f"{path}: exists and is not a report opconform wrote; it would be overwritten "
                         "(choose another path)")
