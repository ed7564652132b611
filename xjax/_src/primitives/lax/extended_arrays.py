"""Arrays of extended dtypes over their physical data: ``EArray(aval, data)`` views stored
data as such an array, and ``lax.convert_element_type`` converts between a convertible
extended dtype (``primal_tangent_dtype``) and its physical dtype with the ``to_edtype`` /
``from_edtype`` primitives, whose tangents take the extended dtype's tangent dtype."""
from __future__ import annotations

from xjax._src.foundations import dtypes
from xjax._src.execution.array import Array
from xjax._src.core.avals import ShapedArray, physical_aval
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import elementwise
from xjax._src.primitives.lax.primitive_builders import standard_primitive


def _to_abstract_eval(x, *, edtype):
  if x.dtype != edtype.physical_dtype:
    raise ValueError(f"can only convert to extended dtype from its representation dtype, but "
                     f"tried to convert from {x.dtype} to {edtype} which doesn't match the "
                     f"representation type {edtype.physical_dtype}.")
  return ShapedArray(x.shape, edtype)


def _from_abstract_eval(x, *, dtype):
  if dtype != x.dtype.physical_dtype:
    raise ValueError(f"can only convert from extended dtype to its representation dtype, but "
                     f"tried to convert from {x.dtype} to {dtype} which doesn't match the "
                     f"representation type {x.dtype.physical_dtype}.")
  return ShapedArray(x.shape, dtype)


def _jvp(prim, tangent_dtype):
  """The value converted by ``prim``; its tangent converted to ``tangent_dtype(params)``."""
  def rule(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    out = prim.bind(x, **params)
    target = ad.tangent_aval(get_aval(out))
    if type(t) is Zero:
      return out, Zero(target)
    return out, elementwise.convert_element_type(t, tangent_dtype(params))
  return rule


to_edtype_p = standard_primitive("to_edtype", _to_abstract_eval,
                                 lambda ctx, x, *, edtype: x)
to_edtype_p.jvp = _jvp(to_edtype_p, lambda p: p["edtype"].tangent_dtype)
to_edtype_p.batch = lambda axis, args, dims, **p: (to_edtype_p.bind(args[0], **p), dims[0])
from_edtype_p = standard_primitive("from_edtype", _from_abstract_eval,
                                   lambda ctx, x, *, dtype: x)
from_edtype_p.jvp = _jvp(from_edtype_p, lambda p: p["dtype"])
from_edtype_p.batch = lambda axis, args, dims, **p: (from_edtype_p.bind(args[0], **p),
                                                     dims[0])


def _transpose(ct, x, **params):
  """Both conversions are linear: the cotangent converted back to the operand's dtype (an
  extended dtype's tangents may be of that dtype itself, as flax's fp8 meta dtype's)."""
  if type(ct) is Zero:
    return [Zero(ad.tangent_aval(x.aval))]
  return [elementwise.convert_element_type(ct, x.aval.dtype)]


to_edtype_p.transpose = from_edtype_p.transpose = _transpose


def add_tangents(x, y):
  """The sum of two tangents (autodiff's accumulation); an extended dtype whose rules
  define ``add`` accumulates by it (flax's fp8 meta dtype takes the maximum), as JAX."""
  dtype = get_aval(x).dtype
  rules = getattr(dtype, "_rules", None)
  if rules is not None and hasattr(rules, "add"):
    return rules.add(dtype, x, y)
  return elementwise.add_any(x, y)


def convert(operand, new_dtype):
  """``convert_element_type`` into or out of a convertible extended dtype."""
  src = get_aval(operand).dtype
  if isinstance(new_dtype, dtypes.ExtendedDType):
    if src == new_dtype:
      return operand
    return to_edtype_p.bind(operand, edtype=new_dtype)
  return from_edtype_p.bind(operand, dtype=dtypes.dtype(new_dtype))


class _EArrayMeta(type):
  def __instancecheck__(cls, x) -> bool:  # (PRNG key arrays are JAX's own PRNGKeyArrays)
    return isinstance(x, Array) and isinstance(x.aval.dtype, dtypes.ExtendedDType) and (
        not dtypes.issubdtype(x.aval.dtype, dtypes.prng_key))


class EArray(metaclass=_EArrayMeta):
  """An array of an extended dtype (``jax.experimental.EArray``): ``EArray(aval, data)`` is
  the array of type ``aval`` whose stored data is the Array ``data``."""

  def __new__(cls, aval: ShapedArray, data: Array) -> Array:
    if not isinstance(getattr(aval, "dtype", None), dtypes.ExtendedDType):
      raise TypeError(f"EArray holds an array of an extended dtype; got the type {aval}.")
    expected = physical_aval(aval)
    if not isinstance(data, Array) or (data.shape, data.dtype) != (expected.shape,
                                                                  expected.dtype):
      raise TypeError(f"EArray of type {aval} needs data of type {expected.str_short(short_dtypes=True)}, got "
                      f"{data!r}.")
    return Array._from_buffer(data._buf, ShapedArray(aval.shape, aval.dtype),
                              data._committed)
