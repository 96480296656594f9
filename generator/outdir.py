"""Replace an output directory safely: build the new one apart, swap it in, clean what dead runs left.

    replace(out, build, replaceable, own=None) -> what build returned

What is replaced: with own (a test on the names of OUT's entries), only the entries own() accepts; every other
entry of OUT (a file or directory someone else put there) is kept, carried over into the new OUT. Without
own, the whole directory.

Where the new directory is built, and how it is swapped in:
  beside   `.<OUT>.new-<id>/` in OUT's parent; two renames under a lock of the parent (OUT -> `.<OUT>.old-<id>`,
           new -> OUT; the second is the commit), then the old one is removed. OUT is at every moment the
           whole old directory or the whole new one. Entries own() refuses are then moved from the old
           directory into OUT, under the same lock, before the old one is removed.
  inside   when OUT is a mount point: rename(2) cannot move a mount point (EBUSY) and a directory beside it
           is on another mount (EXDEV). The new directory is built as `OUT/.<OUT>.new-<id>/`; the swap moves
           OUT's entries into `OUT/.<OUT>.old-<id>/`, renames that to `.<OUT>.prev-<id>` (the commit: every
           old entry is out), then moves the new entries in. If a rename of the beside swap fails with
           EBUSY / EXDEV (a bind mount os.path.ismount does not see), the built directory is copied inside.
           Entries own() refuses are never moved.
A symlink OUT is followed: the directory is written at its target and the link stays.

Leftovers. Each of these directories is flock()ed by the run that made it for as long as it exists, and the
kernel drops the lock with the process however it dies (pid reuse does not matter). A run first takes the
lock of every leftover it can: those are a dead run's. It puts a dead swap right (before the commit: the old
entries go back; after it: the new ones are moved in, and the entries own() refuses are moved out of a dead
run's old directory into OUT) and removes the rest; a leftover that still holds such an entry (OUT has one of
that name) is kept. A live run's are left alone.

Ctrl-C is held during a swap and during removals, so that none is cut in half: an interrupt that came
during the swap is raised after it as InterruptedAfterWrite (OUT already holds the new directory).
A directory is 0700 while built (mkdtemp) and gets 0777 & ~umask, as from mkdir, when swapped in beside
(inside, OUT keeps the mode of the mount point). Files and subdirectories get the umask's modes as they are made.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")

MANIFEST = "manifest.json"  # moved out first and in last, so a half-swapped OUT is never taken for a whole one


class Refused(Exception):
    """OUT must not be replaced (a file, or a directory of something else); nothing was touched."""


class InterruptedAfterWrite(KeyboardInterrupt):
    """Ctrl-C came during the swap: it was finished first, OUT holds the new directory."""


class _SigintHeld:
    """Within the block Ctrl-C is noted in `interrupted`, not raised (main thread only: signals go there)."""

    def __enter__(self) -> "_SigintHeld":
        self.interrupted = False
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if previous is not None:  # None: a handler not set from Python, which could not be put back
                self.previous = previous
                signal.signal(signal.SIGINT, self._note)
        return self

    def _note(self, *_) -> None:
        self.interrupted = True

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def sigint_held() -> _SigintHeld:
    return _SigintHeld()


def lock(path: Path) -> int | None:
    """An fd holding an exclusive flock on directory `path`; None if another holds it (or the file system
    cannot lock): such a directory counts as a live run's."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _close(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """Hold directory's flock (waiting for it): the swaps and leftover decisions of runs in it go one at a time."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        fd = None
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:  # no locks here (NFS may refuse one on a directory): go on without
                pass
        yield
    finally:
        _close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _pattern(name: str) -> re.Pattern:
    # also the names of older versions (".OUT.new-<random>", ".OUT.old-<pid>"): their leftovers go too
    return re.compile(rf"\.{re.escape(name)}\.(new|old|prev)-(.+)")


def _leftovers(base: Path, name: str) -> list[tuple[str, str, Path]]:
    """(kind, id, path) of the directories in base named like ours for OUT `name`: old, prev, then new."""
    pattern, found = _pattern(name), []
    for entry in os.scandir(base):
        m = pattern.fullmatch(entry.name)
        if m and entry.is_dir(follow_symlinks=False):
            found.append((m[1], m[2], Path(entry.path)))
    order = {"old": 0, "prev": 1, "new": 2}
    return sorted(found, key=lambda f: (order[f[0]], f[1]))


