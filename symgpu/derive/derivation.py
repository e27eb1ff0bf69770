"""The Derivation record: ordered steps, assumptions and result of a symbolic operation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.derive import summary
from symgpu.derive.extras import Extras
from symgpu.evaluate import scaling
from symgpu.model import printing

if TYPE_CHECKING:
    from symgpu.model import Model


@dataclass(frozen=True)
class Step:
    """One step of a derivation.

    Attributes:
        operation: short verb (``substitute``, ``differentiate``, ``solve``, ``select root``...).
        expression: the SymPy expression (or relation) after the step.
        justification: one line saying why the step is valid.
    """

    operation: str
    expression: sympy.Basic
    justification: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (expressions as SymPy-parsable strings and LaTeX)."""
        return {
            "operation": self.operation,
            "expression": printing.sstr(self.expression),
            "latex": sympy.latex(self.expression),
            "justification": self.justification,
        }


@dataclass(frozen=True)
class Certificate:
    """What was checked numerically before an answer was shown (:mod:`symgpu.derive.certify`).

    Attributes:
        where: the points checked at (``preset h100``; ``presets a, b``; ``3 sampled admissible points``).
        checks: each check that held, as a short sentence.
        unchecked: why nothing could be checked ("" when something was).
    """

    where: str = ""
    checks: tuple[str, ...] = ()
    unchecked: str = ""

    @property
    def checked(self) -> bool:
        """Did at least one numeric check run (and hold)?"""
        return bool(self.checks)

    def text(self) -> str:
        """One line: ``checked numerically at preset h100: ...`` or ``not checked numerically: why``."""
        if not self.checks:
            return f"not checked numerically: {self.unchecked or 'no check applies'}"
        return f"checked numerically at {self.where}: " + "; ".join(self.checks)

    def lines(self, width: int) -> list[str]:
        """:meth:`text` as one line where it fits in ``width`` characters, else the points checked at
        on one line and each check on its own line below it (each still longer than ``width`` is cut
        by the caller)."""
        one = self.text()
        if len(one) <= width or not self.checks:
            return [one]
        return [f"checked numerically at {self.where}:", *(f"  - {c}" for c in self.checks)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"checked": self.checked, "where": self.where, "checks": list(self.checks), "unchecked": self.unchecked}


