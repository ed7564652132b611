"""lax.all_gather(to="invarying") inside shard_map over 4 CPU devices (run by
tests/primitives/lax/test_all_gather_to.py in a subprocess); values and gradients as JAX
0.10.2's."""
import numpy as np
import pytest

import xjax as jax
from xjax import lax, shard_map
from xjax.sharding import Mesh, PartitionSpec as P

if jax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/primitives/lax/test_all_gather_to.py)",
              allow_module_level=True)

mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("i", "j"))
X = np.arange(24.0, dtype=np.float32).reshape(4, 6)


@pytest.mark.parametrize("names, spec, out_spec, tiled, axis, shape", [
    (("i", "j"), P(("i", "j")), P(), True, 0, (4, 6)),
    ("j", P("i", "j"), P("i"), False, 1, (4, 2, 3)),
    (("j",), P(None, "j"), P(), True, 1, (4, 6)),
    (("i", "j"), P(("i", "j")), P(), False, 0, (4, 1, 6)),
])
def test_an_invariant_gather_leaves_unsplit(names, spec, out_spec, tiled, axis, shape):
  """check_vma lets the invariant result out as the whole array; its gradient is the
  output's weights (each member's block of the one cotangent), under jit and vmap too."""
  f = jax.jit(shard_map(lambda a: lax.all_gather(a, names, tiled=tiled, axis=axis,
                                                 to="invarying"),
                        mesh=mesh, in_specs=spec, out_specs=out_spec))
  out = np.asarray(f(X))
  assert out.shape == shape
  np.testing.assert_array_equal(out.ravel(), X.ravel())  # (blocks gathered in order)
  w = np.arange(out.size, dtype=np.float32).reshape(shape) + 1
  grad = jax.grad(lambda x: (f(x) * w).sum())(X)
  np.testing.assert_array_equal(np.asarray(grad).ravel(), np.arange(1, 25, dtype=np.float32))
  sums = jax.vmap(lambda x: f(x).sum())(np.stack([X, X + 1]))
  assert np.asarray(sums).tolist() == [276.0, 300.0]


def test_a_varying_gather_is_not_replicated():
  f = shard_map(lambda a: lax.all_gather(a, "i", tiled=True), mesh=mesh, in_specs=P("i"),
                out_specs=P())
  with pytest.raises(ValueError, match="out_specs which require replication"):
    f(X)
