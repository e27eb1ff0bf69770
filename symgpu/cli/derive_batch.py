"""``symgpu derive MODEL [ID ...]``: the model file's ``[[derivations]]`` run and their expectations checked,
the requests side by side on the machine's cores.

Each request is a task of :func:`symgpu.workers.run` (forked workers, which start with the loaded model): it runs
the derivation and sends back only its line of output (its JSON entry with ``--json``) and whether it failed, never
SymPy objects (rebuilding a derivation's expressions from a pickle costs up to a tenth of a second each). Before each
request SymPy's generators are seeded (:func:`symgpu.cli.seeding.seed_sympy`), so a request's answer does not depend
on which requests ran before it in its process: the output is the same with one worker or several, and the same as
``symgpu derive MODEL ID`` asking for that request alone. With several workers the extrema and fixed points start first (:data:`SLOWEST_FIRST`), a request of the same
operation on the same quantity as one before it after that one (:func:`after_the_same_question`); lines are printed
in the order asked for (the model file's, or the ids').
"""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from symgpu import api, derive, errors, suggest, workers
from symgpu.cli import common, derive_expectations, given_numbers
from symgpu.cli.seeding import seed_sympy
from symgpu.model import printing

if TYPE_CHECKING:
    from symgpu.model.schema import DerivationRequest

#: longest line of a derivation's result printed (the rest: ``--json``)
SHOWN = 400
#: the operations that take longest (a search over regimes and their certificates), started first with several workers
#: so that none is left to run alone at the end; the others follow in the model file's order
SLOWEST_FIRST = {"extremum": 0, "fixed_point": 1}


@dataclass(frozen=True)
class Row:
    """One request's outcome as printed: its line (its JSON entry with ``--json``), and whether it failed."""

    text: str
    failed: bool


def setup(sub: Any) -> None:
    p = sub.add_parser("derive", help="run the [[derivations]] a model file asks for and check their expectations")
    p.add_argument("model")
    p.add_argument("ids", nargs="*", help="derivation ids (all by default)")
    p.add_argument("--json", action="store_true")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="run N requests at once, each in a process of its own (default: one per CPU core; 1: one after "
                   "the other); the output is the same either way")


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise errors.UsageError(f"--jobs {args.jobs}: give the number of requests to run at once, 1 or more")
    model = common.load_model(args.model)
    derivations = model.definition.derivations
    indices = list(range(len(derivations)))  # the requests asked for, as places in the file
    if args.ids:
        known = {r.id: index for index, r in enumerate(derivations)}
        missing = [i for i in args.ids if i not in known]
        if missing:
            listed = suggest.alternatives(missing[0], known, "the model file's [[derivations]] list them")
            raise errors.UsageError(f"{model.id}: no derivation {', '.join(missing)} (derivations: {listed})")
        indices = [known[i] for i in args.ids]
    if not indices:
        raise errors.UsageError(f"{model.id} declares no [[derivations]]")
    tasks = [(str(position), row, (args.model, index, bool(args.json))) for position, index in enumerate(indices)]
    slow = [SLOWEST_FIRST.get(derivations[index].op, len(SLOWEST_FIRST)) for index in indices]
    order = [str(position) for position in sorted(range(len(indices)), key=slow.__getitem__)]
    after = after_the_same_question([derivations[index] for index in indices])
    jobs = args.jobs or workers.default_workers()
    if jobs > 1 and len(tasks) > 1:
        # NOTE: SymPy's simplify imports sympy.physics.units the first time it runs (to look for a unit Quantity): 0.06 s
        # of CPU that each forked worker would pay again; imported here once, before the workers fork
        importlib.import_module("sympy.physics.units")
    done = dict(workers.run(tasks, jobs, order=order, after=after))
    rows: list[Row] = [done[name] for name, _, _ in tasks]
    failed = sum(r.failed for r in rows)
    if args.json:
        print("[" + ", ".join(r.text for r in rows) + "]")
    else:
        for r in rows:
            print(r.text)
        print(f"{len(rows) - failed} of {len(rows)} derivations ok" + (f", {failed} failed" if failed else ""))
    return common.FAILED if failed else common.OK


def after_the_same_question(requests: Sequence[DerivationRequest]) -> dict[str, list[str]]:
    """Task name (a request's place among ``requests``) -> the task it starts after: the one before it of the same
    operation on the same quantity (a request without a quantity waits for none). With several workers such a request
    then starts when the one before it has finished, most often in the worker that ran it, whose memos (the regimes
    split, their signs and simplified forms) it reuses: Volkov's three extrema of n_needed over alpha took 0.74, 0.22
    and 0.16 s of CPU on two workers side by side, 0.74, 0.04 and 0.05 s one after another. What each request prints is
    its own either way (SymPy seeded per request)."""
    last: dict[tuple[str, str], str] = {}
    after: dict[str, list[str]] = {}
    for position, request in enumerate(requests):
        quantity = request.get("quantity")
        if not isinstance(quantity, str):
            continue
        key = (request.op, quantity)
        if key in last:
            after[str(position)] = [last[key]]
        last[key] = str(position)
    return after


def row(name: str, index: int, as_json: bool) -> Row:
    """The outcome of request ``index`` of model ``name``'s ``[[derivations]]`` (a task of :func:`workers.run`; the model is
    the one the command loaded, from memory in a forked worker)."""
    model = api.load(name)
    request = model.definition.derivations[index]
    seed_sympy()
    try:
        result = derive.run_request(model, request)
    except errors.SymgpuError as exc:
        if as_json:
            return Row(json.dumps({"id": request.id, "op": request.op, "expect_holds": False, "ok": False, "error": str(exc)},
                                  default=str), True)
        return Row(given_numbers.in_words(model, f"FAIL {request.id}: {request.op} -> error: {exc}"), True)
    holds = derive.expect_holds(result)
    if as_json:
        entry: dict[str, Any] = {"id": request.id, "op": request.op, "expect_holds": holds, "ok": holds is not False}
        entry.update(result.to_dict())
        return Row(json.dumps(entry, default=str), holds is False)
    mark = "ok  " if holds is not False else "FAIL"
    shown = result.location if request.op == "extremum" else result.result
    note = "" if holds is not None else "  (no expectation)"
    if holds is False:
        note = derive_expectations.failed(request, result)
    text = printing.sstr(shown)
    if len(text) > SHOWN:
        text = text[:SHOWN] + f"... ({len(text)} characters; --json for all)"
    unit = f"  [{result.unit}]" if result.unit and request.op != "extremum" else ""
    # the model's literal constants as their number and unit (1 txn/warp), as every answer the command line prints says them
    return Row(given_numbers.in_words(model, f"{mark} {request.id}: {request.op} -> {text}{unit}{note}"), holds is False)
