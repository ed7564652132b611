"""Taylor-mode automatic differentiation (``jax.experimental.jet``).

``jet(f, primals, series)`` pushes a truncated Taylor polynomial through ``f``: every value
carries its primal and its higher-order terms, and each primitive maps them with its rule
in ``jet_rules`` (a dict users may extend).  Terms are kept unscaled inside (the
coefficients of the polynomial); ``jet`` scales them by factorials at the boundary, so its
k-th term is the k-th derivative.  The trace is ``JetTrace``, built like the JVP trace:
each rule runs with the parent trace current.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.api.transformations import _as_value, _forward_inputs
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.core.trace import Trace, Tracer, current_trace, new_trace, set_current_trace
from xjax._src.core.values import get_aval
from xjax._src.primitives.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from xjax._src.foundations.errors import api_boundary
from xjax._src.interpreters.ad import JVPTracer
from xjax._src.api.jit_primitives import jit_p
from xjax._src.primitives.lax.bit_conversions import bitcast_convert_type_p
from xjax._src.primitives.lax.control_flow.associative import associative_scan
from xjax._src.primitives.lax.cumulative import cummax_p, cummin_p, cumprod_p, cumsum_p
from xjax._src.primitives.lax.device_put import device_put_p
from xjax._src.primitives.lax.dot import dot_general_p
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, abs_p, acosh_p, add, add_p, and_p,
                                                  asinh_p, atan2, atan2_p, atanh_p, ceil_p, clamp_p,
                                                  complex_p, conj_p, convert_element_type,
                                                  convert_element_type_p, cos as lax_cos, cos_p,
                                                  cosh, cosh_p, div, div_p, eq, eq_p, erf_inv,
                                                  erf_inv_p, erf_p, erfc, erfc_p, exp, exp_p, expm1,
                                                  expm1_p, floor, floor_p, ge_p, gt, gt_p, imag_p,
                                                  integer_pow_p, is_finite_p, le_p, lgamma, log,
                                                  log1p, log1p_p, log_p, logistic, logistic_p, lt,
                                                  lt_p, max as lax_max, max_p, min as lax_min,
                                                  min_p, mul, mul_p, ne_p, neg, neg_p, not_p, or_p,
                                                  pow_p, real_p, rem_p, rsqrt_p, select, select_n,
                                                  select_n_p, shift_left_p,
                                                  shift_right_arithmetic_p, shift_right_logical_p,
                                                  sign_p, sin as lax_sin, sin_p, sinh, sinh_p, sqrt,
                                                  sqrt_p, square, square_p, sub_p, tanh_p, xor_p)
from xjax._src.primitives.lax.gather_scatter import gather_p, scatter_add_p
from xjax._src.primitives.lax.reductions import reduce_max_p, reduce_min_p, reduce_sum, reduce_sum_p
from xjax._src.primitives.lax.rounding import round_p
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcast_in_dim_p, broadcast_shapes,
                                             concatenate_p, dynamic_slice_p, dynamic_update_slice_p,
                                             full, full_like, pad_p, reshape, reshape_p, rev_p,
                                             slice_p, squeeze_p, transpose_p)
from xjax._src.primitives.lax.shapes import split_p
from xjax._src.primitives.lax.stacking import stack_p, unstack_p
from xjax._src.primitives.lax.windowed import conv_general_dilated_p, reduce_window_sum_p
from xjax._src.primitives.lax.stop_gradient import stop_gradient_p
from xjax._src.interpreters.higher_order import trace_hoisted
from xjax._src.primitives.lax.elementwise import _const, add_any_p, copy_p
from xjax._src.primitives.lax.fft import fft_p


# ---------------------------------------------------------------------------------------
# Symbolic zeros

class ZeroTerm:
  """The marker of one term known to be zero."""


class ZeroSeries:
  """The marker of a whole series known to be zero (a value independent of the inputs)."""


zero_term = ZeroTerm()
zero_series = ZeroSeries()
tree_util.register_pytree_node(ZeroTerm, lambda _: ((), None), lambda _, __: zero_term)
tree_util.register_pytree_node(ZeroSeries, lambda _: ((), None), lambda _, __: zero_series)


# ---------------------------------------------------------------------------------------
# The trace

class JetTracer(Tracer):
  """A value with its Taylor terms (a list, or ``zero_series``)."""
  __slots__ = ("primal", "terms")

  def __init__(self, trace: "JetTrace", primal, terms) -> None:
    self._trace = trace
    self.primal = primal
    self.terms = terms

  # the type and concrete value are the primal's, as a JVP tracer's
  aval = JVPTracer.aval
  to_concrete_value = JVPTracer.to_concrete_value


class JetTrace(Trace):
  """Propagates truncated Taylor series of ``order`` terms through primitives."""
  __slots__ = ("order",)

  def __init__(self, parent: Trace, order: int) -> None:
    super().__init__(parent)
    self.order = order

  def __repr__(self) -> str:
    return "JetTrace"

  def to_primal_terms_pair(self, x):
    if isinstance(x, JetTracer) and x._trace is self:
      return x.primal, x.terms
    return x, zero_series

  def process_primitive(self, prim, args, params):
    pairs = [self.to_primal_terms_pair(x) for x in args]
    primals = [p for p, _ in pairs]
    if all(s is zero_series for _, s in pairs):
      with set_current_trace(self.parent):
        return prim.bind(*primals, **params)
    rule = jet_rules.get(prim)
    if rule is None:
      err = KeyError(prim)
      err.add_note(f"No Taylor-mode (jet) rule for the primitive '{prim.name}': add one to "
                   "jax.experimental.jet.jet_rules (def_deriv, def_comp, deflinear and "
                   "defzero register common kinds).")
      raise err
    with set_current_trace(self.parent):
      series = [_instantiate(p, s, self.order) for p, s in pairs]
      out, out_series = rule(primals, series, **params)
    if prim.multiple_results:
      if out_series is zero_series:
        return list(out)
      return [self._tracer(p, s) for p, s in zip(out, out_series)]
    return self._tracer(out, out_series)

  def _tracer(self, primal, terms):
    return primal if terms is zero_series else JetTracer(self, primal, list(terms))


def _instantiate(x, terms, order: int) -> list:
  """``terms`` with symbolic zeros made arrays of ``x``'s shape and (strong) dtype."""
  if terms is zero_series:
    terms = [zero_term] * order
  aval = get_aval(x)
  return [full(aval.shape, 0, aval.dtype) if t is zero_term else t for t in terms]


