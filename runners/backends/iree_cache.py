"""The IREE backend's compile cache: what the compiler made of each model, on disk, shared by the workers of a run
(-j N) and kept for the next run (runners/backends/iree_backend.py).

An entry is keyed by the sha256 of the model's bytes, the compiler's version and revision, and every compiler flag
(`key`): a rerun with another compiler or other flags compiles again. It says where the function is (a module file
and the function's name) or what the importer or compiler said instead (an error, a crash). Layout under the
root: `index/<key>.json`, `modules/<name>.vmfb`, `claims/<key>` (a worker compiling that model now: its pid).

A claim lets two workers of one run share a batch instead of both compiling it: a worker that needs a model a live
worker has claimed compiles, meanwhile, a batch of the models further on that nobody holds (iree_batch.py), then
waits for the claimer's entry. A claim whose process is gone (a worker killed by --case-timeout while compiling:
a hanging compile) is stale; its model is then compiled alone, so that a hang is charged to the item whose model
hangs the compiler, not to every batch it would join.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

FORMAT = "opconform-iree-cache/1"  # in every key: a change of what an entry means starts a new cache


def key(model_bytes: bytes, compiler: str, flags: list[str]) -> str:
    h = hashlib.sha256()
    for part in (FORMAT, compiler, "\0".join(flags)):
        h.update(part.encode())
        h.update(b"\0")
    h.update(model_bytes)
    return h.hexdigest()


def default_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opconform" / "iree"


class Cache:
    """Entries on disk under `root` (None: in this process's memory only, nothing shared or kept)."""

    def __init__(self, root: Path | None):
        self.root = root
        self._memory: dict[str, dict] = {}
        if root is not None:
            for sub in ("index", "modules", "claims", "work"):
                (root / sub).mkdir(parents=True, exist_ok=True)

    @property
    def workdir(self) -> Path:
        return self.root / "work" if self.root is not None else Path(_scratch())

    def get(self, k: str) -> dict | None:
        entry = self._memory.get(k)
        if entry is not None or self.root is None:
            return entry
        try:
            entry = json.loads((self.root / "index" / f"{k}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or ("module" in entry and not self._has_module(entry)):
            return None
        self._memory[k] = entry
        return entry

    def _has_module(self, entry: dict) -> bool:
        return isinstance(entry.get("module"), str) and (self.root / "modules" / entry["module"]).is_file()

    def module_path(self, entry: dict) -> Path:
        return (self.root / "modules" / entry["module"]) if self.root is not None else Path(entry["module"])

    def put(self, entries: dict[str, dict], vmfbs: dict[str, Path]) -> None:
        """Record entries (key -> entry; an entry with "module" names one of vmfbs by its key there)."""
        names = {}
        for tag, path in vmfbs.items():
            if self.root is None:
                names[tag] = str(path)
                continue
            name = f"{hashlib.sha256(path.read_bytes()).hexdigest()[:32]}.vmfb"
            os.replace(path, self.root / "modules" / name)
            names[tag] = name
        for k, entry in entries.items():
            if "module" in entry:
                entry = {**entry, "module": names[entry["module"]]}
            self._memory[k] = entry
            if self.root is not None:
                _write_atomic(self.root / "index" / f"{k}.json", json.dumps(entry, sort_keys=True))

    # ---- claims ---------------------------------------------------------------------------------
    def claim(self, k: str) -> bool:
        """Claim model k for compiling; False if another live process holds it (a stale claim is not taken over:
        see stale())."""
        if self.root is None:
            return True
        try:
            fd = os.open(self.root / "claims" / k, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return True

    def release(self, keys) -> None:
        if self.root is None:
            return
        for k in keys:
            (self.root / "claims" / k).unlink(missing_ok=True)

    def holder(self, k: str) -> int | None:
        """The pid claiming model k, None when unclaimed (0: claimed, pid unreadable)."""
        if self.root is None:
            return None
        try:
            text = (self.root / "claims" / k).read_text()
        except FileNotFoundError:
            return None
        except OSError:
            return 0
        return int(text) if text.strip().isdigit() else 0

    def stale(self, k: str) -> bool:
        """Whether model k's claim is held by a process that is gone."""
        pid = self.holder(k)
        return pid is not None and pid != os.getpid() and not _alive(pid)

    def take_over(self, k: str) -> bool:
        """Take a stale claim of model k (removed, then claimed by this process)."""
        if self.root is None:
            return True
        (self.root / "claims" / k).unlink(missing_ok=True)
        return self.claim(k)

    def wait(self, k: str, limit: float) -> dict | None:
        """Wait up to `limit` seconds while another live process holds model k's claim; its entry, if any."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            entry = self.get(k)
            if entry is not None:
                return entry
            pid = self.holder(k)
            if pid is None or (pid and not _alive(pid)):
                return self.get(k)
            time.sleep(0.05)
        return self.get(k)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


_SCRATCH: list[str] = []


def _scratch() -> str:
    """A temporary directory of this process for a memory-only cache's files."""
    if not _SCRATCH:
        import atexit
        import tempfile

        _SCRATCH.append(tempfile.mkdtemp(prefix="opconform-iree-"))
        atexit.register(discard_scratch)
    return _SCRATCH[0]


def discard_scratch() -> None:
    """Remove this process's temporary directory, if it made one (at exit, and before a worker ends itself with a
    signal, where atexit does not run)."""
    import shutil

    while _SCRATCH:
        shutil.rmtree(_SCRATCH.pop(), ignore_errors=True)
