"""Speed of our QLinearConv reference against onnx.reference's, on the same inputs, in one run.

    python benchmarks/qlinear_conv_reference.py [--repeat N] [--threads N]   (target: ratio >= 20)

Inputs: N=1, C=16, 32x32 uint8, M=32 3x3 uint8 weights, pads 1, per-tensor scales that are not powers of
two (so requantization takes its general path). The two are timed in alternating blocks of 10 calls (each
call timed on its own, warm) so that load on the machine hits both alike; the script prints both medians
and their ratio, and how many output elements differ (onnx.reference requantizes in floating point: a few elements may
differ by one where the exact value is close to a half-integer).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


BLOCK = 10  # consecutive calls of one implementation: each is timed warm, as it runs in a suite


def _parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=200, help="rounds (default 200)")
    p.add_argument("--threads", type=int, default=1,
                   help="BLAS threads (OPENBLAS_NUM_THREADS / OMP_NUM_THREADS; default 1: onnx.reference's integer "
                        "matmul is single-threaded, and a threaded BLAS on a loaded machine measures the scheduler)")
    return p.parse_args()


def main() -> int:
    args = _parse()
    if args.repeat < 1:
        print("qlinear_conv_reference: error: --repeat must be >= 1", file=sys.stderr)
        return 2
    if args.threads < 1:
        print("qlinear_conv_reference: error: --threads must be >= 1", file=sys.stderr)
        return 2
    if "numpy" in sys.modules:
        print("qlinear_conv_reference: error: run it as a script (numpy must load after --threads is set)",
              file=sys.stderr)
        return 2
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before numpy loads
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import numpy as np
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    from generator.reference.qlinear_conv import qlinear_conv

    rng = np.random.RandomState(0)
    feed = {
        "x": rng.randint(0, 256, (1, 16, 32, 32)).astype(np.uint8),
        "x_scale": np.array(0.0213, np.float32), "x_zero_point": np.array(131, np.uint8),
        "w": rng.randint(0, 256, (32, 16, 3, 3)).astype(np.uint8),
        "w_scale": np.array(0.0071, np.float32), "w_zero_point": np.array(119, np.uint8),
        "y_scale": np.array(0.173, np.float32), "y_zero_point": np.array(97, np.uint8),
    }
    types = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.float32): TensorProto.FLOAT}
    node = helper.make_node("QLinearConv", list(feed), ["y"], pads=[1, 1, 1, 1])
    graph = helper.make_graph([node], "qlinearconv", [helper.make_tensor_value_info(k, types[v.dtype], v.shape)
                                                      for k, v in feed.items()],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, (1, 32, 32, 32))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    model.ir_version = 5
    evaluator = ReferenceEvaluator(model)

    def ours():
        return qlinear_conv(*feed.values(), pads=[1, 1, 1, 1]).outputs[0]

    def theirs():
        return evaluator.run(None, feed)[0]

    y_ours, y_theirs = ours(), theirs()  # warm up both
    t_ours, t_theirs = [], []
    for _ in range(-(-args.repeat // BLOCK)):  # blocks of calls, alternating, so that load hits both alike
        for fn, times in ((ours, t_ours), (theirs, t_theirs)):
            for _ in range(BLOCK):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
    m_ours, m_theirs = statistics.median(t_ours), statistics.median(t_theirs)
    differ = int((y_ours != y_theirs).sum())
    print(f"QLinearConv N=1 C=16 32x32 M=32 3x3 pads=1, {args.repeat} rounds, {args.threads} BLAS thread(s)")
    print(f"  opconform reference  median {m_ours * 1e3:8.3f} ms")
    print(f"  onnx.reference       median {m_theirs * 1e3:8.3f} ms")
    print(f"  ratio                {m_theirs / m_ours:8.1f}x")
    print(f"  outputs differing    {differ} of {y_ours.size} elements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