def _jet_flat(fun: Callable, primals, series, order: int):
  """Runs ``fun(*tracers) -> list`` on Taylor series of unscaled terms; returns
  (out primals, out series), zero series made arrays."""
  trace = JetTrace(current_trace(), order)
  with new_trace(trace):
    ins = [JetTracer(trace, p, list(s)) for p, s in zip(primals, series)]
    pairs = [trace.to_primal_terms_pair(o) for o in fun(*ins)]
  out_primals = [p for p, _ in pairs]
  out_series = [[full_like(p, 0)] * order if s is zero_series else list(s)
                for p, s in pairs]
  return out_primals, out_series


# ---------------------------------------------------------------------------------------
# The user API

def fact(n):
  """``n!`` as a float array (``exp(lgamma(n + 1))``)."""
  return exp(lgamma(n + 1.))


@api_boundary
def jet(fun: Callable, primals, series, factorial_scaled: bool = True, **_):
  """Taylor-mode derivatives: ``(fun(*primals), series_out)``, where ``series[i]`` holds
  the terms ``(h_1, ..., h_K)`` of argument i (its derivatives along a path, or with
  ``factorial_scaled=False`` the Taylor coefficients) and ``series_out`` those of the
  output, a list of K terms per output leaf."""
  try:
    order, = set(map(len, series))
  except ValueError:
    raise ValueError("jet terms have inconsistent lengths for different arguments") from None
  for i, (x, terms) in enumerate(zip(primals, series)):
    if not tree_util.treedef_is_leaf(tree_util.tree_structure(x)):
      raise ValueError(f"primal value at position {i} is not an array")
    shape = get_aval(x).shape
    for j, t in enumerate(terms):
      if not tree_util.treedef_is_leaf(tree_util.tree_structure(t)):
        raise ValueError(f"term {j} for argument {i} is not an array")
      t_shape = get_aval(t).shape
      if t_shape not in (shape, ()):
        raise TypeError(f"jet term {j} for argument {i} has shape {t_shape}, but its primal "
                        f"has shape {shape}: each term must have its primal's shape.")
  values = [_as_value(p) for p in primals]
  if factorial_scaled:
    series = [[t / fact(k + 1) for k, t in enumerate(terms)] for terms in series]
  else:
    series = [[_as_value(t) for t in terms] for terms in series]
  out_tree = []

  def flat_fun(*args):
    leaves, tree = tree_util.tree_flatten(fun(*args))
    out_tree.append(tree)
    return leaves

  out_primals, out_series = _jet_flat(flat_fun, values, series, order)
  out_primals = _forward_inputs(out_primals, values, primals)
  if factorial_scaled:
    out_series = [[t * fact(k + 1) for k, t in enumerate(terms)] for terms in out_series]
  return (tree_util.tree_unflatten(out_tree[0], out_primals),
          tree_util.tree_unflatten(out_tree[0], out_series))


