"""The report in a real browser: render the report of a real run and screenshot it in headless
Chromium (skipped where no Chromium is installed; scripts/screenshot.sh is what users run)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not (shutil.which("chromium") or shutil.which("chromium-browser")),
                                reason="no Chromium installed (Debian: apt-get install chromium)")


def test_report_of_a_real_run_renders_in_chromium(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in sorted(os.listdir(ROOT / "cases" / "node"))[:40] + ["test_cast_float32_to_int8_probe"]:
        kind = "probe" if name.endswith("_probe") else "node"
        shutil.copytree(ROOT / "cases" / kind / name, suite / name)
    results = tmp_path / "r.json"
    run = subprocess.run(["pytest", str(suite), "--backend", "onnxruntime", "-q", "-p", "no:cacheprovider",
                          "--report", str(results)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    page, png = tmp_path / "report.html", tmp_path / "report.png"
    subprocess.run(["opconform", "report", str(results), "-o", str(page)], check=True, capture_output=True)
    shot = subprocess.run(["bash", str(ROOT / "scripts" / "screenshot.sh"), str(page), str(png), "1200x1600"],
                          capture_output=True, text=True, timeout=120)
    assert shot.returncode == 0, shot.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a blank page compresses far smaller
