"""A limit is taken only where the model gives the quantity values: inside its variable's declared
range and its ``valid_when`` domain. An outside tester found limits answered (and "checked") from
the side where ``symgpu eval`` itself refuses: Volkov's ``memory_latency = a + b*theta/(c - theta)``
(valid only when ``theta < c``) as ``theta -> c`` gave ``-oo`` (from above, the default for a
nonnegative variable); the interval notes' ``P_K0`` as ``N -> oo`` gave 740.58 threads where the
model holds only for ``N <= 2*L_M/t_issue`` (800 at M = 16 on the GTX 1080); Huang's bandwidth
delay as ``n -> oo`` gave a negative delay where the model needs ``rho < 1``.
"""

from __future__ import annotations

import json
import math

import pytest

import symgpu


def test_a_limit_not_asked_from_a_side_is_taken_from_the_side_the_model_has_values_on(cli) -> None:
    code, out, err = cli("limit", "volkov_2016", "memory_latency", "--var", "theta", "--to", "c", "--preset", "kepler")
    assert code == 0, err
    assert "value: oo cycle" in out and "from below" in out
    # the evaluate path: just below c the latency is large and positive; just above, the model gives none
    model = symgpu.load("volkov_2016")
    c = model.presets["kepler"]["c"].to(model.units["theta"]).magnitude
    below = [model.evaluate("memory_latency", "kepler", values={"theta": c * (1 - d)}).magnitude for d in (1e-3, 1e-6)]
    assert below[1] > below[0] > 0
    code, _, err = cli("eval", "volkov_2016", "memory_latency", "--preset", "kepler", "--set", f"theta={c * (1 + 1e-6)}")
    assert code == 2 and "theta < c" in err


def test_a_side_asked_where_the_model_has_no_value_is_refused_and_the_other_side_named(cli) -> None:
    code, out, err = cli("limit", "volkov_2016", "memory_latency", "--var", "theta", "--to", "c", "--dir", "+", "--preset", "kepler")
    assert code == 2 and "value:" not in out
    assert "theta < c" in err and "--dir -" in err
    code, out, err = cli("limit", "volkov_2016", "n_needed", "--var", "alpha", "--to", "0", "--dir", "-", "--preset", "maxwell")
    assert code == 2 and "declared nonnegative" in err and "value:" not in out


@pytest.mark.parametrize("question, because", [
    (("interval_analysis", "P_K0", "--var", "N", "--to", "oo", "--preset", "gtx1080", "--set", "M=16"), "L_M >= N*t_issue/2"),
    (("prior_huang", "Bandwidth_delay", "--var", "n", "--to", "oo", "--preset", "fermi"), "rho < 1"),
    (("mdm_2019", "S_Mem", "--var", "W", "--to", "oo", "--preset", "table1_gpumech_service", "--set", "M_Read=4", "--set", "M_Write=1",
      "--set", "LLCMissRate=0.5"), "W <= W_max"),
])
def test_a_limit_towards_infinity_past_the_models_domain_is_refused(cli, question, because) -> None:
    code, out, err = cli("limit", *question)
    assert code == 2 and "value:" not in out
    assert "no value" in err and because in err


def test_the_interval_model_is_bounded_in_n_where_the_limit_was_answered() -> None:
    # the premise, on the evaluate path: L_K0's valid_when N*t_issue/2 <= L_M bounds N (L_M from the preset,
    # t_issue a model constant); one past the bound is refused, the bound itself is not
    model = symgpu.load("interval_analysis")
    bound = 2 * model.presets["gtx1080"]["L_M"].to("cycle").magnitude / model.constants["t_issue"].to("cycle").magnitude
    assert math.isfinite(model.evaluate("P_K0", "gtx1080", values={"M": 16, "N": bound}).magnitude)
    with pytest.raises(symgpu.SymgpuError, match="valid only when"):
        model.evaluate("P_K0", "gtx1080", values={"M": 16, "N": bound * 1.01})


