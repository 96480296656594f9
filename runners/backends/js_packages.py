"""Where the npm packages of the JavaScript backends live, and installing them there (`opconform js-install`).

The packages (onnxruntime-node, onnxruntime-web) are not Python packages: they go into a folder opconform
manages, $OPCONFORM_JS_DIR, else $XDG_CACHE_HOME/opconform/js, else ~/.cache/opconform/js, as
DIR/node_modules/<package>. `npm install --ignore-scripts`: onnxruntime-node's install script would download
GPU (CUDA / TensorRT) libraries from outside the npm registry; the CPU build is in the package itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

PACKAGES = ("onnxruntime-node", "onnxruntime-web")
# The oldest release the adapter is known to work with (measured: docs/backends.md, "onnxruntime-node and
# onnxruntime-web": 1.18.0's binding fails float16 outputs); an older one is refused with the command that replaces it.
MIN_VERSION = "1.19.2"
ENV = "OPCONFORM_JS_DIR"
INSTALL_COMMAND = "opconform js-install"


def js_dir() -> Path:
    """The folder the packages are installed into and looked up in."""
    named = os.environ.get(ENV)
    if named:
        return Path(named).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "opconform" / "js"


def installed_version(package: str, where: Path | None = None) -> str | None:
    """The version of `package` installed in the folder, None if it is not there (or its package.json is unreadable)."""
    meta = (where or js_dir()) / "node_modules" / package / "package.json"
    try:
        version = json.loads(meta.read_text()).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return version if isinstance(version, str) else None


def version_key(version: str) -> tuple[int, ...]:
    """1.30.0 -> (1, 30, 0); a pre-release (1.28.0-dev.2026...) sorts as its release."""
    return tuple(int(n) for n in re.findall(r"\d+", version.split("-")[0])[:3])


def missing(package: str, where: Path | None = None) -> str | None:
    """Why `package` cannot be used from the folder, with the command that fixes it; None when it can."""
    where = where or js_dir()
    version = installed_version(package, where)
    fix = INSTALL_COMMAND if where == js_dir() else f"{INSTALL_COMMAND} {where}"
    if version is None:
        return f"npm package {package} is not installed in {where}: run `{fix}`"
    if version_key(version) < version_key(MIN_VERSION):
        return f"npm package {package} {version} in {where} is older than {MIN_VERSION}: run `{fix}`"
    return None


def npm_command(where: Path, version: str, packages: list[str]) -> list[str]:
    """The npm command line js-install runs."""
    return ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", str(where),
            *(f"{p}@{version}" for p in packages)]


def install(where: Path, version: str = "latest", packages: list[str] | None = None) -> str:
    """Install the packages into `where` with npm; returns what was installed (one line). ValueError (one line)
    when npm is missing or fails."""
    packages = list(packages or PACKAGES)
    if shutil.which("npm") is None:
        raise ValueError("npm is not on PATH: install Node.js 18 or later (it comes with npm)")
    where.mkdir(parents=True, exist_ok=True)
    if not (where / "package.json").exists():  # npm installs here, not into a package.json found above
        (where / "package.json").write_text('{"private": true, "description": "opconform js-install"}\n')
    done = subprocess.run(npm_command(where, version, packages), capture_output=True, text=True)
    if done.returncode != 0:
        said = [ln for ln in (done.stderr + "\n" + done.stdout).splitlines() if ln.strip()]
        errors = [ln for ln in said if "ERR!" in ln and "A complete log" not in ln] or said
        raise ValueError(f"npm install failed (exit {done.returncode}): {' '.join(errors[:3])[:400]}")
    versions = ", ".join(f"{p} {installed_version(p, where) or '?'}" for p in packages)
    return f"installed {versions} into {where}"
