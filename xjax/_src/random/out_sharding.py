"""The samplers' ``out_sharding=`` keyword (JAX's): how their result is laid out."""
from __future__ import annotations

from xjax._src.lax.sharding_constraint import with_sharding_constraint
from xjax._src.sharding import NamedSharding, PartitionSpec, _mesh_stack
from xjax._src.wrapping import with_keyword


def placed(x, out_sharding):
  """``x`` laid out as ``out_sharding``.  None, and the type sharding of an array that is
  not split (``jax.typeof(y).sharding``: a NamedSharding over no mesh axes), leave it as it
  is; a bare PartitionSpec needs a ``with mesh:`` context, as in JAX."""
  if out_sharding is None or (isinstance(out_sharding, NamedSharding)
                              and out_sharding.mesh.empty):
    return x
  if isinstance(out_sharding, PartitionSpec) and not _mesh_stack():
    raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                     "allowed. Please pass a NamedSharding instance or enter into a mesh "
                     f"context via `with mesh:`. Got {out_sharding}")
  return with_sharding_constraint(x, out_sharding)


def with_out_sharding(sampler):
  """``sampler`` taking JAX's keyword-only ``out_sharding`` (see ``placed``)."""
  return with_keyword(sampler, "out_sharding", placed)
