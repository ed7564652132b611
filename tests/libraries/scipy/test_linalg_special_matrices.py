"""jax.scipy.linalg's special matrices: values against scipy.linalg, batching over leading
dimensions, dtypes (incl. x64 and weak types) and bad input as JAX 0.10.2."""
import warnings

import numpy as np
import pytest
import scipy.linalg as sl

import xjax
import xjax.numpy as jnp
from xjax.scipy import linalg as L

from tests.checking import check


TOL = dict(rtol=1e-6, atol=0)


def test_from_vectors_match_scipy():
  c, r = np.array([1, 2, 3]), np.array([9, 4, 5, 6])
  check(L.toeplitz(c, r), sl.toeplitz(c, r), np.int32, **TOL)
  check(L.hankel(c), sl.hankel(c), np.int32, **TOL)
  check(L.hankel(c, r), sl.hankel(c, r), np.int32, **TOL)
  check(L.circulant(c), sl.circulant(c), np.int32, **TOL)
  f, s = np.array([0.1, 2.0, 1.0, 0.1], np.float32), np.array([0.2, 0.8, 0.7], np.float32)
  check(L.leslie(f, s), sl.leslie(f, s), np.float32, **TOL)
  a = np.array([1., -10., 31., -30.], np.float32)
  check(L.companion(a), sl.companion(a), np.float32, **TOL)
  check(L.fiedler(np.array([1, 4, 12, 45, 77])), sl.fiedler([1, 4, 12, 45, 77]), np.int32,
        **TOL)
  for coeffs in ([1., -16., 86., -176., 105.], [2., 3.], [1., 2, 3, 4, 5, 6, 7], [3., 1, 4]):
    check(L.fiedler_companion(np.array(coeffs, np.float32)), sl.fiedler_companion(coeffs),
          np.float32, rtol=1e-6, atol=1e-6)
  assert L.fiedler_companion(np.array([2.], np.float32)).shape == (0, 0)
  # complex: toeplitz's default row is the conjugated column
  cz = np.array([1 + 1j, 2 - 1j], np.complex64)
  check(L.toeplitz(cz), sl.toeplitz(cz), np.complex64, **TOL)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("m,n", [(3, 4), (5, 2), (1, 3), (4, 4)])
def test_convolution_matrix(mode, m, n):
  a = np.arange(1., m + 1, dtype=np.float32)
  got = L.convolution_matrix(a, n, mode)
  check(got, sl.convolution_matrix(a, n, mode), np.float32, **TOL)
  v = np.arange(n, dtype=np.float32) - 1
  check(got @ v, np.convolve(a, v, mode), rtol=1e-5, atol=0)


def test_batches_and_mixed_dtypes():
  c = np.arange(6).reshape(2, 3)
  for fn, ref in ((L.toeplitz, sl.toeplitz), (L.circulant, sl.circulant),
                  (L.fiedler, sl.fiedler)):
    out = fn(c)
    for i in range(2):
      check(out[i], ref(c[i]), **TOL)
  out = L.hankel(c, np.arange(4))
  for i in range(2):
    check(out[i], sl.hankel(c[i], np.arange(4)), **TOL)
  a = np.arange(1., 9, dtype=np.float32).reshape(2, 4)
  for fn, ref in ((L.companion, sl.companion), (L.fiedler_companion, sl.fiedler_companion)):
    out = fn(a)
    for i in range(2):
      check(out[i], ref(a[i]), rtol=1e-6, atol=1e-6)
  out = L.convolution_matrix(a, 2)
  for i in range(2):
    check(out[i], sl.convolution_matrix(a[i], 2), **TOL)
  out = L.leslie(np.ones((2, 3), np.float32), np.full((2, 2), 0.5, np.float32))
  check(out[1], sl.leslie(np.ones(3), np.full(2, 0.5)), **TOL)
  assert L.hankel(np.array([1, 2, 3]), np.array([9., 4])).dtype == np.float32
  assert L.leslie(np.array([1, 2]), np.array([3.])).dtype == np.float32
  assert L.companion(np.array([1, 2, 3])).dtype == np.float32
  w = L.circulant(3.)
  assert w.shape == (1, 1) and w.weak_type  # as JAX: a Python scalar stays weak
  check(xjax.vmap(L.circulant)(c), L.circulant(c), **TOL)
  check(xjax.jit(L.toeplitz)(c[0], c[1]), sl.toeplitz(c[0], c[1]), **TOL)


