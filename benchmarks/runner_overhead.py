"""The pytest plugin against a bare loop, on the same cases, in one run.

    python benchmarks/runner_overhead.py [--suite cases] [--cases 1500] [--repeats 5]
                                         [--backends onnxruntime,openvino]      (target: ratio <= 2.0)

Cases: up to --cases node cases of the suite whose inputs and outputs are all of ordinary numpy types
(float16/32/64, signed and unsigned integers, bool), spread evenly over the sorted names (so every family
is in), copied into a temporary directory that both runs read.

- bare loop: per case, read model.onnx, build the backend's model (onnxruntime.InferenceSession with
  its default options; OpenVINO's Core.compile_model on CPU), then per data set read the .pb files, run,
  and compare with numpy (NaN equal to NaN). What a vendor would write by hand.
- plugin: `python -m pytest DIR --backend B -p no:cacheprovider -q`, with --isolation process (the
  default) and --isolation none.

Each run is a fresh interpreter, so both pay their imports and start-up. The runs of one backend
alternate (bare, plugin isolated, plugin in-process, bare, ...), so load on the machine hits them alike;
the script prints the median of each and their ratios, the isolated plugin's ratio to the bare loop last.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALLED = {"onnxruntime": "onnxruntime", "openvino": "openvino"}


def _parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", default=str(ROOT / "cases"), help="suite directory (default: the committed cases/)")
    p.add_argument("--cases", type=int, default=1500, help="node cases to run (default 1500)")
    p.add_argument("--repeats", type=int, default=5, help="runs of each kind per backend (default 5)")
    p.add_argument("--backends", default="onnxruntime,openvino",
                   help="comma-separated (default onnxruntime,openvino; one not installed is skipped)")
    p.add_argument("--bare", nargs=2, metavar=("BACKEND", "DIR"), help=argparse.SUPPRESS)  # the bare loop itself
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


def bare_loop(backend: str, root: Path) -> tuple[int, int]:
    """(data sets run, data sets equal to the expected outputs)."""
    runs = same = 0
    if backend == "onnxruntime":
        import onnxruntime as ort

        for case in sorted((root / "node").iterdir()):
            try:
                session = ort.InferenceSession((case / "model.onnx").read_bytes(),
                                               providers=["CPUExecutionProvider"])
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
        config = {"INFERENCE_PRECISION_HINT": "f32", "EXECUTION_MODE_HINT": "ACCURACY"}
        for case in sorted((root / "node").iterdir()):
            try:
                compiled = core.compile_model(_openvino_model(core, case / "model.onnx"), "CPU", config)
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
def choose_cases(suite: Path, n: int) -> list[Path]:
    sys.path.insert(0, str(ROOT))
    import onnx

    from generator.serialize import graph_io_types

    ordinary = []
    for case in sorted((suite / "node").iterdir()):
        model = onnx.load(str(case / "model.onnx"), load_external_data=False)
        try:
            ins, outs = graph_io_types(model)
        except KeyError:
            continue
        if all(t.is_numpy_native for _, t in ins + outs):
            ordinary.append(case)
    if len(ordinary) <= n:
        return ordinary
    step = len(ordinary) / n
    return [ordinary[int(i * step)] for i in range(n)]


def _timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    return time.perf_counter() - t0, proc


def _plugin_cmd(backend: str, root: Path, isolation: str) -> list[str]:
    return [sys.executable, "-m", "pytest", str(root), "--backend", backend, "--isolation", isolation,
            "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--no-header", "-o", "addopts="]


def _installed(backend: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(INSTALLED[backend]) is not None


def measure(backend: str, root: Path, repeats: int, n_datasets: int) -> dict[str, list[float]]:
    runs = {"bare loop": [], "plugin, isolation process": [], "plugin, isolation none": []}
    cmds = {"bare loop": [sys.executable, __file__, "--bare", backend, str(root)],
            "plugin, isolation process": _plugin_cmd(backend, root, "process"),
            "plugin, isolation none": _plugin_cmd(backend, root, "none")}
    for r in range(repeats):
        for what, cmd in cmds.items():
            seconds, proc = _timed(cmd)
            if what == "bare loop":
                if proc.returncode != 0:
                    raise SystemExit(f"runner_overhead: the bare loop failed:\n{proc.stderr[-2000:]}")
                ran, same = json.loads(proc.stdout)
                detail = f"{ran} data sets, {same} equal"
            else:
                if proc.returncode not in (0, 1):  # 1: some items failed, which is what a suite is for
                    raise SystemExit(f"runner_overhead: pytest exited {proc.returncode}:\n{proc.stdout[-2000:]}")
                detail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
            print(f"  {backend} run {r + 1}: {what:26s} {seconds:7.2f} s  ({detail})", flush=True)
            runs[what].append(seconds)
    return runs


def main(argv=None) -> int:
    args = _parse(argv)
    if args.bare:
        print(json.dumps(bare_loop(args.bare[0], Path(args.bare[1]))))
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
    cases = choose_cases(suite, args.cases)
    with tempfile.TemporaryDirectory(prefix="opconform-bench-") as tmp:
        root = Path(tmp)
        for case in cases:
            shutil.copytree(case, root / "node" / case.name)
        n_datasets = sum(1 for c in cases for p in c.iterdir() if p.name.startswith("test_data_set_"))
        print(f"{len(cases)} node cases of ordinary types ({n_datasets} data sets) from {suite}, "
              f"{args.repeats} alternated runs of each kind")
        results = {}
        for backend in backends:
            if not _installed(backend):
                print(f"  {backend}: not installed, skipped")
                continue
            results[backend] = measure(backend, root, args.repeats, n_datasets)
    print()
    print(f"{'backend':12s} {'run':26s} {'median':>8s} {'vs bare loop':>13s}")
    ratios = []
    for backend, runs in results.items():
        bare = statistics.median(runs["bare loop"])
        for what, times in runs.items():
            med = statistics.median(times)
            print(f"{backend:12s} {what:26s} {med:7.2f}s {med / bare:12.2f}x")
            if what == "plugin, isolation process":
                ratios.append((backend, med / bare))
    for backend, ratio in ratios:
        print(f"ratio plugin/bare loop ({backend}, isolation process): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
