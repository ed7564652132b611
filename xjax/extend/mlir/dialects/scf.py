"""``jax.extend.mlir.dialects.scf``: jaxlib's bindings of the ``scf`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.scf"))