jet2 = partial(jet, factorial_scaled=False)


# ---------------------------------------------------------------------------------------
# Rule registries and the common kinds of rules

# primitive -> rule(primals_in, series_in, **params) -> (primal_out, series_out); a series
# is a list of unscaled terms, or zero_series.
jet_rules: dict = {}
# JAX's hook for call primitives' parameters (its trace's process_call); xjax's call
# primitives are rules in jet_rules, so nothing reads it.
call_param_updaters: dict = {}


def defzero(prim) -> None:
  """``prim``'s output has zero terms (comparisons, rounding, bit operations)."""
  jet_rules[prim] = partial(zero_prop, prim)


def zero_prop(prim, primals_in, series_in, **params):
  return prim.bind(*primals_in, **params), zero_series


def deflinear(prim) -> None:
  """``prim`` is linear: each order's terms go through ``prim`` itself."""
  jet_rules[prim] = partial(linear_prop, prim)


def linear_prop(prim, primals_in, series_in, **params):
  primal_out = prim.bind(*primals_in, **params)
  series_out = [prim.bind(*terms, **params) for terms in zip(*series_in)]
  if prim.multiple_results:
    series_out = [list(s) for s in zip(*series_out)]
  return primal_out, series_out


def def_deriv(prim, deriv: Callable) -> None:
  """The rule of a unary ``prim`` from a function computing its first derivative."""
  jet_rules[prim] = partial(deriv_prop, prim, deriv)


def deriv_prop(prim, deriv, primals_in, series_in):
  x, = primals_in
  c0, cs = jet2(deriv, primals_in, series_in)
  return _integrate([c0] + cs, [x] + series_in[0], prim.bind(x))


def def_comp(prim, comp: Callable, **kwargs) -> None:
  """The rule of ``prim`` from a composition of primitives with rules of their own."""
  jet_rules[prim] = partial(jet2, comp, **kwargs)


def _term(c, u, k: int):
  """Term ``k`` of the series ``v`` with ``v' = c u'``, from ``c[:k]`` and ``u[1:k+1]``:
  ``k v[k] = sum_j j c[k-j] u[j]``."""
  return sum(j * c[k - j] * u[j] for j in range(1, k + 1)) / k


def _integrate(c, u, v0):
  """(v0, terms) of the series ``v`` with ``v' = c u'`` and ``v[0] = v0``."""
  return v0, [_term(c, u, k) for k in range(1, len(u))]


# ---------------------------------------------------------------------------------------
# Rules without derivatives or linear in their operands

for _p in (le_p, lt_p, gt_p, ge_p, eq_p, ne_p, not_p,
           and_p, or_p, xor_p, floor_p, ceil_p, round_p, sign_p,
           stop_gradient_p, is_finite_p, shift_left_p,
           shift_right_arithmetic_p, shift_right_logical_p,
           bitcast_convert_type_p):
  defzero(_p)

for _p in (neg_p, real_p, complex_p, conj_p, imag_p, add_p,
           add_any_p, sub_p, convert_element_type_p, broadcast_in_dim_p,
           concatenate_p, split_p, stack_p, unstack_p, pad_p,
           reshape_p, squeeze_p, rev_p, transpose_p, slice_p,
           reduce_sum_p, reduce_window_sum_p, fft_p, copy_p, device_put_p,
           cumsum_p):
  deflinear(_p)


def _linear_in_first(prim):
  """The rule of ``prim(operand, *others)``, linear in ``operand`` for fixed others
  (indices): the terms of the others are ignored."""
  def rule(primals_in, series_in, **params):
    operand, *others = primals_in
    return (prim.bind(operand, *others, **params),
            [prim.bind(t, *others, **params) for t in series_in[0]])
  return rule


jet_rules[dynamic_slice_p] = _linear_in_first(dynamic_slice_p)
jet_rules[gather_p] = _linear_in_first(gather_p)


