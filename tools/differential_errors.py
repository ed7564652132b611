"""Compares the exceptions xjax and the reference JAX raise for the same bad inputs.

Each case is a short expression over the public API (wrong shapes, dtypes and ranks,
traced values where static ones are needed, out-of-range axes, bad keyword values, misuse
of the transformations). The `record` mode runs every case under one library and writes
{case: [exception class, first line of its message]} ("OK" when nothing is raised) as JSON;
`compare` prints the cases whose exception class differs (and, with --messages, those whose
first message line differs too).

    .venv/bin/python tools/differential_errors.py record --lib xjax --out /tmp/xjax_errors.json
    /tmp/ref/bin/python tools/differential_errors.py record --lib jax --out /tmp/jax_errors.json
    python tools/differential_errors.py compare /tmp/jax_errors.json /tmp/xjax_errors.json
    python tools/differential_errors.py both --ref-python /tmp/ref/bin/python   # all three steps

Not run by CI: it needs the reference JAX, which xjax's environment does not hold.
"""
from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------
# The cases: name -> expression, evaluated with the namespace `_namespace` builds.

BINARY_UFUNCS = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
                 "float_power", "remainder", "mod", "fmod", "maximum", "minimum", "fmax", "fmin",
                 "arctan2", "hypot", "logaddexp", "logaddexp2", "copysign", "nextafter",
                 "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                 "logical_and", "logical_or", "logical_xor", "heaviside", "divmod"]
INT_BINARY_UFUNCS = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
                     "gcd", "lcm"]
UNARY_FLOAT_ONLY = ["floor", "ceil", "trunc", "rint", "signbit", "spacing", "frexp", "modf",
                    "cbrt", "deg2rad", "rad2deg", "isposinf", "isneginf", "i0", "sinc", "fix"]
REDUCTIONS = ["sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin", "argmax",
              "argmin", "any", "all", "ptp", "nansum", "nanprod", "nanmean", "nanstd", "nanvar",
              "nanmax", "nanmin", "nanargmax", "nanargmin", "median", "nanmedian", "cumsum",
              "cumprod", "count_nonzero", "logsumexp"]
LINALG_SQUARE = ["inv", "det", "slogdet", "eigh", "eig", "eigvals", "eigvalsh", "cholesky",
                 "matrix_power2", "tensorinv"]
FFTS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
FFTNS = ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]
SPECIAL_BINARY = ["xlogy", "xlog1py", "gammainc", "gammaincc", "betaln", "zeta", "polygamma",
                  "kl_div", "rel_entr", "entr2"]
SPECIAL_UNARY = ["gammaln", "digamma", "erf", "erfc", "erfinv", "ndtr", "ndtri", "log_ndtr",
                 "expit", "logit", "i0", "i0e", "i1", "i1e", "gamma", "spence", "bernoulli",
                 "factorial"]


