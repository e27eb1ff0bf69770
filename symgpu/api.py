"""The public model object: a built model (:class:`symgpu.model.Model`) that also answers
questions — numeric evaluation and every derivation operation, as ordinary methods.

Each method delegates to one function of :mod:`symgpu.evaluate` or :mod:`symgpu.derive` and
takes the same arguments after the model.

NOTE: the derivation engine and the evaluator are imported by the methods that use them, not
here: :func:`load` (a model built and checked) does not pay for importing them (issue 31).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pint

from symgpu import errors, model, store
from symgpu.model import catalog, display

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


class Model(model.Model):
    """A GPU performance model you can ask questions: ``evaluate``, ``solve``, ``regimes``,
    ``boundary``, ``extremum``, ``limit``, ``fixed_point`` and ``run_request``.

    Obtain one with :func:`load`; see :class:`symgpu.model.Model` for symbols, equations,
    presets and expressions.
    """

    def evaluate(self, name: str, /, preset: str | None = None, *, values: Mapping[str, Any] | None = None,
                 checks: bool = True, **symbol_values: Any) -> pint.Quantity:
        """Evaluate quantity ``name`` numerically; see :func:`symgpu.evaluate.evaluator.evaluate`.

        Values come as a mapping (``values={"M": 16}``), which works for every symbol name, or
        as keywords (``M=16``) for names other than ``preset``, ``values`` and ``checks``.

        Example: ``ia.evaluate("P_K0", preset="gtx1080", values={"M": 16, "N": 16})`` -> ``972.0 thread``.
        """
        from symgpu.evaluate import evaluator  # NOTE: imported on first use (see the module's note)

        return evaluator.evaluate(self, name, preset=preset, values=merge_keywords(values, symbol_values), checks=checks)

    def solve(self, quantity: Any, for_: str = "n", **options: Any) -> Derivation:
        """Solve ``quantity = target`` for ``for_``; see :func:`symgpu.derive.solve`. At a point (``preset``/``values``)
        where the relation holds on whole ranges of ``for_``, the answer says so (``extra.elsewhere``), as the command line does."""
        from symgpu import derive  # NOTE: imported on first use
        from symgpu.derive import range_lines  # NOTE: imported on first use

        answer = derive.solve(self, quantity, for_, **options)
        if options.get("preset") is None and not options.get("values"):
            return answer
        return range_lines.at_point(self, answer, options.get("preset"), dict(options.get("values") or {}))

    def regimes(self, quantity: Any, **options: Any) -> Derivation:
        """Split ``quantity`` into regimes; see :func:`symgpu.derive.regimes`."""
        from symgpu import derive  # NOTE: imported on first use

        return derive.regimes(self, quantity, **options)

    def boundary(self, quantity: Any, between: Any = None, **options: Any) -> Derivation:
        """Where regimes of ``quantity`` meet; see :func:`symgpu.derive.boundary`."""
        from symgpu import derive  # NOTE: imported on first use

        return derive.boundary(self, quantity, between, **options)

    def extremum(self, quantity: Any, over: str = "alpha", kind: str = "max", **options: Any) -> Derivation:
        """Maximum or minimum of ``quantity`` over a variable; see :func:`symgpu.derive.extremum`."""
        from symgpu import derive  # NOTE: imported on first use

        return derive.extremum(self, quantity, over, kind, **options)

    def limit(self, quantity: Any, var: str, to: Any = "oo", **options: Any) -> Derivation:
        """Limit of ``quantity`` as ``var`` goes to ``to``; see :func:`symgpu.derive.limit`."""
        from symgpu import derive  # NOTE: imported on first use

        return derive.limit(self, quantity, var, to, **options)

    def fixed_point(self, quantity: Any, variable: str, **options: Any) -> Derivation:
        """Self-consistent value of an implicit relation; see :func:`symgpu.derive.fixed_point`."""
        from symgpu import derive  # NOTE: imported on first use

        return derive.fixed_point(self, quantity, variable, **options)

    def run_request(self, request: Any) -> Derivation:
        """Run one ``[[derivations]]`` entry; see :func:`symgpu.derive.run_request`."""
        from symgpu import derive  # NOTE: imported on first use

        return derive.run_request(self, request)

    def _repr_html_(self) -> str:
        """The model in a notebook: title, counts and a table of equations (:mod:`symgpu.model.display`)."""
        return display.html_text(self)

    def _repr_markdown_(self) -> str:
        """The model as Markdown: title, counts and a table of equations."""
        return display.markdown_text(self)


def load(id_or_path: str | os.PathLike[str], *, cache: bool = True) -> Model:
    """Load, build and check a model by id (``"interval_analysis"``) or path to a ``.toml`` file.

    Model ids are looked up among the bundled models, then in the folders of
    ``$SYMGPU_MODEL_PATH``. Models are cached in memory by resolved path and modification time;
    the returned object must be treated as read-only. Loading reads the on-disk cache (parsed
    files, Min/Max verdicts) unless ``cache`` is False or the cache is off, and never writes to
    it: what it found is written by :func:`symgpu.store.flush` (the command line does so after
    a command's work) or with the next derived result kept there.

    Raises:
        UsageError: no such model.
        ModelFileError: the file is invalid, unsafe or dimensionally inconsistent.
    """
    if cache:
        return catalog.load(id_or_path, Model)
    with store.using(store.Settings(enabled=False)):
        return catalog.load(id_or_path, Model)
