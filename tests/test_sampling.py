"""generator.sampling: seeded draws from PCG64 raw words mapped by our own code, and gen-cases' independence
from hypothesis (the committed suite must not change with the installed hypothesis version)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from generator import families, sampling
from generator.sampling import Stream

ROOT = Path(__file__).resolve().parents[1]
INT64 = (-(2**63), 2**63 - 1)
UINT64 = (0, 2**64 - 1)


def test_the_stream_is_numpy_pcg64_raw_output():
    """The words are PCG64's raw output for the seed: numpy keeps that stream stable (NEP 19)."""
    assert Stream(12345).words(5).tolist() == np.random.PCG64(12345).random_raw(5).tolist()


def test_same_seed_same_values_other_seed_other_values():
    def run(seed):
        s = Stream(seed)
        return (s.integers(-100, 100, 20).tolist(), s.random(5).tolist(), s.choices("abcd", 6),
                s.log_integers(*INT64, 4).tolist(), s.integers(-(2**70), 2**70), s.octaves(-3, 3, 3).tolist())

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_first_values_of_a_fixed_seed_are_pinned():
    """A regression of our mappings (and of numpy's PCG64 stream): changing any of them changes every written
    suite, so it must be deliberate (and cases/ regenerated with it)."""
    s = Stream(20240601)
    assert s.words(3).tolist() == [14606525003716441270, 10715116236421299223, 7652839370049166271]
    assert s.bits(8, 4).tolist() == [242, 36, 118, 153]
    assert s.integers(0, 9, 8).tolist() == [8, 5, 2, 0, 3, 9, 0, 5]
    assert s.integers(*INT64, 3).tolist() == [-8470933882627494949, -6399584727776256764, -4788184800170472576]
    assert s.integers(*UINT64, 3).tolist() == [419043840105899798, 9243689425606470050, 11555499097662477061]
    assert s.integers(-(2**70), 2**70, 2).tolist() == [-734181494382436065753, -378981405380666687681]
    assert s.log_integers(-(2**31), 2**31 - 1, 4).tolist() == [0, 6215, 24876, -1371518]
    assert [float(v).hex() for v in s.random(2)] == ["0x1.948b343b44073p-1", "0x1.144cb7c925f6ep-2"]
    assert [float(v).hex() for v in s.uniform(-10, 10, 2)] == ["-0x1.075fc2bd8649ap+2", "0x1.deabfb809460cp+1"]
    assert [float(v).hex() for v in s.octaves(-10, -2, 2)] == ["0x1.41f05b8cea9d6p-5", "0x1.1fd2d20fcd53bp-10"]
    assert s.choice("abcdef") == "e"
    assert s.choices(["x", "y", "z"], 4) == ["y", "z", "y", "z"]
    assert s.sample(range(10), 4) == [5, 3, 7, 9]
    assert s.booleans(5).tolist() == [False, True, True, True, True]
    assert s.words_used == 77


def test_case_seed_is_unchanged():
    assert sampling.case_seed(0, "test_cast_float32_to_int8") == 718539091
    assert sampling.case_seed(5, "x") == (5 * 1_000_003 + 2363233923) % 2**32


@pytest.mark.parametrize("lo, hi, dtype", [
    (*INT64, np.int64), (*UINT64, np.uint64), (-(2**70), 2**70, object), (2**64, 2**66, object),
    (-(2**63), 2**64 - 1, object), (-128, 127, np.int64), (0, 1, np.int64), (5, 5, np.int64),
    (2**63, 2**64 - 1, np.uint64), (-(2**63), -(2**63) + 2, np.int64),
])
def test_integers_stay_in_bounds_with_the_documented_dtype(lo, hi, dtype):
    s = Stream(3)
    a = s.integers(lo, hi, 4000)
    assert a.dtype == np.dtype(dtype) and a.shape == (4000,)
    values = [int(v) for v in a.tolist()]
    assert lo <= min(values) and max(values) <= hi
    scalar = s.integers(lo, hi)
    assert type(scalar) is int and lo <= scalar <= hi
    if hi - lo >= 2**62:  # both halves of a wide range are reached
        mid = lo + (hi - lo) // 2
        assert any(v < mid for v in values) and any(v > mid for v in values)
    logs = [int(v) for v in s.log_integers(lo, hi, 300).tolist()]
    assert lo <= min(logs) and max(logs) <= hi


def test_integers_reach_both_ends_and_are_unbiased():
    s = Stream(11)
    counts = Counter(s.integers(-1, 1, 30000).tolist())  # r = 3: half the 2-bit candidates would be biased
    assert set(counts) == {-1, 0, 1}
    assert all(9400 < c < 10600 for c in counts.values()), counts
    assert set(s.integers(0, 255, 20000, dtype=np.uint8).tolist()) == set(range(256))
    assert s.integers(-8, 7, (3, 4), dtype=np.int8).dtype == np.int8