def cases() -> dict[str, str]:
  c: dict[str, str] = {}
  # -- broadcasting of binary ufuncs: same rank, different rank, three operands
  for f in BINARY_UFUNCS:
    c[f"jnp.{f} same rank"] = f"jnp.{f}(f3, f4)"
    c[f"jnp.{f} diff rank"] = f"jnp.{f}(f3, f24)"
    c[f"jnp.{f} list arg"] = f"jnp.{f}([1., 2.], f2)"
    c[f"jnp.{f} complex"] = f"jnp.{f}(c3, c3)"
  for f in INT_BINARY_UFUNCS:
    c[f"jnp.{f} float"] = f"jnp.{f}(f3, f3)"
    c[f"jnp.{f} same rank"] = f"jnp.{f}(i3, i4)"
    c[f"jnp.{f} diff rank"] = f"jnp.{f}(i3, jnp.ones((2, 4), int))"
  for op in ["+", "-", "*", "/", "//", "%", "**", "<", "==", "&", "@"]:
    c[f"operator {op} same rank"] = f"(b3 {op} b4) if '{op}' == '&' else (f3 {op} f4)"
    c[f"operator {op} diff rank"] = f"(b3 {op} jnp.ones((2, 4), bool)) if '{op}' == '&' else (f3 {op} f24)"
  c["operator + string"] = "f3 + 'a'"
  c["operator + None"] = "f3 + None"
  c["operator + list of str"] = "f3 + ['a', 'b', 'c']"
  c["operator + object"] = "f3 + object()"
  c["operator bool on array"] = "bool(f3)"
  c["operator int on array"] = "int(f3)"
  c["operator float on array"] = "float(f3)"
  c["operator index on float array"] = "[1, 2, 3][jnp.float32(1)]"
  c["operator len of scalar"] = "len(jnp.float32(1))"
  c["operator iter of scalar"] = "list(jnp.float32(1))"
  c["operator @ scalar"] = "f3 @ 2.0"
  c["operator invert float"] = "~f3"
  c["operator << float"] = "f3 << 1"
  c["operator neg bool"] = "-b3"
  c["operator abs string?"] = "abs(jnp.array(['a']))"
  c["array of strings"] = "jnp.array(['a', 'b'])"
  c["array ragged"] = "jnp.array([[1, 2], [3]])"
  c["array of object"] = "jnp.array(object())"
  c["array bad dtype"] = "jnp.array([1, 2], dtype='foo')"
  c["asarray of None"] = "jnp.asarray(None)"
  c["array of dict"] = "jnp.array({'a': 1})"
  c["jnp.where 3 operands"] = "jnp.where(f23 > 0, f4, 1.)"
  c["jnp.where 1 arg with size traced"] = "J(lambda x: jnp.where(x > 0))(f3)"
  c["jnp.where x without y"] = "jnp.where(f3 > 0, f3)"
  c["jnp.select mismatch"] = "jnp.select([b3], [f3, f3])"
  c["jnp.select shapes"] = "jnp.select([b3], [f4])"
  c["jnp.clip shapes"] = "jnp.clip(f3, f4)"
  c["jnp.clip a_min kw"] = "jnp.clip(f3, a_min=0.)"
  c["jnp.piecewise mismatch"] = "jnp.piecewise(f3, [b3, b3], [1.])"
  for f in UNARY_FLOAT_ONLY:
    c[f"jnp.{f} complex"] = f"jnp.{f}(c3)"
  c["jnp.sqrt string"] = "jnp.sqrt('a')"
  c["jnp.sin list"] = "jnp.sin([1., 2.])"
  c["jnp.sin tuple"] = "jnp.sin((1., 2.))"
  c["jnp.sin None"] = "jnp.sin(None)"
  c["jnp.exp out="] = "jnp.exp(f3, out=f3)"
  c["jnp.negative bool"] = "jnp.negative(b3)"
  c["jnp.invert float"] = "jnp.invert(f3)"
  c["jnp.sign bool"] = "jnp.sign(b3)"
  c["jnp.isnan string"] = "jnp.isnan('x')"
  c["jnp.round decimals float"] = "jnp.round(f3, 1.5)"
  c["jnp.round decimals traced"] = "J(lambda d: jnp.round(f3, d))(1)"
  c["jnp.ldexp float exponent"] = "jnp.ldexp(f3, f3)"
  c["jnp.conj string"] = "jnp.conj('a')"
  c["jnp.floor_divide complex"] = "jnp.floor_divide(c3, c3)"
  c["jnp.remainder complex"] = "jnp.remainder(c3, c3)"
  c["jnp.maximum complex ok"] = "jnp.maximum(c3, c3)"
  c["jnp.add.reduce axis oob"] = "jnp.add.reduce(f23, axis=3)"
  c["jnp.add.outer list"] = "jnp.add.outer([1], f3)"
  c["jnp.add.at bad idx"] = "jnp.add.at(f3, 5.0, 1.)"
  c["jnp.add.accumulate 0d"] = "jnp.add.accumulate(jnp.float32(1))"
  c["jnp.ufunc call wrong nargs"] = "jnp.add(f3)"
  c["jnp.sin two args"] = "jnp.sin(f3, f3)"

  # -- reductions
  for f in REDUCTIONS:
    mod = "jsp.special" if f == "logsumexp" else "jnp"
    c[f"{f} axis oob"] = f"{mod}.{f}(f23, axis=2)"
    c[f"{f} axis neg oob"] = f"{mod}.{f}(f23, axis=-3)"
    c[f"{f} axis float"] = f"{mod}.{f}(f23, axis=1.0)"
    c[f"{f} axis traced"] = f"J(lambda a: {mod}.{f}(f23, axis=a))(1)"
    c[f"{f} axis duplicate"] = f"{mod}.{f}(f23, axis=(0, 0))"
    c[f"{f} string"] = f"{mod}.{f}('abc')"
    c[f"{f} keepdims traced"] = f"J(lambda k: {mod}.{f}(f23, keepdims=k))(True)"
  c["sum dtype bad"] = "jnp.sum(f3, dtype='foo')"
  c["sum where shape"] = "jnp.sum(f23, where=b4)"
  c["sum initial array"] = "jnp.sum(f3, initial=f3)"
  c["max empty"] = "jnp.max(jnp.zeros((0,)))"
  c["argmax empty"] = "jnp.argmax(jnp.zeros((0,)))"
  c["min empty axis"] = "jnp.min(jnp.zeros((0, 3)), axis=0)"
  c["mean dtype int"] = "jnp.mean(f3, dtype=jnp.int32)"
  c["std ddof traced"] = "J(lambda d: jnp.std(f3, ddof=d))(1)"
  c["var correction and ddof"] = "jnp.var(f3, ddof=1, correction=1)"
  c["quantile q>1"] = "jnp.quantile(f3, 1.5)"
  c["quantile method"] = "jnp.quantile(f3, 0.5, method='foo')"
  c["percentile traced axis"] = "J(lambda a: jnp.percentile(f23, 50, axis=a))(0)"
  c["average weights shape"] = "jnp.average(f23, weights=f4)"
  c["average weights no axis"] = "jnp.average(f23, weights=f3)"
  c["cumsum dtype bad"] = "jnp.cumsum(f3, dtype='foo')"
  c["argmax keepdims traced"] = "J(lambda k: jnp.argmax(f3, keepdims=k))(True)"
  c["bincount float"] = "jnp.bincount(f3)"
  c["bincount traced length"] = "J(lambda x: jnp.bincount(x))(i3)"
  c["histogram bins traced"] = "J(lambda b: jnp.histogram(f3, bins=b))(3)"
  c["unique under jit"] = "J(lambda x: jnp.unique(x))(f3)"
  c["nonzero under jit"] = "J(lambda x: jnp.nonzero(x))(f3)"
  c["argwhere under jit"] = "J(lambda x: jnp.argwhere(x))(f3)"

  # -- shaping
  c["reshape size"] = "jnp.reshape(f23, (4,))"
  c["reshape two -1"] = "jnp.reshape(f23, (-1, -1))"
  c["reshape -2"] = "jnp.reshape(f23, (-2, 3))"
  c["reshape float dim"] = "jnp.reshape(f23, (2.0, 3))"
  c["reshape traced"] = "J(lambda n: jnp.reshape(f23, (n, 3)))(2)"
  c["reshape order"] = "jnp.reshape(f23, (3, 2), order='X')"
  c["reshape newshape kw"] = "jnp.reshape(f23, newshape=(3, 2))"
  c["method reshape size"] = "f23.reshape(5)"
  c["ravel order"] = "jnp.ravel(f23, order='X')"
  c["transpose bad axes"] = "jnp.transpose(f23, (0, 2))"
  c["transpose dup axes"] = "jnp.transpose(f23, (0, 0))"
  c["transpose too few"] = "jnp.transpose(f23, (0,))"
  c["method T args"] = "f23.transpose(1, 2)"
  c["squeeze non-1"] = "jnp.squeeze(f23, 0)"
  c["squeeze oob"] = "jnp.squeeze(f23, 5)"
  c["expand_dims oob"] = "jnp.expand_dims(f23, 4)"
  c["expand_dims dup"] = "jnp.expand_dims(f23, (0, 0))"
  c["moveaxis oob"] = "jnp.moveaxis(f23, 0, 5)"
  c["moveaxis len mismatch"] = "jnp.moveaxis(f23, (0, 1), (0,))"
  c["swapaxes oob"] = "jnp.swapaxes(f23, 0, 5)"
  c["rollaxis oob"] = "jnp.rollaxis(f23, 5)"
  c["concatenate mismatch"] = "jnp.concatenate([f23, f4])"
  c["concatenate shapes"] = "jnp.concatenate([f23, jnp.ones((2, 4))])"
  c["concatenate axis oob"] = "jnp.concatenate([f23, f23], axis=2)"
  c["concatenate empty"] = "jnp.concatenate([])"
  c["concatenate scalars"] = "jnp.concatenate([jnp.float32(1), jnp.float32(2)])"
  c["concatenate axis None"] = "jnp.concatenate([f23, f4], axis=None)"
  c["stack mismatch"] = "jnp.stack([f3, f4])"
  c["stack empty"] = "jnp.stack([])"
  c["stack axis oob"] = "jnp.stack([f3, f3], axis=3)"
  c["hstack mismatch"] = "jnp.hstack([f23, jnp.ones((3, 3))])"
  c["vstack mismatch"] = "jnp.vstack([f3, f4])"
  c["dstack mismatch"] = "jnp.dstack([f3, f4])"
  c["column_stack mismatch"] = "jnp.column_stack([f3, f4])"
  c["block mismatch"] = "jnp.block([[f23, f3]])"
  c["split unequal"] = "jnp.split(f4, 3)"
  c["split traced"] = "J(lambda n: jnp.split(f4, n))(2)"
  c["split axis oob"] = "jnp.split(f4, 2, axis=1)"
  c["array_split zero"] = "jnp.array_split(f4, 0)"
  c["hsplit 0d"] = "jnp.hsplit(jnp.float32(1), 2)"
  c["vsplit 1d"] = "jnp.vsplit(f4, 2)"
  c["tile traced"] = "J(lambda n: jnp.tile(f3, n))(2)"
  c["tile negative"] = "jnp.tile(f3, -1)"
  c["repeat traced"] = "J(lambda n: jnp.repeat(f3, n))(2)"
  c["repeat mismatched"] = "jnp.repeat(f3, jnp.array([1, 2]))"
  c["repeat negative"] = "jnp.repeat(f3, -1)"
  c["repeat axis oob"] = "jnp.repeat(f3, 2, axis=1)"
  c["broadcast_to bad"] = "jnp.broadcast_to(f3, (4,))"
  c["broadcast_to fewer dims"] = "jnp.broadcast_to(f23, (3,))"
  c["broadcast_to traced"] = "J(lambda n: jnp.broadcast_to(f3, (n, 3)))(2)"
  c["broadcast_arrays bad"] = "jnp.broadcast_arrays(f3, f4)"
  c["broadcast_shapes bad"] = "jnp.broadcast_shapes((3,), (4,))"
  c["pad negative"] = "jnp.pad(f3, -1)"
  c["pad bad widths"] = "jnp.pad(f23, ((1, 1), (1, 1), (1, 1)))"
  c["pad mode"] = "jnp.pad(f3, 1, mode='foo')"
  c["pad traced width"] = "J(lambda n: jnp.pad(f3, n))(1)"
  c["pad reflect empty"] = "jnp.pad(jnp.zeros((0,)), 1, mode='reflect')"
  c["pad stat_length kw bad"] = "jnp.pad(f3, 1, mode='constant', stat_length=2)"
  c["roll axis oob"] = "jnp.roll(f3, 1, axis=2)"
  c["roll shift/axis mismatch"] = "jnp.roll(f23, (1, 2, 3), axis=(0, 1))"
  c["flip axis oob"] = "jnp.flip(f3, 1)"
  c["rot90 1d"] = "jnp.rot90(f3)"
  c["rot90 same axes"] = "jnp.rot90(f23, axes=(0, 0))"
  c["take axis oob"] = "jnp.take(f3, i3, axis=1)"
  c["take float idx"] = "jnp.take(f3, f3)"
  c["take mode"] = "jnp.take(f3, i3, mode='foo')"
  c["take_along_axis rank"] = "jnp.take_along_axis(f23, i3, axis=0)"
  c["take_along_axis float"] = "jnp.take_along_axis(f3, f3, axis=0)"
  c["put not inplace"] = "jnp.put(f3, 0, 1.)"
  c["diagonal 1d"] = "jnp.diagonal(f3)"
  c["diagonal same axes"] = "jnp.diagonal(f23, axis1=0, axis2=0)"
  c["diag 3d"] = "jnp.diag(jnp.ones((2, 2, 2)))"
  c["trace 1d"] = "jnp.trace(f3)"
  c["tril 0d"] = "jnp.tril(jnp.float32(1))"
  c["triu_indices traced"] = "J(lambda n: jnp.triu_indices(n))(3)"
  c["eye traced"] = "J(lambda n: jnp.eye(n))(3)"
  c["eye negative"] = "jnp.eye(-1)"
  c["zeros traced"] = "J(lambda n: jnp.zeros(n))(3)"
  c["zeros negative"] = "jnp.zeros(-1)"
  c["zeros float shape"] = "jnp.zeros(2.5)"
  c["zeros dtype bad"] = "jnp.zeros(3, dtype='foo')"
  c["ones string shape"] = "jnp.ones('a')"
  c["full shape mismatch"] = "jnp.full((2,), f3)"
  c["full_like shape"] = "jnp.full_like(f3, f4)"
  c["arange traced"] = "J(lambda n: jnp.arange(n))(3)"
  c["arange no args"] = "jnp.arange()"
  c["arange step 0"] = "jnp.arange(0, 5, 0)"
  c["arange complex"] = "jnp.arange(1j)"
  c["linspace traced num"] = "J(lambda n: jnp.linspace(0, 1, n))(3)"
  c["linspace negative num"] = "jnp.linspace(0, 1, -1)"
  c["logspace traced num"] = "J(lambda n: jnp.logspace(0, 1, n))(3)"
  c["identity traced"] = "J(lambda n: jnp.identity(n))(3)"
  c["meshgrid indexing"] = "jnp.meshgrid(f3, f3, indexing='foo')"
  c["meshgrid 2d"] = "jnp.meshgrid(f23, f3)"
  c["indices traced"] = "J(lambda n: jnp.indices((n,)))(3)"
  c["atleast_1d list"] = "jnp.atleast_1d([[1], [2, 3]])"
  c["ravel_multi_index mode"] = "jnp.ravel_multi_index((i3,), (3,), mode='foo')"
  c["unravel_index float"] = "jnp.unravel_index(f3, (3,))"
  c["searchsorted 2d"] = "jnp.searchsorted(f23, f3)"
  c["searchsorted side"] = "jnp.searchsorted(f3, f3, side='foo')"
  c["searchsorted method"] = "jnp.searchsorted(f3, f3, method='foo')"
  c["sort axis oob"] = "jnp.sort(f3, axis=1)"
  c["sort kind"] = "jnp.sort(f3, kind='foo')"
  c["sort order"] = "jnp.sort(f3, order='x')"
  c["argsort axis oob"] = "jnp.argsort(f3, axis=1)"
  c["lexsort empty"] = "jnp.lexsort([])"
  c["lexsort shapes"] = "jnp.lexsort([f3, f4])"
  c["partition kth oob"] = "jnp.partition(f3, 5)"
  c["partition traced kth"] = "J(lambda k: jnp.partition(f3, k))(1)"
  c["argpartition kth oob"] = "jnp.argpartition(f3, 5)"
  c["top_k k too big"] = "lax.top_k(f3, 5)"
  c["top_k traced k"] = "J(lambda k: lax.top_k(f3, k))(1)"
  c["top_k negative"] = "lax.top_k(f3, -1)"
  c["top_k 0d"] = "lax.top_k(jnp.float32(1), 1)"
  c["sort_complex int"] = "jnp.sort_complex(i3)"
  c["diff n negative"] = "jnp.diff(f3, n=-1)"
  c["diff 0d"] = "jnp.diff(jnp.float32(1))"
  c["diff axis oob"] = "jnp.diff(f3, axis=1)"
  c["ediff1d to_begin 2d"] = "jnp.ediff1d(f3, to_begin=f23)"
  c["gradient axis oob"] = "jnp.gradient(f3, axis=2)"
  c["gradient too small"] = "jnp.gradient(jnp.ones(1))"
  c["convolve 2d"] = "jnp.convolve(f23, f3)"
  c["convolve empty"] = "jnp.convolve(jnp.zeros(0), f3)"
  c["convolve mode"] = "jnp.convolve(f3, f3, mode='foo')"
  c["correlate 2d"] = "jnp.correlate(f23, f3)"
  c["polyval 2d p"] = "jnp.polyval(f23, f3)"
  c["polyfit deg traced"] = "J(lambda d: jnp.polyfit(f3, f3, d))(1)"
  c["polyfit shapes"] = "jnp.polyfit(f3, f4, 1)"
  c["roots 2d"] = "jnp.roots(f23)"
  c["interp shapes"] = "jnp.interp(f3, f3, f4)"
  c["interp 2d"] = "jnp.interp(f3, f23, f23)"
  c["einsum bad subscripts"] = "jnp.einsum('ij,jk->ik', f23, f23)"
  c["einsum too many operands"] = "jnp.einsum('i->i', f3, f3)"
  c["einsum bad chars"] = "jnp.einsum('i1->i', f3)"
  c["einsum output letter"] = "jnp.einsum('i->j', f3)"
  c["dot mismatch"] = "jnp.dot(f23, f23)"
  c["matmul 0d"] = "jnp.matmul(jnp.float32(1), f3)"
  c["matmul mismatch"] = "jnp.matmul(f23, f23)"
  c["matmul batch"] = "jnp.matmul(jnp.ones((2, 2, 3)), jnp.ones((3, 3, 2)))"
  c["vdot mismatch"] = "jnp.vdot(f3, f4)"
  c["inner mismatch"] = "jnp.inner(f3, f4)"
  c["outer ok 2d"] = "jnp.outer(f23, f4).shape"
  c["tensordot axes"] = "jnp.tensordot(f23, f23, axes=1)"
  c["tensordot axes bad"] = "jnp.tensordot(f23, f23, axes=((0,), (1,)))"
  c["tensordot axes traced"] = "J(lambda a: jnp.tensordot(f3, f3, axes=a))(1)"
  c["cross bad dim"] = "jnp.cross(f4, f4)"
  c["kron string"] = "jnp.kron('a', f3)"
  c["matvec mismatch"] = "jnp.matvec(f23, f2)"
  c["vecdot mismatch"] = "jnp.vecdot(f3, f4)"
  c["astype bad"] = "f3.astype('foo')"
  c["astype traced"] = "f3.astype(f3)"
  c["view bad size"] = "f3.view(jnp.float16)"
  c["item multi"] = "f3.item()"
  c["item traced"] = "J(lambda x: x.item())(jnp.float32(1))"
  c["tolist traced"] = "J(lambda x: x.tolist())(f3)"
  c["array.at bad method"] = "f3.at[0].foo(1.)"
  c["array.at set shape"] = "f3.at[0].set(f3)"
  c["array.at mode"] = "f3.at[0].set(1., mode='foo')"
  c["array.at no index"] = "f3.at.set(1.)"
  c["setitem"] = "f3.__setitem__(0, 1.)"
  c["iter traced 0d"] = "J(lambda x: list(x))(jnp.float32(1))"
  c["len 0d"] = "len(jnp.array(1.))"
  c["hash array"] = "hash(f3)"

  # -- indexing
  c["index too many"] = "f3[0, 0]"
  c["index float"] = "f3[1.0]"
  c["index float array"] = "f3[f3]"
  c["index string"] = "f3['a']"
  c["index two ellipsis"] = "f23[..., ...]"
  c["index bool wrong shape"] = "f3[b4]"
  c["index bool traced"] = "J(lambda m: f3[m])(b3)"
  c["index static oob"] = "f3[5]"
  c["index static neg oob"] = "f3[-5]"
  c["index list of floats"] = "f3[[0.5]]"
  c["index tuple list"] = "f23[[0, 1], [0, 1, 2]]"
  c["index slice float"] = "f3[0.5:]"
  c["index slice traced"] = "J(lambda i: f3[i:])(1)"
  c["index slice step 0"] = "f3[::0]"
  c["index None ok"] = "f3[None].shape"
  c["index dict"] = "f3[{'a': 1}]"
  c["index object"] = "f3[object()]"
  c["index bool scalar"] = "f3[True].shape"
  c["dynamic_slice sizes too big"] = "lax.dynamic_slice(f3, (0,), (5,))"
  c["dynamic_slice rank"] = "lax.dynamic_slice(f3, (0, 0), (1, 1))"
  c["dynamic_slice traced sizes"] = "J(lambda n: lax.dynamic_slice(f3, (0,), (n,)))(1)"
  c["dynamic_slice float index"] = "lax.dynamic_slice(f3, (0.5,), (1,))"
  c["dynamic_update_slice rank"] = "lax.dynamic_update_slice(f3, f23, (0,))"
  c["dynamic_update_slice bigger"] = "lax.dynamic_update_slice(f3, f4, (0,))"
  c["dynamic_update_slice dtype"] = "lax.dynamic_update_slice(f3, i3, (0,))"
  c["dynamic_index_in_dim axis"] = "lax.dynamic_index_in_dim(f3, 0, axis=2)"
  c["gather bad dnums"] = ("lax.gather(f3, i3[:, None], lax.GatherDimensionNumbers("
                           "offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(0,)), (1,))")
  c["scatter_add rank"] = ("lax.scatter_add(f3, i3[:, None], f23, lax.ScatterDimensionNumbers("
                           "update_window_dims=(), inserted_window_dims=(0,), "
                           "scatter_dims_to_operand_dims=(0,)))")

  # -- lax
  c["lax.add dtypes"] = "lax.add(f3, i3)"
  c["lax.add ranks"] = "lax.add(f23, f3)"
  c["lax.add same rank"] = "lax.add(f3, f4)"
  c["lax.add weak python"] = "lax.add(f3, 1)"
  c["lax.add int64 python overflow"] = "lax.add(i3, 2**40)"
  c["lax.sin int"] = "lax.sin(i3)"
  c["lax.exp bool"] = "lax.exp(b3)"
  c["lax.sqrt int"] = "lax.sqrt(i3)"
  c["lax.floor int"] = "lax.floor(i3)"
  c["lax.neg bool"] = "lax.neg(b3)"
  c["lax.not float"] = "lax.bitwise_not(f3)"
  c["lax.and float"] = "lax.bitwise_and(f3, f3)"
  c["lax.shift float"] = "lax.shift_left(f3, f3)"
  c["lax.rem bool"] = "lax.rem(b3, b3)"
  c["lax.max dtypes"] = "lax.max(f3, c3)"
  c["lax.atan2 int"] = "lax.atan2(i3, i3)"
  c["lax.complex ints"] = "lax.complex(i3, i3)"
  c["lax.real float"] = "lax.real(f3)"
  c["lax.imag float"] = "lax.imag(f3)"
  c["lax.conj int"] = "lax.conj(i3)"
  c["lax.abs bool"] = "lax.abs(b3)"
  c["lax.pow int float"] = "lax.pow(i3, f3)"
  c["lax.integer_pow float exp"] = "lax.integer_pow(f3, 1.5)"
  c["lax.integer_pow traced"] = "J(lambda y: lax.integer_pow(f3, y))(2)"
  c["lax.clamp shapes"] = "lax.clamp(f4, f3, f3)"
  c["lax.clamp dtypes"] = "lax.clamp(0, f3, 1)"
  c["lax.select shapes"] = "lax.select(b3, f3, f4)"
  c["lax.select pred dtype"] = "lax.select(f3, f3, f3)"
  c["lax.select_n no cases"] = "lax.select_n(b3)"
  c["lax.select_n int pred"] = "lax.select_n(f3, f3, f3)"
  c["lax.convert_element_type bad"] = "lax.convert_element_type(f3, 'foo')"
  c["lax.convert_element_type str"] = "lax.convert_element_type(f3, str)"
  c["lax.bitcast size"] = "lax.bitcast_convert_type(f3, jnp.int8)"
  c["lax.bitcast bool"] = "lax.bitcast_convert_type(f3, jnp.bool_)"
  c["lax.reshape size"] = "lax.reshape(f23, (4,))"
  c["lax.reshape dims"] = "lax.reshape(f23, (3, 2), dimensions=(0,))"
  c["lax.reshape negative"] = "lax.reshape(f23, (-1, 3))"
  c["lax.broadcast negative"] = "lax.broadcast(f3, (-1,))"
  c["lax.broadcast_in_dim bad"] = "lax.broadcast_in_dim(f3, (2, 4), (1,))"
  c["lax.broadcast_in_dim dims len"] = "lax.broadcast_in_dim(f3, (2, 3), (0, 1))"
  c["lax.broadcast_in_dim decreasing"] = "lax.broadcast_in_dim(f23, (2, 3, 4), (1, 0))"
  c["lax.squeeze non-1"] = "lax.squeeze(f23, (0,))"
  c["lax.squeeze oob"] = "lax.squeeze(f23, (5,))"
  c["lax.expand_dims oob"] = "lax.expand_dims(f23, (5,))"
  c["lax.transpose bad"] = "lax.transpose(f23, (0, 0))"
  c["lax.transpose len"] = "lax.transpose(f23, (0,))"
  c["lax.rev oob"] = "lax.rev(f3, (1,))"
  c["lax.rev dup"] = "lax.rev(f3, (0, 0))"
  c["lax.slice bad"] = "lax.slice(f3, (0,), (5,))"
  c["lax.slice rank"] = "lax.slice(f3, (0, 0), (1, 1))"
  c["lax.slice reversed"] = "lax.slice(f3, (2,), (1,))"
  c["lax.slice strides 0"] = "lax.slice(f3, (0,), (3,), (0,))"
  c["lax.slice_in_dim oob"] = "lax.slice_in_dim(f3, 0, 5)"
  c["lax.index_in_dim oob"] = "lax.index_in_dim(f3, 5)"
  c["lax.pad config len"] = "lax.pad(f3, 0., [(1, 1, 0), (1, 1, 0)])"
  c["lax.pad negative interior"] = "lax.pad(f3, 0., [(1, 1, -1)])"
  c["lax.pad value shape"] = "lax.pad(f3, f3, [(1, 1, 0)])"
  c["lax.pad dtype"] = "lax.pad(f3, 0, [(1, 1, 0)])"
  c["lax.pad too negative"] = "lax.pad(f3, 0., [(-5, 0, 0)])"
  c["lax.concatenate dim oob"] = "lax.concatenate([f3, f3], 1)"
  c["lax.concatenate shapes"] = "lax.concatenate([f23, jnp.ones((3, 2))], 0)"
  c["lax.concatenate dtypes"] = "lax.concatenate([f3, i3], 0)"
  c["lax.concatenate empty"] = "lax.concatenate([], 0)"
  c["lax.dot_general bad contract"] = "lax.dot_general(f23, f23, (((1,), (1,)), ((), ())))"
  c["lax.dot_general contract size"] = "lax.dot_general(f23, f23, (((1,), (0,)), ((), ())))"
  c["lax.dot_general dims oob"] = "lax.dot_general(f3, f3, (((1,), (0,)), ((), ())))"
  c["lax.dot_general batch"] = "lax.dot_general(f23, f23, (((), ()), ((0,), (1,))))"
  c["lax.dot_general dtypes"] = "lax.dot_general(f3, i3, (((0,), (0,)), ((), ())))"
  c["lax.dot mismatch"] = "lax.dot(f23, f23)"
  c["lax.dot 3d"] = "lax.dot(jnp.ones((2, 2, 2)), f3)"
  c["lax.batch_matmul rank"] = "lax.batch_matmul(f23, f23)"
  c["lax.iota float"] = "lax.iota(jnp.float32, 2.5)"
  c["lax.iota negative"] = "lax.iota(jnp.int32, -1)"
  c["lax.iota traced"] = "J(lambda n: lax.iota(jnp.int32, n))(3)"
  c["lax.full traced shape"] = "J(lambda n: lax.full((n,), 0.))(3)"
  c["lax.full non-scalar"] = "lax.full((3,), f3)"
  c["lax.broadcasted_iota dim"] = "lax.broadcasted_iota(jnp.int32, (2, 3), 2)"
  c["lax.reduce mismatched init"] = "lax.reduce(f3, 0, lax.add, (0,))"
  c["lax.reduce dims oob"] = "lax.reduce(f3, 0., lax.add, (1,))"
  c["lax.reduce nonscalar init"] = "lax.reduce(f3, f3, lax.add, (0,))"
  c["lax.reduce_sum dims dup"] = "lax.reduce_sum(f23, (0, 0))"
  c["lax.reduce_max oob"] = "lax.reduce_max(f3, (1,))"
  c["lax.argmax oob"] = "lax.argmax(f3, 1, jnp.int32)"
  c["lax.argmax float index"] = "lax.argmax(f3, 0, jnp.float32)"
  c["lax.cumsum axis oob"] = "lax.cumsum(f3, axis=1)"
  c["lax.cumsum bool"] = "lax.cumsum(b3)"
  c["lax.reduce_window dims"] = "lax.reduce_window(f3, 0., lax.add, (2, 2), (1,), 'VALID')"
  c["lax.reduce_window padding"] = "lax.reduce_window(f3, 0., lax.add, (2,), (1,), 'FOO')"
  c["lax.conv rank"] = "lax.conv(f23, f23, (1,), 'SAME')"
  c["lax.conv channels"] = "lax.conv(jnp.ones((1, 2, 5, 5)), jnp.ones((1, 3, 3, 3)), (1, 1), 'SAME')"
  c["lax.conv padding"] = "lax.conv(jnp.ones((1, 1, 5, 5)), jnp.ones((1, 1, 3, 3)), (1, 1), 'FOO')"
  c["lax.conv strides len"] = "lax.conv(jnp.ones((1, 1, 5, 5)), jnp.ones((1, 1, 3, 3)), (1,), 'SAME')"
  c["lax.conv dtypes"] = "lax.conv(jnp.ones((1, 1, 5, 5)), jnp.ones((1, 1, 3, 3), int), (1, 1), 'SAME')"
  c["lax.conv_general_dilated dn"] = ("lax.conv_general_dilated(jnp.ones((1, 1, 5, 5)), "
                                      "jnp.ones((1, 1, 3, 3)), (1, 1), 'SAME', "
                                      "dimension_numbers=('NCHW', 'OIHW', 'NCHX'))")
  c["lax.sort dimension oob"] = "lax.sort(f3, dimension=1)"
  c["lax.sort num_keys"] = "lax.sort((f3, f3), num_keys=3)"
  c["lax.sort shapes"] = "lax.sort((f3, f4))"
  c["lax.cond non-bool pred"] = "lax.cond(f3, lambda: 1., lambda: 2.)"
  c["lax.cond array pred"] = "lax.cond(jnp.array([True, False]), lambda: 1., lambda: 2.)"
  c["lax.cond branch mismatch"] = "lax.cond(True, lambda: f3, lambda: f4)"
  c["lax.cond branch dtype"] = "lax.cond(True, lambda: jnp.float32(1), lambda: jnp.int32(1))"
  c["lax.cond branch tree"] = "lax.cond(True, lambda: (1., 2.), lambda: 1.)"
  c["lax.cond non-callable"] = "lax.cond(True, 1., 2.)"
  c["lax.cond string pred"] = "lax.cond('a', lambda: 1., lambda: 2.)"
  c["lax.cond traced branch mismatch"] = "J(lambda p: lax.cond(p, lambda: f3, lambda: f4))(True)"
  c["lax.switch non-int"] = "lax.switch(1.5, [lambda: 1., lambda: 2.])"
  c["lax.switch empty"] = "lax.switch(0, [])"
  c["lax.switch mismatch"] = "lax.switch(0, [lambda: f3, lambda: f4])"
  c["lax.switch array index"] = "lax.switch(jnp.array([0, 1]), [lambda: 1., lambda: 2.])"
  c["lax.while_loop carry mismatch"] = "lax.while_loop(lambda c: c < 3, lambda c: c + 1., 0)"
  c["lax.while_loop cond nonbool"] = "lax.while_loop(lambda c: c, lambda c: c - 1, 3)"
  c["lax.while_loop cond shape"] = "lax.while_loop(lambda c: c < 3, lambda c: c + 1, f3)"
  c["lax.while_loop body tree"] = "lax.while_loop(lambda c: c < 3, lambda c: (c, c), 0)"
  c["lax.fori_loop carry mismatch"] = "lax.fori_loop(0, 3, lambda i, c: c + 1., 0)"
  c["lax.fori_loop float bounds"] = "lax.fori_loop(0., 3., lambda i, c: c, 0)"
  c["lax.fori_loop mixed bounds"] = "lax.fori_loop(jnp.int32(0), jnp.int16(3), lambda i, c: c, 0)"
  c["lax.scan carry mismatch"] = "lax.scan(lambda c, x: (c + 1., x), 0, f3)"
  c["lax.scan carry tree"] = "lax.scan(lambda c, x: ((c, c), x), 0., f3)"
  c["lax.scan xs length"] = "lax.scan(lambda c, x: (c, x), 0., (f3, f4))"
  c["lax.scan no length"] = "lax.scan(lambda c, x: (c, x), 0., None)"
  c["lax.scan length mismatch"] = "lax.scan(lambda c, x: (c, x), 0., f3, length=4)"
  c["lax.scan 0d xs"] = "lax.scan(lambda c, x: (c, x), 0., jnp.float32(1))"
  c["lax.scan body output"] = "lax.scan(lambda c, x: c, 0., f3)"
  c["lax.scan traced length"] = "J(lambda n: lax.scan(lambda c, x: (c, x), 0., None, length=n))(3)"
  c["lax.map traced"] = "lax.map(lambda x: x, 1.)"
  c["lax.associative_scan shapes"] = "lax.associative_scan(lax.add, (f3, f4))"
  c["lax.associative_scan axis"] = "lax.associative_scan(lax.add, f3, axis=1)"
  c["lax.psum unbound"] = "lax.psum(f3, 'i')"
  c["lax.axis_index unbound"] = "lax.axis_index('i')"
  c["lax.stop_gradient string"] = "lax.stop_gradient('a')"
  c["lax.rng_uniform"] = "lax.rng_uniform(0., 1., (2.5,))"
  c["lax.reduce_precision bits"] = "lax.reduce_precision(f3, -1, 2)"
  c["lax.population_count float"] = "lax.population_count(f3)"
  c["lax.clz float"] = "lax.clz(f3)"
  c["lax.erf_inv int"] = "lax.erf_inv(i3)"
  c["lax.lgamma int"] = "lax.lgamma(i3)"
  c["lax.igamma dtypes"] = "lax.igamma(f3, i3)"
  c["lax.nextafter int"] = "lax.nextafter(i3, i3)"
  c["lax.cbrt int"] = "lax.cbrt(i3)"
  c["lax.round int"] = "lax.round(i3)"
  c["lax.round method"] = "lax.round(f3, 5)"
  c["lax.is_finite int"] = "lax.is_finite(i3)"
  c["lax.linalg.cholesky nonsquare"] = "lax.linalg.cholesky(f23)"
  c["lax.linalg.qr 1d"] = "lax.linalg.qr(f3)"
  c["lax.linalg.eigh nonsquare"] = "lax.linalg.eigh(f23)"
  c["lax.linalg.svd 1d"] = "lax.linalg.svd(f3)"
  c["lax.linalg.lu nonsquare ok"] = "lax.linalg.lu(f23)[0].shape"
  c["lax.linalg.lu 1d"] = "lax.linalg.lu(f3)"
  c["lax.linalg.triangular_solve"] = "lax.linalg.triangular_solve(f33, f4[:, None], left_side=True)"
  c["lax.linalg.triangular_solve int"] = "lax.linalg.triangular_solve(i33, i33)"
  c["lax.linalg.eig nonsquare"] = "lax.linalg.eig(f23)"
  c["lax.linalg.schur nonsquare"] = "lax.linalg.schur(f23)"
  c["lax.linalg.tridiagonal_solve"] = "lax.linalg.tridiagonal_solve(f3, f3, f3, f4[:, None])"

  # -- jnp.linalg
  for f in LINALG_SQUARE:
    call = ("jnp.linalg.matrix_power({a}, 2)" if f == "matrix_power2"
            else "jnp.linalg.tensorinv({a}, ind=1)" if f == "tensorinv" else f"jnp.linalg.{f}({{a}})")
    c[f"linalg.{f} nonsquare"] = call.format(a="f23")
    c[f"linalg.{f} 1d"] = call.format(a="f3")
    c[f"linalg.{f} int"] = call.format(a="i33")
    c[f"linalg.{f} string"] = call.format(a="'a'")
  for f in ["svd", "qr", "pinv", "matrix_rank", "svdvals", "norm", "cond", "lstsq"]:
    call = f"jnp.linalg.{f}({{a}}, f3)" if f == "lstsq" else f"jnp.linalg.{f}({{a}})"
    c[f"linalg.{f} 1d"] = call.format(a="f3")
    c[f"linalg.{f} 0d"] = call.format(a="jnp.float32(1)")
  c["linalg.solve mismatch"] = "jnp.linalg.solve(f33, f4)"
  c["linalg.solve nonsquare"] = "jnp.linalg.solve(f23, f2)"
  c["linalg.solve 1d a"] = "jnp.linalg.solve(f3, f3)"
  c["linalg.solve int"] = "jnp.linalg.solve(i33, i3)"
  c["linalg.norm ord bad"] = "jnp.linalg.norm(f23, ord='foo')"
  c["linalg.norm ord vector fro"] = "jnp.linalg.norm(f3, ord='fro')"
  c["linalg.norm ord matrix 3"] = "jnp.linalg.norm(f23, ord=3)"
  c["linalg.norm axis 3"] = "jnp.linalg.norm(f23, axis=(0, 1, 2))"
  c["linalg.norm axis oob"] = "jnp.linalg.norm(f3, axis=1)"
  c["linalg.norm ord traced"] = "J(lambda o: jnp.linalg.norm(f3, ord=o))(2)"
  c["linalg.matrix_power float n"] = "jnp.linalg.matrix_power(f33, 1.5)"
  c["linalg.matrix_power traced n"] = "J(lambda n: jnp.linalg.matrix_power(f33, n))(2)"
  c["linalg.eigh UPLO"] = "jnp.linalg.eigh(f33, UPLO='X')"
  c["linalg.qr mode"] = "jnp.linalg.qr(f33, mode='foo')"
  c["linalg.cross dim"] = "jnp.linalg.cross(f4, f4)"
  c["linalg.outer 2d"] = "jnp.linalg.outer(f23, f3)"
  c["linalg.multi_dot one"] = "jnp.linalg.multi_dot([f3])"
  c["linalg.multi_dot mismatch"] = "jnp.linalg.multi_dot([f23, f23, f3])"
  c["linalg.tensorsolve"] = "jnp.linalg.tensorsolve(f23, f3)"
  c["linalg.matrix_norm 1d"] = "jnp.linalg.matrix_norm(f3)"
  c["linalg.vector_norm ord"] = "jnp.linalg.vector_norm(f3, ord='fro')"
  c["linalg.diagonal 1d"] = "jnp.linalg.diagonal(f3)"
  c["linalg.matmul 0d"] = "jnp.linalg.matmul(jnp.float32(1), f3)"
  c["linalg.vecdot mismatch"] = "jnp.linalg.vecdot(f3, f4)"
  c["linalg.tensordot axes"] = "jnp.linalg.tensordot(f3, f4, axes=1)"

  # -- fft
  for f in FFTS:
    c[f"fft.{f} n=0"] = f"jnp.fft.{f}(f4, n=0)"
    c[f"fft.{f} axis oob"] = f"jnp.fft.{f}(f4, axis=1)"
    c[f"fft.{f} n traced"] = f"J(lambda n: jnp.fft.{f}(f4, n=n))(4)"
    c[f"fft.{f} norm bad"] = f"jnp.fft.{f}(f4, norm='foo')"
    c[f"fft.{f} 0d"] = f"jnp.fft.{f}(jnp.float32(1))"
  for f in FFTNS:
    c[f"fft.{f} axes oob"] = f"jnp.fft.{f}(f23, axes=(0, 2))"
    c[f"fft.{f} s/axes len"] = f"jnp.fft.{f}(f23, s=(2, 3, 4), axes=(0, 1))"
    c[f"fft.{f} 1d"] = f"jnp.fft.{f}(f3)" if f.endswith("2") else f"jnp.fft.{f}(f3, axes=(0, 0))"
    c[f"fft.{f} norm bad"] = f"jnp.fft.{f}(f23, norm='foo')"
  c["fft.fftfreq traced"] = "J(lambda n: jnp.fft.fftfreq(n))(4)"
  c["fft.fftfreq float n"] = "jnp.fft.fftfreq(2.5)"
  c["fft.rfftfreq traced"] = "J(lambda n: jnp.fft.rfftfreq(n))(4)"
  c["fft.fftshift axes oob"] = "jnp.fft.fftshift(f3, axes=1)"

  # -- nn
  c["nn.one_hot traced num_classes"] = "J(lambda n: nn.one_hot(jnp.arange(3), n))(3)"
  c["nn.one_hot float num_classes"] = "nn.one_hot(jnp.arange(3), 3.5)"
  c["nn.one_hot negative"] = "nn.one_hot(jnp.arange(3), -1)"
  c["nn.one_hot axis oob"] = "nn.one_hot(jnp.arange(3), 3, axis=5)"
  c["nn.one_hot float x"] = "nn.one_hot(f3, 3).shape"
  c["nn.one_hot array num_classes"] = "nn.one_hot(jnp.arange(3), jnp.array(3))"
  c["nn.softmax axis oob"] = "nn.softmax(f3, axis=1)"
  c["nn.softmax int"] = "nn.softmax(i3)"
  c["nn.softmax where shape"] = "nn.softmax(f3, where=b4)"
  c["nn.log_softmax axis oob"] = "nn.log_softmax(f3, axis=2)"
  c["nn.logsumexp axis oob"] = "nn.logsumexp(f3, axis=2)"
  c["nn.standardize axis oob"] = "nn.standardize(f3, axis=2)"
  c["nn.relu string"] = "nn.relu('a')"
  c["nn.relu bool"] = "nn.relu(b3)"
  c["nn.gelu int"] = "nn.gelu(i3)"
  c["nn.sigmoid int"] = "nn.sigmoid(i3)"
  c["nn.glu odd"] = "nn.glu(f3)"
  c["nn.glu axis oob"] = "nn.glu(f4, axis=2)"
  c["nn.celu alpha 0"] = "nn.celu(f3, alpha=0.)"
  c["nn.leaky_relu list"] = "nn.leaky_relu([1., 2.])"
  c["nn.dot_product_attention rank"] = "nn.dot_product_attention(f23, f23, f23)"
  c["nn.dot_product_attention shapes"] = ("nn.dot_product_attention(jnp.ones((1, 4, 2, 8)), "
                                          "jnp.ones((1, 5, 2, 4)), jnp.ones((1, 5, 2, 8)))")
  c["nn.dot_product_attention impl"] = ("nn.dot_product_attention(jnp.ones((1, 4, 2, 8)), "
                                        "jnp.ones((1, 4, 2, 8)), jnp.ones((1, 4, 2, 8)), "
                                        "implementation='foo')")
  c["nn.initializers.normal shape traced"] = "J(lambda n: nn.initializers.normal()(key, (n,)))(3)"
  c["nn.initializers.glorot 1d"] = "nn.initializers.glorot_normal()(key, (3,))"
  c["nn.initializers.orthogonal 1d"] = "nn.initializers.orthogonal()(key, (3,))"
  c["nn.initializers.variance_scaling mode"] = ("nn.initializers.variance_scaling(1., 'foo', "
                                                "'normal')(key, (3, 3))")
  c["nn.initializers.variance_scaling dist"] = ("nn.initializers.variance_scaling(1., 'fan_in', "
                                                "'foo')(key, (3, 3))")
  c["nn.initializers.constant shape"] = "nn.initializers.constant(f3)(key, (4,))"

  # -- random
  c["random.PRNGKey float"] = "random.PRNGKey(1.5)"
  c["random.PRNGKey array"] = "random.PRNGKey(f3)"
  c["random.PRNGKey string"] = "random.PRNGKey('a')"
  c["random.key float"] = "random.key(1.5)"
  c["random.key array"] = "random.key(i3)"
  c["random.key impl bad"] = "random.key(0, impl='foo')"
  c["random.normal bad key"] = "random.normal(f3)"
  c["random.normal int key"] = "random.normal(0)"
  c["random.normal key shape"] = "random.normal(jnp.zeros(3, jnp.uint32))"
  c["random.normal traced shape"] = "J(lambda n: random.normal(key, (n,)))(3)"
  c["random.normal int dtype"] = "random.normal(key, dtype=jnp.int32)"
  c["random.normal negative shape"] = "random.normal(key, (-1,))"
  c["random.normal float shape"] = "random.normal(key, (2.5,))"
  c["random.uniform int dtype"] = "random.uniform(key, dtype=jnp.int32)"
  c["random.uniform minval shape"] = "random.uniform(key, (3,), minval=f4)"
  c["random.randint float dtype"] = "random.randint(key, (3,), 0, 5, dtype=jnp.float32)"
  c["random.randint no shape"] = "random.randint(key, 0, 5)"
  c["random.randint bounds shape"] = "random.randint(key, (3,), 0, i4)"
  c["random.split traced num"] = "J(lambda n: random.split(key, n))(2)"
  c["random.split float num"] = "random.split(key, 2.5)"
  c["random.split negative"] = "random.split(key, -1)"
  c["random.split batch raw"] = "random.split(jnp.zeros((2, 2), jnp.uint32))"
  c["random.fold_in float"] = "random.fold_in(key, 1.5)"
  c["random.fold_in array"] = "random.fold_in(key, i3)"
  c["random.bits float dtype"] = "random.bits(key, (3,), jnp.float32)"
  c["random.choice replace False"] = "random.choice(key, 3, (5,), replace=False)"
  c["random.choice p shape"] = "random.choice(key, 3, (2,), p=f4)"
  c["random.choice 0d"] = "random.choice(key, jnp.float32(1))"
  c["random.choice empty"] = "random.choice(key, jnp.zeros(0))"
  c["random.choice traced a"] = "J(lambda n: random.choice(key, n))(3)"
  c["random.choice axis oob"] = "random.choice(key, f3, axis=1)"
  c["random.permutation 0d"] = "random.permutation(key, jnp.float32(1.))"
  c["random.permutation traced int"] = "J(lambda n: random.permutation(key, n))(3)"
  c["random.permutation axis oob"] = "random.permutation(key, f3, axis=1)"
  c["random.categorical axis oob"] = "random.categorical(key, f3, axis=1)"
  c["random.categorical shape"] = "random.categorical(key, f23, shape=(3,))"
  c["random.bernoulli p shape"] = "random.bernoulli(key, f3, (4,))"
  c["random.bernoulli int p"] = "random.bernoulli(key, 1, (3,))"
  c["random.gamma a shape"] = "random.gamma(key, f3, (4,))"
  c["random.gamma int dtype"] = "random.gamma(key, 1., dtype=jnp.int32)"
  c["random.beta shapes"] = "random.beta(key, f3, f4)"
  c["random.dirichlet 0d"] = "random.dirichlet(key, jnp.float32(1))"
  c["random.multivariate_normal shapes"] = "random.multivariate_normal(key, f3, f23)"
  c["random.multivariate_normal method"] = "random.multivariate_normal(key, f3, f33, method='foo')"
  c["random.truncated_normal shape"] = "random.truncated_normal(key, f3, 1., (4,))"
  c["random.poisson float dtype"] = "random.poisson(key, 1., dtype=jnp.float32)"
  c["random.binomial shape"] = "random.binomial(key, f3, 0.5, (4,))"
  c["random.orthogonal traced"] = "J(lambda n: random.orthogonal(key, n))(3)"
  c["random.ball d traced"] = "J(lambda d: random.ball(key, d))(3)"
  c["random.key_data raw"] = "random.key_data(f3)"
  c["random.wrap_key_data shape"] = "random.wrap_key_data(jnp.zeros(3, jnp.uint32))"
  c["random.wrap_key_data dtype"] = "random.wrap_key_data(jnp.zeros(2, jnp.float32))"
  c["random.key + 1"] = "random.key(0) + 1"
  c["random.key astype"] = "random.key(0).astype(jnp.float32)"
  c["random.key sin"] = "jnp.sin(random.key(0))"
  c["random.key_impl raw"] = "random.key_impl(f3)"
  c["random.clone raw"] = "random.clone(f3).shape"
  c["random.shuffle"] = "random.shuffle(key, f3)"

  # -- scipy.special
  for f in SPECIAL_BINARY:
    call = ("jsp.special.entr(f3, f4)" if f == "entr2"
            else "jsp.special.polygamma(i3, f4)" if f == "polygamma"
            else f"jsp.special.{f}(f3, f4)")
    c[f"special.{f} shapes"] = call
  for f in SPECIAL_UNARY:
    c[f"special.{f} complex"] = f"jsp.special.{f}(c3)"
    c[f"special.{f} string"] = f"jsp.special.{f}('a')"
  c["special.logsumexp b shape"] = "jsp.special.logsumexp(f3, b=f4)"
  c["special.logsumexp axis oob"] = "jsp.special.logsumexp(f3, axis=1)"
  c["special.softmax axis oob"] = "jsp.special.softmax(f3, axis=1)"
  c["special.betainc shapes"] = "jsp.special.betainc(f3, f3, f4)"
  c["special.polygamma float n"] = "jsp.special.polygamma(1.5, f3)"
  c["special.bernoulli traced"] = "J(lambda n: jsp.special.bernoulli(n))(3)"
  c["special.sph_harm_y traced n_max"] = "J(lambda n: jsp.special.sph_harm_y(i3, i3, f3, f3, n_max=n))(3)"
  c["special.lpmn traced"] = "J(lambda n: jsp.special.lpmn(n, n, f3))(2)"
  c["special.lpmn m>n"] = "jsp.special.lpmn(3, 2, f3)"
  c["special.expn float n"] = "jsp.special.expn(f3, f3).shape"
  c["special.comb"] = "jsp.special.comb(f3, f4)"
  c["special.hyp1f1 shapes"] = "jsp.special.hyp1f1(f3, f3, f4)"
  c["special.gammasgn complex"] = "jsp.special.gammasgn(c3)"

  # -- scipy.linalg
  c["scipy.cho_solve mismatch"] = "jsp.linalg.cho_solve((f33, True), f4)"
  c["scipy.cho_solve nonsquare"] = "jsp.linalg.cho_solve((f23, True), f2)"
  c["scipy.cho_solve 2d b"] = "jsp.linalg.cho_solve((f33, True), jnp.ones((4, 2)))"
  c["scipy.cho_solve no tuple"] = "jsp.linalg.cho_solve(f33, f3)"
  c["scipy.cho_factor nonsquare"] = "jsp.linalg.cho_factor(f23)"
  c["scipy.cholesky nonsquare"] = "jsp.linalg.cholesky(f23)"
  c["scipy.lu_solve mismatch"] = "jsp.linalg.lu_solve((f33, jnp.arange(3)), f4)"
  c["scipy.lu_solve trans"] = "jsp.linalg.lu_solve((f33, jnp.arange(3)), f3, trans=5)"
  c["scipy.lu_factor 1d"] = "jsp.linalg.lu_factor(f3)"
  c["scipy.lu 1d"] = "jsp.linalg.lu(f3)"
  c["scipy.solve mismatch"] = "jsp.linalg.solve(f33, f4)"
  c["scipy.solve assume_a"] = "jsp.linalg.solve(f33, f3, assume_a='foo')"
  c["scipy.solve nonsquare"] = "jsp.linalg.solve(f23, f2)"
  c["scipy.solve_triangular mismatch"] = "jsp.linalg.solve_triangular(f33, f4)"
  c["scipy.solve_triangular trans"] = "jsp.linalg.solve_triangular(f33, f3, trans=5)"
  c["scipy.solve_triangular nonsquare"] = "jsp.linalg.solve_triangular(f23, f2)"
  c["scipy.inv nonsquare"] = "jsp.linalg.inv(f23)"
  c["scipy.det 1d"] = "jsp.linalg.det(f3)"
  c["scipy.eigh nonsquare"] = "jsp.linalg.eigh(f23)"
  c["scipy.eigh b"] = "jsp.linalg.eigh(f33, f33)"
  c["scipy.eigh_tridiagonal shapes"] = "jsp.linalg.eigh_tridiagonal(f3, f3)"
  c["scipy.expm nonsquare"] = "jsp.linalg.expm(f23)"
  c["scipy.expm 1d"] = "jsp.linalg.expm(f3)"
  c["scipy.expm_frechet shapes"] = "jsp.linalg.expm_frechet(f33, jnp.ones((2, 2)))"
  c["scipy.sqrtm nonsquare"] = "jsp.linalg.sqrtm(f23)"
  c["scipy.schur nonsquare"] = "jsp.linalg.schur(f23)"
  c["scipy.schur output"] = "jsp.linalg.schur(f33, output='foo')"
  c["scipy.funm nonsquare"] = "jsp.linalg.funm(f23, jnp.exp)"
  c["scipy.polar nonsquare ok"] = "jsp.linalg.polar(f23)[0].shape"
  c["scipy.polar side"] = "jsp.linalg.polar(f33, side='foo')"
  c["scipy.svd 1d"] = "jsp.linalg.svd(f3)"
  c["scipy.qr mode"] = "jsp.linalg.qr(f33, mode='foo')"
  c["scipy.qr 1d"] = "jsp.linalg.qr(f3)"
  c["scipy.block_diag 3d"] = "jsp.linalg.block_diag(jnp.ones((2, 2, 2)))"
  c["scipy.toeplitz 2d ok"] = "jsp.linalg.toeplitz(f23).shape"
  c["scipy.hessenberg nonsquare"] = "jsp.linalg.hessenberg(f23)"
  c["scipy.rsf2csf shapes"] = "jsp.linalg.rsf2csf(f33, f23)"
  c["scipy.pascal traced"] = "J(lambda n: jsp.linalg.pascal(n))(3)"
  c["scipy.hilbert traced"] = "J(lambda n: jsp.linalg.hilbert(n))(3)"
  c["scipy.solve_sylvester shapes"] = "jsp.linalg.solve_sylvester(f33, f33, f23)"

  # -- scipy.stats, signal, ndimage, integrate
  c["stats.norm.pdf shapes"] = "jsp.stats.norm.pdf(f3, f4)"
  c["stats.norm.logpdf shapes"] = "jsp.stats.norm.logpdf(f3, f4, 1.)"
  c["stats.norm.cdf string"] = "jsp.stats.norm.cdf('a')"
  c["stats.beta.pdf shapes"] = "jsp.stats.beta.pdf(f3, f4, 1.)"
  c["stats.gamma.logpdf shapes"] = "jsp.stats.gamma.logpdf(f3, f4)"
  c["stats.poisson.pmf shapes"] = "jsp.stats.poisson.pmf(f3, f4)"
  c["stats.multivariate_normal shapes"] = "jsp.stats.multivariate_normal.logpdf(f3, f4, f33)"
  c["stats.multivariate_normal cov"] = "jsp.stats.multivariate_normal.logpdf(f3, f3, f23)"
  c["stats.dirichlet.pdf shapes"] = "jsp.stats.dirichlet.pdf(f3, f4)"
  c["stats.mode axis oob"] = "jsp.stats.mode(f3, axis=2)"
  c["stats.rankdata method"] = "jsp.stats.rankdata(f3, method='foo')"
  c["stats.rankdata axis oob"] = "jsp.stats.rankdata(f3, axis=2)"
  c["stats.gaussian_kde 0d"] = "jsp.stats.gaussian_kde(jnp.float32(1))"
  c["stats.sem axis oob"] = "jsp.stats.sem(f3, axis=2)"
  c["stats.bernoulli.pmf shapes"] = "jsp.stats.bernoulli.pmf(f3, f4)"
  c["signal.convolve mode"] = "jsp.signal.convolve(f3, f3, mode='foo')"
  c["signal.convolve ranks"] = "jsp.signal.convolve(f23, f3)"
  c["signal.convolve2d 1d"] = "jsp.signal.convolve2d(f3, f3)"
  c["signal.correlate method"] = "jsp.signal.correlate(f3, f3, method='foo')"
  c["signal.fftconvolve ranks"] = "jsp.signal.fftconvolve(f23, f3)"
  c["signal.stft window"] = "jsp.signal.stft(f4, window='foo')"
  c["signal.detrend type"] = "jsp.signal.detrend(f4, type='foo')"
  c["ndimage.map_coordinates order"] = "jsp.ndimage.map_coordinates(f3, [f3], order=3)"
  c["ndimage.map_coordinates len"] = "jsp.ndimage.map_coordinates(f23, [f3], order=1)"
  c["ndimage.map_coordinates mode"] = "jsp.ndimage.map_coordinates(f3, [f3], order=1, mode='foo')"
  c["integrate.trapezoid shapes"] = "jsp.integrate.trapezoid(f3, f4)"
  c["integrate.trapezoid axis oob"] = "jsp.integrate.trapezoid(f3, axis=2)"
  c["scipy.fft.dct type"] = "jsp.fft.dct(f4, type=5)"
  c["scipy.fft.dct norm"] = "jsp.fft.dct(f4, norm='foo')"
  c["scipy.fft.dct axis oob"] = "jsp.fft.dct(f4, axis=1)"
  c["scipy.fft.dctn axes"] = "jsp.fft.dctn(f23, axes=(0, 2))"
  c["scipy.interpolate grid mismatch"] = ("jsp.interpolate.RegularGridInterpolator((f3,), f4)")
  c["scipy.interpolate method"] = ("jsp.interpolate.RegularGridInterpolator((f3,), f3, "
                                   "method='foo')")
  c["scipy.optimize.minimize method"] = "jsp.optimize.minimize(lambda x: jnp.sum(x), f3, method='foo')"
  c["scipy.optimize.minimize 2d x0"] = "jsp.optimize.minimize(lambda x: jnp.sum(x), f23, method='BFGS')"
  c["scipy.cluster.vq shapes"] = "jsp.cluster.vq.vq(f23, jnp.ones((2, 4)))"
  c["scipy.spatial.Rotation bad quat"] = "jsp.spatial.transform.Rotation.from_quat(f3)"

  # -- transformations
  c["jit non-callable"] = "jax.jit(1)"
  c["jit static_argnums oob"] = "jax.jit(lambda x: x, static_argnums=3)(1.)"
  c["jit static_argnames unknown"] = "jax.jit(lambda x: x, static_argnames='y')(1.)"
  c["jit static unhashable"] = "jax.jit(lambda x: x, static_argnums=0)([1])"
  c["jit static array"] = "jax.jit(lambda x: x, static_argnums=0)(f3)"
  c["jit string arg"] = "jax.jit(lambda x: x)('a')"
  c["jit object arg"] = "jax.jit(lambda x: x)(object())"
  c["jit None result ok"] = "jax.jit(lambda x: None)(1.)"
  c["jit string result"] = "jax.jit(lambda x: 'a')(1.)"
  c["jit object result"] = "jax.jit(lambda x: object())(1.)"
  c["jit if on tracer"] = "J(lambda x: 1. if x > 0 else 2.)(1.)"
  c["jit int on tracer"] = "J(lambda x: int(x))(1.)"
  c["jit float on tracer"] = "J(lambda x: float(x))(1.)"
  c["jit index on tracer"] = "J(lambda i: [1, 2, 3][i])(1)"
  c["jit range on tracer"] = "J(lambda n: list(range(n)))(3)"
  c["jit np.asarray on tracer"] = "J(lambda x: np.asarray(x))(f3)"
  c["jit np.sin on tracer"] = "J(lambda x: np.sin(x))(f3)"
  c["jit while on tracer"] = "J(lambda x: [x for _ in iter(lambda: bool(x < 0), True)])(1.)"
  c["jit donate oob"] = "jax.jit(lambda x: x, donate_argnums=3)(1.)"
  c["jit donate and static"] = "jax.jit(lambda x: x, static_argnums=0, donate_argnums=0)(1.)"
  c["jit unknown kwarg"] = "jax.jit(lambda x: x)(1., y=2.)"
  c["jit missing arg"] = "jax.jit(lambda x, y: x)(1.)"
  c["jit in_shardings len"] = "jax.jit(lambda x: x, in_shardings=(None, None))(1.)"
  c["jit lower then wrong call"] = "jax.jit(lambda x: x).lower(f3).compile()(f4)"
  c["jit lower then dtype"] = "jax.jit(lambda x: x).lower(f3).compile()(i3)"
  c["jit lower then tree"] = "jax.jit(lambda x: x).lower(f3).compile()((f3,))"
  c["jit tracer leak"] = "(lambda s: (J(lambda x: s.append(x) or x)(1.), s[0] + 1))([])"
  c["grad non-scalar"] = "jax.grad(lambda x: x)(f3)"
  c["grad int input"] = "jax.grad(lambda x: x * 2.)(1)"
  c["grad int array input"] = "jax.grad(lambda x: jnp.sum(x * 2.))(i3)"
  c["grad bool input"] = "jax.grad(lambda x: 1.)(True)"
  c["grad complex output"] = "jax.grad(lambda x: x * 1j)(1.)"
  c["grad complex input"] = "jax.grad(lambda x: jnp.abs(x))(1j)"
  c["grad int output"] = "jax.grad(lambda x: jnp.int32(1))(1.)"
  c["grad argnums oob"] = "jax.grad(lambda x: x, argnums=2)(1.)"
  c["grad argnums negative oob"] = "jax.grad(lambda x: x, argnums=-2)(1.)"
  c["grad argnums float"] = "jax.grad(lambda x: x, argnums=0.5)(1.)"
  c["grad argnums empty"] = "jax.grad(lambda x: x, argnums=())(1.)"
  c["grad tuple output"] = "jax.grad(lambda x: (x, x))(1.)"
  c["grad has_aux not tuple"] = "jax.grad(lambda x: x, has_aux=True)(1.)"
  c["grad has_aux len"] = "jax.grad(lambda x: (x, x, x), has_aux=True)(1.)"
  c["grad string input"] = "jax.grad(lambda x: 1.)('a')"
  c["grad list output"] = "jax.grad(lambda x: [x])(1.)"
  c["grad non-callable"] = "jax.grad(1)"
  c["grad no args"] = "jax.grad(lambda: 1.)()"
  c["grad kwarg"] = "jax.grad(lambda x: x)(x=1.)"
  c["grad None output"] = "jax.grad(lambda x: None)(1.)"
  c["grad bool control flow"] = "jax.grad(lambda x: x if x > 0 else -x)(1.)"
  c["grad of np function"] = "jax.grad(lambda x: np.sin(x))(1.)"
  c["grad holomorphic real"] = "jax.grad(lambda x: x, holomorphic=True)(1.)"
  c["grad allow_int"] = "jax.grad(lambda x: x * 2., allow_int=True)(1)"
  c["value_and_grad non-scalar"] = "jax.value_and_grad(lambda x: x)(f3)"
  c["value_and_grad int input"] = "jax.value_and_grad(lambda x: x * 2.)(1)"
  c["value_and_grad argnums oob"] = "jax.value_and_grad(lambda x: x, argnums=1)(1.)"
  c["jacfwd int input"] = "jax.jacfwd(lambda x: x)(1)"
  c["jacrev int input"] = "jax.jacrev(lambda x: x)(1)"
  c["jacrev complex output"] = "jax.jacrev(lambda x: x * 1j)(1.)"
  c["jacfwd complex input"] = "jax.jacfwd(lambda x: x)(1j)"
  c["jacfwd argnums oob"] = "jax.jacfwd(lambda x: x, argnums=2)(1.)"
  c["hessian int input"] = "jax.hessian(lambda x: x)(1)"
  c["vmap non-callable"] = "jax.vmap(1)"
  c["vmap in_axes len"] = "jax.vmap(lambda x, y: x, in_axes=(0,))(f3, f3)"
  c["vmap in_axes oob"] = "jax.vmap(lambda x: x, in_axes=1)(f3)"
  c["vmap in_axes neg oob"] = "jax.vmap(lambda x: x, in_axes=-2)(f3)"
  c["vmap in_axes float"] = "jax.vmap(lambda x: x, in_axes=0.5)(f3)"
  c["vmap in_axes string"] = "jax.vmap(lambda x: x, in_axes='a')(f3)"
  c["vmap in_axes list"] = "jax.vmap(lambda x, y: x, in_axes=[0, 0])(f3, f3)"
  c["vmap in_axes tree mismatch"] = "jax.vmap(lambda x: x, in_axes=({'a': 0},))((f3,))"
  c["vmap sizes differ"] = "jax.vmap(lambda x, y: x + y)(f3, f4)"
  c["vmap no batched args"] = "jax.vmap(lambda x: x, in_axes=None)(f3)"
  c["vmap no args"] = "jax.vmap(lambda: 1.)()"
  c["vmap 0d arg"] = "jax.vmap(lambda x: x)(jnp.float32(1))"
  c["vmap python scalar"] = "jax.vmap(lambda x: x)(1.)"
  c["vmap out_axes oob"] = "jax.vmap(lambda x: x, out_axes=2)(f3)"
  c["vmap out_axes None batched"] = "jax.vmap(lambda x: x, out_axes=None)(f3)"
  c["vmap out_axes len"] = "jax.vmap(lambda x: (x, x), out_axes=(0,))(f3)"
  c["vmap axis_size mismatch"] = "jax.vmap(lambda x: x, axis_size=4)(f3)"
  c["vmap string arg"] = "jax.vmap(lambda x: x)('abc')"
  c["vmap kwargs in_axes"] = "jax.vmap(lambda x: x, in_axes=1)(x=f23)"
  c["vmap spmd_axis"] = "jax.vmap(lambda x: lax.psum(x, 'j'), axis_name='i')(f3)"
  c["vmap of item"] = "jax.vmap(lambda x: x.item())(f3)"
  c["vmap of if"] = "jax.vmap(lambda x: 1. if x > 0 else 2.)(f3)"
  c["vmap list arg"] = "jax.vmap(lambda x: x)([1., 2.]).shape"
  c["jvp tuple primals required"] = "jax.jvp(lambda x: x, 1., 1.)"
  c["jvp list primals"] = "jax.jvp(lambda x: x, [1.], [1.])"
  c["jvp len mismatch"] = "jax.jvp(lambda x: x, (1.,), (1., 2.))"
  c["jvp shape mismatch"] = "jax.jvp(lambda x: x, (f3,), (f4,))"
  c["jvp dtype mismatch"] = "jax.jvp(lambda x: x, (f3,), (i3,))"
  c["jvp tree mismatch"] = "jax.jvp(lambda x: x, ((f3, f3),), ([f3, f3],))"
  c["jvp int primal float tangent"] = "jax.jvp(lambda x: x, (1,), (1.,))"
  c["jvp string primal"] = "jax.jvp(lambda x: x, ('a',), ('a',))"
  c["jvp non-callable"] = "jax.jvp(1, (1.,), (1.,))"
  c["vjp cotangent shape"] = "jax.vjp(lambda x: x, f3)[1](f4)"
  c["vjp cotangent dtype"] = "jax.vjp(lambda x: x, f3)[1](i3)"
  c["vjp cotangent tree"] = "jax.vjp(lambda x: x, f3)[1]((f3,))"
  c["vjp cotangent count"] = "jax.vjp(lambda x: x, f3)[1](f3, f3)"
  c["vjp int primal"] = "jax.vjp(lambda x: x * 2, 1)[1](1)"
  c["vjp has_aux not tuple"] = "jax.vjp(lambda x: x, f3, has_aux=True)"
  c["vjp string primal"] = "jax.vjp(lambda x: x, 'a')"
  c["linearize shapes"] = "jax.linearize(lambda x: x, f3)[1](f4)"
  c["linear_transpose nonlinear"] = "jax.linear_transpose(lambda x: x * x, 1.)(1.)"
  c["linear_transpose int"] = "jax.linear_transpose(lambda x: x, 1)(1)"
  c["linear_transpose ct shape"] = "jax.linear_transpose(lambda x: x, f3)(f4)"
  c["make_jaxpr non-callable"] = "jax.make_jaxpr(1)"
  c["make_jaxpr string arg"] = "jax.make_jaxpr(lambda x: x)('a')"
  c["make_jaxpr static_argnums"] = "jax.make_jaxpr(lambda x: x, static_argnums=2)(1.)"
  c["eval_shape string"] = "jax.eval_shape(lambda x: x, 'a')"
  c["eval_shape error inside"] = "jax.eval_shape(lambda x: x + f4, f3)"
  c["checkpoint policy bad"] = "jax.checkpoint(lambda x: x, policy=1)(1.)"
  c["checkpoint static_argnums"] = "jax.checkpoint(lambda x: x, static_argnums=(2,))(1.)"
  c["custom_jvp wrong tangent shape"] = "jax.jvp(cjvp_badshape, (f3,), (f3,))"
  c["custom_jvp wrong output tree"] = "jax.jvp(cjvp_badtree, (1.,), (1.,))"
  c["custom_jvp no rule"] = "jax.jvp(jax.custom_jvp(lambda x: x), (1.,), (1.,))"
  c["custom_vjp no rule"] = "jax.grad(jax.custom_vjp(lambda x: x))(1.)"
  c["custom_vjp bwd shape"] = "jax.grad(cvjp_badshape)(1.)"
  c["custom_vjp bwd tuple"] = "jax.grad(cvjp_badtuple)(1.)"
  c["custom_vjp fwd output"] = "jax.grad(cvjp_badfwd)(1.)"
  c["pmap too many"] = "jax.pmap(lambda x: x)(jnp.ones((64, 3)))"
  c["pmap 0d"] = "jax.pmap(lambda x: x)(jnp.float32(1))"
  c["pmap axis_name unbound"] = "jax.pmap(lambda x: lax.psum(x, 'j'), axis_name='i')(jnp.ones((1,)))"
  c["device_put bad device"] = "jax.device_put(f3, 'cpu')"
  c["device_get string"] = "jax.device_get('a')"
  c["block_until_ready string"] = "jax.block_until_ready('a')"
  c["ShapeDtypeStruct bad dtype"] = "jax.ShapeDtypeStruct((3,), 'foo')"
  c["ShapeDtypeStruct bad shape"] = "jax.ShapeDtypeStruct(3.5, jnp.float32)"
  c["tree.map mismatch"] = "jax.tree.map(lambda a, b: a, (1, 2), [1, 2])"
  c["tree.map len mismatch"] = "jax.tree.map(lambda a, b: a, (1, 2), (1,))"
  c["tree.map dict keys"] = "jax.tree.map(lambda a, b: a, {'a': 1}, {'b': 1})"
  c["tree.unflatten count"] = "jax.tree.unflatten(jax.tree.structure((1, 2)), [1])"
  c["tree.transpose mismatch"] = "jax.tree.transpose(jax.tree.structure((0, 0)), jax.tree.structure([0]), ((1,), (2, 3)))"
  c["tree_util.register twice"] = "[jax.tree_util.register_pytree_node(tuple, None, None)]"
  c["tree.flatten_with_path ok"] = "len(jax.tree.flatten_with_path((1, 2))[0])"
  c["io_callback grad"] = "jax.grad(lambda x: io_callback(lambda v: v, S((), jnp.float32), x))(1.)"
  c["io_callback jvp"] = "jax.jvp(lambda x: io_callback(lambda v: v, S((), jnp.float32), x), (1.,), (1.,))"
  c["io_callback linear_transpose"] = ("jax.linear_transpose(lambda x: io_callback(lambda v: v, "
                                        "S((), jnp.float32), x), 1.)(1.)")
  c["io_callback vmap ordered"] = ("jax.vmap(lambda x: io_callback(lambda v: v, S((), jnp.float32), x, "
                                   "ordered=True))(f3)")
  c["io_callback wrong shape result"] = "io_callback(lambda v: np.ones(4, np.float32), S((3,), jnp.float32), f3)"
  c["io_callback wrong dtype result"] = "io_callback(lambda v: np.ones(3, np.int32), S((3,), jnp.float32), f3)"
  c["pure_callback grad"] = "jax.grad(lambda x: jax.pure_callback(lambda v: v, S((), jnp.float32), x))(1.)"
  c["pure_callback vmap default"] = "jax.vmap(lambda x: jax.pure_callback(lambda v: v, S((), jnp.float32), x))(f3)"
  c["pure_callback vmap_method bad"] = ("jax.pure_callback(lambda v: v, S((), jnp.float32), 1., "
                                        "vmap_method='foo')")
  c["pure_callback wrong shape"] = "jax.pure_callback(lambda v: np.ones(4, np.float32), S((3,), jnp.float32), f3)"
  c["pure_callback raises"] = "jax.pure_callback(lambda v: 1 / 0, S((), jnp.float32), 1.)"
  c["debug.print traced format"] = "J(lambda x: jax.debug.print('{}', x, y=1))(1.)"
  c["debug.callback non-callable"] = "jax.debug.callback(1, 1.)"
  c["ensure_compile_time_eval"] = "J(lambda x: int(x))(3)"
  c["named_call non-callable"] = "jax.named_call(1)"
  c["disable_jit grad ok"] = "jax.grad(lambda x: x * 2.)(1.)"
  c["config.update unknown"] = "jax.config.update('jax_foo', 1)"
  c["config.update bad value"] = "jax.config.update('jax_numpy_rank_promotion', 'foo')"
  c["numpy rank promotion raise"] = "rank_raise(lambda: f3 + f23)"
  c["dtypes.canonicalize bad"] = "jax.dtypes.canonicalize_dtype('foo')"
  c["dtypes.result_type none"] = "jax.dtypes.result_type()"
  c["dtypes.issubdtype bad"] = "jax.dtypes.issubdtype('foo', jnp.floating)"
  c["jnp.dtype bad"] = "jnp.dtype('foo')"
  c["jnp.iinfo float"] = "jnp.iinfo(jnp.float32)"
  c["jnp.finfo int"] = "jnp.finfo(jnp.int32)"
  c["jnp.promote_types bad"] = "jnp.promote_types('foo', jnp.float32)"
  c["jnp.result_type string"] = "jnp.result_type('a')"
  c["jnp.can_cast bad"] = "jnp.can_cast('foo', jnp.float32)"
  c["jnp.frombuffer bad"] = "jnp.frombuffer(b'abc', dtype=jnp.float32)"
  c["jnp.fromstring sep"] = "jnp.fromstring('1 2', sep='')"
  c["jnp.array copy False"] = "jnp.array(np.ones(3), copy=False).shape"
  c["jnp.asarray copy False array"] = "jnp.asarray(f3, copy=False).shape"
  c["Array constructor"] = "type(f3)()"
  c["ops.segment_sum traced num"] = "J(lambda n: jax.ops.segment_sum(f3, i3, num_segments=n))(3)"
  c["ops.segment_sum shapes"] = "jax.ops.segment_sum(f3, jnp.zeros(4, int), num_segments=2)"
  c["ops.segment_sum float ids"] = "jax.ops.segment_sum(f3, f3, num_segments=2)"
  c["image.resize method"] = "jax.image.resize(f3, (6,), method='foo')"
  c["image.resize rank"] = "jax.image.resize(f3, (6, 2), method='linear')"
  c["image.scale_and_translate dims"] = ("jax.image.scale_and_translate(f3, (6,), (1,), f2, f2, "
                                         "'linear')")
  c["flatten_util unravel mismatch"] = "jax.flatten_util.ravel_pytree((f3,))[1](f4)"
  c["lax.cond operand count"] = "lax.cond(True, lambda x: x, lambda x: x, 1., 2.)"
  c["lax.switch operand count"] = "lax.switch(0, [lambda x: x], 1., 2.)"
  c["lax.while_loop non-callable"] = "lax.while_loop(1, 2, 3)"
  c["lax.scan reverse traced"] = "J(lambda r: lax.scan(lambda c, x: (c, x), 0., f3, reverse=r))(True)"
  c["lax.scan unroll negative"] = "lax.scan(lambda c, x: (c, x), 0., f3, unroll=-1)"
  c["lax.fori_loop traced unroll"] = "J(lambda u: lax.fori_loop(0, 3, lambda i, c: c, 0., unroll=u))(1)"
  c["checkify error"] = "jax.experimental.checkify.checkify(lambda x: x)(1.)[0].throw()"
  # found while fixing the cases above
  c["full_like array fill"] = "jnp.full_like(f23, f3).shape"
  c["full_like list fill"] = "jnp.full_like(f23, [1, 2, 3])"
  c["full list fill"] = "jnp.full((2, 3), [1, 2, 3])"
  c["cumsum 0d axis"] = "jnp.cumsum(jnp.float32(1), axis=0)"
  c["take bool idx"] = "jnp.take(f3, jnp.array([True, False]))"
  c["arange list"] = "jnp.arange([1])"
  c["arange array bound"] = "jnp.arange(f3)"
  c["zeros dtype array"] = "jnp.zeros(3, dtype=f3)"
  c["zeros dtype int"] = "(jnp.zeros(3, dtype=np.float32(1)), jnp.zeros(3, dtype=1))"
  c["convert_element_type array dtype"] = "lax.convert_element_type(f3, f3)"
  c["lexsort 0d keys"] = "jnp.lexsort(f3)"
  c["multi_dot rank"] = "jnp.linalg.multi_dot([f23, jnp.ones((2, 3, 3))])"
  c["stop_gradient str leaf"] = "lax.stop_gradient((1., 'a'))"
  c["random.key sum"] = "random.key(0).sum()"
  c["random.key real"] = "random.key(0).real"
  c["special.gamma complex pole"] = "jsp.special.gamma(jnp.array([0j, -1+0j]))"
  c["special.lpmn 2d z"] = "jsp.special.lpmn(2, 2, f23)"
  c["special.lpmn int z"] = "jsp.special.lpmn(2, 2, i3)"
  c["special.multigammaln traced d"] = "J(lambda d: jsp.special.multigammaln(3., d))(2)"
  c["stats.multivariate_normal mean cov"] = "jsp.stats.multivariate_normal.pdf(f3, f4, f33)"
  c["jit in_shardings kwargs"] = "jax.jit(lambda x, y: x, in_shardings=(None,))(1., y=2.)"
  c["jit in_shardings static"] = "jax.jit(lambda x, n: x, static_argnums=1, in_shardings=(None, None))(1., 2)"
  c["jacfwd argnums oob"] = "jax.jacfwd(lambda x: x, argnums=1)(1.)"
  c["named_call partial"] = "jax.named_call(__import__('functools').partial(lambda x: x))"
  c["tree_util.register duplicate"] = ("jax.tree_util.register_pytree_node(tuple, lambda x: (x, None), "
                                       "lambda a, c: tuple(c))")
  c["lax.fori_loop float unroll"] = "lax.fori_loop(0, 3, lambda i, c: c, 0., unroll=1.5)"
  c["lax.scan traced unroll"] = "J(lambda u: lax.scan(lambda c, x: (c, x), 0., f3, unroll=u))(1)"
  c["lax.scan body not pair"] = "lax.scan(lambda c, x: c + x, 0., f3)"
  c["atleast_1d list of numbers"] = "jnp.atleast_1d([1, 2])"
  c["vstack list of lists"] = "jnp.vstack([[1, 2], [3, 4]])"
  c["cov list y"] = "jnp.cov(f3, [1., 2., 3.])"
  c["einsum repeated output"] = "jnp.einsum('i->ii', f3)"
  c["polygamma float n"] = "jsp.special.polygamma(1.5, 2.)"
  c["config default_device bad"] = "jax.config.update('jax_default_device', 'foo')"
  c["grad dict output"] = "jax.grad(lambda x: {'a': x})(1.)"
  c["lax.switch branch mismatch 2"] = "lax.switch(0, [lambda x: x, lambda x: f3], 1.)"
  return c


