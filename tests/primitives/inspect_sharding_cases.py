"""xjax.debug.inspect_array_sharding over 4 CPU devices (run by
tests/primitives/test_inspect_sharding.py in a subprocess): under jit the callback gets the layout
XLA's partitioner chose, as a NamedSharding over the program's mesh (JAX 0.10.2's)."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P

if jax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/primitives/test_inspect_sharding.py)",
              allow_module_level=True)

mesh = Mesh(np.array(jax.devices()), ("i",))
grid = Mesh(np.array(jax.devices()).reshape(2, 2), ("a", "b"))


def test_eager_and_propagated_shardings():
  got = []
  x = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("i")))
  jax.debug.inspect_array_sharding(x, callback=got.append)
  assert got == [NamedSharding(mesh, P("i"))]
  got.clear()

  def f(a):
    jax.debug.inspect_array_sharding(a * 2, callback=got.append)
    return a + 1

  out = jax.jit(f)(x)
  np.testing.assert_array_equal(out, np.arange(8.0) + 1)  # the program still runs
  assert got == [NamedSharding(mesh, P("i"))]
  got.clear()
  jax.jit(f)(x)  # cached: not compiled again, no callback
  assert got == []


def test_constrained_and_two_axis_layouts():
  got = []
  x = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("i")))
  jax.jit(lambda a: jax.debug.inspect_array_sharding(
      jax.lax.with_sharding_constraint(a, NamedSharding(mesh, P())), callback=got.append))(x)
  assert got == [NamedSharding(mesh, P())]
  got.clear()
  y = jax.device_put(jnp.ones((4, 6)), NamedSharding(grid, P("b", "a")))
  jax.jit(lambda a: jax.debug.inspect_array_sharding(a.T, callback=got.append))(y)
  assert got == [NamedSharding(grid, P("a", "b"))]


def test_inside_shard_map_values_are_blocks():
  got = []
  x = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("i")))
  jax.jit(jax.shard_map(lambda a: (jax.debug.inspect_array_sharding(a, callback=got.append),
                                   a)[1], mesh=mesh, in_specs=P("i"), out_specs=P("i")))(x)
  assert got == [NamedSharding(mesh, P())]
