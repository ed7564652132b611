"""Window selection primitives (JAX's building blocks of max-pooling derivatives):

- ``select_and_scatter_add(source, operand)``: in each window of ``operand`` select one
  element (the first maximal one for ``select_prim=ge``, minimal for ``le``) and add the
  window's ``source`` value at its position;
- ``select_and_gather_add(tangents, operand)``: per window, the ``tangents`` value at the
  element selected in ``operand`` (the transpose of the above);
- ``select_and_scatter(operand, source, init_value)``: StableHLO's general form, selection
  and scattering given as jaxprs on scalars.
"""
from __future__ import annotations

import numpy as np

from xjax._src.backend.lowering import compare_attributes, i64_array
from xjax._src.core.avals import ShapedArray, mesh_of, tangent_aval
from xjax._src.foundations.sharding import ShardingTypeError, typed_sharding
from xjax._src.core.jaxpr import ClosedJaxpr
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.reductions import _identity
from xjax._src.primitives.lax.operand_checks import check_same_dtypes
from xjax._src.primitives.lax.primitive_builders import standard_primitive
from xjax._src.primitives.lax.windowed import (_window_shape, lower_reduce_window, padding_attr,
                                               window_sharding)

_DIRECTIONS = {"ge": "GE", "gt": "GT", "le": "LE", "lt": "LT"}


def _direction(name: str, select_prim) -> str:
  d = _DIRECTIONS.get(getattr(select_prim, "name", None))
  if d is None:
    raise TypeError(f"{name}: select_prim must be lax.ge_p, lax.gt_p, lax.le_p or lax.lt_p, "
                    f"got {select_prim!r}")
  return d


def _window_attrs(window_dimensions, window_strides, padding) -> dict:
  return {"window_dimensions": i64_array(window_dimensions),
          "window_strides": i64_array(window_strides), "padding": padding_attr(padding)}


def _lower_select_and_scatter(ctx, operand, source, init, select_body, scatter_body,
                              window_dimensions, window_strides, padding):
  scalar = ShapedArray((), ctx.avals_in[0].dtype)
  regions = [ctx.region([scalar, scalar], select_body),
             ctx.region([scalar, scalar], scatter_body)]
  return ctx.op("stablehlo.select_and_scatter", [operand, source, init], ctx.avals_out[0],
                _window_attrs(window_dimensions, window_strides, padding), regions=regions)


def _front(args, dims, size):
  return [batching.matchaxis(x, d, 0, size) for x, d in zip(args, dims)]


