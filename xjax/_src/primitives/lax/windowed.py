"""Windowed primitives: reduce_window (sum/max/min and generic) and convolutions."""
from __future__ import annotations

import builtins
from typing import NamedTuple

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.backend.lowering import i64_array
from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.core.avals import ShapedArray, spec_of
from xjax._src.foundations.sharding import (NamedSharding, PartitionSpec, ShardingTypeError,
                                            cotangent_sharding, out_sharding_param,
                                            type_sharding)
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.primitives.lax.dot import (_PRECISION, Precision, _precision, dot_general,
                                          precision_repr)
from xjax._src.primitives.lax.sharding_constraint import place_out_sharding
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.elementwise import convert_element_type
from xjax._src.primitives.lax.general_reduce import trace_on_inits
from xjax._src.primitives.lax.operand_checks import dtype_checker
from xjax._src.primitives.lax.reductions import _HLO_OPS, _identity
from xjax._src.primitives.lax.shapes import transpose


def padding_attr(padding) -> str:
  """``dense<[[lo, hi], ...]> : tensor<Nx2xi64>``."""
  body = ", ".join(f"[{int(lo)}, {int(hi)}]" for lo, hi in padding)
  return f"dense<[{body}]> : tensor<{len(padding)}x2xi64>" if padding else (
      "dense<> : tensor<0x2xi64>")


def lower_reduce_window(ctx, operands, inits, body, out_avals, window_dimensions,
                        window_strides, padding, base_dilation=None, window_dilation=None):
  """Emits ``stablehlo.reduce_window`` with a region built by ``body(sub, accs, xs)``."""
  scalar_avals = [ShapedArray((), a.dtype) for a in out_avals]
  n = len(operands)
  reg = ctx.region(scalar_avals + scalar_avals, lambda sub, args: body(sub, args[:n], args[n:]))
  nd = len(window_dimensions)
  attrs = {"window_dimensions": i64_array(window_dimensions),
           "window_strides": i64_array(window_strides),
           "base_dilations": i64_array(base_dilation or (1,) * nd),
           "window_dilations": i64_array(window_dilation or (1,) * nd),
           "padding": padding_attr(padding)}
  in_avals = [ctx.aval_of(o) for o in operands] + scalar_avals
  outs = ctx.op("stablehlo.reduce_window", list(operands) + list(inits), list(out_avals),
                attrs, regions=[reg], in_avals=in_avals)
  return outs


# ---------------------------------------------------------------------------------------
# Convolution

class ConvDimensionNumbers(NamedTuple):
  """Dimension indices: lhs (batch, feature, spatial...), rhs (out feature, in feature,
  spatial...), out (batch, feature, spatial...)."""
  lhs_spec: tuple
  rhs_spec: tuple
  out_spec: tuple


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
  """Canonical ``ConvDimensionNumbers`` from None, strings like ('NCHW', 'OIHW', 'NCHW'),
  or index tuples."""
  nd = len(lhs_shape)
  if len(rhs_shape) != nd:
    raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                    f"{len(lhs_shape)} and {len(rhs_shape)}.")
  if dimension_numbers is None:
    spec = tuple(range(nd))
    return ConvDimensionNumbers(spec, spec, spec)
  if isinstance(dimension_numbers, ConvDimensionNumbers):
    return dimension_numbers
  if len(dimension_numbers) != 3:
    raise TypeError(f"convolution dimension_numbers must have three entries, got "
                    f"{dimension_numbers}")
  if all(isinstance(s, str) for s in dimension_numbers):
    return _specs_from_strings(nd, *dimension_numbers)
  return ConvDimensionNumbers(*(tuple(int(i) for i in s) for s in dimension_numbers))


def _specs_from_strings(nd, lhs, rhs, out) -> ConvDimensionNumbers:
  for i, s in enumerate((lhs, rhs, out)):
    if len(s) != nd:
      raise TypeError(f"convolution dimension_numbers[{i}] {s!r} must have {nd} characters, "
                      "one per operand dimension")
  return ConvDimensionNumbers(*conv_general_permutations((lhs, rhs, out)))


def conv_general_permutations(dimension_numbers) -> tuple:
  """The dimension permutations of string specs like ``('NHWC', 'HWIO', 'NHWC')``:
  (batch, feature, spatial...) of lhs and out and (out feature, in feature, spatial...)
  of rhs, spatial dimensions in the rhs spec's order."""
  lhs, rhs, out = dimension_numbers
  for i, (a, b) in enumerate(("NC", "OI", "NC")):
    spec = dimension_numbers[i]
    if not spec.count(a) == spec.count(b) == 1:
      raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                      f"'{a}' and '{b}' exactly once, got {spec}.")
    if len(spec) != len(set(spec)):
      raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, "
                      f"got {spec}.")
  spatial = [c for c in rhs if c not in "OI"]
  if not set(lhs) - set("NC") == set(spatial) == set(out) - set("NC"):
    raise TypeError("convolution dimension_numbers elements must each have the same set of "
                    f"spatial characters, got {tuple(dimension_numbers)}.")
  make = lambda s, a, b: (s.index(a), s.index(b)) + tuple(s.index(c) for c in spatial)
  return make(lhs, "N", "C"), make(rhs, "O", "I"), make(out, "N", "C")


def _dilate(size: int, d: int) -> int:
  return 0 if size == 0 else 1 + d * (size - 1)


