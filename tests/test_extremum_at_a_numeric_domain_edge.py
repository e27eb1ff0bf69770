"""An extremum at given values whose ``valid_when`` domain ends where SymPy finds no closed form of
the edge: the far end is no candidate (the model gives no value there) and the edge, found by
bisection on the evaluate path, is.

A variant of Hong & Kim 2009 with Eq. (26) valid only where ``NpWB >= 1`` (the printed formula is
negative below one parallel warp per block). ``NpWB = Min(MWP, ...)`` and MWP is itself a ``Min``
whose bandwidth term falls as ``Load_bytes_per_warp`` grows, so the domain ends where that term is
1. Asked for the minimum of ``Synch_cost`` over ``Load_bytes_per_warp``, the engine said "no
minimum: it tends to -20480 as Load_bytes_per_warp -> oo", a limit outside the domain.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import symgpu
from symgpu import errors

EQ26 = 'defines = "Synch_cost"\nrhs = "Departure_delay*(NpWB - 1)*Synch_insts*Active_blocks_per_SM*Rep"'
AT = {"Active_blocks_per_SM": 1.0}
PRESET = "gtx280+tiled_matmul"


def _declared_in(text: str, symbol: str, old: str, new: str) -> str:
    """``text`` with ``symbol``'s declared unit ``old`` replaced by ``new``."""
    start = text.index(f"[symbols.{symbol}]")
    at = text.index(f'unit = "{old}"', start)
    return text[:at] + f'unit = "{new}"' + text[at + len(f'unit = "{old}"'):]


@pytest.fixture
def guarded(write_model: Callable[..., Path]) -> Path:
    """The variant, with the variable in kB/warp and the quantity in kilocycles: the edge's numbers
    must keep their units (a bare number in an expression is read in base units)."""
    text = (Path(symgpu.__file__).resolve().parent.parent / "equations" / "hong_kim_2009.toml").read_text(encoding="utf-8")
    assert EQ26 in text
    text = text.replace(EQ26, EQ26 + '\nvalid_when = ["NpWB >= 1"]').replace('id = "hong_kim_2009"', 'id = "hk_guarded"', 1)
    text = _declared_in(_declared_in(text, "Load_bytes_per_warp", "B/warp", "kB/warp"), "Synch_cost", "cycle", "kilocycle")
    return write_model(text, name="hk_guarded")


def test_the_minimum_is_zero_at_the_edge_where_the_bandwidth_term_is_one(guarded: Path) -> None:
    model = symgpu.load(str(guarded))
    assert model.unit_text("Load_bytes_per_warp") == "kB/warp"
    # by hand: MWP_peak_BW = Mem_Bandwidth*Mem_L/(Freq*Load_bytes_per_warp*Active_SMs) falls as 1/Load_bytes_per_warp
    scale = model.evaluate("MWP_peak_BW", PRESET, values={**AT, "Load_bytes_per_warp": 1.0}).magnitude
    edge = float(scale)  # where it is 1
    # it used to be refused: "no minimum: it tends to -20480 as Load_bytes_per_warp -> oo", outside the domain
    answer = model.extremum("Synch_cost", over="Load_bytes_per_warp", kind="min", preset=PRESET, values=AT)
    assert answer.certificate is not None and answer.certificate.checks
    assert answer.extra.location_at == pytest.approx(edge, rel=1e-9)
    inside = model.evaluate("Synch_cost", PRESET, values={**AT, "Load_bytes_per_warp": edge / 2}).magnitude
    assert 0 <= answer.extra.value_at <= 1e-9 * inside
    assert answer.method.startswith("numeric")
    with pytest.raises(errors.DomainError):  # the model gives no value beyond the edge
        model.evaluate("Synch_cost", PRESET, values={**AT, "Load_bytes_per_warp": edge * 1.01})


def test_where_the_domain_holds_nowhere_the_answer_says_so(guarded: Path) -> None:
    model = symgpu.load(str(guarded))
    at = {**AT, "Active_warps_per_block": 0.5}  # NpWB = Min(MWP, 0.5) < 1 whatever the load: eq26 never applies
    with pytest.raises(errors.DomainError):
        model.evaluate("Synch_cost", PRESET, values={**at, "Load_bytes_per_warp": 1.0})
    with pytest.raises(errors.NoAnswerHere, match="no value for any Load_bytes_per_warp"):
        model.extremum("Synch_cost", over="Load_bytes_per_warp", kind="min", preset=PRESET, values=at)


def test_an_intermediate_quantity_put_in_by_substitute_is_put_in_and_checked() -> None:
    # MWP_peak_BW carries Synch_cost's only dependence on Load_bytes_per_warp. Put in as 1000, the derivation used to
    # expand it away first (the substitution then found nothing to replace: the limit was the unsubstituted -20480), and
    # the certificate's scan of the constant quantity indexed one number as an array (IndexError)
    model = symgpu.load("hong_kim_2009")
    assert model.symbols["Load_bytes_per_warp"] not in model.expression("Synch_cost", stop_at={"MWP_peak_BW"}).free_symbols
    far = {**AT, "MWP_peak_BW": 1000.0, "Load_bytes_per_warp": 1e9}
    expected = model.evaluate("Synch_cost", PRESET, values=far).magnitude  # the evaluate path with the intermediate given
    assert expected != pytest.approx(model.evaluate("Synch_cost", PRESET, values={**AT, "Load_bytes_per_warp": 1e9}).magnitude)
    answer = model.limit("Synch_cost", "Load_bytes_per_warp", "oo", preset=PRESET, values=AT, substitute={"MWP_peak_BW": "1000"})
    assert model.symbols["Load_bytes_per_warp"] not in answer.result.free_symbols
    assert answer.certificate is not None and answer.certificate.checks
    value = symgpu.derive.evaluate_result(model, answer, PRESET, **AT).magnitude
    assert value == pytest.approx(expected, rel=1e-12)
