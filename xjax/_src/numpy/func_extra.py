"""Function-building and signal helpers: vectorize, fromfunction, piecewise, unwrap,
packbits/unpackbits, poly/polydiv, einsum_path and NumPy's print options."""
from __future__ import annotations

import functools
import re

import numpy as np

from xjax._src import core_concrete, dtypes
from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.numpy import lax_numpy as jnp
from xjax._src.numpy.creation import asarray
from xjax._src.numpy.util import (canonical_axis, check_arraylike, promote_args_inexact,
                                  promote_dtypes_inexact)

printoptions = np.printoptions
get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions


def fromfunction(function, shape, *, dtype=float, **kwargs):
  """``function`` called with one index grid per dimension of ``shape``."""
  shape = tuple(int(core_concrete.concrete_or_error(d, "shape argument of jnp.fromfunction"))
                for d in shape)
  dt = dtypes.check_user_dtype_supported(dtype, "fromfunction")
  return function(*(lax.broadcasted_iota(dt, shape, i) for i in range(len(shape))),
                  **kwargs)


def piecewise(x, condlist, funclist, *args, **kw):
  """``funclist[i]`` (a function of ``x`` or a constant) where ``condlist[i]`` holds, later
  conditions winning; one extra function is the default where none holds (else 0)."""
  check_arraylike("piecewise", x)
  x = asarray(x)
  if isinstance(condlist, (list, tuple)):
    conds = [asarray(c) for c in condlist]
  else:
    condlist = asarray(condlist)
    conds = [condlist] if condlist.ndim == x.ndim else list(condlist)
  n = len(conds)
  if len(funclist) == n + 1:
    conds.append(~jnp.any(jnp.stack([jnp.broadcast_to(c, x.shape) for c in conds]), axis=0)
                 if n else jnp.ones(x.shape, bool))
  elif len(funclist) != n:
    raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are "
                     f"expected; got {len(funclist)}")
  out = jnp.zeros_like(x)
  for cond, f in zip(conds, funclist):
    val = f(x, *args, **kw) if callable(f) else f
    out = jnp.where(cond, asarray(val).astype(x.dtype), out)
  return out


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
  """``p`` with jumps larger than ``discont`` along ``axis`` replaced by their
  ``period`` complement."""
  check_arraylike("unwrap", p)
  (p,) = promote_args_inexact("unwrap", p)
  axis = canonical_axis(axis, p.ndim)
  half = period / 2
  discont = half if discont is None else discont
  dd = jnp.diff(p, axis=axis)
  ddmod = jnp.mod(dd + half, period) - half
  ddmod = jnp.where((ddmod == -half) & (dd > 0), half, ddmod)
  correct = jnp.where(jnp.abs(dd) < discont, 0, ddmod - dd)
  head = lax.slice_in_dim(p, 0, 1, axis=axis)
  rest = lax.slice_in_dim(p, 1, p.shape[axis], axis=axis)
  return jnp.concatenate([head, rest + jnp.cumsum(correct, axis=axis)], axis=axis) \
      .astype(p.dtype)


def _bit_weights(bitorder):
  if bitorder not in ("big", "little"):
    raise ValueError("'order' must be either 'little' or 'big'")
  shifts = np.arange(8, dtype=np.uint8)
  return shifts[::-1].copy() if bitorder == "big" else shifts


