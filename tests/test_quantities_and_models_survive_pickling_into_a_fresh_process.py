"""symgpu's quantities, units and models are read back by ``pickle`` in a fresh process, in symgpu's registry:
pint's own ``__reduce__`` reads them into its application registry, which has no ``warp``, so the results of a
``multiprocessing.Pool.map`` over ``evaluate`` never came back and the pool hung (tester round 14a, F9)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import symgpu

ROOT = Path(symgpu.__file__).resolve().parent.parent
READ_BACK = ("import pickle, sys\n"
             "q = pickle.loads(sys.stdin.buffer.read())\n"
             "print(repr(float(q.magnitude)), q.units == q.units._REGISTRY.Unit('warp_instruction/cycle/SM'), type(q).__module__)\n")


def _fresh(code: str, data: bytes, cache: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SYMGPU_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode().strip()


def test_an_evaluated_quantity_unpickles_in_a_fresh_process_with_its_value_and_unit(tmp_path: Path) -> None:
    v = symgpu.load("volkov_2016")
    q = v.evaluate("memory_throughput", "maxwell", values={"n": 10, "alpha": 1})
    # by hand: n/Latency = 10/(mem_lat + alpha*alu_lat) = 10/(368 + 6) on Maxwell, below mem_thru = 0.0814
    expected = float(Fraction(10, 374))
    magnitude, same_unit, module = _fresh(READ_BACK, pickle.dumps(q), tmp_path).split()
    assert float(magnitude) == pytest.approx(expected, rel=1e-15)
    assert same_unit == "True"
    assert module.startswith("symgpu") or module.startswith("pint")


def test_a_prefixed_unit_and_an_array_quantity_round_trip_in_this_process() -> None:
    from symgpu.units import quantity, registry
    k = quantity("3 kilocycle")
    back = pickle.loads(pickle.dumps(k))
    assert back == k and back.to("cycle").magnitude == 3000
    arr = registry().Quantity([1.0, 2.0], "warp/SM")
    assert list(pickle.loads(pickle.dumps(arr)).to("warp/SM").magnitude) == [1.0, 2.0]


def test_a_loaded_model_unpickles_in_a_fresh_process_and_evaluates(tmp_path: Path) -> None:
    v = symgpu.load("volkov_2016")
    code = ("import pickle, sys\n"
            "m = pickle.loads(sys.stdin.buffer.read())\n"
            "print(repr(float(m.evaluate('memory_throughput', 'maxwell', values={'n': 20, 'alpha': 1}).magnitude)))\n")
    assert float(_fresh(code, pickle.dumps(v), tmp_path)) == pytest.approx(float(Fraction(20, 374)), rel=1e-15)