def entries(real: Path) -> list[str]:
    """What a directory holds, less the working directories of runs writing inside it."""
    pattern = _pattern(real.name)
    return sorted(n for n in os.listdir(real) if not pattern.fullmatch(n))


def _move_all(src: Path, dst: Path, names: list[str], manifest_last: bool) -> None:
    for name in sorted(names, key=lambda n: ((n == MANIFEST) == manifest_last, n)):
        os.rename(src / name, dst / name)


def _settle_inside(real: Path, rid: str) -> None:
    """Put an inside swap with id `rid` that stopped half way right (no lock taken: the caller holds them)."""
    old, prev, new = (real / f".{real.name}.{kind}-{rid}" for kind in ("old", "prev", "new"))
    if old.is_dir():  # before the commit: back with the old entries (OUT holds only old ones)
        _move_all(old, real, os.listdir(old), manifest_last=True)
        os.rmdir(old)
    elif prev.is_dir() and new.is_dir():  # after it: the rest of the new entries in
        _move_all(new, real, os.listdir(new), manifest_last=True)
        os.rmdir(new)


Own = Callable[[str], bool]


def _carry(old: Path, real: Path, own: Own | None) -> list[str]:
    """Move the entries of the old directory that own() refuses into `real`; the names it could not move
    (`real` has an entry of that name), which stay in `old`."""
    if own is None:
        return []
    left = []
    for name in sorted(os.listdir(old)):
        if own(name):
            continue
        if os.path.lexists(real / name):
            left.append(name)
        else:
            os.rename(old / name, real / name)
    return left


def _clean_beside(real: Path, own: Own | None = None) -> None:
    """Put right, or remove, what dead runs writing `real` left beside it."""
    doomed = []
    with _locked(real.parent):
        for kind, _, path in _leftovers(real.parent, real.name):
            fd = lock(path)
            if fd is None:
                continue  # a live run's
            if kind == "old" and not os.path.lexists(real):  # died between its two renames: put it back
                os.rename(path, real)
                os.close(fd)
            elif kind == "old" and real.is_dir() and _carried_not_all(path, real, own, fd):  # died after its commit
                continue  # what it could not carry stays, in the leftover
            else:
                doomed.append((path, fd))
    _remove_all(doomed)


def _carried_not_all(leftover: Path, real: Path, own: Own | None, fd: int) -> bool:
    """Carry a dead run's leftover's entries that own() refuses into `real`; True (and its lock let go) if some
    could not be, so that the leftover must stay."""
    try:
        left = _carry(leftover, real, own)
    except BaseException:
        os.close(fd)
        raise
    if left:
        os.close(fd)
    return bool(left)


def _clean_inside(real: Path, own: Own | None = None) -> None:
    """Put right, or remove, what dead runs writing inside the directory `real` left there."""
    doomed = []
    with _locked(real):
        for kind, rid, path in _leftovers(real, real.name):
            if not path.is_dir():  # a new- one whose prev- has just emptied and removed it
                continue
            fd = lock(path)
            if fd is None:
                continue
            if kind != "new":
                _settle_inside(real, rid)
            if kind == "prev" and _carried_not_all(path, real, own, fd):  # a run of an older gen-cases moved them
                continue
            doomed.append((path, fd))
    _remove_all(doomed)


def _remove_all(doomed: list[tuple[Path, int]]) -> None:
    for path, fd in doomed:  # outside the directory's lock: a removal may take seconds; we hold each one's
        with sigint_held():
            shutil.rmtree(path, ignore_errors=True)
        os.close(fd)


@dataclass
class _Work:
    """The directory a run builds in, locked until it is swapped in or removed."""

    path: Path
    fd: int | None

    @property
    def rid(self) -> str:
        return self.path.name.split(".new-", 1)[1]

    def release(self) -> None:
        _close(self.fd)
        self.fd = None


