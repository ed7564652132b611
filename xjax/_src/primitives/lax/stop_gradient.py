"""``stop_gradient``: a value that autodiff treats as a constant."""
from __future__ import annotations

from xjax._src.foundations import dtypes, tree_util
from xjax._src.core.avals import tangent_aval
from xjax._src.core.trace import Tracer
from xjax._src.core.typed_ndarray import typed_value
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.staging import staged_constant
from xjax._src.primitives.lax.primitive_builders import standard_primitive


def _stop_gradient_jvp(primals, tangents):
  out = stop_gradient_p.bind(primals[0])
  return out, ad.Zero(tangent_aval(get_aval(out)))


stop_gradient_p = standard_primitive("stop_gradient", lambda x: x, lambda ctx, x: x)
stop_gradient_p.jvp = _stop_gradient_jvp
stop_gradient_p.batch = lambda axis, args, dims: (stop_gradient_p.bind(args[0]), dims[0])


def stop_gradient_leaf(x):
  """Only traced inexact values can carry gradients; other values pass through, host ones
  canonicalized as JAX's (``typed_value``; a leaf that is no array at all is a TypeError,
  as in JAX)."""
  aval = get_aval(x)
  if not isinstance(x, Tracer):  # (inside jit a tracer of it, as JAX's bind gives)
    return staged_constant(typed_value(x, aval))
  if not dtypes.is_inexact(aval.dtype):
    return x
  return stop_gradient_p.bind(x)


def stop_gradient(x):
  """The identity whose derivative is zero (pytrees allowed)."""
  return tree_util.tree_map(stop_gradient_leaf, x)