@dataclass(frozen=True)
class Derivation:
    """Result of a derivation operation on a model.

    Attributes:
        model: model id.
        operation: ``solve``, ``regimes``, ``boundary``, ``extremum``, ``limit``, ``fixed_point``...
        quantity: the quantity (or equation) operated on.
        variable: the variable solved for / varied ("" if none).
        steps: ordered steps.
        assumptions: assumptions used, as sentences.
        result: the final symbolic result (for ``extremum``: the extreme value).
        location: for ``extremum``, the arg-extremum (else ``None``).
        unit: unit text of ``result`` (checked against the model).
        method: ``closed form`` or the numeric method used, with the reason.
        extra: further named results (each regime, each root, an extremum's candidates...): an
            :class:`~symgpu.derive.extras.Extras` record, each a typed field.
        certificate: the numeric checks the answer passed before it was shown (``None``: not
            yet checked, e.g. an intermediate derivation inside the engine).
        regimes: of a ``regimes`` derivation, its :class:`~symgpu.derive.regime_split.Regime`
            objects (raw conditions included); not compared: ``extra`` shows them.
        latex_names: (symbol name, its LaTeX) of the model's symbols, declared ``latex`` first
            (:func:`symgpu.model.latex_names.symbol_names`), for the notebook's rendering; set by :class:`symgpu.api.Model`'s
            methods, not compared, not stored (empty: SymPy's default names).
    """

    model: str
    operation: str
    quantity: str
    variable: str
    steps: tuple[Step, ...]
    result: Any
    assumptions: tuple[str, ...] = ()
    location: Any = None
    unit: str = ""
    method: str = "closed form"
    extra: Extras = field(default_factory=Extras)
    certificate: Certificate | None = None
    regimes: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    latex_names: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""

        def show(value: Any) -> Any:
            if isinstance(value, sympy.Basic):
                return printing.sstr(value)
            if isinstance(value, (list, tuple)):
                return [show(v) for v in value]
            if isinstance(value, dict):
                return {str(k): show(v) for k, v in value.items()}
            return value

        return {
            "model": self.model,
            "operation": self.operation,
            "quantity": self.quantity,
            "variable": self.variable,
            "steps": [s.to_dict() for s in self.steps],
            "assumptions": list(self.assumptions),
            "result": show(self.result),
            "result_latex": self._result_latex(),
            "location": show(self.location),
            "unit": self.unit,
            "method": self.method,
            "extra": {k: show(v) for k, v in self.extra.pairs()},
            "certificate": self.certificate.to_dict() if self.certificate is not None else None,
        }

    def _result_latex(self) -> str | None:
        """The result in LaTeX; an inequality solve's bound with its relation (``n < \\frac{187}{10}``), which the bare
        number alone does not say."""
        if not isinstance(self.result, sympy.Basic):
            return None
        op = summary.bound_operator(self)
        body = summary.tex(self.result, dict(self.latex_names))
        return body if op == "=" else f"{summary.tex(sympy.Symbol(self.variable), dict(self.latex_names))} {op} {body}"

    def __str__(self) -> str:
        head = f"{self.operation} of {self.quantity}" + (f" over {self.variable}" if self.variable else "") + f" ({self.model})"
        lines = [head]
        for number, step in enumerate(self.steps, 1):
            lines.append(f"  {number}. {step.operation}: {printing.sstr(step.expression)}")
            lines.append(f"       because {step.justification}")
        if self.assumptions:
            lines.append("  assuming " + "; ".join(self.assumptions))
        if self.location is not None:
            lines.append(f"  at {self.variable} = {printing.sstr(self.location)}")
        bound = f"{self.variable} {self.extra.relation.rel_op} " if self.extra.bound and self.extra.relation is not None else ""
        lines.append(f"  result: {bound}{printing.sstr(self.result)}" + (f"  [{self.extra.written_in or self.unit}]" if self.unit else ""))
        if self.extra.written_in:  # the formula's own unit is not its value's
            lines.append(f"  ({summary.written_in_words(self.extra.written_in, self.unit)})")
        lines.append(f"  method: {self.method}")
        if self.extra.valid_when:
            lines.append("  valid when " + " and ".join(map(printing.sstr, self.extra.valid_when)))
        lines.extend(f"  {text}" for text in (self.extra.elsewhere, self.extra.flat_where, self.extra.held_fixed) if text)
        if self.certificate is not None:
            lines.append(f"  {self.certificate.text()}")
        return "\n".join(lines)

    def _repr_latex_(self) -> str:
        """The answer in a notebook: what was asked and the result, in LaTeX."""
        return summary.latex(self)

    def _repr_markdown_(self) -> str:
        """The answer in a notebook: the text summary, then the result in LaTeX."""
        return summary.markdown(self)


def as_evaluated(model: Model, derivation: Derivation, expr: sympy.Basic, which: str = "result") -> sympy.Basic:
    """``expr``, the derivation's result (or an item of it; ``which="location"``: its location), as
    the evaluator reads an expression: its bare numbers in coherent base units
    (:mod:`symgpu.evaluate.scaling`). A numeric search's answer (extra ``declared_numbers``: a grid
    extremum's 31.68 [us], a fixed point found numerically, an inequality's bound at a point) is a number in the
    declared unit of the quantity (of the variable, for the location, a solve's result and a fixed point, a value of
    the variable: ``x`` in us where the quantity is in ns), as printed: scaled to base units here, so that
    its value is 31.68 us, not 31.68 s read back as 3.168e7 us.

    Raises:
        errors.NotAModelError: ``model`` is not a model (an id: pass ``symgpu.load(ID)``).
    """
    errors.require_model(model, "symgpu.derive.derivation.as_evaluated")
    if not derivation.extra.declared_numbers:
        return expr
    # a solve's result is a value of its variable (an inequality at a point answered regime by regime: 1000/3 [ns]), and so is a fixed point
    name = derivation.variable if which == "location" or derivation.operation in ("solve", "fixed_point") else derivation.quantity
    scale = scaling.unit_scale(model.units[name]) if name in model.units else sympy.Integer(1)
    if isinstance(expr, sympy.Tuple):
        return sympy.Tuple(*[e * scale for e in expr])
    return expr * scale