def _linear_in_two(prim, second: int):
  """The rule of ``prim``, linear in operand 0 and operand ``second`` jointly (the others
  are indices)."""
  def rule(primals_in, series_in, **params):
    def bind(a, b):
      args = list(primals_in)
      args[0], args[second] = a, b
      return prim.bind(*args, **params)
    return (bind(primals_in[0], primals_in[second]),
            [bind(a, b) for a, b in zip(series_in[0], series_in[second])])
  return rule


jet_rules[dynamic_update_slice_p] = _linear_in_two(dynamic_update_slice_p, 1)
jet_rules[scatter_add_p] = _linear_in_two(scatter_add_p, 2)


def _select_n_rule(primals_in, series_in):
  which, *cases = primals_in
  return (select_n(which, *cases),
          [select_n(which, *terms) for terms in zip(*series_in[1:])])


jet_rules[select_n_p] = _select_n_rule


# ---------------------------------------------------------------------------------------
# Rules from derivatives and compositions

def _erf_deriv(x):
  return mul(_const(x, 2. / np.sqrt(np.pi)), exp(neg(square(x))))


def_deriv(erf_p, _erf_deriv)

def_comp(sqrt_p, lambda x: x ** 0.5)
def_comp(square_p, lambda x: x * x)
def_comp(rsqrt_p, lambda x: x ** -0.5)
def_comp(asinh_p, lambda x: log(x + sqrt(square(x) + 1)))
def_comp(acosh_p, lambda x: log(x + sqrt(square(x) - 1)))
def_comp(atanh_p, lambda x: 0.5 * log(div(1 + x, 1 - x)))
def_comp(clamp_p, lambda lo, x, hi: lax_min(lax_max(lo, x), hi))


def _rem_rule(primals_in, series_in):
  # x - y * floor(x / y) has rem's terms (floor's are zero); its value is rem's only where
  # x / y >= 0, so the value comes from rem itself.
  _, series = jet2(lambda x, y: x - y * floor(x / y), primals_in, series_in)
  return rem_p.bind(*primals_in), series


jet_rules[rem_p] = _rem_rule


def _cumulative_rule(combine: Callable):
  """cumprod/cummax/cummin through a prefix scan of ``combine``, whose pieces have rules
  (the windowed reduction XLA may use has none)."""
  def rule(primals_in, series_in, *, axis: int, reverse: bool):
    scan = partial(associative_scan, combine, axis=axis, reverse=reverse)
    return jet2(scan, primals_in, series_in)
  return rule


jet_rules[cumprod_p] = _cumulative_rule(mul)
jet_rules[cummax_p] = _cumulative_rule(lax_max)
jet_rules[cummin_p] = _cumulative_rule(lax_min)


def _integer_pow_rule(primals_in, series_in, *, y: int):
  if y == 0:
    return jet2(lambda x: full_like(x, 1), primals_in, series_in)
  p, terms = jet2(lambda x: _power_by_squaring(x, abs(y)), primals_in, series_in)
  if y > 0:
    return p, terms
  return _div_rule([full_like(p, 1), p], [[full_like(t, 0) for t in terms], terms])


def _power_by_squaring(x, n: int):
  """``x ** n`` for ``n > 0`` by multiplications."""
  result = None
  while n:
    if n % 2:
      result = x if result is None else mul(x, result)
    n //= 2
    if n:
      x = mul(x, x)
  return result


jet_rules[integer_pow_p] = _integer_pow_rule


# ---------------------------------------------------------------------------------------
# Rules by recurrences on the Taylor coefficients

def _exp_series(v0, u):
  """(v0, terms) of ``v = exp(u)`` (``v' = v u'``), given ``v0 = exp(u[0])``."""
  v = [v0]
  for k in range(1, len(u)):
    v.append(_term(v, u, k))
  return v[0], v[1:]


def _exp_rule(primals_in, series_in):
  x, = primals_in
  return _exp_series(exp(x), [x] + series_in[0])


jet_rules[exp_p] = _exp_rule


def _pow_rule(primals_in, series_in):
  # x ** y = exp(y log x)
  z0, zs = jet2(lambda x, y: mul(convert_element_type(y, get_aval(x).dtype), log(x)),
                primals_in, series_in)
  return _exp_series(pow_p.bind(*primals_in), [z0] + zs)


jet_rules[pow_p] = _pow_rule


