"""xjax: JAX's programming model (jit, grad, vmap, ...) re-implemented on XLA.

    import xjax as jax
    import xjax.numpy as jnp
"""
from xjax._src import wiring as _wiring

_wiring.install()   # before anything runs: lower layers' slots filled by higher ones (design.md §1)
from xjax._src.foundations.config import config, disable_jit  # noqa: E402
from xjax._src.execution.basearray import Array
from xjax._src.api.jit import jit
from xjax._src.api.make_jaxpr import make_jaxpr
from xjax._src.api.eval_shape import eval_shape
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct
from xjax._src.api.transformations import jvp, linearize, vjp, grad, value_and_grad, vmap
from xjax._src.api.placement import (device_put, device_get, block_until_ready,  # noqa: F401
                                     default_device, live_arrays, clear_caches)
from xjax._src.backend.clients import devices, local_devices, default_backend
from xjax._src.backend import clients as _clients
from xjax._src.libraries.global_arrays import (make_array_from_callback,  # noqa: F401
                                               make_array_from_process_local_data,
                                               make_array_from_single_device_arrays)
from xjax._src.api.jacobians import (jacfwd, jacrev, jacobian, hessian,  # noqa: F401
                                     linear_transpose)
from xjax._src.primitives.custom_derivatives import custom_jvp, custom_vjp  # noqa: F401
from xjax._src.primitives.checkpoint import checkpoint, remat, named_call  # noqa: F401
from xjax._src.primitives.checkpoint_policies import checkpoint_policies  # noqa: F401
from xjax import numpy, lax, tree_util, tree, dtypes, errors, core, nn, sharding, random  # noqa: F401
from xjax._src.foundations.dtypes import float0  # noqa: F401
from xjax._src.primitives.callback import pure_callback  # noqa: F401
from xjax import debug, distributed, experimental  # noqa: F401
from xjax import custom_batching, custom_derivatives, dlpack, stages  # noqa: F401,E402
from xjax._src.api.placement import make_mesh  # noqa: F401,E402
from xjax._src.foundations.sharding import NamedSharding, PartitionSpec as P  # noqa: F401,E402
from xjax._src.execution.array import Shard  # noqa: F401,E402

from xjax._src.foundations.version import __version__  # noqa: E402,F401


def device_count(backend=None) -> int:
  return len(devices(backend))


def local_device_count(backend=None) -> int:
  return len(local_devices(backend=backend))


def copy_to_host_async(x):
  """Starts copying every array in the pytree ``x`` to the host; returns ``x``."""
  for leaf in tree_util.tree_leaves(x):
    if isinstance(leaf, Array):
      leaf.copy_to_host_async()
  return x


def process_index(backend=None) -> int:
  """This process's index in a distributed run (``xjax.distributed.initialize``); 0 alone."""
  return _clients.process_index(backend)


def process_count(backend=None) -> int:
  """How many processes take part in the run; 1 alone."""
  return _clients.process_count(backend)


# ---- more of JAX's top-level namespace (issue 19) ----
from xjax._src.backend.jaxlib_api import Device  # noqa: E402,F401
from xjax._src.api.closure_convert import closure_convert  # noqa: E402,F401
from xjax._src.core.compile_time_eval import ensure_compile_time_eval  # noqa: E402,F401
from xjax._src.api.custom_gradient import custom_gradient, fwd_and_bwd  # noqa: E402,F401
from xjax._src.libraries.environment import (effects_barrier, host_count,  # noqa: E402,F401
                                             host_id, host_ids, named_scope, print_environment_info,
                                             process_indices, typeof)
from xjax._src.foundations.config_states import (STATES as _STATES,  # noqa: E402,F401,E501
                                                 checking_leaks, transfer_guard)
globals().update(_STATES)
from xjax._src.compat.jax_alias import install_as_jax  # noqa: E402,F401
from xjax._src.api.pmap import pmap  # noqa: E402,F401
from xjax._src.primitives.lax.shard_map import shard_map  # noqa: E402,F401
from xjax import interpreters  # noqa: E402,F401  (jax.interpreters is imported with jax)
from xjax import ffi, monitoring, profiler  # noqa: E402,F401
from xjax._src.primitives.state.primitives import (empty_ref, free_ref, freeze,  # noqa: E402,F401
                                                   new_ref)
from xjax._src.primitives.state.types import Ref  # noqa: E402,F401
from xjax import ref  # noqa: E402,F401


# Submodules JAX's `import jax` makes reachable as attributes (`jax.scipy.special...`),
# loaded here on first access so that importing xjax stays fast.
_LAZY_SUBMODULES = ("scipy", "image", "ops", "typing", "export", "api_util", "lib")


def __getattr__(name: str):
  if name in _LAZY_SUBMODULES:
    import importlib
    return importlib.import_module(f"{__name__}.{name}")
  from xjax._src.compat.removed_names import missing_name
  raise missing_name(__name__, name)


def __dir__():
  return sorted({*globals(), *_LAZY_SUBMODULES})


from xjax._src.primitives.state.dslice import ds  # noqa: E402,F401
from xjax._src.foundations.config import make_user_context  # noqa: E402,F401
from xjax._src.primitives.state import grad_refs as _grad_refs  # noqa: E402
from types import SimpleNamespace as _SimpleNamespace  # noqa: E402
ad = _SimpleNamespace(DontWant=_grad_refs.DontWant, DidntWant=_grad_refs.DidntWant,
                      GradRef=_grad_refs.GradRef, GradValue=_grad_refs.GradValue)
from xjax._src.api.explicit_sharding import reshard, set_mesh, smap  # noqa: E402,F401
from xjax._src.core.avals import MemorySpace as _MemorySpace  # noqa: E402
memory = _SimpleNamespace(Space=_MemorySpace)
