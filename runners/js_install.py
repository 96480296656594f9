"""`opconform js-install [DIR] [--version V] [--package P ...]`: the npm packages of the JavaScript backends
(onnxruntime-node, onnxruntime-web) installed into the folder opconform looks them up in
(runners/backends/js_packages.py: DIR, else $OPCONFORM_JS_DIR, else ~/.cache/opconform/js).

Exit status: 0 installed, 1 npm failed or is missing (one line), 2 a bad command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub) -> None:
    from runners.backends import js_packages

    p = sub.add_parser("js-install", help="install the npm packages of the onnxruntime-node / onnxruntime-web "
                                          "backends into the folder opconform uses",
                       description="Install onnxruntime-node and onnxruntime-web from npm (npm install "
                                   "--ignore-scripts: the CPU build is in the package; the install script would "
                                   "download GPU libraries) into DIR, default $OPCONFORM_JS_DIR or "
                                   "~/.cache/opconform/js. A DIR other than the default needs OPCONFORM_JS_DIR=DIR "
                                   "when the backends run.",
                       epilog="exit status: 0 installed, 1 npm failed, 2 a bad command line")
    p.add_argument("dir", nargs="?", metavar="DIR", help=f"where to install (default: {js_packages.js_dir()})")
    p.add_argument("--version", default="latest", metavar="V",
                   help=f"the npm version or tag of both packages (default latest; {js_packages.MIN_VERSION} "
                        "or later)")
    p.add_argument("--package", action="append", choices=js_packages.PACKAGES, metavar="P",
                   help="install only this package (repeatable; default both)")
    p.set_defaults(func=cmd_js_install)


def cmd_js_install(args: argparse.Namespace) -> int:
    from runners.backends import js_packages

    where = Path(args.dir).expanduser().resolve() if args.dir else js_packages.js_dir()
    if where.exists() and not where.is_dir():
        print(f"opconform js-install: error: {where} is not a directory", file=sys.stderr)
        return 2
    try:
        done = js_packages.install(where, args.version, args.package)
    except (ValueError, OSError) as exc:
        print(f"opconform js-install: {exc}", file=sys.stderr)
        return 1
    print(f"opconform js-install: {done}")
    if where != js_packages.js_dir():
        print(f"opconform js-install: the backends look in {js_packages.js_dir()}: run them with "
              f"{js_packages.ENV}={where}")
    return 0
