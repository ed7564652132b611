"""Values and derivatives of shard_map bodies whose types vary over manual axes, on 8 CPU
devices (run by test_varying_types.py): reverse mode follows the types (``pvary``'s transpose
is a psum), bit for bit as JAX 0.10.2 computes it (values recorded from it), the same as
with ``check_vma=False`` (where shard_map's boundary sums), and hessians work."""
import numpy as np

import xjax as jax
import xjax.numpy as jnp
from xjax import lax
from xjax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("i", "j"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
x = jnp.arange(8.) / 3
c = jnp.linspace(0.1, 0.7, 2)


def _f(x, c):
  y = x * c + 1.0
  s = lax.psum(c, "j")
  t = lax.psum(x, "i")
  return y + jnp.sin(c) + s + t + lax.pcast(c, "i", to="varying") * jnp.cos(x)


def _loss(check_vma):
  f = jax.shard_map(_f, mesh=mesh, in_specs=(P("i"), P()), out_specs=P("i"),
                    check_vma=check_vma)
  return lambda x, c: (f(x, c) ** 2).sum()


def test_gradients_follow_the_types_as_jax():
  gx, gc = jax.jit(jax.grad(_loss(True), argnums=(0, 1)))(x, c)
  np.testing.assert_array_equal(gx, np.float32([44.599632263183594, 84.19924926757812, 43.935264587402344, 77.5639877319336, 43.55029296875, 75.52629852294922, 43.61867904663086, 79.158935546875]))
  np.testing.assert_array_equal(gc, np.float32([191.36825561523438, 322.5599365234375]))
  ux, uc = jax.jit(jax.grad(_loss(False), argnums=(0, 1)))(x, c)
  np.testing.assert_allclose(ux, gx, rtol=1e-6)
  np.testing.assert_allclose(uc, gc, rtol=1e-6)


def test_hessian_through_the_body():
  h = jax.jit(jax.hessian(_loss(True), argnums=1))(x, c)
  np.testing.assert_array_equal(h, np.float32([[150.72125244140625, 0.0], [0.0, 97.594970703125]]))


def test_collectives_transpose_as_jax():
  f = lambda g: jax.shard_map(g, mesh=mesh, in_specs=P("i"), out_specs=P())
  inv = lambda a: lax.all_gather(a, "i", tiled=True, to="invarying") ** 2
  mean = lambda a: lax.pmean(a ** 2, "i")
  np.testing.assert_array_equal(jax.grad(lambda v: f(inv)(v).sum())(jnp.arange(8.)),
                                2 * np.arange(8.))
  np.testing.assert_allclose(jax.grad(lambda v: f(mean)(v).sum())(jnp.arange(8.)),
                             2 * np.arange(8.) / 4)
