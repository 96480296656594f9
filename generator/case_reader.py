"""Reading a case's files (generator/serialize.py's docstring: the rules): confined to the case directory,
regular, bounded, hash-checked; a tensor file decoded and checked against what the model declares. Whatever
is wrong raises CaseError naming the file."""

from __future__ import annotations

import errno
import hashlib
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from generator import dtypes


class CaseError(Exception):
    """A case on disk is missing a file, corrupt, or fails its hash. str() names the file."""

    def __init__(self, path: Path | str, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_tensor(data: bytes, path: Path) -> np.ndarray:
    """The array a serialized TensorProto holds (strings as str). Raises CaseError naming `path`."""
    return _tensor(data, path, None)


# Size bounds, checked before a file is read (the committed suite's largest files: a data file of 256 KiB,
# the 1x256x256 float32 tensors of test_layout_softmax_last_axis_1x256x256; model.onnx 10 KiB;
# case.json 17 KiB). A tensor file whose model declares a static shape and a known element type can take
# at most MAX_BYTES_PER_ELEMENT per element plus TENSOR_OVERHEAD; any other file MAX_FILE_BYTES.
MAX_FILE_BYTES = 256 << 20  # model.onnx, a twin model, external data, a tensor of dynamic shape or strings
MAX_CASE_JSON_BYTES = 16 << 20
MAX_BYTES_PER_ELEMENT = 11  # the widest encoding of one element: a 10-byte varint (a negative int32 in
#                             int32_data) with its field tag (repeated fields may be written unpacked)
TENSOR_OVERHEAD = 64 << 10  # the name, dims, doc string... of a TensorProto
# A suite's manifest.json, which a run reads before any case: the committed suite's is 4,759,940 bytes listing
# 13,552 cases (351 bytes a case). About 9x and 7x that leave room for suites of other profiles (100,000 such
# entries fit in the bytes) and keep a manifest listing a million ghost cases (109 MB: ten minutes of
# collection, 2.6 GB, before the first item) from being parsed (bytes) or made into items (cases).
MAX_MANIFEST_BYTES = 40 << 20
MAX_MANIFEST_CASES = 100_000

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: opening a FIFO never waits


@dataclass(frozen=True)
class Slot:
    """What the model declares for one data file: the tensor's name, element type (TensorProto enum, 0 when
    it is no tensor) and dims (None unless every dim is a static size)."""

    name: str
    elem_type: int
    dims: tuple[int, ...] | None

    @staticmethod
    def of(value: onnx.ValueInfoProto) -> "Slot":
        if not value.type.HasField("tensor_type"):
            return Slot(value.name, 0, None)
        t = value.type.tensor_type
        dims = tuple(d.dim_value for d in t.shape.dim)
        static = t.HasField("shape") and all(d.HasField("dim_value") and d.dim_value >= 0 for d in t.shape.dim)
        return Slot(value.name, t.elem_type, dims if static else None)

    def max_bytes(self) -> int:
        dt = dtypes.find(self.elem_type)
        if self.dims is None or dt is None or not dt.is_numeric:
            return MAX_FILE_BYTES
        return min(MAX_FILE_BYTES, math.prod(self.dims) * MAX_BYTES_PER_ELEMENT + TENSOR_OVERHEAD)


def _type_name(elem_type: int) -> str:
    dt = dtypes.find(elem_type)
    return dt.name if dt else f"element type {elem_type}"


def _file_kind(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


class CaseReader:
    """Every file of a case is read through here. A file is read only if it lies inside the case directory
    (a symlink is followed only to a file inside it), is a regular file (not a FIFO, device or directory:
    checked on the open descriptor, before any read) and is no larger than its bound; with case.json it must
    be listed there and match its sha256. The entries of the case directory and of its test_data_set_<i>
    directories are listed once (one listing per directory instead of a stat per file)."""

    def __init__(self, case_dir: Path):
        self.case_dir = case_dir
        self._dir = os.fspath(case_dir)  # reads join strings: pathlib costs more than the open per file
        self.hashes: dict[str, str] | None = None
        self._root: Path | None = None
        self.sets: list[str] = []
        self.names: dict[str, set[str]] = {}

    @property
    def dir_name(self) -> str:
        """The name of the case directory ("." and ".." resolved)."""
        name = self.case_dir.name
        return name if name not in ("", "..") else self.root.name

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = self.case_dir.resolve()
        return self._root

    def inside(self, rel: str, what: str, named: Path) -> str:
        """`rel` (a path that case.json or the model gives) as a normalized path relative to the case
        directory, if it stays inside it with symlinks followed; else CaseError naming the file `named`."""
        try:
            target = (self.case_dir / rel).resolve()
        except (ValueError, RuntimeError, OSError) as exc:  # a NUL byte, a symlink loop, a name too long
            raise CaseError(named, f"{what} {rel!r} cannot be resolved ({exc}); refused") from None
        if Path(rel).is_absolute() or not target.is_relative_to(self.root) or target == self.root:
            raise CaseError(named, f"{what} {rel!r} points outside the case directory; refused")
        return target.relative_to(self.root).as_posix()

    def _open(self, rel: str) -> int:
        try:
            return os.open(f"{self._dir}/{rel}", _OPEN_FLAGS)
        except FileNotFoundError:
            raise CaseError(self.case_dir / rel, "missing file") from None
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise CaseError(self.case_dir / rel, _unopened(f"{self._dir}/{rel}", exc, "cannot read")) from None
        # a symlink (O_NOFOLLOW): followed only to a file inside the case directory
        target = self.inside(rel, "symlink", self.case_dir / rel)
        try:
            return os.open(f"{self._dir}/{target}", _OPEN_FLAGS)
        except OSError as exc:
            raise CaseError(self.case_dir / rel, _unopened(f"{self._dir}/{target}", exc,
                                                           "cannot read the symlink's target")) from None

    def read(self, rel: str, limit: int = MAX_FILE_BYTES, listed: bool = True) -> bytes:
        """The bytes of case file `rel` (a path whose directories are the case's own: the case directory, a
        listed data set directory, or a path `inside` gave). listed=False: case.json itself."""
        fd = self._open(rel)
        try:
            data = _read_bounded(fd, limit)
        except ValueError as exc:
            raise CaseError(self.case_dir / rel, f"{exc}; refused") from None
        except OSError as exc:
            raise CaseError(self.case_dir / rel, f"cannot read ({exc.strerror})") from None
        finally:
            os.close(fd)
        if listed and self.hashes is not None:
            want = self.hashes.get(rel)
            if want is None:
                raise CaseError(self.case_dir / rel, "file not listed in case.json sha256")
            if sha256(data) != want:
                raise CaseError(self.case_dir / rel, "sha256 mismatch: the file differs from what case.json records")
        return data

    def list_sets(self) -> None:
        """The test_data_set_<i> directories, in order, and the names in each."""
        try:
            with os.scandir(self.case_dir) as entries:
                found = [e for e in entries if e.name.startswith("test_data_set_") and e.is_dir()]
        except OSError as exc:
            raise CaseError(self.case_dir, f"cannot list ({exc.strerror})") from None
        for e in found:
            if e.is_symlink():
                self.inside(e.name, "symlink", self.case_dir / e.name)
        try:
            self.sets = sorted((e.name for e in found), key=lambda n: int(n.rsplit("_", 1)[1]))
        except ValueError:
            raise CaseError(self.case_dir, "data set directory not named test_data_set_<i>") from None
        for ds in self.sets:
            try:
                self.names[ds] = set(os.listdir(self.case_dir / ds))
            except OSError as exc:
                raise CaseError(self.case_dir / ds, f"cannot list ({exc.strerror})") from None

    def count(self, ds: str, prefix: str) -> int:
        """How many of <prefix>_0.pb, <prefix>_1.pb ... data set `ds` holds without a gap."""
        j = 0
        while f"{prefix}_{j}.pb" in self.names[ds]:
            j += 1
        return j

    def tensors(self, ds: str, prefix: str, slots: list[Slot] | None, check: bool) -> list[np.ndarray]:
        """<prefix>_<j>.pb of data set `ds`: one per slot, each bounded by its slot and, with `check`, of the
        slot's element type and static shape; slots=None: up to the first missing one, bounded by
        MAX_FILE_BYTES."""
        n = self.count(ds, prefix) if slots is None else len(slots)
        if slots is not None:
            self._exactly(ds, prefix, n)
        arrays = []
        for j in range(n):
            rel = f"{ds}/{prefix}_{j}.pb"
            slot = slots[j] if slots is not None else None
            data = self.read(rel, slot.max_bytes() if slot else MAX_FILE_BYTES)
            arrays.append(_tensor(data, f"{self._dir}/{rel}", slot if check else None))
        return arrays

    def _exactly(self, ds: str, prefix: str, n: int) -> None:
        have = self.count(ds, prefix)
        wanted = f"{prefix}_0.pb .. {prefix}_{n - 1}.pb" if n else f"no {prefix}_<j>.pb"
        if have < n:
            raise CaseError(self.case_dir / ds / f"{prefix}_{have}.pb",
                            f"missing file (the model has {n} {prefix}s: every data set needs {wanted})")
        if f"{prefix}_{n}.pb" in self.names[ds]:
            raise CaseError(self.case_dir / ds / f"{prefix}_{n}.pb",
                            f"one file too many (the model has {n} {prefix}s: {wanted})")

    def exists(self, rel: str) -> bool:
        ds, sep, name = rel.partition("/")
        if sep and "/" not in name and ds in self.names:
            return name in self.names[ds]
        return (self.case_dir / rel).exists()


def _unopened(path: str, exc: OSError, what: str) -> str:
    """Why a case file could not be opened: what it is when it is no regular file (a socket cannot be opened
    at all, ENXIO), else the system's words."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
        return f"{_file_kind(mode)}, not a regular file; refused"
    return f"{what} ({exc.strerror})"


def _read_bounded(fd: int, limit: int) -> bytes:
    """The content of an open file if it is a regular file of at most `limit` bytes (checked on the
    descriptor before reading); else ValueError saying what it is."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{_file_kind(st.st_mode)}, not a regular file")
    if st.st_size > limit:
        raise ValueError(f"{st.st_size} bytes, more than the {limit} it can take")
    parts, total = [], 0
    while chunk := os.read(fd, max(st.st_size + 1 - total, 1 << 16)):  # +1: a file that grew is seen
        total += len(chunk)
        if total > limit:
            raise ValueError(f"more than the {limit} bytes it can take")
        parts.append(chunk)
    return b"".join(parts)


def _tensor(data: bytes, path: Path | str, slot: Slot | None) -> np.ndarray:
    """The tensor stored in `data`, of the element type and static shape `slot` declares (if given)."""
    tensor = onnx.TensorProto()
    try:
        tensor.ParseFromString(data)
    except Exception as exc:  # protobuf raises several types for corrupt bytes
        raise CaseError(path, f"not a valid TensorProto ({protobuf_problem(exc)})") from None
    if tensor.data_location == onnx.TensorProto.EXTERNAL or len(tensor.external_data):
        # before any conversion: numpy_helper.to_array would read the file, relative to the working directory
        raise CaseError(path, "external data in a data file; refused")
    if slot is not None and slot.elem_type and tensor.data_type != slot.elem_type:
        raise CaseError(path, f"a {_type_name(tensor.data_type)} tensor, but the model declares "
                              f"{_type_name(slot.elem_type)} for {slot.name!r}")
    if slot is not None and slot.dims is not None and tuple(tensor.dims) != slot.dims:
        raise CaseError(path, f"shape {list(tensor.dims)}, but the model declares {list(slot.dims)} for {slot.name!r}")
    return _to_array(tensor, path)


def _to_array(tensor: onnx.TensorProto, path: Path | str) -> np.ndarray:
    dt = dtypes.find(tensor.data_type)
    if dt is not None and not dt.onnx_knows:  # a type of a newer onnx than the installed one: decoded here
        if not tensor.HasField("raw_data") and math.prod(tensor.dims):
            raise CaseError(path, f"{dt.name} data outside raw_data, which this onnx ({dtypes.ONNX_VERSION}) "
                                  "cannot convert")
        try:
            return dt.from_raw(tensor.raw_data, tuple(tensor.dims))
        except ValueError as exc:
            raise CaseError(path, f"not a valid TensorProto ({exc})") from None
    try:
        array = numpy_helper.to_array(tensor)
    except Exception as exc:  # noqa: BLE001 - a tensor whose data does not fit its type and dims
        raise CaseError(path, f"not a valid TensorProto ({exc.__class__.__name__}: {exc})") from None
    if tensor.data_type == onnx.TensorProto.STRING:
        array = np.vectorize(lambda s: s.decode("utf-8") if isinstance(s, bytes) else s,
                             otypes=[object])(array) if array.size else array.astype(object)
    return array


def protobuf_problem(exc: Exception) -> str:
    """One line saying why protobuf refused to parse a file."""
    text = " ".join(str(exc).split())
    if isinstance(exc, RecursionError) or any(w in text for w in ("MaxDepth", "nesting", "recursion")):
        return "nested deeper than protobuf's recursion limit"
    return f"{exc.__class__.__name__}: {text[:200]}" if text else exc.__class__.__name__