def padtype_to_pads(in_shape, window_shape, window_strides, padding: str) -> list:
  """Explicit (lo, hi) pads for 'SAME', 'SAME_LOWER' or 'VALID'."""
  kind = padding.upper()
  if kind == "VALID":
    return [(0, 0)] * len(in_shape)
  if kind not in ("SAME", "SAME_LOWER"):
    raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', "
                       f"got {padding}.")
  pads = []
  for n, k, s in zip(in_shape, window_shape, window_strides):
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    lo = total // 2 if kind == "SAME" else total - total // 2
    pads.append((lo, total - lo))
  return pads


def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding=None):
  ls, rs, os_ = dimension_numbers
  if lhs.dtype != rhs.dtype and preferred_element_type is None:
    raise TypeError("lax.conv_general_dilated requires arguments to have the same dtypes, "
                    f"got {lhs.dtype.name}, {rhs.dtype.name}.")
  ns = lhs.ndim - 2
  _check_strides_rank(window_strides, ns)
  if len(padding) != ns:
    raise TypeError(f"Wrong number of explicit pads for convolution: expected {ns}, got "
                    f"{len(padding)}.")
  for name, v in (("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
    if len(v) != ns:
      raise ValueError(f"conv_general_dilated {name} must have length {ns} (the number of "
                       f"spatial dimensions), got {len(v)}.")
  for name, v in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                  ("rhs_dilation", rhs_dilation)):
    if any(int(s) < 1 for s in v):
      raise ValueError(f"conv_general_dilated {name} must be positive, got {tuple(v)}.")
  n, c = lhs.shape[ls[0]], lhs.shape[ls[1]]
  o, i = rhs.shape[rs[0]], rhs.shape[rs[1]]
  fgc, bgc = feature_group_count, batch_group_count
  if fgc < 1 or bgc < 1 or (fgc > 1 and bgc > 1):
    raise ValueError("conv_general_dilated requires positive feature_group_count and "
                     "batch_group_count, at most one of them > 1.")
  if c % fgc or c // fgc != i:
    raise ValueError(f"conv_general_dilated lhs feature dimension size ({c}) divided by "
                    f"feature_group_count ({fgc}) must equal the rhs input feature dimension "
                    f"size ({i}).")
  if o % fgc or o % bgc or n % bgc:
    raise ValueError(f"conv_general_dilated rhs output feature dimension size ({o}) and lhs "
                    f"batch size ({n}) must be multiples of the group counts.")
  spatial = []
  for k in range(ns):
    size = _dilate(lhs.shape[ls[k + 2]], lhs_dilation[k]) + sum(padding[k])
    win = _dilate(rhs.shape[rs[k + 2]], rhs_dilation[k])
    spatial.append(max(0, (size - win) // window_strides[k] + 1) if size >= win else 0)
  out = [0] * lhs.ndim
  out[os_[0]], out[os_[1]] = n // bgc, o
  for k in range(ns):
    out[os_[k + 2]] = spatial[k]
  dtype = preferred_element_type if preferred_element_type is not None else lhs.dtype
  return ShapedArray(tuple(out), dtype, lhs.weak_type and rhs.weak_type)


def _labels(spec, a, b) -> str:
  names = [""] * len(spec)
  names[spec[0]], names[spec[1]] = a, b
  for k, d in enumerate(spec[2:]):
    names[d] = str(k)
  return "[" + ", ".join(names) + "]"


def _conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type, out_sharding=None):
  la, ra = ctx.avals_in
  if dtypes.is_complex(la.dtype):
    return lowering_from(_gauss_complex_conv)(
        ctx, lhs, rhs, window_strides=window_strides, padding=padding,
        lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
        dimension_numbers=dimension_numbers, feature_group_count=feature_group_count,
        batch_group_count=batch_group_count, precision=precision,
        preferred_element_type=preferred_element_type, out_sharding=out_sharding)
  out = ctx.avals_out[0]
  if la.dtype != out.dtype:
    lhs, la = ctx.op("stablehlo.convert", [lhs], la.update(dtype=out.dtype), in_avals=[la]), \
        la.update(dtype=out.dtype)
  if ra.dtype != out.dtype:
    rhs, ra = ctx.op("stablehlo.convert", [rhs], ra.update(dtype=out.dtype), in_avals=[ra]), \
        ra.update(dtype=out.dtype)
  ls, rs, os_ = dimension_numbers
  dn = f"#stablehlo.conv<{_labels(ls, 'b', 'f')}x{_labels(rs, 'o', 'i')}->{_labels(os_, 'b', 'f')}>"
  p = precision if not isinstance(precision, tuple) else precision[0]
  p = _PRECISION.get(str(p).split(".")[-1] if p is not None else None, "DEFAULT")
  attrs = {"dimension_numbers": dn, "window_strides": i64_array(window_strides),
           "padding": padding_attr(padding), "lhs_dilation": i64_array(lhs_dilation),
           "rhs_dilation": i64_array(rhs_dilation),
           "feature_group_count": f"{feature_group_count} : i64",
           "batch_group_count": f"{batch_group_count} : i64",
           "precision_config": f"[#stablehlo<precision {p}>, #stablehlo<precision {p}>]"}
  return ctx.op("stablehlo.convolution", [lhs, rhs], out, attrs, in_avals=[la, ra])


def _gauss_complex_conv(lhs, rhs, *, preferred_element_type, **params):
  """A complex convolution as three real ones (Gauss's trick), as JAX lowers it on CPU and
  GPU: fewer products, with the error bounded relative to the larger of the parts."""
  pet = None if preferred_element_type is None else dtypes.finfo(preferred_element_type).dtype
  conv = lambda x, y: conv_general_dilated_p.bind(x, y, preferred_element_type=pet, **params)
  x_re, x_im, y_re, y_im = ew.real(lhs), ew.imag(lhs), ew.real(rhs), ew.imag(rhs)
  k1 = conv(ew.add(x_re, x_im), y_re)
  k2 = conv(x_re, ew.sub(y_im, y_re))
  k3 = conv(x_im, ew.add(y_re, y_im))
  return ew.complex(ew.sub(k1, k3), ew.add(k1, k2))


def _reshape_axis_into(src: int, dst: int, x):
  """Merges axis ``src`` into axis ``dst`` (indexed with ``src`` removed), ``src`` major."""
  shape = get_aval(x).shape
  perm = [i for i in range(len(shape)) if i != src]
  perm.insert(dst, src)
  new = [d for i, d in enumerate(shape) if i != src]
  new[dst] *= shape[src]
  return shapes.reshape(x, tuple(new), perm)   # (a reshape with dimensions, as JAX's)


def _reshape_axis_out_of(src: int, size1: int, x):
  """Splits axis ``src`` into (``size1``, rest), ``size1`` major."""
  shape = list(get_aval(x).shape)
  shape[src:src + 1] = [size1, shape[src] // size1]
  return shapes.reshape(x, tuple(shape))


def _swap01(spec):
  return (spec[1], spec[0]) + tuple(spec[2:])


def _conv_transpose_lhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type,
                        out_sharding=None):
  """The cotangent of ``lhs``, computed in ct's dtype (that of a preferred_element_type)
  and typed as ``lhs`` (as JAX)."""
  lhs_aval = lhs.aval
  rhs = _to_dtype(rhs, get_aval(ct).dtype)
  ls, rs, os_ = dimension_numbers
  fgc, bgc = feature_group_count, batch_group_count
  if fgc > 1:
    rhs = _reshape_axis_into(rs[0], rs[1], _reshape_axis_out_of(rs[0], fgc, rhs))
  elif bgc > 1:
    rhs = _reshape_axis_into(rs[0], rs[1], _reshape_axis_out_of(rs[0], bgc, rhs))
    fgc = bgc
  rhs_shape, ct_shape = get_aval(rhs).shape, get_aval(ct).shape
  pads = []
  for k in range(len(ls) - 2):
    lhs_d = _dilate(lhs_aval.shape[ls[k + 2]], lhs_dilation[k])
    rhs_d = _dilate(rhs_shape[rs[k + 2]], rhs_dilation[k])
    out_d = _dilate(ct_shape[os_[k + 2]], window_strides[k])
    before = rhs_d - padding[k][0] - 1
    pads.append((before, lhs_d + rhs_d - 1 - out_d - before))
  out = conv_general_dilated_p.bind(
      ct, shapes.rev(rhs, tuple(rs[2:])), window_strides=tuple(lhs_dilation),
      padding=tuple(pads), lhs_dilation=tuple(window_strides), rhs_dilation=rhs_dilation,
      dimension_numbers=ConvDimensionNumbers(os_, _swap01(rs), ls), feature_group_count=fgc,
      batch_group_count=1, precision=precision, preferred_element_type=None,
      out_sharding=cotangent_sharding(lhs_aval))
  if bgc > 1:
    out = _reshape_axis_into(ls[1], ls[0], _reshape_axis_out_of(ls[1], bgc, out))
  return _to_dtype(out, lhs_aval.dtype)


def _conv_transpose_rhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type,
                        out_sharding=None):
  """The cotangent of ``rhs``, computed in ct's dtype (that of a preferred_element_type)
  and typed as ``rhs`` (as JAX)."""
  rhs_aval = rhs.aval
  lhs = _to_dtype(lhs, get_aval(ct).dtype)
  ls, rs, os_ = dimension_numbers
  fgc, bgc = feature_group_count, batch_group_count
  fgc, bgc = (bgc, 1) if bgc > 1 else (1, fgc)
  lhs_shape, ct_shape = get_aval(lhs).shape, get_aval(ct).shape
  pads = []
  for k in range(len(ls) - 2):
    lhs_d = _dilate(lhs_shape[ls[k + 2]], lhs_dilation[k])
    rhs_d = _dilate(rhs_aval.shape[rs[k + 2]], rhs_dilation[k])
    out_d = _dilate(ct_shape[os_[k + 2]], window_strides[k])
    lo = padding[k][0]
    pads.append((lo, (out_d - lhs_d) + (rhs_d - lo - 1)))
  out = conv_general_dilated_p.bind(
      lhs, ct, window_strides=tuple(rhs_dilation), padding=tuple(pads),
      lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
      dimension_numbers=ConvDimensionNumbers(_swap01(ls), _swap01(os_), _swap01(rs)),
      feature_group_count=fgc, batch_group_count=bgc, precision=precision,
      preferred_element_type=None, out_sharding=cotangent_sharding(rhs_aval))
  return _to_dtype(out, rhs_aval.dtype)


def _to_dtype(x, dtype):
  return x if get_aval(x).dtype == dtype else convert_element_type(x, dtype)


def _batched_out_sharding(axis, out_sharding, d: int):
  """A convolution's ``out_sharding`` with its dimension ``d`` (into which the batch is
  merged) split as the vmapped inputs are (as JAX)."""
  if out_sharding is None or not axis.explicit_mesh_axis:
    return out_sharding
  spec = list(out_sharding.spec) + [None] * (d + 1 - len(out_sharding.spec))
  if spec[d] is not None:
    raise NotImplementedError("vmap of conv_general_dilated with an out_sharding that already "
                              "splits the dimension the batch is merged into")
  spec[d] = axis.explicit_mesh_axis[0] if len(axis.explicit_mesh_axis) == 1 else (
      axis.explicit_mesh_axis)
  return NamedSharding(out_sharding.mesh, PartitionSpec(*spec))


def _conv_batch(axis, args, dims, **params):
  (lhs, rhs), (ld, rd) = args, dims
  ls, rs, os_ = params["dimension_numbers"]
  fgc, bgc = params["feature_group_count"], params["batch_group_count"]
  out_sharding = params.get("out_sharding")
  size = axis.size
  if rd is None and bgc == 1:
    out = conv_general_dilated_p.bind(_reshape_axis_into(ld, ls[0], lhs), rhs, **dict(
        params, out_sharding=_batched_out_sharding(axis, out_sharding, os_[0])))
    return _reshape_axis_out_of(os_[0], size, out), os_[0]
  if ld is None and fgc == 1 and bgc == 1:
    out = conv_general_dilated_p.bind(lhs, _reshape_axis_into(rd, rs[0], rhs), **dict(
        params, out_sharding=_batched_out_sharding(axis, out_sharding, os_[1])))
    return _reshape_axis_out_of(os_[1], size, out), os_[1]
  if ld is not None and rd is not None and bgc == 1:
    lhs = _reshape_axis_into(ld, ls[1], lhs)
    rhs = _reshape_axis_into(rd, rs[0], rhs)
    out = conv_general_dilated_p.bind(lhs, rhs, **dict(
        params, feature_group_count=fgc * size,
        out_sharding=_batched_out_sharding(axis, out_sharding, os_[1])))
    return _reshape_axis_out_of(os_[1], size, out), os_[1]
  # Rare mixed cases (batch groups): one convolution per batch element, stacked.
  outs = []
  for b in range(size):
    l = lhs if ld is None else shapes.index_in_dim(lhs, b, ld, keepdims=False)
    r = rhs if rd is None else shapes.index_in_dim(rhs, b, rd, keepdims=False)
    outs.append(shapes.expand_dims(conv_general_dilated_p.bind(l, r, **params), (0,)))
  return shapes.concatenate(outs, 0), 0


conv_general_dilated_p = standard_primitive("conv_general_dilated", _conv_abstract_eval,
                                            _conv_lowering)
ad.defbilinear(conv_general_dilated_p, _conv_transpose_lhs, _conv_transpose_rhs)
conv_general_dilated_p.batch = _conv_batch
conv_general_dilated_p.pp_params = lambda params: sorted(
    {**params, "precision": precision_repr(params["precision"])}.items())


def _conv_sharding(lhs, rhs, *, dimension_numbers, out_sharding=None, **params):
  """JAX's rule: with an unsplit kernel and an unsplit input feature dimension, the batch
  and spatial splits pass on (a spatial one while its new size divides among its devices);
  otherwise the result's split must be given as ``out_sharding``."""
  out = _conv_abstract_eval(lhs, rhs, dimension_numbers=dimension_numbers, **params)
  if out_sharding is not None:
    return type_sharding(out_sharding, out.ndim)
  if rhs._sharding is None and spec_of(lhs)[dimension_numbers.lhs_spec[1]] is None:
    # (JAX's shape rule gives NumPy integers, which its message shows)
    return shapes.varying_shape_sharding(tuple(np.int64(n) for n in out.shape), lhs,
                                         "conv_general_dilated")
  raise ShardingTypeError("Please specify the output sharding via `out_sharding` parameter of"
                          " `conv_general_dilated`")


conv_general_dilated_p.sharding_rule = _conv_sharding


def _check_strides_rank(window_strides, ns):
  if len(window_strides) != ns:
    raise ValueError("conv_general_dilated window and window_strides must have the same "
                     f"number of dimensions, but got {ns} and {len(window_strides)}")


def _tuple_or_ones(v, n, name):
  if v is None:
    return (1,) * n
  v = tuple(int(i) for i in v)
  if name == "window_strides":
    _check_strides_rank(v, n)
  if len(v) != n:
    raise ValueError(f"conv_general_dilated {name} must have length {n}, got {len(v)}")
  return v


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
  """General N-d convolution (cross-correlation) with strides, padding and dilations;
  ``out_sharding`` gives the result's split (its type's, over Explicit mesh axes)."""
  la, ra = get_aval(lhs), get_aval(rhs)
  if la.ndim < 2:
    raise TypeError(f"conv_general_dilated requires operands of rank >= 2, got {la.shape}")
  dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
  ns = la.ndim - 2
  strides = _tuple_or_ones(window_strides, ns, "window_strides")
  lhs_dil = _tuple_or_ones(lhs_dilation, ns, "lhs_dilation")
  rhs_dil = _tuple_or_ones(rhs_dilation, ns, "rhs_dilation")
  if isinstance(padding, str):
    if any(r != 1 for r in lhs_dil):
      raise ValueError("conv_general_dilated: string padding is not supported together "
                       "with lhs_dilation; give explicit padding or use conv_transpose")
    in_shape = [_dilate(la.shape[d], r) for d, r in zip(dn.lhs_spec[2:], lhs_dil)]
    win = [_dilate(ra.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dil)]
    padding = padtype_to_pads(in_shape, win, strides, padding)
  pads = tuple((int(lo), int(hi)) for lo, hi in padding)
  pet = None if preferred_element_type is None else dtypes.check_user_dtype_supported(
      preferred_element_type, "conv_general_dilated")
  param = out_sharding_param(out_sharding)
  out = conv_general_dilated_p.bind(
      lhs, rhs, window_strides=strides, padding=pads, lhs_dilation=lhs_dil,
      rhs_dilation=rhs_dil, dimension_numbers=dn, feature_group_count=int(feature_group_count),
      batch_group_count=int(batch_group_count), precision=_precision(precision),
      preferred_element_type=pet, out_sharding=param)
  # (over Explicit axes the result's type says its split; else a constraint lays it out)
  return out if param is not None else place_out_sharding(out, out_sharding)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
  """``conv_general_dilated`` in NCHW/OIHW layout without dilation."""
  return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                              preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding: str):
  if padding == "SAME":
    total = k + s - 2
    lo = k - 1 if s > k - 1 else -(-total // 2)
  elif padding == "VALID":
    total = k + s - 2 + builtins.max(k - s, 0)
    lo = k - 1
  else:
    raise ValueError(f"Padding mode must be `SAME` or `VALID`, got {padding}.")
  return lo, total - lo


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel: bool = False, precision=None,
                   preferred_element_type=None, use_consistent_padding: bool = False):
  """A fractionally strided convolution (the layout defaults are TensorFlow's NHWC/HWIO)."""
  la, ra = get_aval(lhs), get_aval(rhs)
  nd = la.ndim
  if nd < 2 or ra.ndim != nd:
    raise TypeError("conv_transpose requires lhs and rhs of equal rank >= 2")
  if dimension_numbers is None:
    defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                5: ("NHWDC", "HWDIO", "NHWDC")}
    if nd not in defaults:
      raise ValueError("No 4+ dimensional dimension_number defaults.")
    dimension_numbers = defaults[nd]
  dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
  ns = nd - 2
  rhs_dil = _tuple_or_ones(rhs_dilation, ns, "rhs_dilation")
  k_dil = [_dilate(ra.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dil)]
  if isinstance(padding, str):
    pads = [_conv_transpose_padding(k, s, padding) for k, s in zip(k_dil, strides)]
  elif use_consistent_padding:
    pads = [(k - 1 - lo, k - 1 - hi) for k, (lo, hi) in zip(k_dil, padding)]
  else:
    pads = [tuple(p) for p in padding]
  if transpose_kernel:
    rhs = shapes.rev(rhs, tuple(dn.rhs_spec[2:]))
    dn = ConvDimensionNumbers(dn.lhs_spec, _swap01(dn.rhs_spec), dn.out_spec)
  return conv_general_dilated(lhs, rhs, (1,) * ns, pads, lhs_dilation=tuple(strides),
                              rhs_dilation=rhs_dil, dimension_numbers=dn, precision=precision,
                              preferred_element_type=preferred_element_type)


