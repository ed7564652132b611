"""Operands that several numpy test files share: a random float32 matrix ``A``, an int32 matrix
``I``, float32 values with NaN, infinities and signed zeros ``N``, and a float32 vector ``V``."""
import numpy as np

A = np.random.RandomState(0).randn(3, 4).astype(np.float32)
I = np.arange(12, dtype=np.int32).reshape(3, 4)
N = np.array([1., np.nan, 3., -np.inf, np.inf, 0., -0.], np.float32)
V = np.array([3., 1., 2., 5., 4.], np.float32)
