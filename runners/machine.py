"""The machine a run ran on, as far as it decides results: a runtime picks its kernels by CPU feature (onnxruntime's
MLAS takes a VNNI kernel for u8 x s8 products where the CPU has one, and an AVX2 kernel that saturates pairs at
int16 where it has not), so the same backend version on two runner types can differ item by item.

A results file and a baseline record `machine()`; a gate on another machine class or backend version says so in one
line before any verdict (differences). The class is what CI keys its baselines by (docs/gating.md: one baseline a
machine class): `opconform machine --class` prints it, e.g. x86_64-avx512-vnni-bf16.
"""

from __future__ import annotations

import platform
import subprocess

# The CPU features that select kernels in the runtimes this project runs (MLAS, oneDNN, XNNPACK, Eigen, LLVM's
# code generation): /proc/cpuinfo's names on Linux x86 and Arm. Others (sse2, cmov, ...) every CPU they support has.
X86_FEATURES = ("sse4_1", "sse4_2", "avx", "f16c", "fma", "avx2", "avx_vnni", "avx512f", "avx512dq", "avx512bw",
                "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_int8", "amx_bf16",
                "amx_fp16")
ARM_FEATURES = ("asimd", "asimdhp", "asimddp", "i8mm", "bf16", "sve", "sve2", "sme")
# macOS names (sysctl hw.optional.*) mapped to the Linux ones
_MAC = {"hw.optional.neon": "asimd", "hw.optional.arm.FEAT_FP16": "asimdhp", "hw.optional.arm.FEAT_DotProd": "asimddp",
        "hw.optional.arm.FEAT_I8MM": "i8mm", "hw.optional.arm.FEAT_BF16": "bf16", "hw.optional.arm.FEAT_SME": "sme",
        "hw.optional.avx2_0": "avx2", "hw.optional.avx512f": "avx512f", "hw.optional.avx512vnni": "avx512_vnni"}


def machine() -> dict:
    """{"arch", "os", "cpu" (the model name), "features" (the kernel-selecting ones present), "class"}."""
    cpu, flags = _cpu()
    known = X86_FEATURES + ARM_FEATURES
    record = {"arch": platform.machine() or "unknown", "os": f"{platform.system()} {platform.release()}".strip(),
              "cpu": cpu or "unknown", "features": sorted(f for f in flags if f in known)}
    record["class"] = machine_class(record)
    return record


def _cpu() -> tuple[str, set[str]]:
    """(CPU model name, feature flags) of this machine; ("", set()) where neither can be read."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError:
        return _mac_cpu()
    model, flags = "", set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("model name", "Model", "CPU part") and not model:
            model = value.strip()
        elif key in ("flags", "Features") and not flags:
            flags = set(value.split())
    return model, flags


def _mac_cpu() -> tuple[str, set[str]]:
    if platform.system() != "Darwin":
        return "", set()
    try:
        out = subprocess.run(["sysctl", "machdep.cpu.brand_string", *_MAC], capture_output=True, text=True,
                             timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return "", set()
    model, flags = "", set()
    for line in out.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "machdep.cpu.brand_string":
            model = value.strip()
        elif value.strip() == "1" and key.strip() in _MAC:
            flags.add(_MAC[key.strip()])
    return model, flags


def machine_class(record: dict) -> str:
    """The kernel class of a machine: its architecture and the widest vector and dot-product features that runtimes
    dispatch on (x86_64-avx2, x86_64-avx2-vnni, x86_64-avx512-vnni-bf16, x86_64-avx512-vnni-bf16-fp16-amx,
    aarch64-neon-dot-i8mm-sve, ...). Machines of one class run the same kernels of a given runtime build."""
    have = set(record.get("features") or ())
    parts = [str(record.get("arch") or "unknown")]
    if have & set(X86_FEATURES):
        parts.append("avx512" if {"avx512f", "avx512bw"} <= have else "avx2" if "avx2" in have else
                     "avx" if "avx" in have else "sse4")
        parts += [name for name, flags in (("vnni", ("avx512_vnni", "avx_vnni")), ("bf16", ("avx512_bf16",)),
                                           ("fp16", ("avx512_fp16",)), ("amx", ("amx_tile",)))
                  if have & set(flags)]
    elif have & set(ARM_FEATURES):
        parts += [name for name, flag in (("neon", "asimd"), ("fp16", "asimdhp"), ("dot", "asimddp"),
                                          ("i8mm", "i8mm"), ("bf16", "bf16"), ("sve", "sve"), ("sve2", "sve2"),
                                          ("sme", "sme")) if flag in have]
    return "-".join(parts)


def differences(recorded: dict | None, backend_recorded: dict | None, now: dict, backend_now: dict) -> str | None:
    """One line saying how the machine and backend a baseline was recorded on differ from this run's (None when
    they do not, or the baseline recorded no machine: then it says so)."""
    said = []
    if (backend_recorded or {}).get("version") not in (None, backend_now.get("version")):
        said.append(f"{backend_now.get('name')} {backend_recorded['version']} there, {backend_now.get('version')} here")
    if not recorded:
        said.append("the baseline records no machine (written before opconform recorded one)")
    else:
        if recorded.get("class") != now.get("class"):
            said.append(f"machine class {recorded.get('class')} there, {now.get('class')} here")
        lacking = sorted(set(recorded.get("features") or ()) - set(now.get("features")))
        extra = sorted(set(now.get("features")) - set(recorded.get("features") or ()))
        if lacking or extra:
            said.append("CPU features " + "; ".join(p for p in (
                f"lacking here: {', '.join(lacking)}" if lacking else "",
                f"new here: {', '.join(extra)}" if extra else "") if p))
        elif recorded.get("cpu") != now.get("cpu"):
            said.append(f"CPU {recorded.get('cpu')} there, {now.get('cpu')} here")
    if not said:
        return None
    return ("opconform gate: the baseline was recorded elsewhere: " + "; ".join(said)
            + " (items whose kernels depend on the CPU or the version may differ: the report labels the CPU-dependent ones)")


def describe(record: dict) -> str:
    """One line for a summary or a report: 'AMD EPYC, x86_64-avx512-vnni-bf16, Linux 6.18'."""
    return f"{record.get('cpu', 'unknown')}, {record.get('class', 'unknown')}, {record.get('os', '')}".rstrip(", ")
