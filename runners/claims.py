"""Claims: what a backend says it implements. Inside a claim a refusal is a failure: `--claims FILE` turns an
`unsupported` node / graph item that a claim covers into `fail` ("claimed, refused: <the backend's words>"), so a
runtime that stops implementing what it claims (or never did) cannot hide behind `unsupported`.

A claims file holds one claim a line; `#` starts a comment; blank lines are skipped:

    # OP [opset=RANGE] [KEY=VALUE[|VALUE...]] ...
    Cast opset=19-22 from=float|float16 to=float8e4m3fn|float8e5m2 saturate=0|1
    QuantizeLinear opset=21- x=float y=int8|uint8
    MatMulInteger a_type=int8 b_type=uint8
    Cast types='["float","float16","float"]'

OP is a case.json `op`; KEY a key of its `params` (as case.json names them); VALUE the value written as text:
a string as it is, a number in decimal, true / false / null, a list or object as compact JSON (quote it for the
shell-like splitting: '...'). `|` separates the values a claim allows. RANGE is `N`, `A-B`, `A-` (A and later)
or values joined by `|`. A claim covers an item whose case has that op, an opset in the range and, for each KEY,
one of its values (a case without the key is not covered). Negative and probe cases are never covered: the first
must be refused, the second records what a backend returns.

The file is read strictly: a line that does not parse, a key written twice in one claim, a claim written twice
(both lines named), and a KEY that no case of OP in the run's suites has (a typo would make the claim cover
nothing) are usage errors of one line. `builtin:NAME` names a claims file the project ships (runners/claim_sets/,
docs/claims.md: `builtin:onnx-node-tests`, the configurations ONNX's own node tests exercise).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

SETS = Path(__file__).resolve().parent / "claim_sets"
MAX_BYTES = 8 << 20  # a claims file is written by hand or by `opconform claims`: a few thousand lines at most
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_OPSET = re.compile(r"(\d+)(-(\d*))?")


class ClaimsError(ValueError):
    """A claims file that cannot be used: one line naming the file and the line."""


def value_text(value) -> str:
    """A params value as a claim writes it (the module docstring)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Claim:
    op: str
    opsets: tuple[tuple[int, int | None], ...]  # (first, last or None for open), empty: any opset
    constraints: tuple[tuple[str, frozenset[str]], ...]  # (key, the value texts allowed), sorted by key
    where: str  # "FILE line N"
    text: str  # the claim as one line, for messages (its tokens, unquoted)

    def covers(self, op: str, opset, params: dict) -> bool:
        if op != self.op:
            return False
        if self.opsets and not (isinstance(opset, int) and
                                any(lo <= opset and (hi is None or opset <= hi) for lo, hi in self.opsets)):
            return False
        return all(key in params and value_text(params[key]) in allowed for key, allowed in self.constraints)


class Claims:
    """The claims of one or more files, looked up by op."""

    def __init__(self, claims: list[Claim], sources: list[str]):
        self.claims, self.sources = claims, sources
        self._by_op: dict[str, list[Claim]] = {}
        for c in claims:
            self._by_op.setdefault(c.op, []).append(c)

    def covering(self, meta: dict) -> Claim | None:
        """The first claim covering a case (its case.json: kind, op, opset, params), or None."""
        if meta.get("kind") not in ("node", "graph"):
            return None
        params = meta.get("params") if isinstance(meta.get("params"), dict) else {}
        return next((c for c in self._by_op.get(meta.get("op"), ()) if c.covers(meta.get("op"), meta.get("opset"),
                                                                             params)), None)

    def check_keys(self, entries: list[dict]) -> None:
        """ClaimsError for a claim naming a key that no case of its op among `entries` (the run's suites' manifest
        entries) has; an op the entries do not hold is left alone (the claims may cover other suites too)."""
        keys: dict[str, set[str]] = {}
        for e in entries:
            if isinstance(e.get("op"), str) and isinstance(e.get("params"), dict):
                keys.setdefault(e["op"], set()).update(e["params"])
        for c in self.claims:
            if c.op in keys:
                for key, _ in c.constraints:
                    if key not in keys[c.op]:
                        known = ", ".join(sorted(keys[c.op]))
                        raise ClaimsError(f"--claims {c.where}: no case of {c.op} has a key {key!r} "
                                          f"(its keys: {known}; and opset)")


