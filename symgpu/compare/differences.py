"""Which equations two models differ in, and the symbolic difference of a quantity they share."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any
import sympy
from symgpu import errors, numbers, suggest, units
from symgpu.derive.summary import shorten
from symgpu.evaluate.record import evaluation_record
from symgpu.model import Model
from symgpu.compare.normal_forms import _bounded, _simplify, _unify, normalize, reachable
from symgpu.compare.normal_forms import MAX_OPS, SIMPLIFY_SECONDS
from symgpu.compare import vanishing
from symgpu.proofs.sign_records import Declared


# ============================================================================ equation diff
@dataclass(frozen=True)
class EquationChange:
    """One equation id present in both models with a different definition."""

    id: str
    defines: str
    a: str
    b: str
    parts: tuple[str, ...] = ()


@dataclass(frozen=True)
class PointComparison:
    """A quantity evaluated in both models at one point (a shared preset or validation case).

    Attributes:
        label: where (``preset gtx280``, ``case table2_exec_cycles``).
        a: value in model A, in ``unit`` (``None`` when it could not be evaluated).
        b: value in model B, in ``unit``.
        unit: unit of both values (model A's unit of the quantity).
        problem: why it was not evaluated ("" when it was).
    """

    label: str
    a: float | None
    b: float | None
    unit: str
    problem: str = ""

    @property
    def differs(self) -> bool:
        """Both evaluated and not equal to 1e-9 relative."""
        if self.a is None or self.b is None:
            return False
        return abs(self.a - self.b) > 1e-9 * max(abs(self.a), abs(self.b))


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
    points: list[PointComparison] = field(default_factory=list)
    units_changed: list[tuple[str, str, str]] = field(default_factory=list)


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
                defines = sa[0] if sa[0] == sb[0] else f"{sa[0]} / {sb[0]}"
                changed.append(EquationChange(eq_id, defines, sa[1], sb[1], _parts(a, b, eq_id)))
            else:
                same += 1
    only_a = [(i, a.equations[i].definition.defines) for i in a.equations if i not in b.equations]
    only_b = [(i, b.equations[i].definition.defines) for i in b.equations if i not in a.equations]
    result = ModelDiff(a.id, b.id, changed, only_a, only_b, same, units_changed=units_changed(a, b))
    if quantity:
        result.quantity = diff_quantity(a, b, quantity)
        result.points = compare_at_points(a, b, quantity)
    return result


def units_changed(a: Model, b: Model) -> list[tuple[str, str, str]]:
    """The symbols both models declare in different units: (name, A's unit, B's unit), in A's order. A variant that
    declares ``Theta_M`` in TB/s instead of GB/s has the same equations, but each number means another amount."""
    return [(name, a.unit_text(name), b.unit_text(name)) for name in a.symbol_definitions
            if name in b.symbol_definitions and a.units[name] != b.units[name]]


def _parts(a: Model, b: Model, eq_id: str) -> tuple[str, ...]:
    """Which parts of an equation differ: ``rhs``, ``case eq24 (value)``, ``valid_when``, ``counts``..."""
    da, db = a.equations[eq_id].definition, b.equations[eq_id].definition
    parts = [key for key in ("defines", "rhs", "limiters", "counts", "valid_when") if getattr(da, key) != getattr(db, key)]
    cases_a, cases_b = {c.id: c for c in da.cases}, {c.id: c for c in db.cases}
    for case_id in [*cases_a, *(c for c in cases_b if c not in cases_a)]:
        ca, cb = cases_a.get(case_id), cases_b.get(case_id)
        if ca is None or cb is None:
            parts.append(f"case {case_id} (only in {a.id if cb is None else b.id})")
            continue
        what = [key for key, x, y in (("condition", ca.when, cb.when), ("value", ca.value, cb.value)) if x != y]
        if what:
            parts.append(f"case {case_id} ({' and '.join(what)})")
    return tuple(parts)


def _points(a: Model, b: Model) -> list[tuple[str, str | None, tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]]:
    """Shared presets, then shared validation cases with inputs of their own: (label, preset,
    values for A, values for B: each model's own reading of the case's inputs)."""
    points: list[tuple[str, str | None, tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]] = [
        (f"preset {p}", p, (), ()) for p in a.presets if p in b.presets]
    seen: set[tuple[str | None, tuple[tuple[str, Any], ...]]] = {(p, ()) for _, p, _, _ in points}
    cases_b = {c.id: c for c in b.definition.validation}
    for case in a.definition.validation:
        other = cases_b.get(case.id)
        key = (case.preset or None, tuple(case.inputs))
        if other is None or (other.preset, other.inputs) != (case.preset, case.inputs) or key in seen:
            continue
        seen.add(key)
        points.append((f"case {case.id}", case.preset or None, a.validation_case(case).inputs, b.validation_case(other).inputs))
    return points


def compare_at_points(a: Model, b: Model, quantity: str) -> list[PointComparison]:
    """``quantity`` evaluated in both models at every shared preset and validation case."""
    unit, spelled = a.units[quantity], a.unit_text(quantity)  # op/cycle/SM as declared, not pint's tinst / cy / SM
    out = []
    for label, preset, given_a, given_b in _points(a, b):
        try:
            va = evaluation_record(a, preset, given_a, (quantity,)).value(quantity)
            vb = float(units.magnitude_in(units.registry().Quantity(evaluation_record(b, preset, given_b, (quantity,)).value(quantity), b.units[quantity]), unit))
        except errors.SymgpuError as exc:
            out.append(PointComparison(label, None, None, spelled, str(exc).split(": ", 1)[-1]))
            continue
        out.append(PointComparison(label, va, vb, spelled))
    return out


def _defines(model: Model, quantity: str) -> None:
    if quantity not in model.defining:
        raise errors.UsageError(f"{model.id} does not define '{quantity}' (quantities: {suggest.alternatives(quantity, model.quantities)})")


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
    notes: list[str] = []
    # NOTE: each expression reads its symbols in its own model's declared units. A symbol both declare in units of one
    # dimension is read in A's in both (B's number is A's times their factor), and B's quantity is brought to A's unit:
    # Theta_M in GB/s and in TB/s is one bandwidth, not two numbers 1000x apart (the comparison had said A/B = 1/1000).
    moved: dict[sympy.Basic, sympy.Basic] = {}
    for symbol in eb.free_symbols:
        name = symbol.name
        if name in a.units and name in b.units and a.units[name] != b.units[name]:
            if a.units[name].dimensionality == b.units[name].dimensionality:
                moved[symbol] = symbol * sympy.Rational(units.exact_factor(a.units[name], b.units[name]))
            else:
                notes.append(f"{name} is in {a.unit_text(name)} in {a.id} but {b.unit_text(name)} in {b.id}: each "
                             "expression reads it in its own model's unit")
    eb = eb.xreplace(moved) * sympy.Rational(units.exact_factor(b.units[quantity], a.units[quantity]))
    if moved or a.units[quantity] != b.units[quantity]:
        read = [f"{s.name} in {a.unit_text(s.name)}" for s in sorted(moved, key=lambda s: s.name)]
        notes.append(f"{b.id}'s expression is read in {a.id}'s units ({', '.join([*read, f'{quantity} in {a.unit_text(quantity)}'])})")
    memo: dict[sympy.Basic, sympy.Basic] = {}
    na, nb = normalize(ea, memo), normalize(eb, memo)
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
                value, _ = _simplify(normalize(value, memo))
            branches.append(BranchAgreement(condition, value, _agreement(value, constants, vanishing.declared((a, b), value),
                                                                          whole=condition is sympy.true)))
    return QuantityDiff(quantity, ea, eb, difference, ratio, identical, branches, notes)


def _agreement(value: sympy.Basic, constants: AbstractSet[str] = frozenset(), declared: Declared = Declared(), *,
               whole: bool = True) -> tuple[str, ...]:
    """Conditions under which ``value`` (a difference) is zero: 'always', 'never' (and why: :func:`vanishing.never`,
    under ``declared``), or roots; 'not solved' where none of these is found (:func:`vanishing.undecided`; ``whole``:
    the difference holds over the whole declared domain, not only where a branch's condition does)."""
    if value == 0:
        return ("always",)
    if value.is_zero is False and not value.is_number:
        return ("never (the difference cannot vanish under the declared assumptions)",)
    reason = vanishing.never(value, declared)
    if reason is not None:
        return (reason,)
    if value.has(sympy.Min, sympy.Max, sympy.Piecewise, sympy.floor, sympy.ceiling):
        return (vanishing.undecided(value, "Min/Max/Piecewise in the difference", whole),)
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
    return tuple(out) or (vanishing.undecided(value, "no closed-form root found", whole),)


def _where(result: ModelDiff) -> list[str]:
    """Which equations differ (one line each), and at which points the quantity's values differ."""
    lines = [f"{result.a} vs {result.b}: {result.same} equations identical, {len(result.changed)} differ, "
             f"{len(result.only_a)} only in {result.a}, {len(result.only_b)} only in {result.b}"]
    if result.changed:
        lines.append("equations that differ:")
        lines += [f"  {c.id} ({c.defines})" + (f": {', '.join(c.parts)}" if c.parts else "") for c in result.changed]
    for side, items in ((result.a, result.only_a), (result.b, result.only_b)):
        if items:
            lines.append(f"only in {side}: " + ", ".join(f"{i} ({d})" for i, d in items))
    if result.units_changed:
        lines.append(f"symbols declared in other units ({result.a} vs {result.b}): "
                     + ", ".join(f"{name} ({ua} vs {ub})" for name, ua, ub in result.units_changed))
    if result.quantity is None:
        return lines
    evaluated = [p for p in result.points if p.a is not None]
    differing = [p for p in evaluated if p.differs]
    lines.append(f"{result.quantity.quantity} at the {len(result.points)} shared presets and validation cases: "
                 f"{len(evaluated)} evaluate in both, {len(differing)} differ")
    for point in evaluated:
        assert point.a is not None and point.b is not None
        if point.differs:
            ratio = f"B/A = {numbers.number_text(point.b / point.a)}" if point.a else "A = 0"
            verdict = f"differ by {numbers.number_text(point.b - point.a)} {point.unit} ({ratio})"
        else:
            verdict = "same"
        lines.append(f"  {point.label}: {numbers.number_text(point.a)} vs {numbers.number_text(point.b)} {point.unit}, {verdict}")
    skipped = [p.label for p in result.points if p.a is None]
    if skipped:
        lines.append(f"  not evaluated (inputs missing, give them with --preset/--set in symgpu compare): {', '.join(skipped)}")
    return lines


def format_diff(result: ModelDiff, *, full: bool = False) -> str:
    """Plain-text rendering of :func:`diff`: where the models differ first (equation ids, then the
    quantity's values at shared presets and validation cases), then the expressions; each line
    cut to 200 characters unless ``full``."""
    lines = _where(result)
    if result.changed:
        lines += ["", "how the equations differ" + ("" if full else " (lines cut to 200 characters; --full for all)") + ":"]
    for change in result.changed:
        lines += [f"  {change.id} ({change.defines}):", f"    {result.a}: {change.a}", f"    {result.b}: {change.b}"]
    q = result.quantity
    if q is not None:
        lines += ["", f"quantity {q.quantity}, expanded:", f"  {result.a}: {sympy.sstr(q.a)}", f"  {result.b}: {sympy.sstr(q.b)}"]
        if q.identical:
            lines.append("  identical: simplify(A - B) = 0 for all inputs")
        else:
            lines += [f"  A - B = {sympy.sstr(q.difference)}", f"  A / B = {sympy.sstr(q.ratio)}", "  agreement:"]
            for branch in q.branches:
                where = (" elsewhere" if len(q.branches) > 1 else "") if branch.condition is sympy.true else f" where {sympy.sstr(branch.condition)}"
                # the verdict on a line of its own: after a long difference it was cut off with it (lines cut to 200 characters)
                said = "; ".join(branch.agree_when)
                verdict = f"zero: {said}" if said.startswith(("always", "never", "not solved")) else f"zero when {said}"
                lines += [f"    A - B = {sympy.sstr(branch.difference)}{where}", f"      {verdict}"]
        lines += [f"  note: {n}" for n in q.notes]
    return "\n".join(lines if full else [shorten(line) for line in lines])


def diff_json(result: ModelDiff) -> dict[str, Any]:
    """JSON-ready form of :func:`diff`."""
    out: dict[str, Any] = {
        "model_a": result.a, "model_b": result.b, "identical_equations": result.same,
        "changed": [{"id": c.id, "defines": c.defines, "parts": list(c.parts), "a": c.a, "b": c.b} for c in result.changed],
        "only_a": [{"id": i, "defines": d} for i, d in result.only_a],
        "only_b": [{"id": i, "defines": d} for i, d in result.only_b],
        "units_changed": [{"name": name, "a": ua, "b": ub} for name, ua, ub in result.units_changed],
    }
    q = result.quantity
    if q is not None:
        out["quantity"] = {
            "name": q.quantity, "a": sympy.sstr(q.a), "b": sympy.sstr(q.b), "identical": q.identical,
            "difference": sympy.sstr(q.difference), "ratio": sympy.sstr(q.ratio),
            "branches": [{"condition": sympy.sstr(b.condition), "difference": sympy.sstr(b.difference), "agree_when": list(b.agree_when)} for b in q.branches],
            "notes": q.notes,
        }
        # a point not evaluated in both models neither differs nor agrees: null
        out["points"] = [{"label": p.label, "a": p.a, "b": p.b, "unit": p.unit, "differs": p.differs if p.a is not None and p.b is not None else None,
                          "problem": p.problem} for p in result.points]
    return out
