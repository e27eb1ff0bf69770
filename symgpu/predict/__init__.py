"""Measured kernel rows in (the NeuSight CSV format), predicted latencies out.

``rows`` reads the CSV into frozen records, ``mapping`` picks a model and its inputs for each
row (or says why it cannot), ``engine`` evaluates each (model, GPU) group on arrays through the
compiled path, ``accuracy`` summarises the errors, ``calibrate`` fits the efficiency parameters
with :func:`symgpu.measure.fit.fit`.
"""

from symgpu.predict.engine import Prediction, predict_rows
from symgpu.predict.rows import KernelRow, read_rows

__all__ = ["KernelRow", "Prediction", "predict_rows", "read_rows"]
