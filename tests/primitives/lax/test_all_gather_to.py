"""lax.all_gather's ``to`` and ``axis_index_groups`` arguments (JAX 0.10.2's signature):
'invarying' types the gathered value as the same on every shard_map member; 'reduced' and
index groups are refused clearly."""
import pytest
from tests.multi_device_run import run_cases

import xjax as jax
import xjax.numpy as jnp
from xjax import lax


def test_all_gather_to_invarying_over_four_devices():
  assert run_cases("tests/primitives/lax/all_gather_to_cases.py") == 5


def test_all_gather_arguments():
  x = jnp.ones((2, 3))
  with pytest.raises(ValueError, match="^pvary should be called under jax.shard_map"):
    jax.vmap(lambda a: lax.all_gather(a, "i", to="invarying"), axis_name="i")(x)
  with pytest.raises(ValueError, match="Allowed `to` values are"):
    jax.vmap(lambda a: lax.all_gather(a, "i", to="invariant"), axis_name="i")(x)
  with pytest.raises(NotImplementedError, match="axis_index_groups"):
    jax.vmap(lambda a: lax.all_gather(a, "i", axis_index_groups=[[0, 1]]), axis_name="i")(x)
  with pytest.raises(NotImplementedError, match="reduced"):
    jax.vmap(lambda a: lax.all_gather(a, "i", to="reduced"), axis_name="i")(x)
  out = jax.vmap(lambda a: lax.all_gather(a, "i", to="varying"), axis_name="i")(x)
  assert out.shape == (2, 2, 3)
