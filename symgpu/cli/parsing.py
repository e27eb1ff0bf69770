"""The light pieces of the command line: exit codes and the one-line-error parser.

Kept free of SymPy, pint and the pipeline so ``symgpu --help`` starts fast.
"""

from __future__ import annotations

import argparse
import re
import sys

OK, FAILED, BAD_INPUT = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line on stderr with exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        option = re.match(r"argument (--[\w-]+)(?:/[^:]*)?: expected one argument$", message)
        if option:  # a value that begins with '-' reads as an option (round 13, F9: --to -oo, --target -3)
            message += f"; a value that begins with '-' is written with '=' ({option[1]}=-3)"
        print(f"symgpu: error: {message}", file=sys.stderr)
        raise SystemExit(BAD_INPUT)


class Once(argparse.Action):
    """An option that may be given once: a second one is refused, not silently put in the first's place
    (``--preset h100_sxm --preset neusight_fit`` kept only the last, an outside tester's finding, round 13b U2);
    ``hint`` says how to give both."""

    def __init__(self, *args: object, hint: str = "", **kwargs: object) -> None:
        self.hint = hint
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        before = getattr(namespace, self.dest, None)
        if before is not None and before != self.default:
            parser.error(f"{option_string} given twice ({before!r} and {values!r}): it is read once{self.hint}")
        setattr(namespace, self.dest, values)
