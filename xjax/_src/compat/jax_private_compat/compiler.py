"""`jax._src.compiler`: the function every XLA compilation goes through.

chex's `restrict_backends` wraps `backend_compile_and_load` to forbid compiling for a platform;
xjax's runtime calls it (looked up on this module at each compile) for every compilation.
"""
from xjax._src.backend import executables
from xjax._src.compat.jax_private_compat import missing


def backend_compile_and_load(backend, module, executable_devices, options, host_callbacks=()):
  """Compiles ``module`` with XLA on ``backend`` (a PJRT client) for ``executable_devices``."""
  return executables.compile_and_load(backend, module, executable_devices, options, host_callbacks)


def _through_this_module(*args):
  return globals()["backend_compile_and_load"](*args)   # a wrapper set on the module applies


executables.compile_hook[0] = _through_this_module


def __getattr__(name: str):
  raise missing(__name__.replace("xjax._src.compat.jax_private_compat", "jax._src"), name)
