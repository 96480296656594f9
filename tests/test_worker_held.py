"""held(): the worker's VmData, read from its own /proc/self/status (runners/worker_process.py)."""

from __future__ import annotations

import os
import re
import sys

import pytest

from runners.worker_process import held


def _vmdata() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return int(re.search(r"VmData:\s+(\d+)", f.read()).group(1)) << 10


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procfs")
def test_held_follows_the_process_and_its_growth():
    assert held() == _vmdata()
    grown = bytearray(64 << 20)  # VmData grows by the allocation (an anonymous mapping)
    assert held() == _vmdata() and held() >= 64 << 20
    del grown
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # a forked child reads its own status, not its parent's through an inherited descriptor
        extra = bytearray(96 << 20)
        ok = held() == _vmdata() and extra is not None
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    assert got == b"1"
    assert held() == _vmdata()
