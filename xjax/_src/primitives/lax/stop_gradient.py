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
stop_gradient_p.def_impl(lambda x: x)
stop_gradient_p.jvp = _stop_gradient_jvp
stop_gradient_p.batch = lambda axis, args, dims: (stop_gradient_p.bind(args[0]), dims[0])


def stop_gradient_leaf(x):
  """``stop_gradient_p`` of each value, as JAX binds it: inside ``jit`` an equation, even
  on an integer or a constant (PRNG keys pass through); an eager JVP's tracer gives its
  primal's (as JAX's, which reaches through the tracer: ``stop_gradient(x) * 2`` of a
  Python-number primal stays a number); host values are canonicalized as JAX's
  (``typed_value``; a leaf that is no array at all is a TypeError, as in JAX)."""
  aval = get_aval(x)
  if dtypes.is_extended(aval.dtype):
    return x
  if type(x) is ad.JVPTracer:
    return stop_gradient_leaf(x.primal)
  return bind_identity(stop_gradient_p, x, aval)


def bind_identity(prim, x, aval, **params):
  """``prim.bind(x, **params)`` of an identity primitive, as JAX binds one: a concrete host
  value comes back canonicalized (``typed_value``: a Python float as a TypedFloat, a NumPy
  value as a TypedNdArray), inside ``jit`` as the staged constant it is."""
  if not isinstance(x, Tracer):
    value = typed_value(x, aval)
    x = staged_constant(value, made=value is not x)
    if not isinstance(x, Tracer):  # (eagerly: the value itself)
      return x
  return prim.bind(x, **params)


def stop_gradient(x):
  """The identity whose derivative is zero (pytrees allowed)."""
  return tree_util.tree_map(stop_gradient_leaf, x)
