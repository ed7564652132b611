"""Bit-level conversions: bitcast_convert_type (reinterpret the bits as another dtype) and
reduce_precision (round to a narrower float format)."""
from __future__ import annotations


import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import typed_sharding
from xjax._src.core.avals import ShapedArray, spec_of
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.primitives.lax.operand_checks import dtype_checker
from xjax._src.primitives.lax.primitive_builders import standard_primitive



# ---------------------------------------------------------------------------------------
# bitcast_convert_type

def _bitcast_abstract_eval(x, *, new_dtype):
  old_bits, new_bits = dtypes.itemsize_bits(x.dtype), dtypes.itemsize_bits(new_dtype)
  special = lambda dt: dt == np.bool_ or dtypes.is_complex(dt)
  if (special(x.dtype) or special(np.dtype(new_dtype))) and x.dtype != np.dtype(new_dtype):
    raise TypeError("lax.bitcast_convert_type does not support bool or complex values unless "
                    "the operand and destination types match. Got operand dtype="
                    f"{x.dtype}, new_dtype={np.dtype(new_dtype)!r}. Consider using the "
                    "arr.view() method instead.")
  if old_bits == new_bits:
    shape = x.shape
  elif old_bits > new_bits:
    shape = x.shape + (old_bits // new_bits,)
  else:
    if not x.shape or x.shape[-1] != new_bits // old_bits:
      raise ValueError(f"Attempting to convert array of shape {x.shape} from "
                       f"{x.dtype.name} to {np.dtype(new_dtype).name}: the last dimension "
                       f"must be {new_bits // old_bits}.")
    shape = x.shape[:-1]
  return ShapedArray(shape, new_dtype)


def _bitcast_batch(axis, args, dims, *, new_dtype):
  (x,), (d,) = args, dims
  aval = get_aval(x)
  if dtypes.itemsize_bits(new_dtype) > dtypes.itemsize_bits(aval.dtype) and d == aval.ndim - 1:
    x, d = batching.moveaxis(x, d, 0), 0
  return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


bitcast_convert_type_p = standard_primitive(
    "bitcast_convert_type", _bitcast_abstract_eval,
    lambda ctx, x, *, new_dtype: ctx.op("stablehlo.bitcast_convert", [x], ctx.avals_out[0]))
bitcast_convert_type_p.batch = _bitcast_batch


def _bitcast_sharding(x, *, new_dtype):
  """The operand's split; a trailing dimension added (narrower bits) unsplit, one removed
  (wider) dropped."""
  old_bits, new_bits = dtypes.itemsize_bits(x.dtype), dtypes.itemsize_bits(new_dtype)
  if old_bits == new_bits:
    return x._sharding
  spec = spec_of(x)
  return typed_sharding(x._sharding.mesh, spec + (None,) if old_bits > new_bits else spec[:-1])


bitcast_convert_type_p.sharding_rule = _bitcast_sharding
ad.zero_jvp(bitcast_convert_type_p)


def bitcast_convert_type(operand, new_dtype):
  """Reinterprets the bits of ``operand`` as ``new_dtype`` (adding or removing a trailing
  dimension when the widths differ)."""
  new_dtype = dtypes.check_user_dtype_supported(new_dtype, "bitcast_convert_type")
  return bitcast_convert_type_p.bind(operand, new_dtype=np.dtype(new_dtype))


# ---------------------------------------------------------------------------------------
# reduce_precision

def _reduce_precision_abstract_eval(x, *, exponent_bits, mantissa_bits):
  dtype_checker("float")("reduce_precision", x.dtype)
  if exponent_bits < 1 or mantissa_bits < 0:
    raise ValueError(f"reduce_precision: exponent_bits must be >= 1 and mantissa_bits >= 0, "
                     f"got {exponent_bits} and {mantissa_bits}")
  return ShapedArray(x.shape, x.dtype, x.weak_type)


def _reduce_precision_lowering(ctx, x, *, exponent_bits, mantissa_bits):
  return ctx.op("stablehlo.reduce_precision", [x], ctx.avals_out[0],
                {"exponent_bits": f"{exponent_bits} : i32",
                 "mantissa_bits": f"{mantissa_bits} : i32"})


reduce_precision_p = standard_primitive("reduce_precision", _reduce_precision_abstract_eval,
                                        _reduce_precision_lowering)
reduce_precision_p.sharding_rule = lambda x, **params: x._sharding
reduce_precision_p.batch = lambda axis, args, dims, **p: (reduce_precision_p.bind(args[0], **p),
                                                           dims[0])
ad.deflinear(reduce_precision_p, lambda ct, x, **p: [
    ct if type(ct) is ad.Zero else reduce_precision_p.bind(ct, **p)])


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
  """Rounds ``operand`` to a float format with the given exponent and mantissa bits."""
  return reduce_precision_p.bind(operand, exponent_bits=int(exponent_bits),
                                 mantissa_bits=int(mantissa_bits))