def test_arrays_are_the_same_values_as_scalar_draws():
    for lo, hi in [(0, 0), (0, 2), (-5, 5), UINT64, INT64, (3, 10**19), (-(2**70), 2**70)]:
        a, b = Stream(9), Stream(9)
        assert [a.integers(lo, hi) for _ in range(40)] == b.integers(lo, hi, 40).tolist()
        assert a.words_used == b.words_used
    a, b = Stream(9), Stream(9)
    assert [a.random() for _ in range(5)] == b.random(5).tolist()
    assert [a.log_integers(-1000, 10**6) for _ in range(9)] == b.log_integers(-1000, 10**6, 9).tolist()


def test_floats_and_bits():
    s = Stream(5)
    u = s.random(10000)
    assert u.dtype == np.float64 and u.min() >= 0.0 and u.max() < 1.0
    assert np.all(u * 2.0**53 == np.floor(u * 2.0**53))  # multiples of 2**-53
    v = s.uniform(-3.0, 2.0, (50, 2))
    assert v.shape == (50, 2) and v.min() >= -3.0 and v.max() <= 2.0
    o = s.octaves(-10, -2, 5000)
    assert o.min() >= 2.0**-10 and o.max() < 2.0**-2
    assert {int(np.floor(np.log2(x))) for x in o} == set(range(-10, -2))
    b = s.bits(3, 1000)
    assert b.dtype == np.uint64 and set(b.tolist()) == set(range(8))
    assert s.bits(64, 3).dtype == np.uint64
    with pytest.raises(ValueError):
        s.bits(65)
    with pytest.raises(ValueError):
        s.integers(2, 1)


def test_choice_and_sample():
    s = Stream(1)
    assert set(s.choices("ab", 200)) == {"a", "b"}
    picked = s.sample(range(-128, 128), 40)
    assert len(set(picked)) == 40 and all(-128 <= p < 128 for p in picked)
    assert sorted(s.sample("xyz", 3)) == ["x", "y", "z"]
    assert s.choices([], 0) == [] and s.sample([1], 0) == []
    with pytest.raises(ValueError):
        s.choice([])


# ---------------------------------------------------------------------------------------------
# gen-cases cannot depend on hypothesis; --seed changes only random data
# ---------------------------------------------------------------------------------------------
# Every family found (generator/families/), at an opset that keeps the run short (Cast-13..18 already has
# every wide source type); layout needs opset 18. Each generates with its default profile (its seeded random
# cases), except those in QUICK, made with the quick profile: convert_promote_types is big, and its random
# values (Values.random, the only draws it makes) are compared directly. One generation of them at seed 0, in
# pytest's process (hypothesis loaded), is what both tests below compare with.
QUICK = ("convert_promote_types",)
PROFILE_OF = {name: "quick" if name in QUICK else "default" for name in sorted(families.FAMILIES)}
MAX_OPSET = 18


def _groups() -> dict[str, list[str]]:
    """"<profile>@<opset>": its families. A family that starts above MAX_OPSET (MatMulNBits' ai.onnx 21 import)
    is generated at its own first opset."""
    at = {n: max(MAX_OPSET, getattr(families.load(n), "MIN_OPSET", 0) or 0) for n in PROFILE_OF}
    return {f"{profile}@{opset}": [n for n in PROFILE_OF if (PROFILE_OF[n], at[n]) == (profile, opset)]
            for profile, opset in sorted({(PROFILE_OF[n], at[n]) for n in PROFILE_OF})}


def _cpt_digest() -> str:
    """convert_promote_types' random values (its default profile's, seed 0)."""
    from generator.families import convert_promote_types as cpt

    values = cpt.Values(cpt.PROFILES["default"], 0)
    digest = hashlib.sha256()
    for t in cpt.ref.spec_types():
        x = values.random(t)
        digest.update(repr((str(x.dtype), x.shape)).encode() + x.tobytes())
    return digest.hexdigest()


SCRIPT = textwrap.dedent("""
    import hashlib, importlib.abc, sys
    from pathlib import Path

    class NoHypothesis(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "hypothesis" or name.startswith("hypothesis."):
                raise ImportError("hypothesis is blocked in this process: " + name)
            return None

    sys.meta_path.insert(0, NoHypothesis())
    from generator import families, suite_generation
    from generator.families import convert_promote_types as cpt

    for name in families.FAMILIES:  # every family imports without hypothesis
        families.load(name)
    out = Path(sys.argv[1])
    for group in sys.argv[2].split(";"):  # <profile>@<max opset>=<family>,<family>...
        where, names = group.split("=")
        profile, max_opset = where.split("@")
        (out / where).mkdir(parents=True)
        suite_generation.generate_into(out / where, names.split(","), profile, 0, int(max_opset))
    values = cpt.Values(cpt.PROFILES["default"], 0)
    digest = hashlib.sha256()
    for t in cpt.ref.spec_types():
        x = values.random(t)
        digest.update(repr((str(x.dtype), x.shape)).encode() + x.tobytes())
    print("cpt", digest.hexdigest())
    print("hypothesis loaded:", "hypothesis" in sys.modules)
""")


