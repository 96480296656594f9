"""The run options both runners take (the pytest plugin's and `opconform run`'s, same names, same meaning),
checked before anything runs: each mistake is one OptionError line, which the runner shows as a usage error."""

from __future__ import annotations

import os
from pathlib import Path

from runners.escape import printable

TIERS = ("strict", "tolerant")
INPUTS = ("auto", "fed", "initializers", "constant")
SHAPES = ("static", "dynamic")
ISOLATIONS = ("process", "none")

# The options both runners take: (flags, keyword arguments of argparse / pytest's addoption). One table,
# so that `opconform run` and the plugin give each the same name, default and meaning.
OPTIONS: list[tuple[tuple[str, ...], dict]] = [
    (("--backend",), dict(default=None, metavar="NAME|module:attr",
                  help="run opconform / ONNX node-test case directories on this backend "
                       "(`opconform backends` lists them; module:attr names any onnx.backend.base.Backend "
                       "or opconform Backend). Without it no case is collected.")),
    (("--backend-option",), dict(action="append", default=[], metavar="KEY=VALUE",
                  help="configure the backend (repeatable): e.g. providers=..., graph_optimization_level=... "
                       "for onnxruntime, device=... for openvino (docs/backends.md lists each backend's keys)")),
    (("--tier",), dict(default="strict", choices=TIERS,
                  help="comparison tier (default strict): tolerant allows +-1 on quantized outputs")),
    (("--xfails-file",), dict(default=None, metavar="FILE",
                  help="test-id substrings, one a line (# comments): matching items are xfail (not strict)")),
    (("--skips-file",), dict(default=None, metavar="FILE",
                  help="test-id substrings, one a line (# comments): matching items are skipped")),
    (("--report",), dict(default=None, metavar="PATH",
                  help="write a JSON results file (one record per item) at the end of the session")),
    (("--case-timeout",), dict(default=60.0, type=float, metavar="SECONDS",
                  help="kill the backend's worker when one data set runs longer (verdict timeout; default 60)")),
    (("--case-memory",), dict(default=None, metavar="SIZE",
                  help="cap the backend worker's memory (e.g. 4G, 512M, none; default 4G): a data set that "
                       "runs out gets error naming the cap and a fresh worker (no effect with --isolation none)")),
    (("--baseline",), dict(default=None, metavar="PATH",
                  help="gate mode: fail only on items worse than this baseline's verdicts; list items now better")),
    (("--update-baseline",), dict(action="store_true",
                  help="write this run's verdicts to the --baseline file (items not run keep their old verdict)")),
    (("--claims",), dict(action="append", default=[], metavar="FILE",
                  help="what the backend claims to implement (repeatable; builtin:onnx-node-tests for ONNX's own "
                       "node tests' configurations): an unsupported item a claim covers is a fail (docs/claims.md)")),
    (("--shard",), dict(default=None, metavar="I/N",
                  help="run only shard I of N (a stable split by case name; the N shards run every case once)")),
    (("--family",), dict(action="append", default=[], metavar="F",
                  help="run only the cases of this family (repeatable); markers family_<F>, op_<Op> and "
                       "kind_<kind> select with -m too")),
    (("--inputs",), dict(default="auto", choices=INPUTS,
                  help="how the model gets its inputs (default auto: every input at run time, and where the backend "
                       "refuses a fed weight in its own words, the weights as initializers; the record says which); "
                       "fed: every input at run time; initializers: "
                       "the weights (scales, zero points, conv weights, shapes...) as initializers holding the "
                       "data set's values; constant: every input an initializer (the model has no inputs)")),
    (("--shapes",), dict(default="static", choices=SHAPES,
                  help="static (default): the graph's inputs and outputs declare their shapes; dynamic: "
                       "every dimension unknown (a dim_param), so the backend selects its kernels without them")),
    (("--max-opset",), dict(default=None, type=int, metavar="N",
                  help="items whose model imports an ONNX opset newer than N are unsupported "
                       "(\"opset 23 > --max-opset 21\"): for a runtime that stops at an older opset")),
    (("--isolation",), dict(default="process", choices=ISOLATIONS,
                  help="process (default): the backend runs in a worker process, so a crash or hang costs "
                       "one data set; none: in the runner's process, for debugging a backend (a crash or exit "
                       "of it ends the run; not with --baseline)")),
]


class OptionError(ValueError):
    """A run option or file that cannot be used: one line, shown as it is."""


def one_line(text: str) -> str:
    """A message on one line, shown safely (it may quote a file or a backend)."""
    return printable(" ".join(text.split()))


def parse_backend_options(pairs: list[str]) -> dict[str, str]:
    """--backend-option KEY=VALUE ... as a dict (runners.backends.base.parse_options; the backend checks them)."""
    from runners.backends.base import parse_options

    try:
        return parse_options(pairs)
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def load_backend(spec: str, options: dict[str, str]):
    """The backend named by --backend, configured with its options."""
    from runners.backends.base import UnknownBackend
    from runners.backends.registry import get_backend

    try:
        return get_backend(spec, options or None)
    except UnknownBackend as exc:
        raise OptionError(one_line(str(exc))) from None
    except Exception as exc:  # noqa: BLE001 - a backend that fails to load is a user-facing error
        raise OptionError(f"--backend {spec}: cannot load: {type(exc).__name__}: {one_line(str(exc))}") from None


