"""lax.conv_general_dilated_local (unshared convolution) against a NumPy loop, and
lax.conv_general_permutations as JAX 0.10.2 (numbers from the reference)."""
import numpy as np
import pytest

import xjax
from xjax import lax
from xjax.test_util import check_grads

rng = np.random.RandomState(1)


def local_conv_nchw(x, w, strides, pads, window):
  """out[n, o, i, j] = sum over c and the window of x * w[o, (c, window position), i, j]."""
  x = np.pad(x, ((0, 0), (0, 0)) + tuple(pads))
  n, c = x.shape[:2]
  o, _, oh, ow = w.shape
  out = np.zeros((n, o, oh, ow), np.float64)
  for i in range(oh):
    for j in range(ow):
      a, b = i * strides[0], j * strides[1]
      patch = x[:, :, a:a + window[0], b:b + window[1]].reshape(n, -1)  # channel-major
      out[:, :, i, j] = patch @ w[:, :, i, j].T
  return out


def test_nchw_valid():
  x = rng.randn(2, 3, 5, 4).astype(np.float32)
  w = rng.randn(2, 12, 4, 3).astype(np.float32)
  out = lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 2))
  assert out.shape == (2, 2, 4, 3)
  np.testing.assert_allclose(out, local_conv_nchw(x, w, (1, 1), ((0, 0), (0, 0)), (2, 2)),
                             rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(np.ravel(out)[:3], [2.499389886856079, -1.6665799617767334,
                                                 -0.13951000571250916], rtol=1e-5)


def test_nhwc_same_strided():
  x = rng.randn(2, 5, 4, 3).astype(np.float32)
  w = rng.randn(3, 2, 18, 5).astype(np.float32)  # HWIO
  out = lax.conv_general_dilated_local(x, w, (2, 2), "SAME", (2, 3),
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))
  assert out.shape == (2, 3, 2, 5)
  want = local_conv_nchw(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (2, 2),
                         ((0, 1), (0, 1)), (2, 3))
  np.testing.assert_allclose(out, want.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)


def test_derivatives_and_jit():
  x = rng.randn(1, 2, 4, 4).astype(np.float32)
  w = rng.randn(3, 8, 3, 3).astype(np.float32)
  f = lambda x, w: lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 2))
  check_grads(f, (x, w), 1, eps=1e-2)
  np.testing.assert_allclose(xjax.jit(f)(x, w), f(x, w), rtol=1e-6)


def test_permutations_as_reference():
  assert lax.conv_general_permutations(("NHWC", "HWIO", "NHWC")) == (
      (0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
  assert lax.conv_general_permutations(("NWHC", "HWOI", "CHWN")) == (
      (0, 3, 2, 1), (2, 3, 0, 1), (3, 0, 1, 2))
  with pytest.raises(TypeError, match="must contain the characters 'N' and 'C' exactly once"):
    lax.conv_general_permutations(("NHWCC", "HWIO", "NHWC"))
  with pytest.raises(TypeError, match="same set of spatial characters"):
    lax.conv_general_permutations(("NHWC", "HWIO", "NHXC"))


def test_bad_precision():
  with pytest.raises(ValueError, match="Unsupported precision for conv_general_dilated_local"):
    lax.conv_general_dilated_local(np.ones((1, 1, 3, 3)), np.ones((1, 4, 2, 2)), (1, 1),
                                   "VALID", (2, 2), precision="F32_F32_F32")