def packbits(a, axis=None, bitorder="big"):
  """Groups of 8 truth values along ``axis`` packed into uint8 (zero-padded at the end)."""
  check_arraylike("packbits", a)
  a = asarray(a)
  if not (dtypes.is_integer(a.dtype) or a.dtype == np.bool_):
    raise TypeError("Expected an input array of integer or boolean data type")
  if axis is None:
    a, axis = jnp.ravel(a), 0
  axis = canonical_axis(axis, a.ndim)
  bits = jnp.moveaxis((a != 0).astype(np.uint8), axis, -1)
  n = bits.shape[-1]
  pad = (-n) % 8
  if pad:
    bits = jnp.concatenate([bits, jnp.zeros(bits.shape[:-1] + (pad,), np.uint8)], axis=-1)
  bits = bits.reshape(bits.shape[:-1] + ((n + pad) // 8, 8))
  packed = jnp.sum(jnp.left_shift(bits, _bit_weights(bitorder)), axis=-1, dtype=np.uint8)
  return jnp.moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
  """Each uint8 along ``axis`` unpacked into 8 bits; ``count`` keeps that many (negative:
  drops that many from the end; more than available: zero-padded)."""
  check_arraylike("unpackbits", a)
  a = asarray(a)
  if a.dtype != np.uint8:
    raise TypeError("Expected an input array of unsigned byte data type")
  if axis is None:
    a, axis = jnp.ravel(a), 0
  axis = canonical_axis(axis, a.ndim)
  x = jnp.moveaxis(a, axis, -1)
  bits = jnp.right_shift(x[..., None], _bit_weights(bitorder)) & np.uint8(1)
  bits = bits.reshape(x.shape[:-1] + (x.shape[-1] * 8,))
  if count is not None:
    total = bits.shape[-1]
    keep = count if count >= 0 else max(total + count, 0)
    if keep <= total:
      bits = bits[..., :keep]
    else:
      bits = jnp.concatenate([bits, jnp.zeros(bits.shape[:-1] + (keep - total,), np.uint8)],
                             axis=-1)
  return jnp.moveaxis(bits, -1, axis)


def poly(seq_of_zeros):
  """Coefficients of the monic polynomial with the given 1-D sequence of roots, or of the
  characteristic polynomial of a square matrix."""
  check_arraylike("poly", seq_of_zeros)
  (roots,) = promote_args_inexact("poly", seq_of_zeros)
  roots = jnp.atleast_1d(roots)
  if roots.ndim == 2 and roots.shape[0] == roots.shape[1] and roots.shape[0] > 0:
    from xjax._src.numpy.linalg import eigvals
    roots = eigvals(roots)
  elif roots.ndim != 1:
    raise ValueError("input must be 1d or non-empty square 2d array.")
  coeffs = jnp.ones((1,), roots.dtype)
  for i in range(roots.shape[0]):
    coeffs = jnp.convolve(coeffs, jnp.stack([jnp.ones((), roots.dtype), -roots[i]]))
  return coeffs


def polydiv(u, v, *, trim_leading_zeros=False):
  """Quotient and remainder of polynomial division ``u / v`` (remainder as long as ``u``,
  unless ``trim_leading_zeros``, which needs concrete values)."""
  check_arraylike("polydiv", u, v)
  u, v = promote_dtypes_inexact(asarray(u), asarray(v))
  m, n = u.shape[0] - 1, v.shape[0] - 1
  scale = 1.0 / v[0]
  q = jnp.zeros((max(m - n + 1, 1),), u.dtype)
  r = u
  for k in range(m - n + 1):
    d = scale * r[k]
    q = q.at[k].set(d)
    r = r.at[k:k + n + 1].add(-d * v)
  if trim_leading_zeros:
    host = np.asarray(core_concrete.concrete_or_error(r, "remainder in jnp.polydiv"))
    nz = np.flatnonzero(host)
    r = r[nz[0]:] if nz.size else r[-1:]
  return q, r


def einsum_path(subscripts, /, *operands, optimize="auto"):
  """The pairwise contraction order for an einsum, with a printable report (NumPy's
  planner on the operands' shapes)."""
  if optimize in ("auto", True):
    optimize = "optimal" if len(operands) <= 4 else "greedy"
  stand_ins = [np.broadcast_to(np.zeros((), get_aval(asarray(o)).dtype), np.shape(o))
               for o in operands]
  path, report = np.einsum_path(subscripts, *stand_ins, optimize=optimize)
  return [tuple(step) for step in path[1:]], report


_DIMS = r"\w+"
_CORE = rf"\((?:{_DIMS}(?:,{_DIMS})*)?\)"
_SIGNATURE = re.compile(rf"^{_CORE}(?:,{_CORE})*->{_CORE}(?:,{_CORE})*$")


def _parse_signature(signature):
  if not _SIGNATURE.match(signature.replace(" ", "")):
    raise ValueError(f"not a valid gufunc signature: {signature}")
  ins, outs = signature.replace(" ", "").split("->")
  parse = lambda side: [tuple(re.findall(_DIMS, g)) for g in re.findall(r"\(([^)]*)\)", side)]
  return parse(ins), parse(outs)


class vectorize:
  """``pyfunc`` mapped over the broadcast leading (loop) dimensions of its arguments with
  vmap; ``signature`` (e.g. ``'(n),(n)->()'``) names each argument's core dimensions.
  Arguments listed in ``excluded`` and keyword arguments pass through unchanged."""

  def __init__(self, pyfunc, *, excluded=frozenset(), signature=None):
    self.pyfunc = pyfunc
    self.excluded = excluded
    self.signature = signature
    functools.update_wrapper(self, pyfunc)

  def __call__(self, *args, **kwargs):
    from xjax._src.api import vmap
    mapped = [i for i in range(len(args)) if i not in self.excluded]
    arrays = [asarray(args[i]) for i in mapped]
    if self.signature is None:
      core_in = [()] * len(arrays)
    else:
      core_in, _ = _parse_signature(self.signature)
      if len(core_in) != len(arrays):
        raise TypeError(f"wrong number of positional arguments: expected {len(core_in)}, "
                        f"got {len(arrays)}")
    loops, sizes = [], {}
    for x, core in zip(arrays, core_in):
      if x.ndim < len(core):
        raise ValueError(f"input with shape {x.shape} does not have enough dimensions for "
                         f"its core dimensions {core}")
      for name, d in zip(core, x.shape[x.ndim - len(core):]):
        if sizes.setdefault(name, d) != d:
          raise ValueError(f"inconsistent size for core dimension {name!r}: {d} vs "
                           f"{sizes[name]}")
      loops.append(x.shape[:x.ndim - len(core)])
    loop = jnp.broadcast_shapes(*loops) if loops else ()
    arrays = [jnp.broadcast_to(x, loop + x.shape[x.ndim - len(core):])
              for x, core in zip(arrays, core_in)]

    def call(*mapped_args):
      full = list(args)
      for i, x in zip(mapped, mapped_args):
        full[i] = x
      return self.pyfunc(*full, **kwargs)

    f = call
    for _ in loop:
      f = vmap(f)
    return f(*arrays)
