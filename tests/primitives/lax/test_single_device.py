"""lax's single-device forms: axis_size under vmap, with_sharding_constraint without a mesh,
platform_dependent and composite."""
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax


def test_single_device_identities():
  assert xjax.vmap(lambda x: x * lax.axis_size("i"), axis_name="i")(jnp.ones(5)).tolist() == \
      [5.] * 5
  with pytest.raises(NameError):
    lax.axis_size("i")
  x = jnp.ones(2)
  assert lax.with_sharding_constraint(x, None) is x
  assert float(lax.platform_dependent(1., cpu=lambda v: v + 1, default=lambda v: v - 1)) == 2.
  assert float(lax.platform_dependent(1., default=lambda v: v - 1)) == 0.
  comp = lax.composite(lambda v, *, k: v * k, name="my.op")
  assert float(comp(2., k=3)) == 6.
