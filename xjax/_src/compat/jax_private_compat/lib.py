"""`jax._src.lib`: jaxlib as JAX loads it: `xla_client` (code catches its
`XlaRuntimeError`, which is `jax.errors.JaxRuntimeError`), its version and extension
versions."""
from xjax._src.backend import jaxlib_api
from xjax._src.compat.jax_private_compat import missing

xla_client = jaxlib_api.jaxlib_module("xla_client")
version_str = jaxlib_api.jaxlib_module("version").__version__
version = tuple(int(p) for p in version_str.split(".")[:3])
jaxlib_extension_version: int = getattr(xla_client, "_version", 0)
ifrt_version: int = getattr(xla_client, "_ifrt_version", 0)


def __getattr__(name: str):
  raise missing("jax._src.lib", name)
