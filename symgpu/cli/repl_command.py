"""``symgpu repl``: an interactive session with symgpu, its ``derive`` operations and SymPy imported and every bundled
model loaded under its id (moved out of :mod:`symgpu.cli.derive_commands` when it passed 500 lines)."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

import sympy

import symgpu
from symgpu import derive, errors
from symgpu.cli import common


def setup(sub: Any) -> None:
    """Add the ``repl`` subcommand."""
    p = sub.add_parser("repl", help="interactive session with symgpu imported and the bundled models loaded")
    p.add_argument("--plain", action="store_true", help="use the standard Python console even if IPython is installed")


def _namespace() -> dict[str, Any]:
    namespace: dict[str, Any] = {"symgpu": symgpu, "derive": derive, "sympy": sympy, "oo": sympy.oo}
    loaded = []
    for model_id in symgpu.list_models():
        name = re.sub(r"\W", "_", model_id)
        if name[:1].isdigit():
            name = f"m_{name}"
        try:
            namespace[name] = symgpu.load(model_id)
            loaded.append(name)
        except errors.SymgpuError as exc:
            print(f"symgpu: warning: {model_id} does not load: {exc}", file=sys.stderr)
    namespace["_loaded"] = loaded
    return namespace


def run(args: argparse.Namespace) -> int:
    """Start the session: the standard console, or IPython where installed and not ``--plain``."""
    namespace = _namespace()
    loaded = namespace.pop("_loaded")
    banner = ("symgpu interactive session. Imported: symgpu, derive, sympy. Models: " + ", ".join(loaded)
              + "\nTry: derive.limit(interval_analysis, 'Q_K0', 'N', 'oo', substitute={'M': 'N'})")
    if not args.plain:
        try:
            import IPython
        except ImportError:
            pass
        else:
            print(banner)
            IPython.start_ipython(argv=["--no-banner"], user_ns=namespace)
            return common.OK
    import code

    code.interact(banner=banner, local=namespace, exitmsg="")
    return common.OK