def test_named_matrices_match_scipy_and_jax():
  check(L.hilbert(4), sl.hilbert(4), np.float32, **TOL)
  check(L.invhilbert(4), sl.invhilbert(4), np.float32, rtol=1e-5, atol=0)
  check(L.invhilbert(4)[0], [15.999988555908203, -119.99991607666016, 239.99969482421875,
                             -139.9997100830078],
        **TOL)  # JAX 0.10.2, float32 round-off included
  for kind in (None, "lower", "upper"):
    check(L.pascal(5, kind), sl.pascal(5, kind or "symmetric"), np.float32, rtol=1e-5, atol=0)
    check(L.invpascal(5, kind), sl.invpascal(5, kind or "symmetric"), np.float32, rtol=1e-4,
          atol=1e-4)
  check(L.pascal(4)[0, :2], [0.9999990463256836, 0.9999990463256836], **TOL)  # JAX's lgamma route
  for full in (False, True):
    check(L.helmert(5, full=full), sl.helmert(5, full=full), np.float32, **TOL)
  assert L.helmert(1).shape == (0, 1)
  check(L.hadamard(8), sl.hadamard(8), np.int32, **TOL)
  check(L.hadamard(4, dtype=np.float32), sl.hadamard(4), np.float32, **TOL)
  for scale in (None, "sqrtn", "n"):
    check(L.dft(5, scale), sl.dft(5, scale), np.complex64, rtol=1e-6, atol=1e-6)
  check(L.dft(3, "sqrtn")[1, 1], -0.2886751592159271 - 0.4999999701976776j, **TOL)  # JAX 0.10.2


def test_x64_dtypes():
  with xjax.enable_x64(True):
    assert L.hilbert(2).dtype == L.invhilbert(2).dtype == L.helmert(3).dtype == np.float64
    assert L.invpascal(3).dtype == np.float64 and L.pascal(3).dtype == np.float32  # as JAX
    assert L.dft(3).dtype == np.complex128 and L.hadamard(2).dtype == np.int64
    check(L.invhilbert(6), sl.invhilbert(6), rtol=1e-9, atol=0)
    assert L.circulant(np.array([1., 2])).dtype == np.float64
  with pytest.warns(UserWarning, match="complex128 requested in dft is not available"):
    assert L.dft(3, dtype=np.complex128).dtype == np.complex64


def test_bad_input_as_jax():
  for fn in (L.circulant, L.companion, L.fiedler, L.fiedler_companion, L.hankel, L.toeplitz):
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
      fn([1., 2.])
  with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
    L.leslie([1, 2], [3])
  with pytest.raises(ValueError, match="at least 2"):
    L.companion(np.array([1.]))
  with pytest.raises(ValueError, match="at least 2"):
    L.leslie(np.array([1.]), np.array([]))
  with pytest.raises(ValueError, match="one less than the length of f"):
    L.leslie(np.array([1., 2]), np.array([3., 4]))
  with pytest.raises(ValueError, match="nonzero length"):
    L.fiedler_companion(np.zeros(0))
  with pytest.raises(ValueError, match="at least 1-dimensional"):
    L.hankel(np.float32(3))
  with pytest.raises(ValueError, match="mode must be one of"):
    L.convolution_matrix(np.ones(3), 4, "x")
  with pytest.raises(ValueError, match="positive integer"):
    L.convolution_matrix(np.ones(3), 0)
  with pytest.raises(ValueError, match="scale must be"):
    L.dft(3, "x")
  with pytest.raises(ValueError, match="complex floating-point"):
    L.dft(3, dtype=np.float32)
  with pytest.raises(ValueError, match="power of 2"):
    L.hadamard(3)
  with pytest.raises(ValueError, match="positive integer"):
    L.helmert(0)
  with pytest.raises(ValueError, match="Expected kind"):
    L.pascal(3, "x")
  with pytest.raises(ValueError, match="Expected kind"):
    L.invpascal(3, "x")
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    L.block_diag(jnp.ones((2, 2)), 3)  # moved here; still works
