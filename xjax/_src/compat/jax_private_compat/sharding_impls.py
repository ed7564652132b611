"""`jax._src.sharding_impls`: `canonicalize_sharding` (jaxns' copy of `lax.map`) and the
`UNSPECIFIED` sentinel (brainstate's jaxpr-to-code writer compares parameters with it)."""
from xjax._src.api.explicit_sharding import spec_sharding
from xjax._src.foundations.sharding import (UNSPECIFIED, NamedSharding,  # noqa: F401
                                            PartitionSpec, UnspecifiedValue, get_abstract_mesh)
from xjax._src.compat.jax_private_compat import missing


def canonicalize_sharding(sharding, api_name: str, check_mesh_consistency: bool = True):
  """`sharding` (None, a NamedSharding, or a PartitionSpec over the context mesh) as a
  NamedSharding over an abstract mesh, or None; a NamedSharding over another mesh than
  the context one is a ValueError unless `check_mesh_consistency` is False."""
  if sharding is None:
    return None
  if isinstance(sharding, PartitionSpec):
    sharding = spec_sharding(sharding, api_name)
  elif not isinstance(sharding, NamedSharding):
    raise TypeError(f"`out_sharding` argument of {api_name} only supports instances of "
                    f"`NamedSharding` or `PartitionSpec`. Got {sharding!r} of type: "
                    f"{type(sharding)}")
  mesh, context = sharding.mesh.abstract_mesh, get_abstract_mesh()
  if check_mesh_consistency and not context.empty and mesh != context:
    raise ValueError(f"Context mesh {context} should match the mesh of sharding {mesh} "
                     f"passed to {api_name}.")
  return NamedSharding(mesh, sharding.spec)


def __getattr__(name: str):
  raise missing("jax._src.sharding_impls", name)
