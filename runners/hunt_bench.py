"""Running one example of `opconform hunt` on the backend: written to a scratch directory, run in the isolated
worker through the runner's own verdict code."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from generator.case import Case
from runners.input_modes import DEFAULT, RunMode
from runners.results import CRASH, ERROR, TIMEOUT, Result


class Bench:
    """Runs cases on the backend through the isolated worker, one scratch directory per case (the worker
    caches a prepared model by directory)."""

    def __init__(self, spec: str, options: dict[str, str] | None, tier: str, timeout: float, memory,
                 isolation: str = "process", mode: RunMode = DEFAULT):
        from runners.backends.registry import get_backend
        from runners.worker import IsolatedRunner

        self.tier = tier
        self.mode = mode
        # isolation "none": the backend runs in this process (debugging a backend; the project's own tests)
        self.runner = IsolatedRunner(spec, timeout, memory=memory, options=options, mode=mode) if isolation == "process" \
            else None
        self.backend = None if self.runner is not None else get_backend(spec, options)
        self.scratch = Path(tempfile.mkdtemp(prefix="opconform-hunt-"))
        self.n = 0
        self.identity: tuple[str, str, dict] | None = None

    def run(self, case: Case) -> Result:
        from generator.serialize import write_case

        self.n += 1
        suite = self.scratch / f"e{self.n}"
        write_case(case, suite)
        case_dir = suite / case.kind / case.name

        def stub(i: int) -> Result:
            name, version, settings = self.identity or ("?", "?", {})
            return Result(case=case.name, dataset=i, kind=case.kind, verdict=ERROR, message="", backend=name,
                          backend_version=version, tier=self.tier, settings=settings)

        try:
            what, answer = self._run(case_dir, stub)
        finally:
            shutil.rmtree(suite, ignore_errors=True)
        if what == "case-error":  # the strategy built a case the reader refuses: an opconform bug
            path, problem = answer
            raise RuntimeError(f"opconform built an invalid case ({case.name}): {path}: {problem}")
        if self.identity is None and answer.verdict not in (CRASH, TIMEOUT):
            self.identity = (answer.backend, answer.backend_version, answer.settings)
        return answer

    def _run(self, case_dir: Path, stub) -> tuple[str, object]:
        if self.runner is not None:
            return self.runner.run(case_dir, 0, self.tier, stub)
        from generator.serialize import CaseError, read_case
        from runners.execute import run_case_dataset

        try:
            loaded = read_case(case_dir)
        except CaseError as exc:
            return "case-error", (str(exc.path), exc.problem)
        return "result", run_case_dataset(self.backend, loaded, 0, self.tier, {}, self.mode)

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
