"""The runners (pytest plugin, `opconform run`) against a bare loop doing the same work, in one run.

    python benchmarks/runner_overhead.py [--suite cases] [--cases 1500] [--repeats 5]
                                         [--backends onnxruntime,openvino] [--whole [--parallel] [--no-plugin]]
                                         (target: ratio <= 1.5)

Cases: up to --cases node cases of the suite whose inputs and outputs are all of ordinary numpy types
(float16/32/64, signed and unsigned integers, bool), spread evenly over the sorted names (so every family
is in), copied into a temporary directory that both runs read. With --whole: the plugin and the runner run
the whole suite, and so does the bare loop on onnxruntime (benchmarks/bare_loop.py: every case, node and graph
data sets of every type compared under the case's compare spec, probes run, negatives expected to be refused;
the same work but for the runners' checks, records and diagnosis); on OpenVINO the bare loop runs the node /
graph data sets of ordinary types only.

- bare loop: per case, read model.onnx, build the backend's model with the plugin's own settings, taken from
  the backend object (onnxruntime: its SessionOptions, optimizations off, one intra-op thread, no spinning,
  its providers; OpenVINO: its device and compile properties), then per data set read the .pb files
  (onnx.numpy_helper), run, and compare bit-exact with numpy (NaN equal to NaN). What a vendor would write
  by hand, configured as the plugin configures the backend: like with like.
- plugin: `python -m pytest DIR --backend B -p no:cacheprovider -q`, with --isolation process (the
  default) and --isolation none (--whole: process only).
- runner (where runners/run.py exists): `python -m runners.run SUITE --backend B`, its defaults (crash isolation
  in a worker process, as the plugin's).

Each run is a fresh interpreter, so all pay their imports and start-up. The runs of one backend
alternate (bare, plugin, runner, bare, ...), so load on the machine hits them alike; the script prints the
median of each and their ratios to the bare loop (--whole on OpenVINO: also per data set, as the runners do
more), in wall time and in CPU time (the command's and its children's: on a shared machine, what the others' load leaves alone).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CPU: dict[str, dict[str, list[float]]] = {}  # backend -> run -> CPU seconds of each run (for a shared machine)
INSTALLED = {"onnxruntime": "onnxruntime", "openvino": "openvino"}


def _parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", default=str(ROOT / "cases"), help="suite directory (default: the committed cases/)")
    p.add_argument("--cases", type=int, default=1500, help="node cases to run (default 1500)")
    p.add_argument("--repeats", type=int, default=5, help="runs of each kind per backend (default 5)")
    p.add_argument("--backends", default="onnxruntime,openvino",
                   help="comma-separated (default onnxruntime,openvino; one not installed is skipped)")
    p.add_argument("--whole", action="store_true",
                   help="the whole suite: plugin and runner on it, and the bare loop (onnxruntime: every case, "
                        "the same work; OpenVINO: node / graph data sets of ordinary types) (--cases is ignored)")
    p.add_argument("--jobs", default="",
                   help="with --whole: also the runner with each of these -j values (comma-separated, e.g. 1,3)")
    p.add_argument("--parallel", action="store_true",
                   help="with --whole: also the plugin with -n auto (pytest-xdist) and the runner with -j 1 "
                        "(its default is -j 2)")
    p.add_argument("--no-plugin", action="store_true", help="with --whole: leave the plugin out (the runner only)")
    p.add_argument("--bare", nargs=2, metavar=("BACKEND", "DIR"), help=argparse.SUPPRESS)  # the bare loop itself
    p.add_argument("--bare-whole", nargs=2, metavar=("BACKEND", "SUITE"), help=argparse.SUPPRESS)  # its --whole one
    return p.parse_args(argv)


# ---- the bare loop (run in its own interpreter) -------------------------------------------------------------
def _read_pb(path: Path):
    import onnx
    from onnx import numpy_helper

    t = onnx.TensorProto()
    t.ParseFromString(path.read_bytes())
    return numpy_helper.to_array(t)


def _same(a, b) -> bool:
    import numpy as np

    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))


def _datasets(case: Path):
    for ds in sorted((p for p in case.iterdir() if p.name.startswith("test_data_set_")),
                     key=lambda p: int(p.name.rsplit("_", 1)[1])):
        ins = [_read_pb(p) for p in sorted(ds.glob("input_*.pb"), key=lambda p: int(p.stem.split("_")[1]))]
        outs = [_read_pb(p) for p in sorted(ds.glob("output_*.pb"), key=lambda p: int(p.stem.split("_")[1]))]
        yield ins, outs


def whole_bare_loop(suite: Path) -> dict[str, int]:
    """The onnxruntime bare loop over every case of the suite (benchmarks/bare_loop.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bare_loop

    cases = [c for kind in ("node", "graph", "probe", "negative") if (suite / kind).is_dir()
             for c in sorted((suite / kind).iterdir())]
    return bare_loop.loop(cases, *plugin_settings("onnxruntime"))


def plugin_settings(backend: str) -> tuple:
    """The settings the plugin's backend builds its models with, taken from the backend object itself (so
    the bare loop cannot drift from them): onnxruntime's session options (optimizations off, one intra-op
    thread, no spinning), providers and provider options; OpenVINO's device and compile properties."""
    sys.path.insert(0, str(ROOT))
    from runners.backends.registry import get_backend

    b = get_backend(backend)
    if backend == "onnxruntime":
        return b._options(), b.providers, b._provider_options()
    return b.config.device, dict(b.config.properties)


def bare_cases(root: Path) -> list[Path]:
    """The case directories of root's node/ and graph/ folders, or those listed in root/cases.txt."""
    listed = root / "cases.txt"
    if listed.is_file():
        return [Path(line) for line in listed.read_text().splitlines() if line]
    return [c for kind in ("node", "graph") if (root / kind).is_dir() for c in sorted((root / kind).iterdir())]


def bare_loop(backend: str, root: Path) -> tuple[int, int]:
    """(data sets run, data sets equal to the expected outputs)."""
    runs = same = 0
    cases = bare_cases(root)
    if backend == "onnxruntime":
        import onnxruntime as ort

        options, providers, provider_options = plugin_settings(backend)
        for case in cases:
            try:
                session = ort.InferenceSession((case / "model.onnx").read_bytes(), options,
                                               providers=providers, provider_options=provider_options)
            except Exception:  # noqa: BLE001 - counted as run, not equal
                runs += sum(1 for _ in _datasets(case))
                continue
            names = [i.name for i in session.get_inputs()]
            for ins, outs in _datasets(case):
                runs += 1
                try:
                    got = session.run(None, dict(zip(names, ins)))
                except Exception:  # noqa: BLE001
                    continue
                same += len(got) == len(outs) and all(_same(g, o) for g, o in zip(got, outs))
    elif backend == "openvino":
        import numpy as np
        import openvino as ov

        core = ov.Core()
        device, config = plugin_settings(backend)
        for case in cases:
            try:
                compiled = core.compile_model(_openvino_model(core, case / "model.onnx"), device, config)
            except Exception:  # noqa: BLE001
                runs += sum(1 for _ in _datasets(case))
                continue
            for ins, outs in _datasets(case):
                runs += 1
                try:
                    res = compiled([np.array(x) for x in ins])  # OpenVINO takes writable arrays only
                    got = [res[o] for o in compiled.outputs]
                except Exception:  # noqa: BLE001
                    continue
                same += len(got) == len(outs) and all(_same(g, o) for g, o in zip(got, outs))
    else:
        raise SystemExit(f"runner_overhead: no bare loop for {backend}")
    return runs, same


def _openvino_model(core, path: Path):
    """The ONNX model read by OpenVINO's frontend; OpenVINO's own ConvertPromoteTypes built with its opset14
    API, as a user of that operator would."""
    import onnx
    import openvino.opset14 as ops
    from onnx import helper

    model = onnx.load(str(path))
    node = model.graph.node[0]
    if node.op_type != "ConvertPromoteTypes":
        return core.read_model(str(path))
    import openvino as ov
    from onnx.helper import tensor_dtype_to_np_dtype

    params = [ops.parameter([d.dim_value for d in v.type.tensor_type.shape.dim],
                            ov.Type(tensor_dtype_to_np_dtype(v.type.tensor_type.elem_type)), name=v.name)
              for v in model.graph.input]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    kw = {k: bool(attrs[k]) for k in ("promote_unsafe", "pytorch_scalar_promotion") if k in attrs}
    if "u64_integer_promotion_target" in attrs:
        kw["u64_integer_promotion_target"] = attrs["u64_integer_promotion_target"].decode()
    out = ops.convert_promote_types(params[0], params[1], **kw)
    return ov.Model([out.output(0), out.output(1)], params, "bare")


# ---- choosing and timing ------------------------------------------------------------------------------------
def choose_cases(suite: Path, n: int | None, kinds: tuple[str, ...] = ("node",)) -> list[Path]:
    """Up to n (None: all) cases of these kinds whose inputs and outputs are all of ordinary numpy types."""
    sys.path.insert(0, str(ROOT))
    import onnx

    from generator.serialize import graph_io_types

    ordinary = []
    for case in sorted(c for kind in kinds if (suite / kind).is_dir() for c in (suite / kind).iterdir()):
        model = onnx.load(str(case / "model.onnx"), load_external_data=False)
        try:
            ins, outs = graph_io_types(model)
        except KeyError:
            continue
        if all(t.is_numpy_native for _, t in ins + outs):
            ordinary.append(case)
    if n is None or len(ordinary) <= n:
        return ordinary
    step = len(ordinary) / n
    return [ordinary[int(i * step)] for i in range(n)]


def _timed(cmd: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, CPU seconds of the command and its children (user + system), the process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc


def _plugin_cmd(backend: str, root: Path, isolation: str) -> list[str]:
    return [sys.executable, "-m", "pytest", str(root), "--backend", backend, "--isolation", isolation,
            "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--no-header", "-o", "addopts="]


def _runner_cmd(backend: str, root: Path) -> list[str] | None:
    """`opconform run` (runners/run.py) with its defaults, where this tree has it."""
    if not (ROOT / "runners" / "run.py").is_file():
        return None
    return [sys.executable, "-m", "runners.run", str(root), "--backend", backend]


def _installed(backend: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(INSTALLED[backend]) is not None


def measure(backend: str, root: Path, repeats: int, suite: Path | None = None,
            parallel: bool = False, with_plugin: bool = True, jobs: tuple[int, ...] = ()) -> dict[str, list[float]]:
    """Alternated timed runs. Without `suite`: the bare loop, the plugin (both isolations) and the runner on
    root's cases; with it (--whole): the bare loop on root/cases.txt, the plugin and the runner on the whole suite
    (parallel: also the plugin with -n auto and the runner with -j 1)."""
    bare = [sys.executable, __file__, "--bare", backend, str(root)]
    if suite is not None and backend == "onnxruntime":
        bare = [sys.executable, __file__, "--bare-whole", backend, str(suite)]
    if suite is None:
        cmds = {"bare loop": bare, "plugin, isolation process": _plugin_cmd(backend, root, "process"),
                "plugin, isolation none": _plugin_cmd(backend, root, "none")}
        if _runner_cmd(backend, root) is not None:
            cmds["runner (opconform run)"] = _runner_cmd(backend, root)
    else:
        cmds = {"bare loop": bare}
        if with_plugin:
            cmds["plugin, isolation process"] = _plugin_cmd(backend, suite, "process")
        if parallel and with_plugin:
            cmds["plugin -n auto"] = [sys.executable, "-m", "pytest", str(suite), "--backend", backend, "-n", "auto",
                                      "-p", "no:cacheprovider", "-q", "--no-header", "-o", "addopts="]
        if _runner_cmd(backend, suite) is not None:
            cmds["runner (opconform run)"] = _runner_cmd(backend, suite)
            for j in sorted(set(jobs) | ({1} if parallel else set())):
                cmds[f"runner -j {j}"] = _runner_cmd(backend, suite) + ["-j", str(j)]
    runs = {what: [] for what in cmds}
    cpus = CPU.setdefault(backend, {})
    for r in range(repeats):
        for what, cmd in cmds.items():
            seconds, cpu, proc = _timed(cmd)
            if what == "bare loop":
                if proc.returncode != 0:
                    raise SystemExit(f"runner_overhead: the bare loop failed:\n{proc.stderr[-2000:]}")
                counts = json.loads(proc.stdout)
                if isinstance(counts, dict):
                    detail = ", ".join(f"{v} {k}" for k, v in counts.items())
                else:
                    detail = f"{counts[0]} data sets, {counts[1]} equal"
            else:
                if proc.returncode not in (0, 1):  # 1: some items failed, which is what a suite is for
                    raise SystemExit(f"runner_overhead: {what} exited {proc.returncode}:\n"
                                     f"{(proc.stdout + proc.stderr)[-2000:]}")
                detail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
            print(f"  {backend} run {r + 1}: {what:26s} {seconds:7.2f} s, CPU {cpu:7.2f} s  ({detail})", flush=True)
            runs[what].append(seconds)
            cpus.setdefault(what, []).append(cpu)
    return runs


def main(argv=None) -> int:
    args = _parse(argv)
    if args.bare:
        print(json.dumps(bare_loop(args.bare[0], Path(args.bare[1]))))
        return 0
    if args.bare_whole:
        print(json.dumps(whole_bare_loop(Path(args.bare_whole[1]))))
        return 0
    if args.cases < 1 or args.repeats < 1:
        print("runner_overhead: error: --cases and --repeats must be >= 1", file=sys.stderr)
        return 2
    suite = Path(args.suite)
    if not (suite / "node").is_dir():
        print(f"runner_overhead: error: {suite}: no node/ folder (not a suite)", file=sys.stderr)
        return 2
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in backends if b not in INSTALLED]
    if unknown:
        print(f"runner_overhead: error: no bare loop for {', '.join(unknown)} (have: {', '.join(INSTALLED)})",
              file=sys.stderr)
        return 2
    if args.whole:
        jobs = tuple(int(j) for j in args.jobs.split(",") if j.strip())
        return whole_suite(suite, backends, args.repeats, args.parallel, not args.no_plugin, jobs)
    cases = choose_cases(suite, args.cases)
    with tempfile.TemporaryDirectory(prefix="opconform-bench-") as tmp:
        root = Path(tmp)
        for case in cases:
            shutil.copytree(case, root / "node" / case.name)
        n_datasets = sum(1 for c in cases for p in c.iterdir() if p.name.startswith("test_data_set_"))
        print(f"{len(cases)} node cases of ordinary types ({n_datasets} data sets) from {suite}, "
              f"{args.repeats} alternated runs of each kind")
        results = {b: measure(b, root, args.repeats) for b in _available(backends)}
    _table(results, "same cases, same data sets")
    _ratios(results, ("plugin, isolation process", "runner (opconform run)"))
    return 0


def whole_suite(suite: Path, backends: list[str], repeats: int, parallel: bool = False,
                with_plugin: bool = True, jobs: tuple[int, ...] = ()) -> int:
    """--whole: the plugin and the runner on the whole suite against the bare loop. On onnxruntime the bare
    loop does the same work over every case (benchmarks/bare_loop.py): the ratio is like for like. On OpenVINO
    it runs the node / graph data sets of ordinary numpy types only, so the per-data-set ratio is printed
    too: seconds per item run over the bare loop's seconds per data set."""
    items = _items_of(suite)
    for backend in _available(backends):
        if backend == "onnxruntime":
            print(f"whole suite {suite} ({items} items), onnxruntime; bare loop: every case, the same work; "
                  f"{repeats} alternated run(s) of each kind")
            results = {backend: measure(backend, suite, repeats, suite, parallel, with_plugin, jobs)}
            _table(results, f"whole suite: {items} items, the same work on every side")
            _ratios(results, ("runner (opconform run)", *(w for w in results[backend] if w.startswith("runner -j")),
                              "plugin, isolation process"))
            continue
        cases = choose_cases(suite, None, ("node", "graph"))
        n_datasets = sum(1 for c in cases for p in c.iterdir() if p.name.startswith("test_data_set_"))
        with tempfile.TemporaryDirectory(prefix="opconform-bench-") as tmp:
            root = Path(tmp)
            (root / "cases.txt").write_text("".join(f"{c.resolve()}\n" for c in cases))
            print(f"whole suite {suite}, {backend}; bare loop: {len(cases)} node / graph cases of ordinary types "
                  f"({n_datasets} data sets), {repeats} alternated run(s) of each kind")
            results = {backend: measure(backend, root, repeats, suite, parallel, with_plugin, jobs)}
        _table(results, f"whole suite: {items} items; bare loop: {n_datasets} data sets",
               per_item={"bare loop": n_datasets, "*": items})
    return 0


def _ratios(results: dict, runs: tuple[str, ...]) -> None:
    for backend, times in results.items():
        for what in runs:
            if what in times:
                ratio = statistics.median(times[what]) / statistics.median(times["bare loop"])
                cpu = statistics.median(CPU[backend][what]) / statistics.median(CPU[backend]["bare loop"])
                print(f"ratio {what} / bare loop ({backend}): {ratio:.2f} wall, {cpu:.2f} CPU")


def _items_of(suite: Path) -> int:
    """Items of a whole-suite run: a data set each, one for a case without any, one per missing manifest case."""
    n = 0
    for kind in ("node", "graph", "probe", "negative"):
        for case in (suite / kind).iterdir() if (suite / kind).is_dir() else ():
            n += max(1, sum(1 for p in case.iterdir() if p.name.startswith("test_data_set_")))
    return n


def _available(backends: list[str]) -> list[str]:
    out = []
    for backend in backends:
        if _installed(backend):
            out.append(backend)
        else:
            print(f"  {backend}: not installed, skipped")
    return out


def _table(results: dict, title: str, per_item: dict | None = None) -> None:
    print()
    print(title)
    head = f"{'backend':12s} {'run':26s} {'median':>8s} {'vs bare loop':>13s} {'CPU':>8s} {'CPU vs bare':>12s}"
    print(head + (f" {'per data set vs bare':>21s}" if per_item else ""))
    for backend, runs in results.items():
        bare = statistics.median(runs["bare loop"])
        bare_cpu = statistics.median(CPU[backend]["bare loop"])
        for what, times in runs.items():
            med, cpu = statistics.median(times), statistics.median(CPU[backend][what])
            line = f"{backend:12s} {what:26s} {med:7.2f}s {med / bare:12.2f}x {cpu:7.2f}s {cpu / bare_cpu:11.2f}x"
            if per_item:
                unit = (med / per_item.get(what, per_item["*"])) / (bare / per_item["bare loop"])
                line += f" {unit:20.2f}x"
            print(line)


if __name__ == "__main__":
    sys.exit(main())
