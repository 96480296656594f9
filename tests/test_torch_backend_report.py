"""The report's view of one runtime under two settings (runners/report_pairs.py): the CPU and GPU results of
torch (or jax, or any backend) side by side, listing the items whose results differ. No torch needed: the
results files are written here."""

from __future__ import annotations

from runners.report import build, render
from runners.report_inputs import load
from test_report_views import rec, write


def failed(case, actual_bits, dataset=0):
    r = rec(case, "fail", dataset=dataset)
    r.update(n_mismatch=1, n_total=4, mismatches=[{"index": [1], "input": "nan", "actual_bits": actual_bits,
                                                   "expected_bits": "0xff", "output": "y"}])
    return r


def torch_on(device, records):
    return {"name": "torch", "version": "2.13.0", "settings": {"device": device, "device_name": f"{device} chip"}}, \
        records


def test_pairs_list_items_that_differ_between_devices(tmp_path):
    cpu = [rec("test_a", "pass"), failed("test_b", "0x7f"), failed("test_c", "0x7f"), rec("test_d", "unsupported"),
           rec("test_only_cpu", "fail")]
    gpu = [rec("test_a", "fail"), failed("test_b", "0x7f"), failed("test_c", "0xff"), rec("test_d", "unsupported")]
    files = [write(tmp_path / f"{d}.json", recs, backend=b) for d, (b, recs) in
             (("cpu", torch_on("cpu", cpu)), ("cuda", torch_on("cuda", gpu)))]
    runs = load(files)
    (pair,) = build(runs)["pairs"]
    # test_a: verdicts differ; test_c: both fail, with different bits; test_b, test_d: the same; test_only_cpu: one ran it
    assert [row["case"] for row in pair["rows"]] == ["test_a", "test_c"]
    assert (pair["total"], pair["common"]) == (2, 4)
    assert "device=cpu" in pair["settings"] and "device=cuda" in pair["settings"]
    assert "got 0x7f" in pair["rows"][1]["a"] and "got 0xff" in pair["rows"][1]["b"]
    md = render(runs, "md")
    assert "2 of 4 items differ" in md and "`test_c[0]`" in md
    assert "2 of 4 items differ" in render(runs, "html")


def test_no_pair_across_runtimes_or_same_settings(tmp_path):
    a = write(tmp_path / "a.json", [rec("test_a", "pass")], backend=torch_on("cpu", [])[0])
    b = write(tmp_path / "b.json", [rec("test_a", "fail")],
              backend={"name": "jax", "version": "2.13.0", "settings": {"device": "gpu"}})
    c = write(tmp_path / "c.json", [rec("test_a", "fail")], backend=torch_on("cpu", [])[0])
    assert build(load([a, b]))["pairs"] == []
    assert build(load([a, c]))["pairs"] == []  # two runs of one configuration: no setting to put side by side
