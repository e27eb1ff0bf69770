"""Real kernels in: compiler resource usage (ptxas, nvcc, cuobjdump) and Nsight Compute metrics
read, mapped onto model inputs, and answered with the occupancy model."""
