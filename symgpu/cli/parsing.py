"""The light pieces of the command line: exit codes and the one-line-error parser.

Kept free of SymPy, pint and the pipeline so ``symgpu --help`` starts fast.
"""

from __future__ import annotations

import argparse
import sys

OK, FAILED, BAD_INPUT = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line on stderr with exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"symgpu: error: {message}", file=sys.stderr)
        raise SystemExit(BAD_INPUT)
