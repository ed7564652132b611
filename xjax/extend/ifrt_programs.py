"""``jax.extend.ifrt_programs``: jaxlib's IFRT program builders (``ifrt_programs``)."""
from xjax._src.backend import jaxlib_api as _jaxlib_api

ifrt_programs = _jaxlib_api.jaxlib_module("_jax").ifrt_programs