def read_claims(specs: list[str]) -> Claims | None:
    """The claims of --claims FILE (repeatable; builtin:NAME for a shipped set); None for none given."""
    if not specs:
        return None
    claims: list[Claim] = []
    for spec in specs:
        path = _path_of(spec)
        seen: dict[tuple, str] = {}  # within one file: two files may well claim the same
        for claim in parse(_text_of(path, spec), spec):
            key = (claim.op, claim.opsets, claim.constraints)
            if key in seen:
                raise ClaimsError(f"--claims {claim.where}: the same claim as {seen[key]}")
            seen[key] = claim.where
            claims.append(claim)
    return Claims(claims, list(specs))


def _path_of(spec: str) -> Path:
    if spec.startswith("builtin:"):
        name = spec.removeprefix("builtin:")
        known = sorted(p.stem for p in SETS.glob("*.claims"))
        if name not in known:
            raise ClaimsError(f"--claims {spec}: no such built-in claims (known: {', '.join(known)})")
        return SETS / f"{name}.claims"
    return Path(spec)


def _text_of(path: Path, spec: str) -> str:
    try:
        if not path.is_file():
            raise ClaimsError(f"--claims {spec}: {'no such file' if not path.exists() else 'not a regular file'}")
        if path.stat().st_size > MAX_BYTES:
            raise ClaimsError(f"--claims {spec}: larger than {MAX_BYTES >> 20} MiB")
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ClaimsError(f"--claims {spec}: cannot read ({exc})") from None


def parse(text: str, source: str) -> list[Claim]:
    """The claims of a file's text; ClaimsError naming the line for one that does not parse."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        where = f"{source} line {n}"
        try:
            lexer = shlex.shlex(line, posix=True)
            lexer.whitespace_split, lexer.commenters = True, "#"
            tokens = list(lexer)
        except ValueError as exc:
            raise ClaimsError(f"--claims {where}: {exc}") from None
        if tokens:
            out.append(_claim(tokens, where, " ".join(tokens)))
    return out


def _claim(tokens: list[str], where: str, text: str) -> Claim:
    op, *rest = tokens
    if not _NAME.fullmatch(op) or "=" in op:
        raise ClaimsError(f"--claims {where}: {op!r} is not an operator name (a line is OP KEY=VALUE ...)")
    opsets: tuple = ()
    constraints: dict[str, frozenset[str]] = {}
    for token in rest:
        key, eq, value = token.partition("=")
        if not eq or not _NAME.fullmatch(key) or not value:
            raise ClaimsError(f"--claims {where}: {token!r} is not KEY=VALUE")
        if key == "opset" and opsets or key in constraints:
            raise ClaimsError(f"--claims {where}: {key} is written twice")
        if key == "opset":
            opsets = _opsets(value, where)
        else:
            constraints[key] = frozenset(value.split("|"))
    return Claim(op, opsets, tuple(sorted(constraints.items())), where, text)


def _opsets(value: str, where: str) -> tuple[tuple[int, int | None], ...]:
    out = []
    for part in value.split("|"):
        m = _OPSET.fullmatch(part)
        if not m:
            raise ClaimsError(f"--claims {where}: opset {part!r} is not N, A-B or A-")
        lo, hi = int(m.group(1)), (int(m.group(3)) if m.group(3) else None) if m.group(2) else int(m.group(1))
        if hi is not None and hi < lo:
            raise ClaimsError(f"--claims {where}: opset {part!r} ends before it starts")
        out.append((lo, hi))
    return tuple(sorted(out, key=lambda r: (r[0], r[1] if r[1] is not None else 1 << 30)))
