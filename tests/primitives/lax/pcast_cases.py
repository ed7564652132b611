"""lax.pcast inside shard_map over 4 CPU devices (run by tests/primitives/lax/test_pcast.py
in a subprocess); values as JAX 0.10.2's."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax, shard_map
from xjax.sharding import Mesh, PartitionSpec as P

if jax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/primitives/lax/test_pcast.py)",
              allow_module_level=True)

mesh = Mesh(np.array(jax.devices()), ("i",))
X = np.arange(8.0, dtype=np.float32).reshape(4, 2)


def test_pcast_to_varying_keeps_values():
  f = jax.jit(shard_map(lambda b: lax.pcast(lax.psum(b, "i"), "i", to="varying"), mesh=mesh,
                        in_specs=P("i"), out_specs=P("i")))
  assert np.asarray(f(X)).tolist() == [[12.0, 16.0]] * 4
  g = jax.jit(shard_map(lambda b: lax.pcast(jnp.float32(1.), "i", to="varying") + b,
                        mesh=mesh, in_specs=P("i"), out_specs=P("i")))
  assert np.asarray(g(X)).tolist() == (X + 1).tolist()
