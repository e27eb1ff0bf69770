"""``symgpu list``: the available models, read from their files without building them.

Light on purpose (no SymPy, no pint): the model files are read by the loader only, so
listing is quick. A model whose file cannot be read is listed with the reason. A model id
found in several model folders is listed once, as the file that loads by that id, with a
``! hides`` line naming the files it hides (a user model with a bundled model's id).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from symgpu import errors, textfiles
from symgpu.cli.parsing import OK
from symgpu.model import loader


#: characters of a title (or a reason it does not load) shown per line
MAX_TITLE = 400


def setup(sub: Any) -> None:
    """Add the list subcommand."""
    p = sub.add_parser("list", help="list the bundled models")
    p.add_argument("--json", action="store_true", help="print JSON")


def cmd_list(args: argparse.Namespace) -> int:
    """symgpu list: the available models, one line each."""
    rows: list[dict[str, Any]] = []
    extended_by: dict[str, list[str]] = {}  # file -> the models that extend it though its id loads another file
    for model_id in loader.list_models():
        path = loader.find(model_id)
        try:
            if path is None:
                raise errors.UsageError(f"no file for model '{model_id}'")
            d = loader.read_definition(path)
            rows.append({"id": model_id, "title": d.title, "equations": len(d.equations),
                         "presets": len(d.presets), "validation": len(d.validation)})
        except errors.SymgpuError as exc:
            rows.append({"id": model_id, "title": f"(does not load: {exc})", "equations": 0, "presets": 0, "validation": 0})
        rows[-1]["hides"] = [str(p) for p in loader.shadowed(model_id)]
        if path is not None:
            for base_id, used, _ in loader.unlike_by_id(path):
                extended_by.setdefault(str(used), []).append(model_id)
    for row in rows:  # a hidden file that a variant beside it extends is used, as that variant's base
        row["base_of"] = {hidden: extended_by[hidden] for hidden in row["hides"] if hidden in extended_by}
    if args.json:
        print(json.dumps(rows, indent=2))
        return OK
    width = max((len(r["id"]) for r in rows), default=2)
    for row in rows:
        title = textfiles.printable(row["title"], MAX_TITLE)
        print(f"{row['id']:<{width}}  {row['equations']:>3} eq  {row['presets']:>2} presets  {row['validation']:>3} cases  {title}")
        if row["hides"]:
            unused = [h for h in row["hides"] if h not in row["base_of"]]
            if unused:
                print(f"{'':<{width}}  ! hides {textfiles.listing(unused, 3, 200)} (same id, not used; rename that model "
                      f"or give its path)")
            for hidden, variants in row["base_of"].items():
                print(f"{'':<{width}}  ! hides {textfiles.printable(hidden, 200)} (same id, not loaded by this id, but used as the base of "
                      f"{textfiles.listing(variants, 5, 200)} beside it, which extend{'s' if len(variants) == 1 else ''} it instead of this "
                      f"model; rename that model to keep one {row['id']})")
    return OK


RUN = {"list": cmd_list}
