"""`ravel_pytree`, with the names of `jax.flatten_util`."""
from xjax._src.libraries.flatten_util import ravel_pytree as ravel_pytree
