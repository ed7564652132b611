"""Differential sweep of dtypes: xjax against the reference JAX, value by value.

For about 500 functions (jnp ufuncs, reductions and composites, lax primitives, nn
activations, scipy.special, scipy.stats, fft, linalg) over bool, int8/16/32, uint8/32,
float16, bfloat16, float32 and complex64 operands (and mixed pairs for the binary ufuncs),
eagerly and under jit (and grad/vmap in float32), each result leaf is recorded as
[dtype, weak type, shape, value bytes] or the exception's class. `compare` prints each
case whose dtype, weak type or class differs, and those whose values differ by more than a
few ulps (`--bits`: any bit).

    /tmp/ref/bin/python tools/differential_dtypes.py record --out /tmp/dtypes_ref.json
    .venv/bin/python tools/differential_dtypes.py record --lib xjax --out /tmp/dtypes_xjax.json
    .venv/bin/python tools/differential_dtypes.py compare /tmp/dtypes_ref.json /tmp/dtypes_xjax.json

Not run by CI: it needs the reference JAX. A run takes about 10 minutes per library.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np

DT = ['bool', 'int8', 'int16', 'int32', 'uint8', 'uint32', 'float16', 'bfloat16', 'float32',
      'complex64']
MIXED = ('add', 'multiply', 'divide', 'power', 'maximum', 'equal', 'where', 'floor_divide',
         'remainder', 'arctan2', 'bitwise_and', 'left_shift', 'dot', 'logaddexp', 'copysign',
         'nextafter')


def _make(dt, shape=(6,)):
  """Operands with negatives, zero crossings and fractions where the dtype allows them."""
  from ml_dtypes import bfloat16
  base = np.array([0.3, 1, 2, 3, 5, 7, 0.5, 4.25, 1.5, 2.75, 6, 0.1])[:int(np.prod(shape))]
  base = base.reshape(shape)
  if dt == 'bool':
    return jnp.asarray(base > 2)
  if dt == 'bfloat16':
    return jnp.asarray((base - 2.5).astype(bfloat16))
  if dt.startswith('u'):
    return jnp.asarray(base.astype(dt))
  if dt.startswith('int'):
    return jnp.asarray((base - 3).astype(dt))
  if dt.startswith('complex'):
    return jnp.asarray((base - 2.5 + 1j * base).astype(dt))
  return jnp.asarray((base - 2.5).astype(dt))


UNARY = [
    'abs', 'negative', 'positive', 'sign', 'floor', 'ceil', 'round', 'rint', 'trunc',
    'fix', 'sqrt', 'cbrt', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p',
    'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh',
    'arcsinh', 'arccosh', 'arctanh', 'square', 'reciprocal', 'conj', 'real', 'imag',
    'angle', 'isnan', 'isinf', 'isfinite', 'signbit', 'logical_not', 'invert',
    'bitwise_not', 'deg2rad', 'rad2deg', 'sinc', 'i0', 'nan_to_num', 'iscomplex',
    'isreal', 'sum', 'prod', 'max', 'min', 'mean', 'var', 'std', 'argmax', 'argmin',
    'cumsum', 'cumprod', 'all', 'any', 'nansum', 'nanmean', 'median', 'ptp',
    'count_nonzero', 'sort', 'argsort', 'diff', 'ravel', 'flip', 'unique',
    'nonzero_size', 'around', 'clip01', 'float_power2', 'trace2', 'linalg_norm',
    'exp_neg', 'round1', 'floor_divide2', 'mod2', 'left_shift1', 'right_shift1',
    'matmul_self', 'dot_self', 'outer_self', 'cross3', 'histogram', 'bincount',
    'cumulative_sum', 'astype_f32', 'astype_i32', 'astype_bool', 'astype_bf16',
    'astype_c64', 'astype_u8'
]
BINARY = [
    'add', 'subtract', 'multiply', 'divide', 'true_divide', 'floor_divide', 'power',
    'float_power', 'remainder', 'mod', 'fmod', 'maximum', 'minimum', 'fmax', 'fmin',
    'arctan2', 'hypot', 'logaddexp', 'logaddexp2', 'copysign', 'nextafter', 'heaviside',
    'ldexp_', 'equal', 'not_equal', 'less', 'less_equal', 'greater', 'greater_equal',
    'logical_and', 'logical_or', 'logical_xor', 'bitwise_and', 'bitwise_or',
    'bitwise_xor', 'left_shift', 'right_shift', 'gcd', 'lcm', 'where', 'isclose', 'dot',
    'inner', 'kron', 'polyval', 'true_div_scalar', 'add_pyint', 'add_pyfloat',
    'mul_pycomplex', 'pow_pyint', 'sub_pybool'
]

def _unary(name, x):
  if name == 'nonzero_size': return jnp.nonzero(x, size=6)[0]
  if name == 'clip01': return jnp.clip(x, 0, 1)
  if name == 'float_power2': return jnp.float_power(x, 2)
  if name == 'trace2': return jnp.trace(x.reshape(2, 3))
  if name == 'linalg_norm': return jnp.linalg.norm(x)
  if name == 'exp_neg': return jnp.exp(-x)
  if name == 'round1': return jnp.round(x, 1)
  if name == 'floor_divide2': return x // 2
  if name == 'mod2': return x % 2
  if name == 'left_shift1': return x << 1
  if name == 'right_shift1': return x >> 1
  if name == 'matmul_self': return x.reshape(2, 3) @ x.reshape(3, 2)
  if name == 'dot_self': return jnp.dot(x, x)
  if name == 'outer_self': return jnp.outer(x, x)
  if name == 'cross3': return jnp.cross(x[:3], x[3:])
  if name == 'histogram': return jnp.histogram(x, bins=3)[0]
  if name == 'bincount': return jnp.bincount(x, length=8)
  if name == 'cumulative_sum': return jnp.cumulative_sum(x)
  if name.startswith('astype_'):
    return x.astype({'f32': jnp.float32, 'i32': jnp.int32, 'bool': jnp.bool_,
    'bf16': jnp.bfloat16, 'c64': jnp.complex64, 'u8': jnp.uint8}[name[7:]])
  return getattr(jnp, name)(x)

def _binary(name, x, y):
  if name == 'ldexp_': return jnp.ldexp(x, jnp.asarray([0, 1, 2, 3, 1, 0], jnp.int32))
  if name == 'where': return jnp.where(x > 1, x, y)
  if name == 'true_div_scalar': return x / 2
  if name == 'add_pyint': return x + 3
  if name == 'add_pyfloat': return x + 1.5
  if name == 'mul_pycomplex': return x * 2j
  if name == 'pow_pyint': return x ** 2
  if name == 'sub_pybool': return x - True
  if name == 'polyval': return jnp.polyval(x[:3], y)
  return getattr(jnp, name)(x, y)

def _cases():
  """The lax/nn/scipy/fft/linalg cases and the matrix cases (built once the library is imported)."""
  F = {
   'lax.abs': lambda x: lax.abs(x), 'lax.sign': lambda x: lax.sign(x), 'lax.neg': lax.neg,
   'lax.floor': lax.floor, 'lax.round': lax.round,
   'lax.round_even': lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
   'lax.exp': lax.exp, 'lax.exp2': lax.exp2, 'lax.log': lax.log, 'lax.tanh': lax.tanh,
   'lax.logistic': lax.logistic, 'lax.sqrt': lax.sqrt, 'lax.rsqrt': lax.rsqrt,
   'lax.cbrt': lax.cbrt, 'lax.erf': lax.erf, 'lax.erfc': lax.erfc, 'lax.erf_inv': lax.erf_inv,
   'lax.lgamma': lax.lgamma, 'lax.digamma': lax.digamma, 'lax.bessel_i0e': lax.bessel_i0e,
   'lax.bessel_i1e': lax.bessel_i1e, 'lax.is_finite': lax.is_finite,
   'lax.population_count': lax.population_count, 'lax.clz': lax.clz, 'lax.not': lax.bitwise_not,
   'lax.imag': lax.imag, 'lax.real': lax.real, 'lax.conj': lax.conj,
   'lax.square': lax.square,
   'lax.integer_pow3': lambda x: lax.integer_pow(x, 3), 'lax.integer_pow-2': lambda x: lax.integer_pow(x, -2),
   'lax.tan': lax.tan,
   'lax.asin': lax.asin, 'lax.acos': lax.acos, 'lax.atan': lax.atan, 'lax.asinh': lax.asinh,
   'lax.acosh': lax.acosh, 'lax.atanh': lax.atanh, 'lax.sinh': lax.sinh, 'lax.cosh': lax.cosh,
   'lax.expm1': lax.expm1, 'lax.log1p': lax.log1p,
   'lax.reduce_precision': lambda x: lax.reduce_precision(x, 5, 10),
   'lax.cumsum': lambda x: lax.cumsum(x), 'lax.cumprod': lambda x: lax.cumprod(x),
   'lax.cummax': lambda x: lax.cummax(x), 'lax.cumlogsumexp': lambda x: lax.cumlogsumexp(x),
   'lax.sort': lambda x: lax.sort(x), 'lax.top_k': lambda x: lax.top_k(x, 3),
   'lax.argmax': lambda x: lax.argmax(x, 0, jnp.int32),
   'lax.reduce_max': lambda x: lax.reduce_max(x, (0,)),
   'lax.convert_f16': lambda x: lax.convert_element_type(x, jnp.float16),
   'lax.convert_i8': lambda x: lax.convert_element_type(x, jnp.int8),
   'lax.convert_u32': lambda x: lax.convert_element_type(x, jnp.uint32),
   'lax.convert_bool': lambda x: lax.convert_element_type(x, jnp.bool_),
   'lax.bitcast_i': lambda x: lax.bitcast_convert_type(x, {1: jnp.int8, 2: jnp.int16, 4: jnp.int32, 8: jnp.int64}[x.dtype.itemsize] if x.dtype.itemsize != 8 else jnp.float32),
   'lax.rev': lambda x: lax.rev(x, (0,)),
   'lax.pad': lambda x: lax.pad(x, jnp.zeros((), x.dtype), ((1, 2, 1),)),
   'lax.clamp': lambda x: lax.clamp(x[1], x, x[4]),
   'lax.rem': lambda x: lax.rem(x, x[::-1]), 'lax.div': lambda x: lax.div(x, x[::-1]),
   'lax.pow': lambda x: lax.pow(x, x[::-1]), 'lax.atan2': lambda x: lax.atan2(x, x[::-1]),
   'lax.max': lambda x: lax.max(x, x[::-1]),
   'lax.nextafter': lambda x: lax.nextafter(x, x[::-1]),
   'lax.shift_left': lambda x: lax.shift_left(x, x[::-1]),
   'lax.shift_right_a': lambda x: lax.shift_right_arithmetic(x, x[::-1]),
   'lax.shift_right_l': lambda x: lax.shift_right_logical(x, x[::-1]),
   'lax.igamma': lambda x: lax.igamma(x, x[::-1]),
   'lax.igammac': lambda x: lax.igammac(x, x[::-1]),
   'lax.betainc': lambda x: lax.betainc(x, x[::-1], x / 10),
   'lax.zeta': lambda x: lax.zeta(x, x[::-1]),
   'lax.polygamma': lambda x: lax.polygamma(jnp.ones_like(x), x),
   'lax.random_gamma_grad': lambda x: lax.random_gamma_grad(x, x[::-1]),
   'lax.dot': lambda x: lax.dot(x, x),
   'lax.dot_pet': lambda x: lax.dot(x, x, preferred_element_type=jnp.float32),
   'lax.reduce_window': lambda x: lax.reduce_window(x, jnp.zeros((), x.dtype), lax.add, (2,), (1,), 'VALID'),
   'nn.relu': jax.nn.relu, 'nn.gelu': jax.nn.gelu,
   'nn.gelu_exact': lambda x: jax.nn.gelu(x, approximate=False), 'nn.silu': jax.nn.silu,
   'nn.softplus': jax.nn.softplus,
   'nn.sigmoid': jax.nn.sigmoid, 'nn.log_sigmoid': jax.nn.log_sigmoid, 'nn.elu': jax.nn.elu,
   'nn.selu': jax.nn.selu, 'nn.celu': jax.nn.celu, 'nn.leaky_relu': jax.nn.leaky_relu,
   'nn.hard_tanh': jax.nn.hard_tanh, 'nn.relu6': jax.nn.relu6,
   'nn.hard_sigmoid': jax.nn.hard_sigmoid, 'nn.hard_swish': jax.nn.hard_swish,
   'nn.mish': jax.nn.mish,
   'nn.softmax': jax.nn.softmax, 'nn.log_softmax': jax.nn.log_softmax,
   'nn.logsumexp': jax.nn.logsumexp, 'nn.standardize': jax.nn.standardize, 'nn.glu': jax.nn.glu,
   'nn.one_hot': lambda x: jax.nn.one_hot(x, 8), 'nn.squareplus': jax.nn.squareplus,
   'nn.sparse_plus': jax.nn.sparse_plus, 'nn.tanh': jax.nn.tanh,
   'nn.soft_sign': jax.nn.soft_sign,
   'sp.erf': sp.erf, 'sp.erfc': sp.erfc, 'sp.erfinv': sp.erfinv, 'sp.expit': sp.expit,
   'sp.logit': sp.logit, 'sp.gammaln': sp.gammaln, 'sp.digamma': sp.digamma,
   'sp.gamma': sp.gamma,
   'sp.i0e': sp.i0e, 'sp.i1': sp.i1, 'sp.ndtr': sp.ndtr, 'sp.ndtri': sp.ndtri,
   'sp.log_ndtr': sp.log_ndtr, 'sp.entr': sp.entr, 'sp.xlogy': lambda x: sp.xlogy(x, x[::-1]),
   'sp.xlog1py': lambda x: sp.xlog1py(x, x[::-1]), 'sp.logsumexp': sp.logsumexp,
   'sp.softmax': sp.softmax, 'sp.sinc_like_spence': sp.spence, 'sp.exp1': sp.exp1,
   'sp.expi': sp.expi,
   'sp.betaln': lambda x: sp.betaln(x, x[::-1]),
   'sp.gammainc': lambda x: sp.gammainc(x, x[::-1]),
   'sp.rel_entr': lambda x: sp.rel_entr(x, x[::-1]),
   'sp.kl_div': lambda x: sp.kl_div(x, x[::-1]),
   'sp.polygamma': lambda x: sp.polygamma(1, x), 'sp.zeta': lambda x: sp.zeta(x, x[::-1]),
   'sp.factorial': sp.factorial, 'sp.bernoulli': lambda x: sp.bernoulli(5),
   'sp.poch': lambda x: sp.poch(x, x[::-1]),
   'sp.log_softmax': sp.log_softmax,
   'sp.sph_harm_like_lpmn': lambda x: sp.lpmn_values(2, 2, x / 10, False),
   'sp.hyp1f1': lambda x: sp.hyp1f1(x, x[::-1], x / 10),
   'st.norm.pdf': st.norm.pdf, 'st.norm.cdf': st.norm.cdf, 'st.norm.logpdf': st.norm.logpdf,
   'st.norm.ppf': lambda x: st.norm.ppf(x / 10), 'st.t.logpdf': lambda x: st.t.logpdf(x, 3.0),
   'st.beta.logpdf': lambda x: st.beta.logpdf(x / 10, 2.0, 3.0),
   'st.gamma.logpdf': lambda x: st.gamma.logpdf(x, 2.0),
   'st.poisson.logpmf': lambda x: st.poisson.logpmf(x, 3.0),
   'st.bernoulli.logpmf': lambda x: st.bernoulli.logpmf(x, 0.3), 'st.expon.cdf': st.expon.cdf,
   'st.laplace.logpdf': st.laplace.logpdf, 'st.logistic.cdf': st.logistic.cdf,
   'st.uniform.pdf': st.uniform.pdf, 'st.cauchy.logpdf': st.cauchy.logpdf,
   'st.chi2.logpdf': lambda x: st.chi2.logpdf(x, 3),
   'st.multivariate_normal': lambda x: st.multivariate_normal.logpdf(x[:3], jnp.zeros(3), jnp.eye(3)),
   'fft.fft': jnp.fft.fft, 'fft.rfft': jnp.fft.rfft, 'fft.ifft': jnp.fft.ifft,
   'fft.irfft': jnp.fft.irfft, 'fft.fftfreq': lambda x: jnp.fft.fftfreq(6, 0.5),
   'fft.fftshift': jnp.fft.fftshift,
   'linalg.norm': jnp.linalg.norm, 'linalg.norm1': lambda x: jnp.linalg.norm(x, 1),
   'linalg.norminf': lambda x: jnp.linalg.norm(x, jnp.inf),
   'linalg.vector_norm': jnp.linalg.vector_norm,
  }
  MF = {
   'linalg.inv': jnp.linalg.inv, 'linalg.det': jnp.linalg.det,
   'linalg.slogdet': jnp.linalg.slogdet, 'linalg.solve': lambda a: jnp.linalg.solve(a, a[0]),
   'linalg.pinv': jnp.linalg.pinv,
   'linalg.qr': jnp.linalg.qr, 'linalg.svdvals': jnp.linalg.svdvals,
   'linalg.eigvalsh': lambda a: jnp.linalg.eigvalsh(a + a.T.conj()),
   'linalg.matrix_rank': jnp.linalg.matrix_rank,
   'linalg.matrix_power': lambda a: jnp.linalg.matrix_power(a, 3),
   'linalg.cond': jnp.linalg.cond, 'linalg.lstsq': lambda a: jnp.linalg.lstsq(a, a[0])[0],
   'linalg.trace': jnp.linalg.trace,
   'linalg.matrix_norm': jnp.linalg.matrix_norm,
   'linalg.norm_fro': lambda a: jnp.linalg.norm(a),
   'linalg.norm_nuc': lambda a: jnp.linalg.norm(a, 'nuc'),
   'linalg.norm2': lambda a: jnp.linalg.norm(a, 2),
   'linalg.cholesky': lambda a: jnp.linalg.cholesky(a @ a.T.conj() + 3 * jnp.eye(3, dtype=a.dtype)),
   'sla.expm': sla.expm, 'sla.lu': sla.lu,
   'sla.solve_triangular': lambda a: sla.solve_triangular(jnp.triu(a) + 5 * jnp.eye(3, dtype=a.dtype), a[0]),
   'sla.cho_solve': lambda a: sla.cho_solve(sla.cho_factor(a @ a.T.conj() + 3 * jnp.eye(3, dtype=a.dtype)), a[0]),
   'sla.det': sla.det, 'sla.inv': sla.inv, 'sla.sqrtm_like_funm': lambda a: sla.expm(a / 10),
   'linalg.eigh_vals': lambda a: jnp.linalg.eigh(a + a.T.conj())[0],
   'linalg.svd_s': lambda a: jnp.linalg.svd(a)[1],
   'linalg.tensorsolve_like': lambda a: jnp.linalg.multi_dot([a, a, a]),
   'jnp.tril': jnp.tril, 'jnp.diag': jnp.diag, 'jnp.trace': jnp.trace,
   'jnp.matmul': lambda a: a @ a, 'jnp.einsum': lambda a: jnp.einsum('ij,jk->ik', a, a),
   'jnp.tensordot': lambda a: jnp.tensordot(a, a),
   'jnp.vdot': lambda a: jnp.vdot(a, a), 'jnp.inner': lambda a: jnp.inner(a, a),
   'jnp.cumsum0': lambda a: jnp.cumsum(a, axis=0), 'jnp.sum_axis': lambda a: jnp.sum(a, axis=1),
   'jnp.mean_axis': lambda a: jnp.mean(a, axis=0),
   'jnp.std_axis': lambda a: jnp.std(a, axis=1),
   'jnp.argsort_axis': lambda a: jnp.argsort(a, axis=0), 'jnp.fft2': jnp.fft.fft2,
   'jnp.rfft2': jnp.fft.rfft2,
  }
  return F, MF


def _record_one(f):
  try:
    out = jax.tree_util.tree_leaves(f())
  except Exception as e:  # (the class is what is compared)
    return 'ERR ' + type(e).__name__
  res = []
  for o in out:
    a = np.asarray(o)
    res.append([str(a.dtype), bool(getattr(o, 'weak_type', False)), list(a.shape),
                a.tobytes().hex()])
  return res


def _float_sum(f):
  return lambda v: jnp.sum(jnp.real(jnp.asarray(jax.tree_util.tree_leaves(f(v))[0],
                                                 jnp.float32)))


def record() -> dict:
  F, MF = _cases()
  out = {}
  for name in UNARY:
    for dt in DT:
      x = _make(dt)
      out[f'{name}|{dt}|eager'] = _record_one(lambda: _unary(name, x))
      out[f'{name}|{dt}|jit'] = _record_one(lambda: jax.jit(lambda a: _unary(name, a))(x))
  for name in BINARY:
    for dt in DT:
      for dt2 in (DT if name in MIXED else [dt]):
        x, y = _make(dt), _make(dt2)
        out[f'{name}|{dt},{dt2}|eager'] = _record_one(lambda: _binary(name, x, y))
        if dt == dt2 or name in ('add', 'where', 'divide', 'power'):
          out[f'{name}|{dt},{dt2}|jit'] = _record_one(
              lambda: jax.jit(lambda a, b: _binary(name, a, b))(x, y))
  for name, f in F.items():
    for dt in DT[:2] + DT[3:]:
      x = _make(dt)
      out[f'{name}|{dt}|eager'] = _record_one(lambda: f(x))
      out[f'{name}|{dt}|jit'] = _record_one(lambda: jax.jit(f)(x))
      if dt == 'float32':
        out[f'{name}|{dt}|grad'] = _record_one(lambda: jax.grad(_float_sum(f))(x))
        out[f'{name}|{dt}|vmap'] = _record_one(lambda: jax.vmap(f)(jnp.stack([x, x * 0.5])))
  for name, f in MF.items():
    for dt in ['int32', 'float16', 'bfloat16', 'float32', 'complex64']:
      a = _make(dt, (3, 3))
      out[f'{name}|{dt}|eager'] = _record_one(lambda: f(a))
      out[f'{name}|{dt}|jit'] = _record_one(lambda: jax.jit(f)(a))
      if dt == 'float32':
        out[f'{name}|{dt}|grad'] = _record_one(lambda: jax.grad(_float_sum(f))(a))
  return out


def _values(entry):
  from ml_dtypes import bfloat16
  dtype = bfloat16 if entry[0] == 'bfloat16' else np.dtype(entry[0])
  return np.frombuffer(bytes.fromhex(entry[3]), dtype).reshape(entry[2])


def _close(a, b) -> bool:
  """Values within a few ulps of the dtype (NaNs equal)."""
  a, b = _values(a), _values(b)
  if a.dtype.kind not in 'fc' and str(a.dtype) != 'bfloat16':
    return np.array_equal(a, b)
  wide = np.complex128 if a.dtype.kind == 'c' else np.float64
  eps = float(np.finfo(np.float16 if str(a.dtype) == 'bfloat16' else
                       (np.float32 if a.dtype.kind == 'c' else a.dtype)).eps)
  if str(a.dtype) == 'bfloat16':
    eps = 2.0 ** -7
  return np.allclose(a.astype(wide), b.astype(wide), rtol=4 * eps, atol=4 * eps,
                     equal_nan=True)


def compare(ref_path: str, got_path: str, bits: bool) -> int:
  with open(ref_path) as f:
    ref = json.load(f)
  with open(got_path) as f:
    got = json.load(f)
  counts = {'class': 0, 'type': 0, 'value': 0, 'missing': 0}
  for name in sorted(ref):
    r, g = ref[name], got.get(name)
    if g is None:
      counts['missing'] += 1
    elif r == g:
      continue
    elif isinstance(r, str) or isinstance(g, str):
      counts['class'] += 1
      print(f'CLASS {name}: ref {r if isinstance(r, str) else "ok"}, '
            f'xjax {g if isinstance(g, str) else "ok"}')
    elif [e[:3] for e in r] != [e[:3] for e in g]:
      counts['type'] += 1
      print(f'TYPE  {name}: ref {[e[:3] for e in r]}, xjax {[e[:3] for e in g]}')
    elif bits or not all(_close(a, b) for a, b in zip(r, g)):
      counts['value'] += 1
      print(f'VALUE {name}: ref {[_values(e).tolist() for e in r]}, '
            f'xjax {[_values(e).tolist() for e in g]}')
  print(f'{len(ref)} reference cases; mismatches: {counts}')
  return 0


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  sub = parser.add_subparsers(dest='mode', required=True)
  rec_p = sub.add_parser('record')
  rec_p.add_argument('--lib', choices=('jax', 'xjax'), default='jax')
  rec_p.add_argument('--out', required=True)
  cmp_p = sub.add_parser('compare')
  cmp_p.add_argument('ref')
  cmp_p.add_argument('got')
  cmp_p.add_argument('--bits', action='store_true', help='report any differing bit')
  args = parser.parse_args()
  if args.mode == 'compare':
    return compare(args.ref, args.got, args.bits)
  _import(args.lib)
  warnings.simplefilter('ignore')
  with open(args.out, 'w') as f:
    json.dump(record(), f)
  return 0


def _import(lib: str) -> None:
  """Binds the library's modules as this module's globals (the cases' namespace)."""
  global jax, jnp, lax, sp, sla, st
  if lib == 'xjax':
    import xjax as jax
  else:
    import jax
  import importlib
  jnp = importlib.import_module(f'{lib}.numpy')
  lax = importlib.import_module(f'{lib}.lax')
  sp = importlib.import_module(f'{lib}.scipy.special')
  sla = importlib.import_module(f'{lib}.scipy.linalg')
  st = importlib.import_module(f'{lib}.scipy.stats')


if __name__ == '__main__':
  sys.exit(main())
