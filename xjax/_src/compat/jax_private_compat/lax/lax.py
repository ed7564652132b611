"""`jax._src.lax.lax`: the lax functions and their primitives (`add_p`, `mul_p`, ...), as
JAX's "primitives" guide and rule-writing libraries import them."""
from xjax.lax import *  # noqa: F401,F403
from xjax import lax as _lax
from xjax.extend.core import primitives as _primitives
from xjax._src.compat.jax_private_compat import missing

globals().update({n: getattr(_primitives, n) for n in dir(_primitives) if n.endswith("_p")})


def __getattr__(name: str):
  if not name.startswith("__") and hasattr(_lax, name):   # names `import *` leaves out
    return getattr(_lax, name)
  raise missing("jax._src.lax.lax", name)