@pytest.fixture(scope="module")
def seed_0(tmp_path_factory) -> Path:
    """_groups() at seed 0, each in a folder of its "<profile>@<opset>", generated in this process."""
    from generator import suite_generation

    out = tmp_path_factory.mktemp("seed_0")
    for where, names in _groups().items():
        profile, opset = where.split("@")
        (out / where).mkdir()
        suite_generation.generate_into(out / where, names, profile, 0, int(opset))
    return out


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_gen_cases_writes_the_same_bytes_without_hypothesis(seed_0, tmp_path):
    """Generated in a process where `import hypothesis` fails, the suite is byte-identical to one generated
    with hypothesis loaded (seed_0, here in pytest's process): no draw can depend on the hypothesis version."""
    assert "hypothesis" in sys.modules
    groups = ";".join(f"{where}={','.join(names)}" for where, names in _groups().items())
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "blocked"), groups], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-3000:]
    lines = p.stdout.splitlines()
    assert lines[-1] == "hypothesis loaded: False"
    assert lines[:-1] == [f"cpt {_cpt_digest()}"]  # convert_promote_types' random values
    blocked, normal = _tree(tmp_path / "blocked"), _tree(seed_0)
    assert any("_random" in f for f in blocked)
    written = {e["family"] for m in (tmp_path / "blocked").glob("*/manifest.json")
               for e in json.loads(m.read_text())["cases"]}
    assert written == set(PROFILE_OF), set(PROFILE_OF) - written  # every family generated cases
    assert blocked.keys() == normal.keys()
    differ = [f for f in blocked if blocked[f] != normal[f]]
    assert not differ, differ[:20]


# families whose every case holds seeded data: CastLike fills its target_type with seeded bits that must not
# matter, layout draws every graph's inputs
SEEDED_EVERYWHERE = ("cast_like", "layout")


def test_seed_changes_only_random_data(seed_0, tmp_path):
    """Every other family at seed 1, by gen-cases' --seed, against seed_0: only the data of random cases change
    (every case.json records the seed it was made with). convert_promote_types' quick profile has no random case:
    there nothing may change."""
    from generator import cli

    changed = set()
    for where, names in _groups().items():
        profile, opset = where.split("@")
        names = [n for n in names if n not in SEEDED_EVERYWHERE]
        out = tmp_path / where
        assert cli.main([str(out), *(a for n in names for a in ("--family", n)), "--profile", profile,
                         "--max-opset", opset, "--seed", "1"]) == 0
        fa, fb = _tree(seed_0 / where), _tree(out)
        changed |= {p.split("/")[1] for p in fa if p in fb and fa[p] != fb[p] and p.endswith(".pb")}
    # random strings beyond float64's range join the extreme_exponent case
    odd = sorted(n for n in changed if not n.endswith(("_random", "_probe", "_extreme_exponent")))
    assert changed and not odd, odd[:5]


# numpy's SIMD sorts (x86-simd-sort, dispatched on AVX-512 machines) and its scalar sort put the equal zeros
# +0 and -0 in different orders, so np.unique keeps a different zero on different machines.
NO_AVX512 = ("AVX512F AVX512CD AVX512VPOPCNTDQ AVX512VL AVX512BW AVX512DQ AVX512VNNI AVX512IFMA AVX512VBMI "
             "AVX512VBMI2 AVX512BITALG AVX512FP16 AVX512BF16 AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL "
             "AVX512_SPR X86_V4")


@pytest.mark.parametrize("zeros", [[0.0, -0.0], [-0.0, 0.0], [-0.0, 1.0, 0.0, -0.0] * 20])
def test_distinct_keeps_one_zero_and_it_is_positive(zeros):
    v = sampling.distinct(np.array(zeros + [3.0, -2.0]))
    assert v.tolist() == [-2.0, 0.0, *([1.0] if 1.0 in zeros else []), 3.0]
    assert not np.signbit(v[v == 0]).any()


def test_quantize_linear_float_inputs_do_not_depend_on_the_cpus_sort():
    """The inputs of the float8 QuantizeLinear cases come out the same with numpy's AVX-512 kernels turned
    off (they differed: a suite generated on one machine failed `gen-cases --check` on another)."""
    code = textwrap.dedent("""
        import hashlib
        from generator import dtypes
        from generator.families.quantize_linear import float_values
        h = hashlib.sha256()
        for t in ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float4e2m1"):
            for s in (1.0, 0.25, 4.0):
                h.update(float_values(dtypes.get(t), s).tobytes())
        print(h.hexdigest())
    """)
    root = Path(__file__).resolve().parents[1]
    runs = [subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "NPY_DISABLE_CPU_FEATURES": off}).stdout
            for off in ("", NO_AVX512)]
    assert runs[0] == runs[1]
