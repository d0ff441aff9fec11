"""The CUDA backend: GPU memory, kernels and streams (``numba.cuda``).

Not built yet: dlnumba has only its CPU backend, and every CUDA device request raises a
ValueError (BufferError from DLPack) that says so.
"""
