"""An assumption must compare quantities of one dimension, a limit's point must have its variable's dimension, and a solve's
target expression its quantity's; all three were taken as numbers (fresh questions on models a user writes, round 32e). ``--assume 'B > P_peak'`` (B/s against FLOP/s)
was read as a number against a number: the roofline's boundary came back under it, and where the numbers refuted it the
refusal said the assumption "does not hold", not that it has no meaning; a model file's ``assume`` passed ``symgpu check``.
``limit ... --var ws --to lat_L1`` (a working set in KiB at a latency in cycles) was answered, 33 cycles, where ``ws``
appears only in the case conditions, and ``limit ... --var blocks --to n_SM`` (blocks at an SM count) 0.5, where it
appears only inside a ceiling: the answer's own dimension was right, so the limit's unit check saw nothing.
``solve ... lat --for ws --target L1`` (a size for a latency) was read as 192 KiB = 196608 "cycles" (no root), and
``--relation '<=' --target L2 --kind max`` answered that it holds for every ws. Expected values by hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import symgpu
from symgpu import errors
from tests.conftest import FIXTURES, assert_one_line_refusal, read_fixture

WORKING_SET = FIXTURES / "working_set_latency.toml"


def test_an_assumption_across_dimensions_is_refused_in_one_line(cli) -> None:
    code, out, err = cli("--no-cache", "boundary", FIXTURES / "tiny.toml", "P", "--for", "I", "--assume", "B > P_peak")
    assert_one_line_refusal(code, out, err, "B > P_peak", "different dimensions")


def test_the_api_refuses_it_too() -> None:
    tiny = symgpu.load(FIXTURES / "tiny.toml")
    with pytest.raises(errors.UsageError, match="different dimensions"):
        tiny.boundary("P", for_="I", assume=["I > P_peak"])


def test_an_assumption_in_one_dimension_is_still_taken(cli) -> None:
    # the ridge of Min(P_peak, I*B) is P_peak/B = 100 TFLOP/s / 2 TB/s = 50 FLOP/B; I > 25 (FLOP/B, a bare number) keeps it
    code, out, err = cli("--no-cache", "boundary", FIXTURES / "tiny.toml", "P", "--for", "I", "--preset", "toy", "--assume", "I > 25")
    assert code == 0, err
    assert "value: 50 FLOP/B" in out


def _with_request(tmp_path: Path, request: str) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(read_fixture("tiny") + "\n" + request, encoding="utf-8")
    return path


@pytest.mark.parametrize(("request_text", "where", "words"), [
    ('[[derivations]]\nid = "ridge"\nop = "boundary"\nquantity = "P"\nvariable = "I"\nassume = ["B > P_peak"]\n',
     "derivation ridge.assume[0]", ("'B > P_peak'", "[information]/[time]", "[operation]/[time]")),
    ('[[derivations]]\nid = "far"\nop = "limit"\nquantity = "P"\nvariable = "I"\nto = "P_peak"\n',
     "derivation far.to", ("'P_peak'", "[operation]/[time]", "I is [operation]/[information]")),
])
def test_a_model_file_request_across_dimensions_fails_check(refused_whole: Callable[..., symgpu.ModelFileError], tmp_path: Path,
                                                            request_text: str, where: str, words: tuple[str, ...]) -> None:
    problem = str(refused_whole(_with_request(tmp_path, request_text), symgpu.UnitMismatchError))
    assert where in problem and all(w in problem for w in words), problem


def test_a_model_file_request_in_one_dimension_passes_check(cli, tmp_path: Path) -> None:
    path = _with_request(tmp_path, '[[derivations]]\nid = "far"\nop = "limit"\nquantity = "P"\nvariable = "I"\nto = "oo"\n'
                                   'assume = ["I*B > P_peak/2"]\nexpect = "P_peak"\n')
    code, out, _ = cli("--no-cache", "check", path)
    assert code == 0, out


@pytest.mark.parametrize(("quantity", "variable", "point", "words"), [
    ("lat", "ws", "lat_L1", ("lat_L1", "[clock]", "ws is [information]")),   # ws only in the case conditions
    ("eff", "blocks", "n_SM", ("n_SM", "[SM]", "blocks is [block]")),         # blocks only in blocks/ceiling(blocks/...)
])
def test_a_limit_point_of_another_dimension_is_refused(cli, quantity: str, variable: str, point: str, words: tuple[str, ...]) -> None:
    code, out, err = cli("--no-cache", "limit", WORKING_SET, quantity, "--var", variable, "--to", point, "--preset", "a100")
    assert_one_line_refusal(code, out, err, *words)


def test_a_limit_point_of_the_variables_dimension_is_answered(cli) -> None:
    # just below L2 = 40 MiB = 40960 KiB the working set is past L1 = 192 KiB and within L2: the L2's 200 cycles;
    # at n_SM*bps = 264 blocks from below one wave is filling: eff = blocks/264 -> 1
    code, out, err = cli("--no-cache", "limit", WORKING_SET, "lat", "--var", "ws", "--to", "L2", "--dir", "-", "--preset", "a100")
    assert code == 0, err
    assert "value: 200 cycle" in out
    code, out, err = cli("--no-cache", "limit", WORKING_SET, "eff", "--var", "blocks", "--to", "n_SM*bps", "--dir", "-", "--preset", "a100")
    assert code == 0, err
    assert "value: 1" in out


@pytest.mark.parametrize("extra", [(), ("--relation", "<=", "--kind", "max")])
def test_a_target_expression_of_another_dimension_is_refused(cli, extra: tuple[str, ...]) -> None:
    code, out, err = cli("--no-cache", "solve", WORKING_SET, "lat", "--for", "ws", "--target", "L2", "--preset", "a100", *extra)
    assert_one_line_refusal(code, out, err, "target L2", "[information]", "lat is [clock]")


def test_a_target_expression_of_the_quantitys_dimension_is_answered(cli) -> None:
    # lat <= lat_L2 (200 cycles) holds through the L2 case, up to L2 = 40 MiB = 40960 KiB (the DRAM's 564 cycles beyond)
    code, out, err = cli("--no-cache", "solve", WORKING_SET, "lat", "--for", "ws", "--target", "lat_L2", "--preset", "a100",
                         "--relation", "<=", "--kind", "max")
    assert code == 0, err
    assert "value: 40960 KiB" in out
