"""Pallas in interpret mode: kernels over grids checked against NumPy, under jit and vmap."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.experimental import pallas as pl
from xjax.experimental.pallas import triton as plt


def _sum_kernel(a_ref, b_ref, out_ref):
  out_ref[...] = a_ref[...] + b_ref[...]


def _blocked_sum(n, block):
  spec = pl.BlockSpec((block,), lambda i: (i,))
  return pl.pallas_call(_sum_kernel, out_shape=xjax.ShapeDtypeStruct((n,), jnp.float32),
                        grid=(pl.cdiv(n, block),), in_specs=[spec, spec], out_specs=spec,
                        interpret=True)


def test_elementwise_sum_over_a_grid():
  a = np.linspace(-3, 5, 12, dtype=np.float32)
  b = np.arange(12, dtype=np.float32) ** 2
  np.testing.assert_allclose(_blocked_sum(12, 4)(a, b), a + b)
  np.testing.assert_allclose(xjax.jit(_blocked_sum(12, 3))(a, b), a + b)


def test_ragged_edge_blocks_write_only_inside():
  a = np.arange(10, dtype=np.float32)
  np.testing.assert_allclose(_blocked_sum(10, 4)(a, a), 2 * a)


def test_tiled_matmul_accumulates_over_the_k_axis():
  rng = np.random.default_rng(0)
  x = rng.standard_normal((32, 24)).astype(np.float32)
  y = rng.standard_normal((24, 16)).astype(np.float32)

  def kernel(x_ref, y_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
      o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += jnp.dot(x_ref[...], y_ref[...], precision="highest")

  mm = pl.pallas_call(
      kernel, out_shape=xjax.ShapeDtypeStruct((32, 16), jnp.float32), grid=(2, 2, 3),
      in_specs=[pl.BlockSpec((16, 8), lambda i, j, k: (i, k)),
                pl.BlockSpec((8, 8), lambda i, j, k: (k, j))],
      out_specs=pl.BlockSpec((16, 8), lambda i, j, k: (i, j)), interpret=True)
  np.testing.assert_allclose(mm(x, y), x @ y, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(xjax.jit(mm)(x, y), x @ y, rtol=1e-5, atol=1e-5)


def test_masked_load_and_store_at_a_ragged_edge():
  n, block = 10, 4

  def kernel(x_ref, o_ref):
    idx = pl.program_id(0) * block + jnp.arange(block)
    inside = idx < n
    v = plt.load(x_ref.at[jnp.minimum(idx, n - 1)], mask=inside, other=0.0)
    plt.store(o_ref.at[jnp.minimum(idx, n - 1)], v * 3.0 + pl.num_programs(0), mask=inside)

  f = pl.pallas_call(kernel, out_shape=xjax.ShapeDtypeStruct((n,), jnp.float32),
                     grid=(pl.cdiv(n, block),), interpret=True)
  x = np.arange(n, dtype=np.float32)
  np.testing.assert_allclose(f(x), x * 3 + 3)


def test_vmap_matches_a_loop():
  f = _blocked_sum(8, 4)
  a = np.arange(24, dtype=np.float32).reshape(3, 8)
  b = np.ones(8, np.float32)
  want = np.stack([np.asarray(f(r, b)) for r in a])
  np.testing.assert_allclose(xjax.vmap(f, in_axes=(0, None))(a, b), want)
  np.testing.assert_allclose(xjax.jit(xjax.vmap(f, in_axes=(1, None), out_axes=1))(a.T, b),
                             want.T)


def test_input_output_aliases_start_from_the_input():
  def kernel(x_ref, o_ref):
    o_ref[0] = 7.0

  f = pl.pallas_call(kernel, out_shape=xjax.ShapeDtypeStruct((3,), jnp.float32),
                     input_output_aliases={0: 0}, interpret=True)
  np.testing.assert_allclose(f(np.array([1., 2., 3.], np.float32)), [7., 2., 3.])


def test_jvp_runs_and_grad_raises_as_jax():
  f = _blocked_sum(4, 2)
  x = np.arange(4, dtype=np.float32)
  out, tangent = xjax.jvp(lambda a: f(a, a), (x,), (np.ones(4, np.float32),))
  np.testing.assert_allclose(out, 2 * x)
  np.testing.assert_allclose(tangent, 2 * np.ones(4))
  with pytest.raises(ValueError, match="Linearization failed"):
    xjax.grad(lambda a: f(a, a).sum())(x)


def test_without_interpret_cpu_raises_jax_error():
  f = pl.pallas_call(_sum_kernel, out_shape=xjax.ShapeDtypeStruct((4,), jnp.float32))
  with pytest.raises(ValueError, match="Only interpret mode is supported on CPU backend."):
    f(np.ones(4, np.float32), np.ones(4, np.float32))


def test_tpu_names_raise():
  from xjax.experimental.pallas import tpu as pltpu
  with pytest.raises(NotImplementedError, match="pallas.tpu.VMEM"):
    pltpu.VMEM
