"""``jax.experimental.shard_map``: the older home of ``shard_map``, with its older signature
(``shard_map(f, mesh, in_specs, out_specs, check_rep=True)``); deprecated in JAX, so reading
the name warns, as JAX's does."""
import warnings as _warnings

from xjax._src.compat.removed_names import missing_name as _missing_name
from xjax._src.foundations.errors import api_boundary as _api_boundary
from xjax._src.primitives.lax.shard_map import shard_map as _shard_map


@_api_boundary
def shard_map(f, mesh, in_specs, out_specs, check_rep=True):
  """Please use `jax.shard_map`; this older form takes the mesh and specs positionally."""
  return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)


_legacy_shard_map = shard_map
del shard_map  # (served by __getattr__, which warns)


def __getattr__(name):
  if name == "shard_map":
    _warnings.warn("jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map "
                   "instead.", DeprecationWarning, stacklevel=2)
    return _legacy_shard_map
  raise _missing_name(__name__, name)