def _work_dir(base: Path, name: str) -> _Work:
    with _locked(base):  # made and locked before any other run may look at it
        path = Path(tempfile.mkdtemp(prefix=f".{name}.new-{os.getpid()}-", dir=base))
        return _Work(path, lock(path))


def _swap_beside(real: Path, work: _Work, own: Own | None) -> None:
    os.chmod(work.path, 0o777 & ~_umask())
    old = real.parent / f".{real.name}.old-{work.rid}"
    old_fd = None
    try:
        with _locked(real.parent):
            if os.path.lexists(real):
                old_fd = lock(real)  # the old directory stays a live run's until it is removed
                os.rename(real, old)
            try:
                os.rename(work.path, real)  # the commit
            except BaseException:
                if os.path.lexists(old):
                    os.rename(old, real)
                raise
            work.release()
            kept = os.path.isdir(old) and _carry(old, real, own)  # a dead run's: the next run carries them
        if not kept:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        _close(old_fd)


def _swap_inside(real: Path, work: _Work, own: Own | None) -> None:
    rid = work.rid
    old, prev = real / f".{real.name}.old-{rid}", real / f".{real.name}.prev-{rid}"
    old_fd = None
    try:
        with _locked(real):
            old.mkdir()
            old_fd = lock(old)
            try:
                mine = [n for n in entries(real) if own is None or own(n)]
                _move_all(real, old, mine, manifest_last=False)
                os.rename(old, prev)  # the commit
                _move_all(work.path, real, os.listdir(work.path), manifest_last=True)
                os.rmdir(work.path)
            except BaseException:
                _settle_inside(real, rid)
                raise
    finally:
        work.release()
        shutil.rmtree(prev, ignore_errors=True)
        _close(old_fd)


def _swap(real: Path, work: _Work, inside: bool, own: Own | None = None) -> bool:
    """Swap the built directory in, Ctrl-C held; False if OUT turned out to be a mount point (EBUSY / EXDEV:
    a bind mount os.path.ismount does not see) and was left as it was."""
    with sigint_held() as held:
        try:
            (_swap_inside if inside else _swap_beside)(real, work, own)
            done = True
        except OSError as exc:
            if inside or exc.errno not in (errno.EBUSY, errno.EXDEV) or not real.is_dir():
                raise
            done = False
    if held.interrupted:
        raise InterruptedAfterWrite(f"{real} already holds the new suite") if done else KeyboardInterrupt()
    return done


def _into_inside(real: Path, work: _Work) -> _Work:
    """The built directory copied into a working directory inside `real` (on the mount of its entries)."""
    inside = _work_dir(real, real.name)
    try:
        shutil.copytree(work.path, inside.path, symlinks=True, dirs_exist_ok=True)
    except BaseException:
        _discard(inside)
        raise
    _discard(work)
    return inside


def _discard(work: _Work) -> None:
    with sigint_held():
        shutil.rmtree(work.path, ignore_errors=True)
    work.release()


def replace(out: Path, build: Callable[[Path], T], replaceable: Callable[[Path], bool], own: Own | None = None) -> T:
    """Make the directory `out` anew: build(an empty directory), then swap it in. A non-empty `out` for which
    replaceable(out) is false is refused (Refused), as is a file; neither is touched. own: which names of
    `out`'s entries the build replaces (the build writes no others); every other entry is kept. None: all."""
    real = Path(os.path.realpath(out))
    if os.path.lexists(real) and not real.is_dir():
        raise Refused(f"{out} exists and is not a directory")
    real.parent.mkdir(parents=True, exist_ok=True)
    if real.is_dir():
        _clean_inside(real, own)  # first: a run that died swapping inside OUT left it half old, half new
        if entries(real) and not replaceable(real):
            raise Refused(f"{out} is not empty and not an opconform suite; refusing to replace it")
    _clean_beside(real, own)
    inside = real.is_dir() and os.path.ismount(real)
    work = _work_dir(real if inside else real.parent, real.name)
    try:
        result = build(work.path)
        if not _swap(real, work, inside, own):
            work = _into_inside(real, work)
            _swap(real, work, True, own)
    except BaseException:
        _discard(work)
        raise
    return result