def _namespace(lib: str) -> dict:
  jax = importlib.import_module(lib)
  for sub in ["numpy", "lax", "nn", "random", "scipy", "scipy.special", "scipy.linalg",
              "scipy.stats", "scipy.signal", "scipy.ndimage", "scipy.integrate", "scipy.fft",
              "scipy.interpolate", "scipy.optimize", "scipy.cluster.vq",
              "scipy.spatial.transform", "experimental", "experimental.checkify",
              "flatten_util", "image", "ops", "tree_util", "dtypes", "lax.linalg"]:
    try:
      importlib.import_module(f"{lib}.{sub}")
    except ImportError:
      pass
  import numpy as np
  jnp, lax = jax.numpy, jax.lax
  ns = dict(jax=jax, jnp=jnp, lax=lax, nn=jax.nn, random=jax.random, jsp=jax.scipy, np=np,
            J=jax.jit, S=jax.ShapeDtypeStruct, io_callback=jax.experimental.io_callback)
  ns.update(f2=jnp.ones(2), f3=jnp.ones(3), f4=jnp.ones(4), f23=jnp.ones((2, 3)),
            f24=jnp.ones((2, 4)), f33=jnp.eye(3), i3=jnp.arange(3), i4=jnp.arange(4),
            i33=jnp.eye(3, dtype=int), b3=jnp.ones(3, bool), b4=jnp.ones(4, bool),
            c3=jnp.ones(3, jnp.complex64), key=jax.random.key(0))

  cjvp_badshape = jax.custom_jvp(lambda x: x)
  cjvp_badshape.defjvp(lambda p, t: (p[0], jnp.ones(4)))
  cjvp_badtree = jax.custom_jvp(lambda x: x)
  cjvp_badtree.defjvp(lambda p, t: (p[0], (t[0], t[0])))
  cvjp_badshape = jax.custom_vjp(lambda x: x)
  cvjp_badshape.defvjp(lambda x: (x, None), lambda r, g: (jnp.ones(3),))
  cvjp_badtuple = jax.custom_vjp(lambda x: x)
  cvjp_badtuple.defvjp(lambda x: (x, None), lambda r, g: g)
  cvjp_badfwd = jax.custom_vjp(lambda x: x)
  cvjp_badfwd.defvjp(lambda x: x, lambda r, g: (g,))

  def rank_raise(f):
    with jax.numpy_rank_promotion("raise"):
      return f()

  ns.update(cjvp_badshape=cjvp_badshape, cjvp_badtree=cjvp_badtree, cvjp_badshape=cvjp_badshape,
            cvjp_badtuple=cvjp_badtuple, cvjp_badfwd=cvjp_badfwd, rank_raise=rank_raise)
  return ns