def test_without_a_point_a_limit_past_the_domain_is_the_formulas_and_says_so() -> None:
    # the notes' own "for large N" asymptotes lie beyond N <= 2*L_M/t_issue: given, never as the model's value
    answer = symgpu.load("interval_analysis").limit("P_K0", "N", "oo")
    assert "outside the model's domain" in answer.extra.elsewhere and "N <= 2*L_M/t_issue" in answer.extra.elsewhere
    assert answer.certificate is not None and not answer.certificate.checks  # nothing to check it by: the model has no value there


def test_a_side_the_declared_range_excludes_is_refused_without_a_point_too() -> None:
    with pytest.raises(symgpu.DerivationError, match="declared nonnegative"):
        symgpu.load("volkov_2016").limit("n_needed", "alpha", "0", direction="-")


def test_a_bare_number_as_the_point_of_a_variable_with_a_unit_is_read_in_its_declared_unit(cli) -> None:
    # n is in warp/SM: '--to 40' is 40 warp/SM, as a --set value is (outside round 11b, F9: it was refused, "without a
    # unit"; before that the limit's dimension check reported the model as inconsistent). memory_throughput is
    # continuous at n = 40 (Maxwell, alpha = 8): its limit there is the value beside it, by brute force
    model = symgpu.load("volkov_2016")
    beside = [model.evaluate("memory_throughput", "maxwell", n=40 * (1 + d), alpha=8).to("winst/cycle/SM").magnitude
              for d in (-1e-9, 1e-9)]
    code, out, err = cli("limit", "volkov_2016", "memory_throughput", "--var", "n", "--to", "40", "--preset", "maxwell", "--set",
                         "alpha=8", "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(beside[0], rel=1e-7) == pytest.approx(beside[1], rel=1e-7)


def test_a_limit_point_that_is_a_model_quantity_is_approached_from_the_side_the_model_has_values_on(cli) -> None:
    # Huang's bandwidth delay as n -> n_singular (where rho = 1): the model holds for rho < 1 only, so from below;
    # an outside tester got -oo "from above" (n_singular was kept as a free symbol and read at no value)
    model = symgpu.load("prior_huang")
    singular = float(model.evaluate("n_singular", "kepler").magnitude)
    approach = [float(model.evaluate("Bandwidth_delay", "kepler", values={"n": singular * (1 - d)}).to("cycle").magnitude)
                for d in (1e-6, 1e-9)]
    # by hand: the M/D/1 term grows without bound as rho -> 1-, so the Min tends to s*n*cores/2 = mem_lat/2 = 301/2
    assert approach[1] == pytest.approx(approach[0], rel=1e-5) and approach[1] == pytest.approx(150.5, rel=1e-6)
    code, _, err = cli("eval", "prior_huang", "Bandwidth_delay", "--preset", "kepler", "--set", f"n={singular * (1 + 1e-6)}")
    assert code == 2 and "rho < 1" in err
    code, out, err = cli("limit", "prior_huang", "Bandwidth_delay", "--var", "n", "--to", "n_singular", "--preset", "kepler", "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(approach[1], rel=1e-6)
    code, out, err = cli("limit", "prior_huang", "Bandwidth_delay", "--var", "n", "--to", "n_singular", "--preset", "kepler",
                         "--keep", "n_singular", "--json")  # kept as a symbol in the quantity, the point is still its value
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(approach[1], rel=1e-6)
    code, out, err = cli("limit", "prior_huang", "Bandwidth_delay", "--var", "n", "--to", "n_singular", "--preset", "kepler", "--dir", "+")
    assert code == 2 and "value:" not in out and "rho < 1" in err
    # without a point: the same closed form as with n_singular's formula written out as the point
    written = symgpu.load("prior_huang").limit("Bandwidth_delay", "n", to="mem_lat*pin_BW/(reqs_per_inst*cores*clock*bytes_per_req)")
    named = symgpu.load("prior_huang").limit("Bandwidth_delay", "n", to="n_singular")
    assert named.result == written.result
