"""Small primitives beyond the core tables: square, mulhi, optimization_barrier, scatter_sub."""
from __future__ import annotations

import numpy as np

from xjax._src import dtypes
from xjax._src.core.avals import tangent_aval
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.lax import elementwise as ew
from xjax._src.lax import gather_scatter as gs
from xjax._src.lax.utils import dtype_checker, lowering_from, standard_primitive

# ---------------------------------------------------------------------------------------
# square: x * x

square_p = standard_primitive(
    "square", ew._nary_abstract_eval("square", dtype_checker("int", "inexact")),
    lambda ctx, x: ctx.op("stablehlo.multiply", [x, x], ctx.avals_out[0]))
square_p.batch = ew.elementwise_batch(square_p)
ad.defjvp(square_p, lambda t, x: ew.mul(t, ew.mul(ew._const(x, 2), x)))


def square(x):
  """Elementwise ``x * x``."""
  return square_p.bind(x)


# ---------------------------------------------------------------------------------------
# mulhi: the high half of the double-width integer product

def _mulhi_unsigned(x, y):
  """High word of ``x * y`` for unsigned ints, from half-word partial products."""
  half = np.iinfo(get_aval(x).dtype).bits // 2
  h = ew._const(x, half)
  mask = ew._const(x, (1 << half) - 1)
  xl, xh = ew.bitwise_and(x, mask), ew.shift_right_logical(x, h)
  yl, yh = ew.bitwise_and(y, mask), ew.shift_right_logical(y, h)
  lo_lo, hi_lo, lo_hi, hi_hi = ew.mul(xl, yl), ew.mul(xh, yl), ew.mul(xl, yh), ew.mul(xh, yh)
  cross = ew.add(ew.add(ew.shift_right_logical(lo_lo, h), ew.bitwise_and(hi_lo, mask)), lo_hi)
  return ew.add(ew.add(ew.shift_right_logical(hi_lo, h), ew.shift_right_logical(cross, h)),
                hi_hi)


def _mulhi_impl(x, y):
  from xjax._src.lax.misc import bitcast_convert_type
  dt = get_aval(x).dtype
  if dtypes.is_unsigned(dt):
    return _mulhi_unsigned(x, y)
  udt = np.dtype(f"uint{np.iinfo(dt).bits}")
  hi = _mulhi_unsigned(bitcast_convert_type(x, udt), bitcast_convert_type(y, udt))
  top = ew._const(x, np.iinfo(dt).bits - 1)
  # signed correction: subtract y where x < 0 and x where y < 0 (modular arithmetic)
  fix = ew.add(ew.bitwise_and(ew.shift_right_arithmetic(x, top), y),
               ew.bitwise_and(ew.shift_right_arithmetic(y, top), x))
  return ew.sub(bitcast_convert_type(hi, dt), fix)


mulhi_p = standard_primitive("mulhi", ew._nary_abstract_eval("mulhi", dtype_checker("int")),
                             lowering_from(_mulhi_impl))
mulhi_p.batch = ew.elementwise_batch(mulhi_p)
ad.zero_jvp(mulhi_p)


def mulhi(x, y, /):
  """The high half of the double-width product of integers ``x`` and ``y``."""
  return mulhi_p.bind(x, y)


# ---------------------------------------------------------------------------------------
# optimization_barrier: the identity, opaque to the compiler's reordering

def _barrier_lowering(ctx, *xs):
  return ctx.op("stablehlo.optimization_barrier", list(xs), list(ctx.avals_out))


def _barrier_jvp(primals, tangents):
  nz = [i for i, t in enumerate(tangents) if type(t) is not Zero]
  tans = [Zero(tangent_aval(get_aval(p))) for p in primals]
  if nz:
    for i, t in zip(nz, optimization_barrier_p.bind(*[tangents[i] for i in nz])):
      tans[i] = t
  return optimization_barrier_p.bind(*primals), tans


def _barrier_transpose(cts, *xs):
  nz = [i for i, c in enumerate(cts) if type(c) is not Zero]
  outs = list(cts)
  if nz:
    for i, c in zip(nz, optimization_barrier_p.bind(*[cts[i] for i in nz])):
      outs[i] = c
  return outs


optimization_barrier_p = standard_primitive(
    "optimization_barrier", lambda *avals: list(avals), _barrier_lowering,
    multiple_results=True)
optimization_barrier_p.jvp = _barrier_jvp
optimization_barrier_p.transpose = _barrier_transpose
optimization_barrier_p.batch = lambda axis, args, dims: (
    optimization_barrier_p.bind(*args), list(dims))


def optimization_barrier(operand, /):
  """The identity on a pytree, which XLA may not move computation across."""
  from xjax._src import tree_util
  leaves, tree = tree_util.tree_flatten(operand)
  outs = optimization_barrier_p.bind(*leaves) if leaves else []
  return tree_util.tree_unflatten(tree, list(outs))


# ---------------------------------------------------------------------------------------
# scatter_sub: operand[idx] -= updates

scatter_sub_p = gs._make_scatter("scatter_sub")
scatter_sub_p.jvp = gs._linear_scatter_jvp(scatter_sub_p)
_add_transpose = gs._scatter_transpose(is_add=True)


def _scatter_sub_transpose(ct, x, i, u, **params):
  ct_x, _, ct_u = _add_transpose(ct, x, i, u, **params)
  if ct_u is not None and type(ct_u) is not Zero:
    ct_u = ew.neg(ct_u)
  return [ct_x, None, ct_u]


scatter_sub_p.transpose = _scatter_sub_transpose
scatter_sub = gs._scatter_fn(scatter_sub_p)
