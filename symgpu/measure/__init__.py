"""Measured data in: CSV with units in the headers (data), least-squares fits (fit), model vs
measurement (compare), and the optional CuPy microbenchmarks of `symgpu measure` (microbench)."""
