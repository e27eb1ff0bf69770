#!/usr/bin/env bash
# Everything symgpu checks on an NVIDIA GPU, in one go (a lent machine's time is short):
#   1. `symgpu measure`: pointer chase, FMA latency, streaming read vs warps/SM x ILP x alpha;
#   2. the tests that skip without a GPU (cupy/jax backends = numpy, measure writes readable CSVs);
#   3. benchmarks/gpu_copy_back.py (what a column's copy to the host costs, by the ways CuPy has) and
#      benchmarks/sweep_gpu.py for the cupy and jax backends against CuPy written by hand.
# The SM and memory clocks are logged every 0.5 s throughout. Usage: benchmarks/on_gpu.sh [OUT_DIR]
# (default gpu_out/): writes OUT_DIR/run.log, OUT_DIR/nvidia_smi_during_runs.csv and OUT_DIR/measure/*.csv.
set -u
out=${1:-gpu_out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
log="$out/run.log"
{
  date -u +"started %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  python3 -c "import sys, numpy, sympy, pint, cupy; print(sys.version.split()[0], 'numpy', numpy.__version__, 'sympy', sympy.__version__, 'pint', pint.__version__, 'cupy', cupy.__version__)"
  python3 -c "import jax; print('jax', jax.__version__, jax.devices())" 2>&1 | tail -1
} >"$log" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu \
  --format=csv -lms 500 >"$out/nvidia_smi_during_runs.csv" 2>&1 &
smi=$!
step() { echo "=== $* ($(date -u +%H:%M:%S))" >>"$log"; "$@" >>"$log" 2>&1; echo "=== exit $?" >>"$log"; }
step python3 -m symgpu measure -o "$out/measure"
step python3 -m pytest -q -p no:cacheprovider -rs tests/test_sweep*.py tests/test_measure.py
step python3 benchmarks/gpu_copy_back.py
step python3 benchmarks/sweep_gpu.py --backend cupy
step python3 benchmarks/sweep_gpu.py --backend jax
kill "$smi"
date -u +"ended %Y-%m-%dT%H:%M:%SZ" >>"$log"
cat "$log"
