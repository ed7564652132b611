"""xjax.ops segment reductions and xjax.flatten_util.ravel_pytree: values against NumPy
loops and the reference's outputs, gradients, jit/vmap, and the reference's errors."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import ops
from xjax.flatten_util import ravel_pytree
from xjax.test_util import check_grads

DATA = np.arange(6, dtype=np.float32)
IDS = np.array([0, 0, 2, 2, 5, 1], np.int32)
REDUCE = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def numpy_segment(kind, data, ids, n):
  ufunc = REDUCE[kind]
  init = {"sum": 0, "prod": 1}.get(kind)
  if init is None:
    if np.issubdtype(data.dtype, np.floating):
      init = -np.inf if kind == "max" else np.inf
    else:
      info = np.iinfo(data.dtype)
      init = info.min if kind == "max" else info.max
  out = np.full((n,) + data.shape[1:], init, data.dtype)
  for row, i in zip(data, ids):
    if 0 <= i < n:
      out[i] = ufunc(out[i], row)
  return out


@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
def test_segment_values(kind):
  f = getattr(ops, f"segment_{kind}")
  rng = np.random.RandomState(0)
  data = rng.randn(10, 3).astype(np.float32)
  ids = rng.randint(-1, 6, size=10).astype(np.int32)     # -1 and 5 are dropped with n=5
  np.testing.assert_allclose(f(data, ids, 5), numpy_segment(kind, data, ids, 5), rtol=1e-6)
  np.testing.assert_allclose(f(data, ids, 5, bucket_size=3),
                             numpy_segment(kind, data, ids, 5), rtol=1e-6)
  ints = np.arange(6, dtype=np.int32)
  np.testing.assert_array_equal(f(ints, IDS, num_segments=4),
                                numpy_segment(kind, ints, IDS, 4))
  assert f(ints, IDS, 4).dtype == np.int32


def test_segment_reference_literals():
  # jax.ops.segment_*(arange(6.), [0,0,2,2,5,1]) in JAX 0.10.2 (num_segments = max id + 1)
  np.testing.assert_array_equal(ops.segment_sum(DATA, IDS), [1, 5, 5, 0, 0, 4])
  np.testing.assert_array_equal(ops.segment_prod(DATA, IDS), [0, 5, 6, 1, 1, 4])
  np.testing.assert_array_equal(ops.segment_max(DATA, IDS, 4), [1, 5, 3, -np.inf])
  np.testing.assert_array_equal(ops.segment_min(DATA, IDS, 4), [0, 5, 2, np.inf])
  np.testing.assert_array_equal(ops.segment_sum(DATA, IDS, 4, mode="clip"), [1, 5, 5, 4])
  np.testing.assert_array_equal(ops.segment_sum(DATA, [-1, 0, 1, 2, 3, 4], 4), [1, 2, 3, 4])
  np.testing.assert_array_equal(
      ops.segment_sum(DATA, np.sort(IDS), 6, indices_are_sorted=True), [1, 2, 7, 0, 0, 5])


@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
def test_segment_reductions_of_no_rows(kind):
  """Data with no rows gives every segment the reduction's identity (MuJoCo MJX reduces
  over a model's tendons, of which there may be none)."""
  f = getattr(ops, f"segment_{kind}")
  no_ids = np.zeros((0,), np.int32)
  for data in (np.zeros((0, 2), np.float32), np.zeros((0,), np.int32)):
    expected = numpy_segment(kind, data, no_ids, 3)
    for out in (f(data, no_ids, 3), f(data, no_ids, 3, bucket_size=2),
                xjax.jit(f, static_argnums=2)(data, no_ids, 3)):
      np.testing.assert_array_equal(out, expected)
      assert out.dtype == data.dtype
  grad = xjax.grad(lambda d: f(d, no_ids, 2).sum())(np.zeros((0,), np.float32))
  assert grad.shape == (0,)


def test_segment_grads_jit_vmap():
  data = np.random.RandomState(1).rand(6, 2).astype(np.float32) + 0.5
  full_ids = np.array([0, 0, 2, 2, 3, 1], np.int32)        # no empty segment (max: -inf)
  for kind in ("sum", "max"):
    f = getattr(ops, f"segment_{kind}")
    check_grads(lambda d: f(d, full_ids, 4), (data,), order=1, modes=("fwd", "rev"),
                atol=2e-2, rtol=2e-2)
  with pytest.raises(NotImplementedError, match="unique_indices"):  # (as JAX: a scatter_mul)
    xjax.grad(lambda d: ops.segment_prod(d, full_ids, 4).sum())(data)
  jitted = xjax.jit(ops.segment_sum, static_argnums=2)
  np.testing.assert_allclose(jitted(data, IDS, 4), ops.segment_sum(data, IDS, 4))
  batch = np.stack([data, 2 * data])
  out = xjax.vmap(lambda d: ops.segment_max(d, IDS, 3))(batch)
  np.testing.assert_allclose(out, np.stack([numpy_segment("max", b, IDS, 3) for b in batch]))


def test_segment_errors():
  with pytest.raises(xjax.errors.ConcretizationTypeError, match="num_segments"):
    xjax.jit(lambda d, s, n: ops.segment_sum(d, s, n))(DATA, IDS, 3)
  with pytest.raises(xjax.errors.ConcretizationTypeError, match="num_segments"):
    xjax.jit(ops.segment_sum)(DATA, IDS)
  with pytest.raises(ValueError):
    ops.segment_sum(DATA, IDS[:3], 4)
  with pytest.raises(TypeError):
    ops.segment_sum(DATA, IDS.astype(np.float32), 4)


def test_ravel_pytree_roundtrip_and_dtypes():
  tree = {"a": np.ones((2, 2), np.int32), "b": (np.float16(3.), np.arange(3., dtype=np.float32))}
  flat, unravel = ravel_pytree(tree)
  np.testing.assert_array_equal(flat, [1, 1, 1, 1, 3, 0, 1, 2])
  assert flat.dtype == np.float32                   # as JAX 0.10.2
  back = unravel(flat)
  assert back["a"].dtype == np.int32 and back["b"][0].dtype == np.float16
  np.testing.assert_array_equal(back["b"][1], [0, 1, 2])
  empty, _ = ravel_pytree([])
  assert empty.shape == (0,) and empty.dtype == np.float32
  flat, unravel = ravel_pytree({"a": np.ones(2, np.bool_), "b": np.ones(2, np.int32)})
  assert flat.dtype == np.int32 and unravel(flat)["a"].dtype == np.bool_


def test_ravel_pytree_grad_jit_and_errors():
  params = {"w": np.array([[1., 2.], [3., 4.]], np.float32), "b": np.array([0.5], np.float32)}
  flat, unravel = ravel_pytree(params)

  def loss(v):
    p = unravel(v)
    return jnp.sum(p["w"] ** 2) + jnp.sum(jnp.sin(p["b"]))
  check_grads(loss, (flat,), order=2)
  g = xjax.jit(xjax.grad(loss))(flat)
  np.testing.assert_allclose(g, [np.cos(0.5), 2, 4, 6, 8], rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(lambda t: ravel_pytree(t)[0])(params), flat)
  with pytest.raises(ValueError):
    unravel(np.ones(3, np.float32))
  with pytest.raises(TypeError, match="dtype"):
    unravel(np.ones(5, np.int32))