def _linear_in_first_jvp(prim):
  """The JVP of a primitive linear in its first operand; the selection by the second
  (the operand) has a zero derivative."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    if type(tangents[0]) is Zero:
      return out, Zero(tangent_aval(get_aval(out)))
    return out, prim.bind(tangents[0], primals[1], **params)
  return jvp


def _with_front(window_dimensions, window_strides, padding, **dilations):
  out = dict(window_dimensions=(1,) + tuple(window_dimensions),
             window_strides=(1,) + tuple(window_strides), padding=((0, 0),) + tuple(padding))
  out.update({k: (1,) + tuple(v) for k, v in dilations.items()})
  return out


# ---------------------------------------------------------------------------------------
# select_and_scatter_add

def _sas_add_abstract_eval(source, operand, *, select_prim, window_dimensions, window_strides,
                           padding):
  _direction("select_and_scatter_add", select_prim)
  check_same_dtypes("select_and_scatter_add", [source, operand])
  nd = len(window_dimensions)
  want = _window_shape("select_and_scatter_add", operand, window_dimensions, window_strides,
                       padding, (1,) * nd, (1,) * nd)
  if source.shape != want:
    raise TypeError(f"select_and_scatter_add: source must have the shape of the windows of "
                    f"the operand, {want}, got {source.shape}.")
  return ShapedArray(operand.shape, source.dtype, source.weak_type and operand.weak_type)


def _sas_add_lowering(ctx, source, operand, *, select_prim, window_dimensions,
                      window_strides, padding):
  dtype = ctx.avals_in[1].dtype
  scalar = ShapedArray((), dtype)
  pred = ShapedArray((), np.bool_)
  direction = _direction("select_and_scatter_add", select_prim)
  init = ctx.constant(np.zeros((), dtype), scalar)
  select_body = lambda sub, a: [sub.op("stablehlo.compare", a, pred,
                                       compare_attributes(direction, dtype))]
  combine = "stablehlo.or" if dtype == np.bool_ else "stablehlo.add"
  scatter_body = lambda sub, a: [sub.op(combine, a, scalar)]
  return _lower_select_and_scatter(ctx, operand, source, init, select_body, scatter_body,
                                   window_dimensions, window_strides, padding)


def _sas_add_transpose(t, source, operand, *, select_prim, window_dimensions,
                       window_strides, padding):
  if ad.is_undefined(operand):
    raise NotImplementedError("select_and_scatter_add is linear only in its source.")
  if type(t) is Zero:
    return [Zero(source.aval), None]
  ones = (1,) * len(window_dimensions)
  return [select_and_gather_add_p.bind(
      t, operand, select_prim=select_prim, window_dimensions=window_dimensions,
      window_strides=window_strides, padding=padding, base_dilation=ones,
      window_dilation=ones), None]


def _sas_add_batch(axis, args, dims, *, select_prim, **params):
  return select_and_scatter_add_p.bind(*_front(args, dims, axis.size),
                                       select_prim=select_prim, **_with_front(**params)), 0


select_and_scatter_add_p = standard_primitive("select_and_scatter_add",
                                              _sas_add_abstract_eval, _sas_add_lowering)
select_and_scatter_add_p.jvp = _linear_in_first_jvp(select_and_scatter_add_p)
select_and_scatter_add_p.transpose = _sas_add_transpose
select_and_scatter_add_p.batch = _sas_add_batch
select_and_scatter_add_p.sharding_rule = lambda source, operand, **params: operand._sharding


# ---------------------------------------------------------------------------------------
# select_and_gather_add

def _sag_abstract_eval(tangents, operand, *, select_prim, window_dimensions, window_strides,
                       padding, base_dilation, window_dilation):
  _direction("select_and_gather_add", select_prim)
  check_same_dtypes("select_and_gather_add", [tangents, operand])
  if tangents.shape != operand.shape:
    raise TypeError("select_and_gather_add: tangents and operand must have the same shape, "
                    f"got {tangents.shape} and {operand.shape}.")
  shape = _window_shape("select_and_gather_add", operand, window_dimensions, window_strides,
                        padding, base_dilation, window_dilation)
  return ShapedArray(shape, tangents.dtype, tangents.weak_type and operand.weak_type)


def _sag_lowering(ctx, tangents, operand, *, select_prim, **params):
  dtype = ctx.avals_in[1].dtype
  direction = _direction("select_and_gather_add", select_prim)
  scalar, pred = ShapedArray((), dtype), ShapedArray((), np.bool_)
  worst = _identity("max" if direction in ("GE", "GT") else "min", dtype)
  inits = [ctx.constant(worst, scalar), ctx.constant(np.zeros((), dtype), scalar)]

  def body(sub, accs, xs):  # keep the accumulated pair unless the new one is selected
    keep = sub.op("stablehlo.compare", [accs[0], xs[0]], pred,
                  compare_attributes(direction, dtype))
    return [sub.op("stablehlo.select", [keep, a, x], scalar, in_avals=[pred, scalar, scalar])
            for a, x in zip(accs, xs)]
  out = ShapedArray(ctx.avals_out[0].shape, dtype)
  return lower_reduce_window(ctx, [operand, tangents], inits, body, [out, out], **params)[1]


def _sag_transpose(ct, tangents, operand, *, select_prim, window_dimensions, window_strides,
                   padding, base_dilation, window_dilation):
  if ad.is_undefined(operand):
    raise NotImplementedError("select_and_gather_add is linear only in its tangents.")
  if any(d != 1 for d in window_dilation):
    raise NotImplementedError("VJP not implemented for select_and_gather (MaxPool) with "
                              f"window dilation, got window_dilation={window_dilation}.")
  if type(ct) is Zero:
    return [Zero(tangents.aval), None]
  dilated = any(d != 1 for d in base_dilation)
  if dilated:
    worst = _identity("max" if select_prim.name in ("ge", "gt") else "min",
                      tangents.aval.dtype)
    operand = shapes.pad(operand, worst[()], [(0, 0, d - 1) for d in base_dilation])
  out = select_and_scatter_add_p.bind(ct, operand, select_prim=select_prim,
                                      window_dimensions=window_dimensions,
                                      window_strides=window_strides, padding=padding)
  if dilated:
    shape = get_aval(out).shape
    out = shapes.slice(out, (0,) * len(shape), shape, base_dilation)
  return [out, None]


def _sag_batch(axis, args, dims, *, select_prim, **params):
  return select_and_gather_add_p.bind(*_front(args, dims, axis.size),
                                      select_prim=select_prim, **_with_front(**params)), 0


select_and_gather_add_p = standard_primitive("select_and_gather_add", _sag_abstract_eval,
                                             _sag_lowering)
select_and_gather_add_p.jvp = _linear_in_first_jvp(select_and_gather_add_p)
select_and_gather_add_p.transpose = _sag_transpose
select_and_gather_add_p.batch = _sag_batch


def _sag_sharding(tangents, operand, *, select_prim, **params):
  """JAX's rule: tangents split as the operand is, the result as a reduce_window's."""
  if tangents._sharding != operand._sharding:
    mesh = mesh_of([tangents, operand])
    named = lambda a: a._sharding or typed_sharding(mesh, [None] * a.ndim)
    raise ShardingTypeError("select_and_gather_add tangents and operand shardings must "
                            f"match, got {named(tangents)} and {named(operand)}.")
  return window_sharding(operand, **params)


select_and_gather_add_p.sharding_rule = _sag_sharding


# ---------------------------------------------------------------------------------------
# select_and_scatter (the general form; no derivative or batching rule, as in JAX)

def _sas_abstract_eval(operand, source, init_value, *, select_jaxpr, select_consts,
                       scatter_jaxpr, scatter_consts, window_dimensions, window_strides,
                       padding):
  if len(window_dimensions) != len(window_strides):
    raise TypeError("select_and_scatter got inconsistent window_strides and "
                    f"window_dimensions: got window_strides {tuple(window_strides)} and "
                    f"window_dimensions {tuple(window_dimensions)}.")
  check_same_dtypes("select_and_scatter", [operand, source, init_value])
  return ShapedArray(operand.shape, operand.dtype)


def _region_body(jaxpr, consts):
  if isinstance(jaxpr, ClosedJaxpr):
    jaxpr, consts = jaxpr.jaxpr, list(jaxpr.consts) + list(consts)
  return lambda sub, args: sub.lower_jaxpr(jaxpr, list(consts), args)


def _sas_lowering(ctx, operand, source, init, *, select_jaxpr, select_consts, scatter_jaxpr,
                  scatter_consts, window_dimensions, window_strides, padding):
  return _lower_select_and_scatter(ctx, operand, source, init,
                                   _region_body(select_jaxpr, select_consts),
                                   _region_body(scatter_jaxpr, scatter_consts),
                                   window_dimensions, window_strides, padding)


select_and_scatter_p = standard_primitive("select_and_scatter", _sas_abstract_eval,
                                          _sas_lowering)
select_and_scatter_p.sharding_rule = lambda operand, *args, **params: operand._sharding
