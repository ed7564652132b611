"""``jax.extend.ifrt_programs``: jaxlib's IFRT program builders (``ifrt_programs``)."""
from xjax._src.backend import runtime as _runtime

ifrt_programs = _runtime.jaxlib_module("_jax").ifrt_programs
