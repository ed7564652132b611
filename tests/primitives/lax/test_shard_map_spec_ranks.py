"""shard_map refuses specs longer than the rank of what they describe, with JAX's
ValueError: in_specs against the arguments, out_specs against the body's outputs."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.sharding import Mesh, PartitionSpec as P


@pytest.fixture
def mesh():
  return Mesh(np.array(xjax.devices()[:1]), ("i",))


@pytest.mark.parametrize("out_specs", [P("i"), P(None, "i")])
def test_out_spec_longer_than_output_rank(mesh, out_specs):
  f = xjax.shard_map(lambda x: x.sum(), mesh=mesh, in_specs=P("i"), out_specs=out_specs)
  with pytest.raises(ValueError, match="out_specs"):
    f(jnp.arange(4.0))


def test_in_spec_longer_than_argument_rank(mesh):
  f = xjax.shard_map(lambda x: x, mesh=mesh, in_specs=P(None, "i"), out_specs=P())
  with pytest.raises(ValueError, match="in_specs"):
    f(jnp.arange(4.0))


def test_specs_of_matching_rank_run(mesh):
  f = xjax.shard_map(lambda x: x * 2, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
  np.testing.assert_array_equal(f(jnp.arange(4.0)), np.arange(4.0) * 2)
