"""``symgpu cache [info|clear]``: where the on-disk cache of symbolic results is, its entries by
kind (the table of :mod:`symgpu.entry_kinds`), and clearing it."""

from __future__ import annotations

import argparse
from typing import Any

from symgpu import store
from symgpu.cli.parsing import OK


def setup(sub: Any) -> None:
    """Add the cache subcommand."""
    p = sub.add_parser("cache", help="show or clear the on-disk cache of symbolic results")
    p.add_argument("action", nargs="?", choices=("info", "clear"), default="info",
                   help="info (default): the folder and entry count; clear: remove every entry")


def run(args: argparse.Namespace) -> int:
    """symgpu cache: print the cache folder and its entry count, or clear it."""
    if args.action == "clear":
        base, count = store.clear()
        print(f"removed {count} cache entries from {base}")
        return OK
    here, counts = store.listing()
    state = ("on" if store.enabled() else "off (--no-cache)" if store.Settings.from_environment().enabled
             else f"off (${store.NO_CACHE_ENV} is set)")
    print(f"{here}: {sum(counts.values())} entries; cache {state}")
    width = max(len(kind.name) for kind in counts)
    for kind, count in counts.items():
        print(f"  {kind.name:<{width}} {count:>6}  {kind.holds}")
    return OK


RUN = {"cache": run}
