"""Which equations two models differ in, and the symbolic difference of a quantity they share."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any
import sympy
from symgpu import errors, units
from symgpu.model import Model
from symgpu.compare.normal_forms import _bounded, _simplify, _unify, normalize, reachable
from symgpu.compare.normal_forms import MAX_OPS, SIMPLIFY_SECONDS


# ============================================================================ equation diff
@dataclass(frozen=True)
class EquationChange:
    """One equation id present in both models with a different definition."""

    id: str
    defines: str
    a: str
    b: str


@dataclass(frozen=True)
class BranchAgreement:
    """One branch of a (piecewise) difference: where it applies, the difference, where it vanishes."""

    condition: sympy.Basic
    difference: sympy.Basic
    agree_when: tuple[str, ...]


@dataclass
class QuantityDiff:
    """Symbolic comparison of a quantity both models define."""

    quantity: str
    a: sympy.Basic
    b: sympy.Basic
    difference: sympy.Basic
    ratio: sympy.Basic
    identical: bool
    branches: list[BranchAgreement] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class ModelDiff:
    """Equations that differ between two models, and optionally a quantity's symbolic diff."""

    a: str
    b: str
    changed: list[EquationChange]
    only_a: list[tuple[str, str]]
    only_b: list[tuple[str, str]]
    same: int
    quantity: QuantityDiff | None = None


def _signature(model: Model, eq_id: str) -> tuple[str, str]:
    eq = model.equations[eq_id]
    text = str(eq.rhs)
    extra = []
    if eq.valid_when:
        extra.append("valid when " + ", ".join(str(c) for c in eq.valid_when))
    if eq.definition.counts:
        extra.append("counts " + ", ".join(eq.definition.counts))
    return eq.definition.defines, text + (f"   [{'; '.join(extra)}]" if extra else "")


def diff(a: Model, b: Model, quantity: str | None = None) -> ModelDiff:
    """Compare two models equation by equation (by id) and, if given, one shared quantity.

    Raises:
        errors.UsageError: ``quantity`` is not defined by both models, or has different
            dimensions in the two.
    """
    changed, same = [], 0
    for eq_id in a.equations:
        if eq_id in b.equations:
            sa, sb = _signature(a, eq_id), _signature(b, eq_id)
            if sa != sb:
                changed.append(EquationChange(eq_id, sa[0] if sa[0] == sb[0] else f"{sa[0]} / {sb[0]}", sa[1], sb[1]))
            else:
                same += 1
    only_a = [(i, a.equations[i].definition.defines) for i in a.equations if i not in b.equations]
    only_b = [(i, b.equations[i].definition.defines) for i in b.equations if i not in a.equations]
    result = ModelDiff(a.id, b.id, changed, only_a, only_b, same)
    if quantity:
        result.quantity = diff_quantity(a, b, quantity)
    return result


def _defines(model: Model, quantity: str) -> None:
    if quantity not in model.defining:
        raise errors.UsageError(f"{model.id} does not define '{quantity}' (quantities: {', '.join(model.quantities)})")


def diff_quantity(a: Model, b: Model, quantity: str) -> QuantityDiff:
    """Expanded expressions of ``quantity`` in both models, their simplified difference and
    ratio, and where they agree (difference = 0 solved where feasible, per piecewise branch)."""
    _defines(a, quantity)
    _defines(b, quantity)
    if a.dimension(quantity) != b.dimension(quantity):
        raise errors.UsageError(
            f"'{quantity}' has dimension {units.format_dimension(a.dimension(quantity))} in {a.id} but "
            f"{units.format_dimension(b.dimension(quantity))} in {b.id}; the two cannot be compared")
    ea, eb = _unify((a, b), (a.expression(quantity), b.expression(quantity)))
    scale = float(units.registry().Quantity(1, a.units[quantity]).to(b.units[quantity]).magnitude)
    if scale != 1:
        ea = ea * sympy.nsimplify(scale)
    notes: list[str] = []
    na, nb = normalize(ea), normalize(eb)
    constants = {n for m in (a, b) for n, d in m.symbol_definitions.items() if d.role == "constant"}
    raw = sympy.piecewise_fold(na - nb)
    if sympy.count_ops(raw) > MAX_OPS:
        difference, ratio = raw, sympy.piecewise_fold(na / nb)
        notes.append(f"the difference has {sympy.count_ops(raw)} operations (> {MAX_OPS}); shown unsimplified")
    else:
        difference, ok = _simplify(raw)
        if not ok:
            notes.append(f"simplify of the difference stopped after {SIMPLIFY_SECONDS:g} s; shown unsimplified")
        ratio, ok = _simplify(sympy.piecewise_fold(na / nb))
        if not ok:
            notes.append(f"simplify of the ratio stopped after {SIMPLIFY_SECONDS:g} s; shown unsimplified")
    identical = difference == 0
    branches: list[BranchAgreement] = []
    if not identical:
        pieces = reachable(difference) if isinstance(difference, sympy.Piecewise) else [(difference, sympy.true)]
        for value, condition in pieces:
            if sympy.count_ops(value) <= MAX_OPS:
                value, _ = _simplify(normalize(value))
            branches.append(BranchAgreement(condition, value, _agreement(value, constants)))
    return QuantityDiff(quantity, ea, eb, difference, ratio, identical, branches, notes)


