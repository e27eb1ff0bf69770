"""The public model object: a built model (:class:`symgpu.model.Model`) that also answers
questions — numeric evaluation and every derivation operation, as ordinary methods.

Each method delegates to one function of :mod:`symgpu.evaluate` or :mod:`symgpu.derive` and
takes the same arguments after the model.

NOTE: the derivation engine and the evaluator are imported by the methods that use them, not
here: :func:`load` (a model built and checked) does not pay for importing them (issue 31).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from symgpu import arguments, errors, model, store
from symgpu.model import catalog, display, latex_names

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation


def merge_keywords(values: Mapping[str, Any] | None, keywords: Mapping[str, Any]) -> dict[str, Any]:
    """One mapping from ``values=`` and keyword values; a name given both ways is an error.

    Raises:
        errors.UsageError: a name is in ``values`` and among the keywords.
    """
    merged = dict(values or {})
    both = sorted(set(merged) & set(keywords))
    if both:
        raise errors.UsageError(f"{', '.join(both)} given both in values= and as a keyword; give each value once")
    merged.update(keywords)
    return merged


def _at_point(model: Model, options: dict[str, Any], variable: tuple[Any, str] | None = None) -> dict[str, Any]:
    """A question's ``options`` with its ``values=`` moved across the clock, the warp size and the SM count at the
    point (:func:`symgpu.evaluate.clocks.values_at_point`), as ``evaluate``'s and the command line's ``--set`` are:
    ``solve(..., values={"mem_lat": "290 ns"})`` had refused a time for a symbol in cycles that ``evaluate`` took.
    ``variable``: the question's variable and its argument (``("clock", "over='clock'")``): a value moved across it
    is refused (it has no one value)."""
    from symgpu.evaluate import clocks  # NOTE: imported on first use (see the module's note)

    if not options.get("values"):
        return options
    varied = {variable[0]: variable[1]} if variable is not None and isinstance(variable[0], str) else None
    return {**options, "values": clocks.values_at_point(model, options.get("preset"), options["values"], varied=varied)}


def _in_unit(model: Model, name: str, answer: pint.Quantity, unit: str, preset: str | None,
             values: Mapping[str, Any]) -> pint.Quantity:
    """``answer`` (quantity ``name``) in ``unit``, across the model's rates at the point where the two units differ by
    them, as the command line's ``--unit``: cycles and time at its clock, threads and warps at its warp size, per SM and
    per GPU at its SM count (per scheduler at its schedulers per SM), alone or together (``P_K0`` in ``thread/SM``,
    ``Q_K0`` in ``warp/SM``: refused here while ``eval --unit`` gave them, round 33a).

    Raises:
        errors.UsageError: an unknown unit, one no rate of the model relates, or a rate needed with no value here.
    """
    from symgpu import units  # NOTE: imported on first use (see the module's note)
    from symgpu.evaluate import clocks  # NOTE: imported on first use

    try:
        target = units.unit(unit)
    except (ValueError, pint.errors.PintError) as exc:
        raise errors.UsageError(f"{model.id}: unit={unit!r}: {' '.join(str(exc).split())[:200]}") from None
    if answer.dimensionality == target.dimensionality:
        return units.convert(answer, target)
    need = f"{model.id}: unit={unit!r}: {name} is in {model.unit_text(name)}, so the answer"

    def give(symbol: str, example: str) -> str:
        return f"the value in values= ({symbol}={example!r})"

    instead = "give the answer in a unit of its own dimension"
    clock = clocks.model_clock(model, preset=preset, values=values, missing=f"{need} needs a clock", give=give, instead=instead)
    refuse = clocks.input_refusal(model, need, give, instead)
    # the clock and the warp size alone first, then with the SM count (or the schedulers per SM), as --unit tries them
    powers = clocks.exponents(answer, target, sm=False) or clocks.exponents(answer, target, sm=True)
    if powers is None:
        raise errors.UsageError(f"{model.id}: unit={unit!r}: {name} is in {model.unit_text(name)} "
                                f"({units.format_dimension(answer.dimensionality)}); give a unit of that dimension")
    rates: list[tuple[pint.Quantity, int]] = []
    for rate, power in powers.items():
        symbol, found = (None, clock()[0]) if rate == "Hz" else clocks.one_input_at(model, rate, preset=preset, values=values)
        if found is None or (symbol is None and rate != "Hz"):
            raise refuse(rate, symbol)
        rates.append((found, power))
    if all(np.ndim(found.magnitude) == 0 for found, _ in rates):
        return units.convert(units.moved(answer, target, rates), target)
    # NOTE: a rate swept as an array (values={"SMs": np.array([10, 20])}): the exact conversion (symgpu.units.moved)
    # takes one number per rate, so the answer is divided by the rate's array in floating point (it raised TypeError)
    for found, power in rates:
        answer = answer / found ** power
    return units.convert(answer, target)


def _shown(model: Model, answer: Derivation, options: Mapping[str, Any]) -> Derivation:
    """``answer`` as a notebook shows it: its value at the point asked (:func:`_valued`), its symbols in the model's
    declared LaTeX (``Derivation.latex_names``: an outside tester's finding, round 14a, F8)."""
    names = tuple((symbol.name, text) for symbol, text in latex_names.symbol_names(model).items())
    return dataclasses.replace(_valued(model, answer, options), latex_names=names)


def _valued(model: Model, answer: Derivation, options: Mapping[str, Any]) -> Derivation:
    """``answer`` asked at a point (``preset``/``values``) with its value there recorded where the operation records
    none (``extra.value_at``, one value; ``extra.values_at``, the roots that apply): the number the command line's
    ``value:`` line shows, for the notebook's rendering and ``to_dict()`` (an outside tester's finding, round 14a, F7).
    Where it has no value there (no root applies, an input is missing) the answer is returned as it is."""
    from symgpu import derive  # NOTE: imported on first use (see the module's note)
    from symgpu.derive.extra_records import ValueAt  # NOTE: imported on first use

    preset, values = options.get("preset"), dict(options.get("values") or {})
    if (preset is None and not values) or answer.extra.value_at is not None or answer.extra.values_at is not None \
            or answer.extra.bound:
        return answer
    try:
        magnitude = np.asarray(derive.evaluate_result(model, answer, preset, **values).magnitude, dtype=float)
    except (errors.SymgpuError, ValueError, TypeError, ArithmeticError, pint.errors.PintError):
        return answer
    if magnitude.ndim == 0 and np.isfinite(magnitude):
        return dataclasses.replace(answer, extra=answer.extra.with_(value_at=float(magnitude)))
    if magnitude.ndim == 1 and magnitude.size and np.all(np.isfinite(magnitude)):
        found = tuple(ValueAt("", float(v)) for v in magnitude)
        return dataclasses.replace(answer, extra=answer.extra.with_(values_at=found))
    return answer


class Model(model.Model):
    """A GPU performance model you can ask questions: ``evaluate``, ``solve``, ``regimes``,
    ``boundary``, ``extremum``, ``limit``, ``fixed_point`` and ``run_request``.

    Obtain one with :func:`load`; see :class:`symgpu.model.Model` for symbols, equations,
    presets and expressions.
    """

    @arguments.checked
    def evaluate(self, name: str, /, preset: str | None = None, *, values: Mapping[str, Any] | None = None,
                 checks: bool = True, unit: str | None = None, **symbol_values: Any) -> pint.Quantity:
        """Evaluate quantity ``name`` numerically; see :func:`symgpu.evaluate.evaluator.evaluate`.

        Values come as a mapping (``values={"M": 16}``), which works for every symbol name, or
        as keywords (``M=16``) for names other than ``preset``, ``values``, ``checks`` and ``unit``. A time given for a
        symbol declared in cycles (``mem_lat="290 ns"``), or cycles for one in a time, is converted at the model's clock
        at the point, as the command line's ``--set`` is. ``unit``: the answer's unit (``"us"``; cycles and times
        across that clock), as ``--unit``.

        Example: ``ia.evaluate("P_K0", preset="gtx1080", values={"M": 16, "N": 16})`` -> ``972.0 thread``.
        """
        from symgpu.evaluate import clocks, evaluator  # NOTE: imported on first use (see the module's note)

        given = clocks.values_at_point(self, preset, merge_keywords(values, symbol_values))
        answer = evaluator.evaluate(self, name, preset=preset, values=given, checks=checks)
        return answer if unit is None else _in_unit(self, name, answer, unit, preset, given)

    def solve(self, quantity: Any, for_: str = "n", **options: Any) -> Derivation:
        """Solve ``quantity = target`` for ``for_``; see :func:`symgpu.derive.solve`. At a point (``preset``/``values``)
        where the relation holds on whole ranges of ``for_``, the answer says so (``extra.elsewhere``), as the command line does."""
        from symgpu import derive  # NOTE: imported on first use
        from symgpu.derive import range_lines  # NOTE: imported on first use

        options = _at_point(self, options, (for_, f"for_={for_!r}"))
        answer = derive.solve(self, quantity, for_, **options)
        if options.get("preset") is None and not options.get("values"):
            return _shown(self, answer, options)
        answer = range_lines.at_point(self, answer, options.get("preset"), dict(options.get("values") or {}))
        return _shown(self, answer, options)

    def regimes(self, quantity: Any, **options: Any) -> Derivation:
        """Split ``quantity`` into regimes; see :func:`symgpu.derive.regimes`."""
        from symgpu import derive  # NOTE: imported on first use

        options = _at_point(self, options, (options.get("over"), f"over={options.get('over')!r}"))
        return _shown(self, derive.regimes(self, quantity, **options), options)

    def boundary(self, quantity: Any, between: Any = None, **options: Any) -> Derivation:
        """Where regimes of ``quantity`` meet; see :func:`symgpu.derive.boundary`."""
        from symgpu import derive  # NOTE: imported on first use

        options = _at_point(self, options, (options.get("for_"), f"for_={options.get('for_')!r}"))
        return _shown(self, derive.boundary(self, quantity, between, **options), options)

    def extremum(self, quantity: Any, over: str = "alpha", kind: str = "max", **options: Any) -> Derivation:
        """Maximum or minimum of ``quantity`` over a variable; see :func:`symgpu.derive.extremum`."""
        from symgpu import derive  # NOTE: imported on first use

        options = _at_point(self, options, (over, f"over={over!r}"))
        return _shown(self, derive.extremum(self, quantity, over, kind, **options), options)

    def limit(self, quantity: Any, var: str, to: Any = "oo", **options: Any) -> Derivation:
        """Limit of ``quantity`` as ``var`` goes to ``to``; see :func:`symgpu.derive.limit`."""
        from symgpu import derive  # NOTE: imported on first use

        options = _at_point(self, options, (var, f"var={var!r}"))
        return _shown(self, derive.limit(self, quantity, var, to, **options), options)

    def fixed_point(self, quantity: Any, variable: str, **options: Any) -> Derivation:
        """Self-consistent value of an implicit relation; see :func:`symgpu.derive.fixed_point`."""
        from symgpu import derive  # NOTE: imported on first use

        options = _at_point(self, options, (variable, f"variable={variable!r}"))
        return _shown(self, derive.fixed_point(self, quantity, variable, **options), options)

    def run_request(self, request: Any) -> Derivation:
        """Run one ``[[derivations]]`` entry; see :func:`symgpu.derive.run_request`."""
        from symgpu import derive  # NOTE: imported on first use

        return _shown(self, derive.run_request(self, request), {})

    def _repr_html_(self) -> str:
        """The model in a notebook: title, counts and a table of equations (:mod:`symgpu.model.display`)."""
        return display.html_text(self)

    def _repr_markdown_(self) -> str:
        """The model as Markdown: title, counts and a table of equations."""
        return display.markdown_text(self)


def load(id_or_path: str | os.PathLike[str], *, cache: bool = True, whole: bool = False) -> Model:
    """Load, build and check a model by id (``"interval_analysis"``) or path to a ``.toml`` file.

    Model ids are looked up among the bundled models, then in the folders of
    ``$SYMGPU_MODEL_PATH``. Models are cached in memory by resolved path and modification time;
    the returned object must be treated as read-only.

    A question reads a part of a model: by default each equation is built, and checked, when first read, with
    the equations it is defined through (a dimension mismatch, a cycle, fails there with the message a whole check
    gives); constants, presets, derivation requests and tables are checked when it loads. ``whole=True`` builds
    and checks every part now, as ``symgpu check`` does, so a defect in a part no question read is found too.
    Loading reads the on-disk cache (parsed files, Min/Max verdicts) unless ``cache`` is False or the cache is
    off, and never writes to it: what it found is written by :func:`symgpu.store.flush` (the command line does so after
    a command's work) or with the next derived result kept there.

    Raises:
        UsageError: no such model.
        ModelFileError: the file is invalid, unsafe or dimensionally inconsistent.
    """
    if cache:
        return catalog.load(id_or_path, Model, whole=whole)
    with store.using(store.Settings(enabled=False)):
        return catalog.load(id_or_path, Model, whole=whole)