def check_families(names: list[str]) -> frozenset[str]:
    from generator.families import FAMILIES

    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise OptionError(f"--family {unknown[0]}: unknown family; known: {', '.join(FAMILIES)}")
    return frozenset(names)


def read_patterns(path: str | None, option: str) -> list[str]:
    """Test-id substrings of an xfails / skips file: one a line, `#` starts a comment."""
    if not path:
        return []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OptionError(f"{option} {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OptionError(f"{option} {path}: cannot read ({exc})") from None
    patterns = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            patterns.append(line)
    return patterns


def check_report_path(report: str) -> None:
    """Fail before running anything when the results file cannot be written."""
    path = Path(report)
    if path.is_dir():
        raise OptionError(f"--report {report}: is a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OptionError(f"--report {report}: cannot create {path.parent} ({exc.strerror or exc})") from None
    if not os.access(path.parent, os.W_OK):
        raise OptionError(f"--report {report}: directory {path.parent} is not writable")


def worker_limits(timeout: float, memory: str | None) -> tuple[float, int | None]:
    """--case-timeout and --case-memory, checked: (seconds, bytes or None for no cap)."""
    from runners.worker import DEFAULT_MEMORY, check_timeout, parse_size

    try:
        check_timeout(timeout)
    except ValueError as exc:
        raise OptionError(f"--case-timeout {timeout:g}: {exc}") from None
    try:
        return timeout, DEFAULT_MEMORY if memory is None else parse_size(memory)
    except ValueError as exc:
        raise OptionError(f"--case-memory {memory}: {exc}") from None


def run_mode(inputs: str, shapes: str, max_opset: int | None):
    """--inputs, --shapes, --max-opset as a runners.input_modes.RunMode."""
    from runners.input_modes import RunMode

    try:
        return RunMode(inputs, shapes, max_opset)
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def check_isolation(isolation: str, baseline: str | None) -> None:
    """--isolation none cannot gate: a backend that crashes or exits there ends the run with its own exit status
    (0 for exit(0)), so a gate would pass on a run that did not run (runners/in_process.py)."""
    if isolation == "none" and baseline:
        raise OptionError("--isolation none with --baseline: a backend that crashed or exited in this process "
                          "would end the gate with its own exit status (0 for exit(0)); gate with --isolation "
                          "process")


def configure_gate(core, report: str | None, baseline: str | None, update: bool, shard: str | None) -> bool:
    """Check the gate's options and files before anything runs (a mistake found at the end loses the run)
    and set them on `core` (runners.session.RunCore). Returns whether the run must keep every record (the
    baseline is written from them)."""
    from runners.gate import (GateError, check_baseline_backend, check_baseline_writable, check_output_paths,
                              parse_shard, read_baseline)

    want_records = False
    try:
        if shard:
            core.shard = parse_shard(shard)
        if update and not baseline:
            raise GateError("--update-baseline needs --baseline PATH (the file to write)")
        check_output_paths(report, baseline)
        if baseline:
            core.baseline_path = Path(baseline).resolve()
            if update:
                want_records = True
                check_baseline_writable(core.baseline_path)
                if core.baseline_path.exists():  # the update merges into it: same backend and settings
                    check_baseline_backend(read_baseline(core.baseline_path), core.identity, baseline)
            else:
                core.baseline = read_baseline(core.baseline_path)
                check_baseline_backend(core.baseline, core.identity, baseline)
    except GateError as exc:
        raise OptionError(printable(str(exc))) from None  # it may quote the baseline file
    return want_records


def save_error(exc: Exception, option: str, path) -> str:
    """The one line saying why a file of the run (--report, --baseline) could not be written."""
    from runners.gate import GateError

    if isinstance(exc, GateError):  # names the option and the file itself
        return f"opconform: {one_line(str(exc))}"
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else one_line(str(exc))
    return printable(f"opconform: cannot write {option} {path}: {why or type(exc).__name__}")


def configure_claims(core, specs: list[str], args: list[str], base: Path, manifests) -> None:
    """Read --claims (runners/claims.py) and check each claim's keys against the manifests of the suites the
    arguments name, before anything runs; set core.claims."""
    from runners.claims import ClaimsError, read_claims
    from runners.summary import suites_run
    from runners.suite_tree import manifest_entries

    try:
        core.claims = read_claims(specs)
        if core.claims is not None:
            entries = [e for d in suites_run(args, base, manifests)
                       for e in manifest_entries(manifests.manifest(Path(os.path.abspath(base / d))))]
            core.claims.check_keys(entries)
    except ClaimsError as exc:
        raise OptionError(one_line(str(exc))) from None