def _class_name(e: BaseException) -> str:
  """The exception's public class: the first in its MRO that is a builtin or public
  (`jax.errors.X` and `xjax.errors.X` both read `errors.X`; a private subclass reads as the
  public class it extends, which is what `except` clauses and users see documented)."""
  for cls in type(e).__mro__:
    module = cls.__module__
    if module == "builtins":
      return cls.__qualname__
    parts = module.split(".")
    if parts[0] in ("jax", "xjax", "jaxlib"):
      parts = parts[1:]
    if not any(p.startswith("_") for p in parts) or module == "jaxlib._jax":
      return ".".join([*parts, cls.__qualname__])
  return type(e).__qualname__


def record(lib: str) -> dict[str, list[str]]:
  warnings.simplefilter("ignore")
  ns = _namespace(lib)
  out = {}
  for name, expr in cases().items():
    try:
      ns["jax"].block_until_ready(eval(expr, dict(ns)))  # noqa: S307 - the cases above
      out[name] = ["OK", ""]
    except Exception as e:  # every case is meant to raise something
      lines = str(e).strip().splitlines()
      out[name] = [_class_name(e), lines[0][:200] if lines else ""]
  return out


def compare(ref: dict, ours: dict, messages: bool) -> int:
  mismatched = 0
  for name in ref:
    (rc, rm), (oc, om) = ref[name], ours.get(name, ["missing", ""])
    if rc != oc:
      mismatched += 1
      print(f"CLASS  {name}\n  jax:  {rc}: {rm}\n  xjax: {oc}: {om}")
    elif messages and rm != om:
      print(f"MSG    {name}\n  jax:  {rm}\n  xjax: {om}")
  print(f"{mismatched} class mismatches in {len(ref)} cases")
  return mismatched


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  sub = parser.add_subparsers(dest="mode", required=True)
  r = sub.add_parser("record")
  r.add_argument("--lib", choices=["jax", "xjax"], required=True)
  r.add_argument("--out", required=True)
  cmp = sub.add_parser("compare")
  cmp.add_argument("ref")
  cmp.add_argument("ours")
  cmp.add_argument("--messages", action="store_true")
  both = sub.add_parser("both")
  both.add_argument("--ref-python", default="/tmp/ref/bin/python")
  both.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
  both.add_argument("--messages", action="store_true")
  args = parser.parse_args()
  if args.mode == "record":
    Path(args.out).write_text(json.dumps(record(args.lib), indent=1))
  elif args.mode == "compare":
    compare(json.loads(Path(args.ref).read_text()), json.loads(Path(args.ours).read_text()),
            args.messages)
  else:
    files = {}
    for lib, python in [("jax", args.ref_python), ("xjax", args.python)]:
      files[lib] = Path(f"/tmp/differential_errors_{lib}.json")
      subprocess.run([python, __file__, "record", "--lib", lib, "--out", str(files[lib])],
                     check=True)
    compare(json.loads(files["jax"].read_text()), json.loads(files["xjax"].read_text()),
            args.messages)


if __name__ == "__main__":
  main()
