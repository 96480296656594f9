"""Which models one compiler invocation compiles (the IREE backend, runners/backends/iree_backend.py).

The runners hand a backend one case at a time, in the suite's order (sorted case directory names within a folder),
and nothing says which cases come next. So on a cache miss the adapter looks ahead itself: the case asked for and
the next cases of the same folder, family and kind on disk, read with the project's own case reader, up to
`batch` models none of which is in the cache or claimed by another worker, go to the compiler as one module. A
run that does not go in that order (--shard, a list of cases) compiles some models it never asks for: `batch=1`
compiles each case alone. Look-ahead is only for a case's own model as written (--inputs fed / auto): a model the
run rebuilt (--inputs initializers, --shapes dynamic) cannot be predicted from the files, and is compiled alone.

With -j N each worker takes the next 16 cases in turn (runners/run_items.py, CHUNK), so a batch reaches into the
cases a neighbour is handed, whose model is then claimed. Rather than wait for that whole batch, the neighbour
first compiles a batch of its own of the models after it (passing over the cached and claimed ones and, there
only, the end of the family, where the claimer's batch often ends), then takes the claimer's entry: two workers
compile at once, as with batch=1. (In a --family run, that can compile some models of the next family that the
run never asks for.)
"""

from __future__ import annotations

import os
from pathlib import Path

from runners.backends import iree_cache
from runners.backends.iree_compile import RECOVERY, compile_module
from runners.backends.iree_import import function_name, import_models

_SCAN = 4  # siblings looked at per model wanted (cached ones are passed over)


class Batcher:
    """Gets each model's cache entry, compiling it (with the models ahead of it) when it has none."""

    def __init__(self, cache: iree_cache.Cache, tool: str, flags: list[str], compiler_id: str, batch: int,
                 checker: bool = False):
        self.cache, self.tool, self.flags, self.batch, self.checker = cache, tool, flags, batch, checker
        self.compiler_id = compiler_id
        self.invocations: list[int] = []  # functions per compiler invocation (the benchmark reads it)
        self._listing: dict[Path, list[str]] = {}

    def key(self, model) -> str:
        return iree_cache.key(model.SerializeToString(), self.compiler_id,
                              [*self.flags, *RECOVERY, f"(onnx.checker={int(self.checker)})"])

    def entry(self, model, case=None) -> dict:
        k = self.key(model)
        entry = self.cache.get(k)
        if entry is not None:
            return entry
        if self.cache.stale(k):  # the last worker compiling it died (a hang killed by --case-timeout): alone
            if self.cache.take_over(k):
                return self._compile({k: model}, k)
        ahead = self.batch > 1 and case is not None and model is getattr(case, "model", None)
        if not self.cache.claim(k):
            if ahead:  # another worker's batch: meanwhile, a batch of the models further on, then its entry
                more = self._ahead(case, any_family=True)
                if more:
                    self._compile(more, None)
            entry = self.cache.wait(k, limit=3600.0)
            if entry is not None:
                return entry
            self.cache.take_over(k)
            return self._compile({k: model}, k)
        batch = {k: model}
        if ahead:
            batch.update(self._ahead(case))
        return self._compile(batch, k)

    def compile_together(self, models) -> None:
        """Compile these models as one batch where they are not cached yet, every function decided (a caller that
        knows which models it will prepare: the tests compile all theirs in one invocation)."""
        batch: dict = {}
        for model in models:
            k = self.key(model)
            if k not in batch and self.cache.get(k) is None and self.cache.claim(k):
                batch[k] = model
        if batch:
            self._compile(batch, None)

    def _ahead(self, case, any_family: bool = False) -> dict:
        """The models of the cases after `case` in its folder, of its family (any_family: any) and kind, neither
        cached nor claimed, claimed for this batch."""
        from generator.serialize import CaseError, read_case

        folder = Path(case.dir).parent
        names = self._listing.get(folder)
        if names is None:
            try:
                names = sorted(e.name for e in os.scandir(folder) if e.is_dir(follow_symlinks=False))
            except OSError:
                names = []
            self._listing[folder] = names
        family = (case.meta or {}).get("family")
        try:
            at = names.index(Path(case.dir).name)
        except ValueError:
            return {}
        out: dict = {}
        for name in names[at + 1: at + 1 + _SCAN * self.batch]:
            if len(out) + 1 >= self.batch:
                break
            try:
                other = read_case(folder / name)
            except CaseError:
                continue
            if other.kind != case.kind or (not any_family and (other.meta or {}).get("family") != family):
                break
            k = self.key(other.model)
            if k in out or self.cache.get(k) is not None or self.cache.holder(k) is not None:
                continue
            if self.cache.claim(k):
                out[k] = other.model
        return out

    def _compile(self, models: dict, want: str | None) -> dict:
        """Import and compile `models` (key -> model, all claimed) as one module; record what each got; the entry
        of `want` (None: none; every function decided, but where the importer added functions: later, alone)."""
        names = {function_name(k): k for k in models}
        try:
            mod = import_models({function_name(k): m for k, m in models.items()}, self.checker)
            entries = {names[n]: {"refused": why} for n, why in mod.refused.items()}
            vmfbs = {}
            if mod.lines:
                if mod.helpers and len(mod.lines) > 1:  # functions of the importer's own: compile the wanted alone
                    keep = {function_name(want)} & set(mod.lines) if want is not None else set()
                    if keep or want is None:  # (want None: none now, each alone when asked for)
                        mod = import_models({n: models[names[n]] for n in keep}, self.checker)
                wanted = function_name(want) if want is not None else None
                results = compile_module(mod, self.tool, self.flags, self.cache.workdir, wanted, self.invocations) \
                    if mod.lines else {}
                for n, c in results.items():
                    if c.module is not None:
                        vmfbs.setdefault(c.module, Path(c.module))
                        entries[names[n]] = {"module": c.module, "function": n}
                    elif c.error is not None:
                        entries[names[n]] = {"error": c.error}
                    else:
                        entries[names[n]] = {"crash": c.crash, "signal": c.signal}
            self.cache.put(entries, vmfbs)
        finally:
            self.cache.release(models)
        if want is None:
            return {}
        return self.cache.get(want) or {"error": "iree: the compiler left this model undecided (an opconform bug)"}
