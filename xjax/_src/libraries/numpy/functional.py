"""Arrays built by calling functions: apply_along_axis (via vmap), apply_over_axes,
fromfunction, piecewise and vectorize (NumPy's generalized-ufunc signatures over vmap)."""
from __future__ import annotations

import re
import warnings

import numpy as np

from xjax._src.core.concrete import canonicalize_shape
from xjax._src.foundations.config import config
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.conditionals import switch
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.creation import arange, asarray, zeros_like
from xjax._src.libraries.numpy.cumulative import cumsum
from xjax._src.libraries.numpy.reductions import argmax
from xjax._src.libraries.numpy.shaping import (broadcast_shapes, concatenate, expand_dims,
                                               squeeze)
from xjax._src.core.values import get_aval
from xjax._src.foundations.wrapping import wraps


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
  core = None if signature is None else _parse_signature(signature)[0]
  core, loop, _ = _input_dimensions(core, shapes, _context(excluded, signature))
  return core, loop


def _context(excluded, signature) -> str:
  return f"on vectorized function with excluded={excluded!r} and signature={signature!r}"


def _input_dimensions(core_in, shapes, context: str):
  """``core_dimensions``' answer for the arguments' core dimension names ``core_in`` (None:
  no signature), and the sizes of the named core dimensions."""
  if core_in is None:
    return [()] * len(shapes), broadcast_shapes(*shapes), {}
  if len(core_in) != len(shapes):
    raise TypeError(f"wrong number of positional arguments: expected {len(core_in)}, "
                    f"got {len(shapes)} {context}")
  loops, sizes = [], {}
  for shape, core in zip(shapes, core_in):
    if len(shape) < len(core):
      raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all "
                       f"core dimensions {core!r} {context}")
    _agree(sizes, core, shape[len(shape) - len(core):], context)
    loops.append(shape[:len(shape) - len(core)])
  return core_in, broadcast_shapes(*loops), sizes


def _agree(sizes: dict, names, dims, context: str) -> None:
  """Records the sizes of the core dimensions ``names``; a name seen with another size is
  NumPy's ValueError."""
  for name, d in zip(names, dims):
    if sizes.setdefault(name, d) != d:
      raise ValueError(f"inconsistent size for core dimension {name!r}: {d!r} vs "
                       f"{sizes[name]!r} {context}")


def _check_outputs(out, core_out, sizes: dict, context: str) -> None:
  """The outputs of one call against the signature's output core dimensions."""
  outs = out if isinstance(out, tuple) else [out]
  if len(core_out) > 1 and not isinstance(out, tuple):
    raise TypeError(f"output must be a tuple when multiple outputs are expected, got: "
                    f"{out!r}\n{context}")
  if len(outs) != len(core_out):
    raise TypeError(f"wrong number of output arguments: expected {len(core_out)}, got "
                    f"{len(outs)} {context}")
  sizes = dict(sizes)
  for o, core in zip(outs, core_out):
    shape = np.shape(o)  # (as JAX: any object with a ``shape``, a pytree of arrays too)
    if len(shape) != len(core):
      raise ValueError(f"output shape {shape!r} does not match core dimensions {core!r} "
                       f"{context}")
    _agree(sizes, core, shape, context)


def _check_rank_promotion(arrays, core, signature) -> None:
  """``jax_numpy_rank_promotion`` ('warn' or 'raise') for loop dimensions of different
  ranks."""
  mode = config._read("jax_numpy_rank_promotion")
  if mode == "allow" or len({x.ndim - len(c) for x, c in zip(arrays, core) if x.ndim}) < 2:
    return
  msg = (f"operands with shapes {[x.shape for x in arrays]} require rank promotion for "
         f"jnp.vectorize function with signature {signature}. Set the "
         "jax_numpy_rank_promotion config option to 'allow' to disable this message; for "
         "more information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
  if mode == "raise":
    raise ValueError(msg)
  warnings.warn(msg)


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
  """``pyfunc`` mapped with vmap over the broadcast leading (loop) dimensions of its
  positional arguments; ``signature`` (e.g. ``'(n),(n)->()'``) names each argument's and
  result's core dimensions, which are checked. Arguments listed in ``excluded`` (positions,
  or names of keyword arguments), None arguments and keyword arguments are passed through
  unmapped. As JAX's, a loop dimension of size 1 is not mapped for that argument (and one
  of size 1 for all of them is added back to the results)."""
  if any(not isinstance(e, (str, int)) for e in excluded):
    raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, but "
                    f"excluded={excluded!r}")
  if any(isinstance(e, int) and e < 0 for e in excluded):
    raise ValueError(f"excluded={excluded!r} contains negative numbers")
  context = _context(excluded, signature)
  core_in, core_out = (None, None) if signature is None else _parse_signature(signature)

  @wraps(pyfunc)
  def vectorized(*args, **kwargs):
    from xjax._src.api.transformations import vmap
    dynamic = [i for i in range(len(args)) if i not in excluded]
    nones = {j for j, i in enumerate(dynamic) if args[i] is None}
    core = core_in
    if nones and core is not None:
      if any(j < len(core) and core[j] for j in nones):
        raise ValueError(f"Cannot pass None at locations {nones} with "
                         f"signature={signature!r}")
      core = [c for j, c in enumerate(core) if j not in nones]
    mapped = [i for j, i in enumerate(dynamic) if j not in nones]
    arrays = [asarray(args[i]) for i in mapped]
    core, loop, sizes = _input_dimensions(core, [x.shape for x in arrays], context)
    _check_rank_promotion(arrays, core, signature)

    def call(*mapped_args):
      full = list(args)
      for i, x in zip(mapped, mapped_args):
        full[i] = x
      out = pyfunc(*full, **kwargs)
      if core_out is not None:
        _check_outputs(out, core_out, sizes, context)
      return out

    ndim = len(loop)
    leads = [x.shape[:x.ndim - len(c)] for x, c in zip(arrays, core)]
    filled = [(1,) * (ndim - len(lead)) + lead for lead in leads]
    operands = [squeeze(x, tuple(i for i, d in enumerate(lead) if d == 1)) if 1 in lead
                else x for x, lead in zip(arrays, leads)]
    f, added = call, []
    for k in reversed(range(ndim)):  # the innermost vmap maps the last loop dimension
      in_axes = tuple(None if shape[k] == 1 else 0 for shape in filled)
      if all(a is None for a in in_axes):
        added.append(k)
      else:
        f = vmap(f, in_axes)
    out = f(*operands)
    if not added:
      return out
    if isinstance(out, tuple):
      return tuple(expand_dims(o, added) for o in out)
    return expand_dims(out, added)
  return vectorized
