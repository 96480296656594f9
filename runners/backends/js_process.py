"""The long-lived Node process of a JavaScript backend (runners/backends/js/driver.mjs) and its framed protocol.

One process per worker, started at the first request: a Node start and the runtime's load (and, for the web
build, its wasm compilation) are paid once, not per item. Requests and answers go over two pipes of their own
(the driver's IN_FD / OUT_FD), so what Node or the runtime prints goes to the worker's fds 1 and 2, the item's
output, and never into a frame. A frame is a 4-byte little-endian length, a JSON header, then the raw blobs
whose lengths header["sizes"] lists.

Node dying (a signal, an exit) while a request is out is NodeDied; a hang is the worker's timeout, which kills
the worker and, through its supervisor, this Node child with it (runners/worker_supervisor.py). Node ends by
itself when its input closes: when the worker ends, whatever way.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
from pathlib import Path

DRIVER = Path(__file__).resolve().parent / "js" / "driver.mjs"
_EXIT_WAIT = 2.0  # seconds to read a dead Node's exit status once its pipe closed


class NodeDied(Exception):
    """The Node process ended while a request was out. str(): one line, what it was doing and how it ended.
    `code`: the exit status a process dying the same way would have (128 + signal for a signal)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


class NodeError(Exception):
    """The runtime refused a request: its own words (`name`: the JavaScript error's name)."""

    def __init__(self, message: str, name: str = ""):
        super().__init__(message)
        self.name = name


def node_executable() -> str | None:
    """Node as $OPCONFORM_NODE names it, else `node` on PATH; None where there is none."""
    named = os.environ.get("OPCONFORM_NODE")
    return shutil.which(named) if named else shutil.which("node")


def _ended(returncode: int | None) -> tuple[str, int]:
    if returncode is None:
        return "closed its pipe", 1
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name} ({-returncode})", 128 - returncode
    return f"exited with status {returncode}", returncode or 1


# onnxruntime-node's Linux build (1.30) carries Microsoft's 1DS telemetry: each process writes
# /tmp/mat-debug-<pid>.log and tries HTTPS uploads unless ORT_DISABLE_TELEMETRY is set (its own variable). A
# conformance run leaves no file outside its own directories and sends nothing anywhere.
TELEMETRY_OFF = {"ORT_DISABLE_TELEMETRY": "1"}


def node_environment() -> dict:
    return {**os.environ, **TELEMETRY_OFF}


class NodeProcess:
    """The driver run by Node for one package flavor ("node" or "web") from modules_dir."""

    def __init__(self, flavor: str, modules_dir: Path, node: str | None = None):
        self.label = f"onnxruntime-{flavor}"
        node = node or node_executable()
        if node is None:
            raise FileNotFoundError("node is not on PATH (set OPCONFORM_NODE to a Node executable)")
        to_node, self._w = os.pipe()
        self._r, from_node = os.pipe()
        try:
            # stdin closed; stdout / stderr the worker's own (the item's output)
            self.proc = subprocess.Popen([node, str(DRIVER), flavor, str(modules_dir), str(to_node), str(from_node)],
                                         stdin=subprocess.DEVNULL, pass_fds=(to_node, from_node), close_fds=True,
                                         env=node_environment())
        finally:
            os.close(to_node)
            os.close(from_node)
        self._in = os.fdopen(self._r, "rb", buffering=1 << 16)
        self._release: list[int] = []

    def release(self, session_id: int) -> None:
        """A session the Python side dropped: released with the next request."""
        self._release.append(session_id)

    def request(self, header: dict, blobs: list[bytes] = (), doing: str = "") -> tuple[dict, list[memoryview]]:
        """One request and its answer (header, blobs). NodeError for the runtime's refusal, NodeDied if Node ended."""
        if self._release:
            header = {**header, "release": self._release}
            self._release = []
        header["sizes"] = [len(b) for b in blobs]
        head = json.dumps(header).encode()
        try:
            self._write([struct.pack("<I", len(head)) + head, *blobs])
            answer, got = self._read_frame()
        except (BrokenPipeError, EOFError):
            raise self._died(doing or header.get("op", "")) from None
        if "error" in answer:
            raise NodeError(answer["error"], answer.get("name", ""))
        return answer, got

    def _write(self, parts: list[bytes]) -> None:
        """One frame in one system call where the pipe takes it whole (each write wakes Node)."""
        views = [memoryview(p).cast("B") for p in parts if len(p)]
        while views:
            done = os.writev(self._w, views)
            while views and done >= len(views[0]):
                done -= len(views[0])
                views.pop(0)
            if views:
                views[0] = views[0][done:]

    def _read(self, n: int) -> bytes:
        data = self._in.read(n)
        if len(data) < n:
            raise EOFError
        return data

    def _read_frame(self) -> tuple[dict, list[memoryview]]:
        (length,) = struct.unpack("<I", self._read(4))
        header = json.loads(self._read(length))
        sizes = header.get("sizes", [])
        body = memoryview(self._read(sum(sizes)))
        blobs, at = [], 0
        for size in sizes:
            blobs.append(body[at:at + size])
            at += size
        return header, blobs

    def _died(self, doing: str) -> NodeDied:
        try:
            returncode = self.proc.wait(_EXIT_WAIT)
        except subprocess.TimeoutExpired:  # it closed its pipes and lives on: end it
            self.proc.kill()
            returncode = None
        how, code = _ended(returncode)
        return NodeDied(f"the Node process running {self.label} (pid {self.proc.pid}) {how} during {doing}", code)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        """End Node: its input closes, it exits; killed if it does not within a moment."""
        for fd in (self._w,):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.proc.wait(_EXIT_WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._in.close()
