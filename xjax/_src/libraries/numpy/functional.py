"""Arrays built by calling functions: apply_along_axis (via vmap), apply_over_axes,
fromfunction, piecewise and vectorize (NumPy's generalized-ufunc signatures over vmap)."""
from __future__ import annotations

import re

from xjax._src.core.concrete import canonicalize_shape
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.conditionals import switch
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.creation import arange, asarray, zeros_like
from xjax._src.libraries.numpy.cumulative import cumsum
from xjax._src.libraries.numpy.reductions import argmax
from xjax._src.libraries.numpy.shaping import (broadcast_shapes, broadcast_to, concatenate,
                                               expand_dims)
from xjax._src.core.values import get_aval
from xjax._src.foundations.wrapping import update_wrapper


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
  """``func1d`` applied to each 1-D slice of ``arr`` along ``axis`` (vmapped)."""
  from xjax._src.api.transformations import vmap
  arr = asarray(arr)
  nd = get_aval(arr).ndim
  axis = canonical_axis(axis, nd)
  fn = lambda x: func1d(x, *args, **kwargs)
  for i in range(1, nd - axis):
    fn = vmap(fn, in_axes=i, out_axes=-1)
  for _ in range(axis):
    fn = vmap(fn, in_axes=0, out_axes=0)
  return fn(arr)


def apply_over_axes(func, a, axes):
  """``func(a, axis)`` applied for each axis in turn, keeping the dimension count."""
  a = asarray(a)
  nd = get_aval(a).ndim
  for axis in ([axes] if isinstance(axes, int) else axes):
    b = func(a, axis)
    if get_aval(b).ndim == get_aval(a).ndim:
      a = b
    elif get_aval(b).ndim == get_aval(a).ndim - 1:
      a = expand_dims(b, canonical_axis(axis, nd))
    else:
      raise ValueError("function is not returning an array of the correct shape")
  return a


def fromfunction(function, shape, *, dtype=float, **kwargs):
  """``function`` of one scalar index per dimension of ``shape``, vmapped over each
  dimension in turn (as in JAX, keyword arguments are mapped along with the indices)."""
  from xjax._src.api.transformations import vmap
  shape = canonicalize_shape(shape, "shape argument of jnp.fromfunction()")
  fn = function
  for i in reversed(range(len(shape))):
    fn = vmap(fn, in_axes=tuple(0 if j == i else None for j in range(len(shape))))
  return fn(*(arange(n, dtype=dtype) for n in shape), **kwargs)


def piecewise(x, condlist, funclist, *args, **kw):
  """``funclist[i]`` (a function of ``x`` or a constant) where ``condlist[i]`` holds, later
  conditions winning; one extra function is the default where none holds (else 0). As in
  JAX, each element picks its function with a ``switch`` (vectorized: each function sees
  one element)."""
  x, = arraylike("piecewise", x)
  x = asarray(x)
  nc, nf = len(condlist), len(funclist)
  if nf == nc + 1:
    funclist = funclist[-1:] + funclist[:-1]
  elif nf == nc:
    funclist = [0] + list(funclist)
  else:
    raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                     f"expected; got {nf}")
  consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
  funcs = frozenset((i, f) for i, f in enumerate(funclist) if callable(f))
  return _piecewise(x, asarray(condlist, dtype=bool), consts, funcs, *args, **kw)


@compiled_when_eager(staged="_piecewise", static_argnames=("funcs",))
def _piecewise(x, condlist, consts, funcs, *args, **kw):
  funcs = dict(funcs)
  dtype = get_aval(x).dtype
  # the last condition that holds (0: none, the default)
  index = argmax(cumsum(concatenate([zeros_like(condlist[:1]), condlist], 0), 0), 0)

  def branch(i):
    if i in funcs:
      return lambda v: asarray(funcs[i](v, *args, **kw)).astype(dtype)
    return lambda v: asarray(consts[i], dtype=dtype)
  branches = [branch(i) for i in range(get_aval(condlist).shape[0] + 1)]
  return vectorize(switch, excluded=(1,))(index, branches, x)


_DIMS = r"\w+"


_CORE = rf"\((?:{_DIMS}(?:,{_DIMS})*)?\)"


_SIGNATURE = re.compile(rf"^{_CORE}(?:,{_CORE})*->{_CORE}(?:,{_CORE})*$")


def _parse_signature(signature):
  if not _SIGNATURE.match(signature.replace(" ", "")):
    raise ValueError(f"not a valid gufunc signature: {signature}")
  ins, outs = signature.replace(" ", "").split("->")
  parse = lambda side: [tuple(re.findall(_DIMS, g)) for g in re.findall(r"\(([^)]*)\)", side)]
  return parse(ins), parse(outs)


def core_dimensions(signature: str | None, shapes, excluded=frozenset()):
  """``(core, loop)``: each argument's core dimension names under the gufunc ``signature``
  (none without one) and the broadcast shape of their loop dimensions; raises what
  jnp.vectorize raises for arguments that do not fit the signature."""
  if signature is None:
    return [()] * len(shapes), broadcast_shapes(*shapes)
  context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
  core_in, _ = _parse_signature(signature)
  if len(core_in) != len(shapes):
    raise TypeError(f"wrong number of positional arguments: expected {len(core_in)}, "
                    f"got {len(shapes)} {context}")
  loops, sizes = [], {}
  for shape, core in zip(shapes, core_in):
    if len(shape) < len(core):
      raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all "
                       f"core dimensions {core!r} {context}")
    for name, d in zip(core, shape[len(shape) - len(core):]):
      if sizes.setdefault(name, d) != d:
        raise ValueError(f"inconsistent size for core dimension {name!r}: {d!r} vs "
                         f"{sizes[name]!r} {context}")
    loops.append(shape[:len(shape) - len(core)])
  return core_in, broadcast_shapes(*loops)


class vectorize:
  """``pyfunc`` mapped over the broadcast leading (loop) dimensions of its arguments with
  vmap; ``signature`` (e.g. ``'(n),(n)->()'``) names each argument's core dimensions.
  Arguments listed in ``excluded`` and keyword arguments pass through unchanged."""

  def __init__(self, pyfunc, *, excluded=frozenset(), signature=None):
    self.pyfunc = pyfunc
    self.excluded = excluded
    self.signature = signature
    update_wrapper(self, pyfunc)

  def __call__(self, *args, **kwargs):
    from xjax._src.api.transformations import vmap
    mapped = [i for i in range(len(args)) if i not in self.excluded]
    arrays = [asarray(args[i]) for i in mapped]
    core_in, loop = core_dimensions(self.signature, [x.shape for x in arrays], self.excluded)
    arrays = [broadcast_to(x, loop + x.shape[x.ndim - len(core):])
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