def _agreement(value: sympy.Basic, constants: AbstractSet[str] = frozenset()) -> tuple[str, ...]:
    """Conditions under which ``value`` (a difference) is zero: 'always', 'never', or roots."""
    if value == 0:
        return ("always",)
    if value.is_zero is False:
        return ("never (the difference cannot vanish under the declared assumptions)",)
    if value.has(sympy.Min, sympy.Max, sympy.Piecewise, sympy.floor, sympy.ceiling):
        return ("not solved (Min/Max/Piecewise in the difference)",)
    out = []
    numerator = sympy.numer(sympy.together(value))
    for sym in [s for s in sorted(value.free_symbols, key=lambda s: s.name) if s.name not in constants][:8]:
        if not numerator.is_polynomial(sym) or sympy.degree(numerator, sym) > 4:
            continue
        roots, ok = _bounded(lambda: sympy.solve(sympy.Eq(numerator, 0), sym), [])
        for root in roots if ok else []:
            if root.is_real is False or root.is_negative and sym.is_nonnegative:
                continue
            out.append(f"{sym} = {sympy.sstr(sympy.simplify(root))}")
    return tuple(out) or ("not solved (no closed-form root found)",)


def format_diff(result: ModelDiff) -> str:
    """Plain-text rendering of :func:`diff`."""
    lines = [f"{result.a} vs {result.b}: {result.same} equations identical, {len(result.changed)} differ, "
             f"{len(result.only_a)} only in {result.a}, {len(result.only_b)} only in {result.b}"]
    for change in result.changed:
        lines += [f"  changed {change.id} ({change.defines}):", f"    {result.a}: {change.a}", f"    {result.b}: {change.b}"]
    for side, items in ((result.a, result.only_a), (result.b, result.only_b)):
        if items:
            lines.append(f"  only in {side}: " + ", ".join(f"{i} ({d})" for i, d in items))
    q = result.quantity
    if q is not None:
        lines += ["", f"quantity {q.quantity}:", f"  {result.a}: {sympy.sstr(q.a)}", f"  {result.b}: {sympy.sstr(q.b)}"]
        if q.identical:
            lines.append("  identical: simplify(A - B) = 0 for all inputs")
        else:
            lines += [f"  A - B = {sympy.sstr(q.difference)}", f"  A / B = {sympy.sstr(q.ratio)}", "  agreement:"]
            for branch in q.branches:
                where = (" elsewhere" if len(q.branches) > 1 else "") if branch.condition is sympy.true else f" where {sympy.sstr(branch.condition)}"
                lines.append(f"    A - B = {sympy.sstr(branch.difference)}{where}: zero when {'; '.join(branch.agree_when)}")
        lines += [f"  note: {n}" for n in q.notes]
    return "\n".join(lines)


def diff_json(result: ModelDiff) -> dict[str, Any]:
    """JSON-ready form of :func:`diff`."""
    out: dict[str, Any] = {
        "model_a": result.a, "model_b": result.b, "identical_equations": result.same,
        "changed": [{"id": c.id, "defines": c.defines, "a": c.a, "b": c.b} for c in result.changed],
        "only_a": [{"id": i, "defines": d} for i, d in result.only_a],
        "only_b": [{"id": i, "defines": d} for i, d in result.only_b],
    }
    q = result.quantity
    if q is not None:
        out["quantity"] = {
            "name": q.quantity, "a": sympy.sstr(q.a), "b": sympy.sstr(q.b), "identical": q.identical,
            "difference": sympy.sstr(q.difference), "ratio": sympy.sstr(q.ratio),
            "branches": [{"condition": sympy.sstr(b.condition), "difference": sympy.sstr(b.difference), "agree_when": list(b.agree_when)} for b in q.branches],
            "notes": q.notes,
        }
    return out