def _logistic_series(x, terms):
  """(s, terms of s) for s = logistic(x): s' = e u' with e = s (1 - s)."""
  u = [x] + terms
  v = [logistic(x)]
  e = [v[0] * (1 - v[0])]
  for k in range(1, len(u)):
    v.append(_term(e, u, k))
    e.append((1 - v[0]) * v[k] - sum(v[j] * v[k - j] for j in range(1, k + 1)))
  return v[0], v[1:]


def _logistic_rule(primals_in, series_in):
  return _logistic_series(primals_in[0], series_in[0])


def _tanh_rule(primals_in, series_in):
  # tanh(x) = 2 logistic(2x) - 1
  s, terms = _logistic_series(2 * primals_in[0], [2 * t for t in series_in[0]])
  return 2 * s - 1, [2 * t for t in terms]


jet_rules[logistic_p] = _logistic_rule
jet_rules[tanh_p] = _tanh_rule


def _log_rule(primals_in, series_in):
  x, = primals_in
  u = [x] + series_in[0]
  v = [log(x)]
  for k in range(1, len(u)):   # u v' = u'
    conv = sum(j * v[j] * u[k - j] for j in range(1, k))
    v.append((u[k] - conv / k) / u[0])
  return v[0], v[1:]


jet_rules[log_p] = _log_rule


# expm1 = exp - 1, log1p(x) = log(1 + x), erfc = 1 - erf: the terms of exp, log and erf,
# the value from the primitive itself (exact near 0, where the composition is not).

def _expm1_rule(primals_in, series_in):
  return expm1(primals_in[0]), _exp_rule(primals_in, series_in)[1]


def _log1p_rule(primals_in, series_in):
  x, = primals_in
  return log1p(x), _log_rule([add(x, _const(x, 1))], series_in)[1]


def _erfc_rule(primals_in, series_in):
  _, terms = deriv_prop(erf_p, _erf_deriv, primals_in, series_in)
  return erfc(primals_in[0]), [neg(t) for t in terms]


jet_rules[expm1_p] = _expm1_rule
jet_rules[log1p_p] = _log1p_rule
jet_rules[erfc_p] = _erfc_rule


def _div_rule(primals_in, series_in):
  x, y = primals_in
  u = [x] + series_in[0]
  w = [y] + series_in[1]
  v = []
  for k in range(len(u)):   # v w = u
    conv = sum(v[j] * w[k - j] for j in range(k))
    v.append((u[k] - conv) / w[0])
  return v[0], v[1:]


jet_rules[div_p] = _div_rule


def _atan2_rule(primals_in, series_in):
  # atan2(x, y) = atan(x / y): integrate atan' = 1 / (1 + z^2) along z = x / y
  z0, zs = jet2(div, primals_in, series_in)
  one = _const(z0, 1)
  c0, cs = jet2(lambda z: div(one, 1 + square(z)), (z0,), (zs,))
  return _integrate([c0] + cs, [z0] + zs, atan2(*primals_in))


jet_rules[atan2_p] = _atan2_rule


def _erf_inv_rule(primals_in, series_in):
  # y = erf_inv(x) has y' = c x' with c = sqrt(pi)/2 exp(y^2): c's terms follow from y's
  # (through y^2 and exp), one order behind.
  x, = primals_in
  u = [x] + series_in[0]
  scale = np.sqrt(np.pi) / 2.
  v = [erf_inv(x)]
  sq = [square(v[0])]
  ex = [exp(sq[0])]
  c = [mul(scale, ex[0])]
  for k in range(1, len(u)):
    v.append(_term(c, u, k))
    if k == len(u) - 1:
      break
    sq.append(sum(v[k - j] * v[j] for j in range(k + 1)))
    ex.append(_term(ex, sq, k))
    c.append(scale * ex[k])
  return v[0], v[1:]


jet_rules[erf_inv_p] = _erf_inv_rule


def _sinusoid_rules(sin, cos, sign: int):
  """The rules of a (sin, cos) pair with sin' = cos and cos' = sign sin."""
  def series(primals_in, series_in):
    x, = primals_in
    u = [x] + series_in[0]
    s, c = [sin(x)], [cos(x)]
    for k in range(1, len(u)):
      s.append(_term(c, u, k))
      c.append(_term(s, u, k) * sign)
    return s, c

  def sin_rule(primals_in, series_in):
    s, _ = series(primals_in, series_in)
    return s[0], s[1:]

  def cos_rule(primals_in, series_in):
    _, c = series(primals_in, series_in)
    return c[0], c[1:]
  return sin_rule, cos_rule