# ---------------------------------------------------------------------------------------
# reduce_window: sum, max, min over strided, padded, dilated windows

def _window_shape(name, x, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
  nd = x.ndim
  for pname, v in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                   ("padding", padding), ("base_dilation", base_dilation),
                   ("window_dilation", window_dilation)):
    if len(v) != nd:
      raise TypeError(f"{name}: {pname} must have one entry per operand dimension "
                      f"({nd}), got {tuple(v)}")
  out = []
  for d, w, s, (lo, hi), bd, wd in zip(x.shape, window_dimensions, window_strides, padding,
                                       base_dilation, window_dilation):
    if w < 1 or s < 1 or bd < 1 or wd < 1:
      raise TypeError(f"{name}: window dimensions, strides and dilations must be positive")
    size, win = _dilate(d, bd) + lo + hi, _dilate(w, wd)
    out.append((size - win) // s + 1 if size >= win else 0)
  return tuple(out)


def _rw_abstract_eval(name, check):
  def rule(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    check(name, x.dtype)
    shape = _window_shape(name, x, window_dimensions, window_strides, padding, base_dilation,
                          window_dilation)
    return ShapedArray(shape, x.dtype, x.weak_type)
  return rule


def _rw_lowering(op):

  def lower(ctx, x, *, window_dimensions, window_strides, padding, base_dilation,
            window_dilation):
    out = ctx.avals_out[0]
    scalar = ShapedArray((), out.dtype)
    init = ctx.constant(_identity(op, out.dtype), scalar)
    body = lambda sub, accs, xs: [sub.op(_HLO_OPS[op], [accs[0], xs[0]], scalar)]
    return lower_reduce_window(ctx, [x], [init], body, [out], window_dimensions,
                               window_strides, padding, base_dilation, window_dilation)[0]
  return lower


def _rw_batch(prim):
  def rule(axis, args, dims, *, window_dimensions, window_strides, padding, base_dilation,
           window_dilation):
    (x,), (d,) = args, dims
    ins = lambda t, v: t[:d] + (v,) + t[d:]
    return prim.bind(x, window_dimensions=ins(window_dimensions, 1),
                     window_strides=ins(window_strides, 1), padding=ins(padding, (0, 0)),
                     base_dilation=ins(base_dilation, 1),
                     window_dilation=ins(window_dilation, 1)), d
  return rule


def window_sharding(x, window_dimensions, window_strides, padding, base_dilation,
                    window_dilation, what: str = "reduce_window"):
  """The split of a windowed reduction of ``x`` (JAX's rule): ``x``'s, each resized
  dimension keeping its split while its new size divides among its devices."""
  return shapes.varying_shape_sharding(
      _window_shape(what, x, window_dimensions, window_strides, padding, base_dilation,
                    window_dilation), x, what)


def _number(name, dtype):
  if not (dtypes.is_integer(dtype) or dtypes.is_inexact(dtype)):
    raise TypeError(f"operand to {name} must have a number dtype, got {np.dtype(dtype).name}")


def _rw_prim(name, op):
  check = dtype_checker("int", "inexact", "bool") if op != "add" else _number
  prim = standard_primitive(name, _rw_abstract_eval(name, check), _rw_lowering(op))
  prim.batch = _rw_batch(prim)
  prim.sharding_rule = window_sharding
  return prim


reduce_window_sum_p = _rw_prim("reduce_window_sum", "add")
reduce_window_max_p = _rw_prim("reduce_window_max", "max")
reduce_window_min_p = _rw_prim("reduce_window_min", "min")


def _rw_sum_transpose(ct, x, *, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation):
  if type(ct) is Zero:
    return [Zero(x.aval)]
  in_shape, ct_shape = x.aval.shape, get_aval(ct).shape
  config = []
  for d, w, s, (lo, _), bd, wd, o in zip(in_shape, window_dimensions, window_strides, padding,
                                          base_dilation, window_dilation, ct_shape):
    in_d, win_d, out_d = _dilate(d, bd), _dilate(w, wd), _dilate(o, s)
    before = win_d - lo - 1
    config.append((before, in_d + win_d - 1 - out_d - before, s - 1))
  zero = np.zeros((), get_aval(ct).dtype)[()]
  padded = shapes.pad(ct, zero, config)
  nd = len(in_shape)
  return [reduce_window_sum_p.bind(padded, window_dimensions=window_dimensions,
                                   window_strides=base_dilation, padding=((0, 0),) * nd,
                                   base_dilation=(1,) * nd, window_dilation=window_dilation)]


ad.deflinear(reduce_window_sum_p, _rw_sum_transpose)


def _chooser_jvp(prim, op):
  """Tangent of the first element attaining the window's max/min: one strided slice per
  window offset, so the rule is linear (and transposable) in the tangent."""

  def jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    out = prim.bind(x, **params)
    aval = get_aval(x)
    out_shape = get_aval(out).shape
    cfg = [(lo, hi, bd - 1) for (lo, hi), bd in zip(params["padding"], params["base_dilation"])]
    xp = shapes.pad(x, _identity(op, aval.dtype)[()], cfg)
    tp = shapes.pad(ad.instantiate(t), np.zeros((), get_aval(t).dtype)[()], cfg)
    taken, acc = None, None
    for offset in np.ndindex(*params["window_dimensions"]):
      starts = [o * wd for o, wd in zip(offset, params["window_dilation"])]
      limits = [st + (n - 1) * s + 1 if n else st
                for st, n, s in zip(starts, out_shape, params["window_strides"])]
      xs = shapes.slice(xp, starts, limits, params["window_strides"])
      ts = shapes.slice(tp, starts, limits, params["window_strides"])
      hit = ew.eq(xs, out)
      if taken is not None:
        hit = ew.bitwise_and(hit, ew.bitwise_not(taken))
      taken = hit if taken is None else ew.bitwise_or(taken, hit)
      term = ew.select_n(hit, ew.mul(ts, np.zeros((), get_aval(t).dtype)[()]), ts)
      acc = term if acc is None else ew.add(acc, term)
    return out, acc
  prim.jvp = jvp


_chooser_jvp(reduce_window_max_p, "max")
_chooser_jvp(reduce_window_min_p, "min")


def _window_params(operand, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
  shape = get_aval(operand).shape
  nd = len(shape)
  dims = tuple(int(d) for d in window_dimensions)
  strides = tuple(int(s) for s in window_strides)
  bd = (1,) * nd if base_dilation is None else tuple(int(b) for b in base_dilation)
  wd = (1,) * nd if window_dilation is None else tuple(int(w) for w in window_dilation)
  if isinstance(padding, str):
    padding = padtype_to_pads([_dilate(d, b) for d, b in zip(shape, bd)],
                              [_dilate(w, v) for w, v in zip(dims, wd)], strides, padding)
  pads = tuple((int(lo), int(hi)) for lo, hi in padding)
  return dict(window_dimensions=dims, window_strides=strides, padding=pads, base_dilation=bd,
              window_dilation=wd)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
  """Reduces each window of ``operand`` (an array or a pytree of arrays) with
  ``computation(accumulators, values)``, starting from ``init_value`` (strides of 1 unless
  given)."""
  if window_strides is None:
    window_strides = (1,) * len(window_dimensions)
  prims = {ew.add: reduce_window_sum_p, ew.max: reduce_window_max_p,
           ew.min: reduce_window_min_p}
  if computation not in prims or not _is_leaf(operand):
    return _generic_reduce_window(operand, init_value, computation, window_dimensions,
                                  window_strides, padding, base_dilation, window_dilation)
  if not isinstance(init_value, Tracer) and np.shape(init_value) == ():
    # JAX's monoid reducers: an init equal to the identity of its own dtype
    name = {ew.add: "add", ew.max: "max", ew.min: "min"}[computation]
    if np.equal(np.asarray(init_value), _identity(name, get_aval(init_value).dtype)):
      params = _window_params(operand, window_dimensions, window_strides, padding,
                              base_dilation, window_dilation)
      return prims[computation].bind(operand, **params)
  return _generic_reduce_window(operand, init_value, computation, window_dimensions,
                                window_strides, padding, base_dilation, window_dilation)


def _is_leaf(x):
  return tree_util.tree_structure(x) == tree_util.tree_structure(0)


# ---------------------------------------------------------------------------------------
# reduce_window with an arbitrary computation, traced to a jaxpr on scalars

def _grw_abstract_eval(*args, jaxpr, consts, window_dimensions, window_strides, padding,
                       base_dilation, window_dilation):
  n = len(args) // 2
  operands, inits = args[:n], args[n:]
  if any(x.shape != operands[0].shape for x in operands):
    raise ValueError("reduce_window operands must have the same shape, got "
                     f"{', '.join(str(x.shape) for x in operands)}")
  if any(i.shape or i.dtype != x.dtype for x, i in zip(operands, inits)):
    raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                    f"got operand dtypes {[x.dtype.name for x in operands]} and init_value "
                    f"dtypes {[i.dtype.name for i in inits]}.")
  shape = _window_shape("reduce_window", operands[0], window_dimensions, window_strides,
                        padding, base_dilation, window_dilation)
  return [ShapedArray(shape, x.dtype) for x in operands]


def _grw_lowering(ctx, *args, jaxpr, consts, **params):
  n = len(args) // 2

  def body(sub, accs, xs):
    return sub.lower_jaxpr(jaxpr, list(consts), list(accs) + list(xs))
  return lower_reduce_window(ctx, args[:n], args[n:], body, list(ctx.avals_out), **params)


def _grw_batch(axis, args, dims, *, jaxpr, consts, **params):
  n = len(args) // 2
  if any(d is not None for d in dims[n:]):
    raise NotImplementedError("reduce_window batching is not implemented for initial values")
  xs = [batching.matchaxis(x, d, 0, axis.size) for x, d in zip(args[:n], dims[:n])]
  front = {"window_dimensions": 1, "window_strides": 1, "padding": (0, 0),
           "base_dilation": 1, "window_dilation": 1}
  params = {k: (front[k],) + tuple(v) for k, v in params.items()}
  outs = reduce_window_p.bind(*xs, *args[n:], jaxpr=jaxpr, consts=consts, **params)
  return outs, [0] * n


def _grw_jvp(primals, tangents, *, jaxpr, consts, **params):
  """Reduces (primal, tangent) pairs jointly with the JVP of the computation ``jaxpr``."""
  n = len(primals) // 2
  if any(type(t) is not Zero for t in tangents[n:]):
    raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
  avals = [ShapedArray((), get_aval(x).dtype) for x in primals[:n]]
  diff = [dtypes.is_inexact(a.dtype) for a in avals]
  t_avals = [a for a, d in zip(avals, diff) if d]
  k = len(t_avals)

  def tangents_of(ts):
    it = iter(ts)
    return [next(it) if d else Zero(ad.tangent_aval(a)) for a, d in zip(avals, diff)]

  def joint(*args):
    acc_p, acc_t = args[:n], args[n:n + k]
    x_p, x_t = args[n + k:2 * n + k], args[2 * n + k:]
    out_p, out_t = ad.jvp_flat(lambda *a: eval_jaxpr(jaxpr, list(consts), *a),
                               list(acc_p) + list(x_p),
                               tangents_of(acc_t) + tangents_of(x_t))
    return list(out_p) + [ad.instantiate(t) for t, d in zip(out_t, diff) if d]
  joint_jaxpr = trace_to_jaxpr(joint, avals + t_avals + avals + t_avals)
  tans = [ad.instantiate(t) for t, d in zip(tangents[:n], diff) if d]
  zeros = [np.zeros((), a.dtype)[()] for a in t_avals]
  outs = reduce_window_p.bind(*primals[:n], *tans, *primals[n:], *zeros,
                              jaxpr=joint_jaxpr.jaxpr, consts=tuple(joint_jaxpr.consts),
                              **params)
  it = iter(outs[n:])
  return outs[:n], [next(it) if d else Zero(ad.tangent_aval(get_aval(o)))
                    for o, d in zip(outs[:n], diff)]


reduce_window_p = standard_primitive("reduce_window", _grw_abstract_eval, _grw_lowering,
                                     multiple_results=True)
reduce_window_p.batch = _grw_batch
reduce_window_p.jvp = _grw_jvp
reduce_window_p.sharding_rule = lambda *args, jaxpr, consts, **params: (  # the first operand's
    [window_sharding(args[0], **params)] * (len(args) // 2))


def _generic_reduce_window(operand, init_value, computation, window_dimensions,
                           window_strides, padding, base_dilation, window_dilation):
  flat_ops, tree = tree_util.tree_flatten(operand)
  flat_inits, init_tree = tree_util.tree_flatten(init_value)
  if tree != init_tree:
    raise ValueError("Operands must have the same tree structure as init_values: "
                     f"{tree} vs. {init_tree}")
  n = len(flat_ops)
  avals = [ShapedArray((), get_aval(x).dtype) for x in flat_ops]
  # The inits' types as they are (a Python float is float64 under x64, a Python int int32).
  inits = [get_aval(i) for i in flat_inits]
  if any(i.dtype != a.dtype or i.shape for i, a in zip(inits, avals)):
    trace_on_inits(computation, init_tree, inits)
  if any(i.dtype != a.dtype for i, a in zip(inits, avals)):
    raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: got "
                    f"operand dtypes {[a.dtype for a in avals]} and init_value dtypes "
                    f"{[i.dtype for i in inits]}.")
  if any(i.shape for i in inits):
    raise TypeError("reduce_window expected init_values to be scalars but init_values have "
                    f"shapes {[i.shape for i in inits]}.")
  inits = flat_inits

  def flat_computation(*args):
    out = computation(tree_util.tree_unflatten(tree, args[:n]),
                      tree_util.tree_unflatten(tree, args[n:]))
    out_flat, out_tree = tree_util.tree_flatten(out)
    if out_tree != tree:
      raise ValueError("reduce_window output must have the same tree structure as the "
                       f"operands {tree} vs. {out_tree}")
    return out_flat
  closed = trace_to_jaxpr(flat_computation, avals + avals)
  params = _window_params(flat_ops[0], window_dimensions, window_strides, padding,
                          base_dilation, window_dilation)
  outs = reduce_window_p.bind(*flat_ops, *inits, jaxpr=closed.jaxpr,
                              consts=tuple(closed.consts), **params)
  return tree_util.tree_unflatten(tree, outs)


ConvGeneralDilatedDimensionNumbers = ConvDimensionNumbers


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
  """Output shape of a convolution in (N, C, spatial...) layout."""
  if isinstance(pads, str):
    pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
  if len(pads) != len(lhs_shape) - 2:
    raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                    f"{len(lhs_shape) - 2}, got {len(pads)}.")
  spatial = tuple(_np_int(max(0, (n + lo + hi - k) // s + 1)) for n, k, s, (lo, hi)
                  in zip(lhs_shape[2:], rhs_shape[2:], strides, pads))
  return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + spatial


def _np_int(d):
  """A constant dimension as a NumPy integer (JAX's shape tuples compute them with NumPy),
  a symbolic one as it is."""
  return d if is_symbolic_dim(d) else np.int64(d)


def _permuted(shape, spec):
  return tuple(shape[i] for i in spec)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
  """Output shape of ``conv_general_dilated`` without dilation."""
  dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  lhs, rhs = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
  out = conv_shape_tuple(lhs, rhs, window_strides, padding)
  return tuple(_np_int(out[dn.out_spec.index(i)]) for i in range(len(out)))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
  """Output shape of ``conv_transpose``."""
  dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  lhs, rhs = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
  if isinstance(padding, str):
    if padding.upper() not in ("SAME", "VALID"):
      raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', "
                       f"got {padding}.")
    same = padding.upper() == "SAME"
    spatial = tuple(n * s if same else n * s + max(k - s, 0)
                    for n, k, s in zip(lhs[2:], rhs[2:], window_strides))
  else:
    spatial = tuple((n - 1) * s + 1 + lo + hi - k + 1 for n, k, s, (lo, hi)
                    in zip(lhs[2:], rhs[2:], window_strides, padding))
  out = (lhs[0], rhs[0]) + spatial
  return tuple(_np_int(out[dn.out_spec.index(i)]) for i in range(len(out)))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
  """Output shape of ``reduce_window``."""
  n = len(operand_shape)
  base = base_dilation or (1,) * n
  wdil = window_dilation or (1,) * n
  out = []
  for d, w, s, (lo, hi), b, wd in zip(operand_shape, window_dimensions, window_strides,
                                      padding, base, wdil):
    size = (d - 1) * b + 1 + lo + hi
    eff = (w - 1) * wd + 1
    out.append(max(0, (size - eff) // s + 1))
  return tuple(out)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation,
                              rhs_dilation, precision=None, preferred_element_type=None):
  """``conv_general_dilated`` in the default (N, C, spatial...) layout."""
  if isinstance(padding, str) and lhs_dilation is not None and any(
      d != 1 for d in lhs_dilation):
    raise ValueError("String padding is not implemented for transposed convolution using "
                     "this op. Please either exactly specify the required padding or use "
                     "conv_transpose.")
  return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                              rhs_dilation=rhs_dilation, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
  """A locally connected (unshared) convolution: a separate kernel at each output position.
  ``rhs``'s spatial dimensions are the output's; its ``I`` dimension holds the input
  channels and window positions (channel-major), as ``conv_general_dilated_patches``."""
  p = _precision(precision)
  if p is not None and not isinstance(p, (str, tuple)):
    raise ValueError(f"Unsupported precision for conv_general_dilated_local: {precision}")
  patches = conv_general_dilated_patches(
      lhs, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation,
      dimension_numbers, precision=p if not isinstance(p, tuple) else p[0])
  filter_shape = tuple(int(f) for f in filter_shape)
  _, rhs_spec, out_spec = conv_dimension_numbers(get_aval(lhs).shape, (1, 1) + filter_shape,
                                                 dimension_numbers)
  out_spatial = list(out_spec[2:])  # contract features; the spatial dims are batch dims
  rhs_spatial = [rhs_spec[2:][i] for i in np.argsort(out_spatial)]
  dn = (([out_spec[1]], [rhs_spec[1]]), (sorted(out_spatial), rhs_spatial))
  out = dot_general(patches, rhs, dn, precision=precision)  # [spatial..., N, O]
  nd = len(out_spec)
  order = list(range(nd - 2))
  for dst, src in sorted(zip(out_spec[:2], (nd - 2, nd - 1))):
    order.insert(dst, src)
  return transpose(out, tuple(order))


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                 lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                                 precision=None, preferred_element_type=None):
  """The patches a convolution with ``filter_shape`` windows sees: features are ordered
  (input channel, window position), channel-major."""
  aval = get_aval(lhs)
  nd = aval.ndim
  filter_shape = tuple(int(f) for f in filter_shape)
  dn = conv_dimension_numbers(aval.shape, (1,) * nd, dimension_numbers)
  channels = aval.shape[dn.lhs_spec[1]]
  window = int(np.prod(filter_shape, dtype=np.int64))
  kernel = np.tile(np.eye(window, dtype=aval.dtype), (channels, 1))
  kernel = kernel.reshape((channels * window, 1) + filter_shape)
  dn = ConvDimensionNumbers(dn.lhs_spec, tuple(range(nd)), dn.out_spec)
  return conv_general_dilated(lhs, kernel, window_strides, padding, lhs_dilation,
                              rhs_dilation, dn, feature_group_count=channels,
                              precision=Precision.HIGHEST if precision is None else precision,
                              preferred_element_type=preferred_element_type)