jet_rules[sin_p], jet_rules[cos_p] = _sinusoid_rules(lax_sin, lax_cos, -1)
jet_rules[sinh_p], jet_rules[cosh_p] = _sinusoid_rules(sinh, cosh, 1)


def _bilinear_rule(prim):
  """The Cauchy product: ``v[k] = sum_j prim(u[j], w[k-j])``."""
  def rule(primals_in, series_in, **params):
    u = [primals_in[0]] + series_in[0]
    w = [primals_in[1]] + series_in[1]
    v = [sum(prim.bind(u[j], w[k - j], **params) for j in range(k + 1))
         for k in range(len(u))]
    return v[0], v[1:]
  return rule


for _p in (dot_general_p, mul_p, conv_general_dilated_p):
  jet_rules[_p] = _bilinear_rule(_p)


# ---------------------------------------------------------------------------------------
# Rules that choose among their operands

def _reduce_chooser_rule(prim):
  """reduce_max/min: each term is the mean of the operand's terms at the chosen places."""
  def rule(primals_in, series_in, *, axes, **params):
    operand, = primals_in
    terms, = series_in
    out = prim.bind(operand, axes=axes, **params)
    kept = [1 if i in axes else d for i, d in enumerate(get_aval(operand).shape)]
    chosen = convert_element_type(eq(operand, reshape(out, kept)),
                                      get_aval(terms[0]).dtype)
    counts = reduce_sum(chosen, axes)
    return out, [div(reduce_sum(mul(t, chosen), axes), counts) for t in terms]
  return rule


jet_rules[reduce_max_p] = _reduce_chooser_rule(reduce_max_p)
jet_rules[reduce_min_p] = _reduce_chooser_rule(reduce_min_p)


def _abs_rule(primals_in, series_in):
  x, = primals_in
  signs = select(lt(x, full_like(x, 0, shape=())), full_like(x, -1),
                     full_like(x, 1))
  return lax_abs(x), [signs * t for t in series_in[0]]


jet_rules[abs_p] = _abs_rule


def _broadcast_together(*xs):
  shape = broadcast_shapes(*(get_aval(x).shape for x in xs))
  out = []
  for x in xs:
    ndim = get_aval(x).ndim
    out.append(x if get_aval(x).shape == shape else
               broadcast_in_dim(x, shape, tuple(range(len(shape) - ndim, len(shape)))))
  return out


def _choose_rule(choose):
  """max/min: the chosen operand's terms, their mean where the operands tie."""
  def rule(primals_in, series_in):
    x, y = _broadcast_together(*primals_in)
    first, tie = choose(x, y), eq(x, y)
    out = select(first, x, y)

    def pick(a, b):
      a, b = _broadcast_together(a, b)
      return select(tie, (a + b) / 2, select(first, a, b))
    return out, [pick(a, b) for a, b in zip(*series_in)]
  return rule


jet_rules[max_p] = _choose_rule(gt)
jet_rules[min_p] = _choose_rule(lt)


# ---------------------------------------------------------------------------------------
# Call primitives

def _jit_rule(primals_in, series_in, *, jaxpr, **params):
  """A jit call of the jaxpr's Taylor-mode version (traced once per order and types)."""
  n, order = len(primals_in), len(series_in[0])
  flat = list(primals_in) + [t for terms in series_in for t in terms]

  def jet_of_body(*args):
    series = [args[n + i * order:n + (i + 1) * order] for i in range(n)]
    outs, out_series = _jet_flat(lambda *xs: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs),
                                 args[:n], series, order)
    return outs + [t for terms in out_series for t in terms]

  closed, consts = trace_hoisted(jet_of_body, [get_aval(x) for x in flat],
                                 cache_on=(jaxpr, ("jet", order)))
  params.pop("donated_invars", None)  # (one flag per operand: these are new operands)
  outs = jit_p.bind(*consts, *flat, jaxpr=closed, **params)
  m = len(jaxpr.out_avals)
  return outs[:m], [outs[m + i * order:m + (i + 1) * order] for i in range(m)]


jet_rules[jit_p] = _jit_rule


def _custom_call_rule(primals_in, series_in, *, call_jaxpr, **_):
  """custom_jvp/custom_vjp calls: the function itself, its rule ignored (as JAX's jet)."""
  return jet2(lambda *xs: eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *xs),
              primals_in, series_in)


jet_rules[custom_jvp_call_p] = _custom_call_rule
jet_rules[custom_vjp_call_p] = _custom_call_rule
