"""User-facing transformations: jvp, linearize, vjp, grad, value_and_grad, vmap, and
device helpers.  (jit, make_jaxpr and eval_shape live in jit.py.)"""
from __future__ import annotations

import collections
import inspect
from typing import Callable

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.api import vmappable
from xjax._src.execution.array import Array, make_array
from xjax._src.core import source_info
from xjax._src.core.avals import sharded_types, spec_of, tangent_aval
from xjax._src.core.trace import Tracer, current_trace
from xjax._src.core.typed_ndarray import typed_value
from xjax._src.core.values import get_aval, is_valid_value
from xjax._src.core.jaxpr import Literal, eval_jaxpr
from xjax._src.foundations.errors import api_boundary
from xjax._src.foundations.sharding import (NamedSharding, PartitionSpec, get_abstract_mesh,
                                            placement_mesh, spec_axes, typed_context_mesh)
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.interpreters.staging import staged_constant
from xjax._src.primitives.state.grad_refs import VJP
from xjax._src.primitives.state.types import Ref
from xjax._src.foundations.wrapping import wraps
from xjax._src.primitives.lax.sharding_constraint import reshard_p
from xjax._src.primitives.lax.shapes import varying_like


def _refuse_reduce_axes(reduce_axes, what: str) -> None:
  """JAX dropped ``reduce_axes`` (named-axis reductions of cotangents): any value but ``()``
  is refused, as JAX 0.10.2 refuses it."""
  if reduce_axes:
    raise NotImplementedError(f"reduce_axes argument to {what} is deprecated")


def _check_callable(fun):
  if not callable(fun):
    raise TypeError(f"Expected a callable value, got {fun!r}")


def _flat_fun(fun, in_tree, out_tree_box, aux_box=None):
  """Flat version of ``fun``; with ``aux_box`` (has_aux) the aux leaves follow the outputs
  as extra outputs, so transformations return them as plain (primal) values."""
  def flat(*leaves):
    args = tree_util.tree_unflatten(in_tree, leaves)
    with source_info.transform_name_stack("jvp"):  # (its equations are named jvp(...))
      out = fun(*args)
    aux_leaves = []
    if aux_box is not None:
      if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError("A function with has_aux=True must return a pair (output, aux); "
                        f"got {type(out).__name__}.")
      out, aux = out
      leaves, aux_tree = tree_util.tree_flatten(aux)
      # only arrays are outputs; other aux values (Python objects) pass through unchanged
      fixed = [None if isinstance(a, (Array, Tracer)) else (a,) for a in leaves]
      aux_box.append((aux_tree, fixed))
      aux_leaves = [a for a, f in zip(leaves, fixed) if f is None]
    leaves_out, tree = tree_util.tree_flatten(out)
    out_tree_box.append(tree)
    return leaves_out + aux_leaves
  return flat


def _split_aux_outs(outs, aux_box):
  """(outputs, aux pytree or None) from a ``_flat_fun`` result."""
  if not aux_box:
    return list(outs), None
  aux_tree, fixed = aux_box[0]
  k = len(outs) - sum(f is None for f in fixed)
  traced = iter(outs[k:])
  leaves = [next(traced) if f is None else f[0] for f in fixed]
  return list(outs[:k]), tree_util.tree_unflatten(aux_tree, leaves)


def _as_value(x):
  """Python scalars and NumPy values become Arrays so outputs have JAX's types (float0
  values, which hold no data, stay host arrays)."""
  if isinstance(x, (Array, Tracer, Ref)) or (isinstance(x, np.ndarray)
                                             and x.dtype == dtypes.float0):
    return x
  return make_array(x)


def _forward_inputs(outs, values, originals):
  """Outputs that are inputs passed through unchanged, as the caller gave them (a Python
  or NumPy value stays one), as JAX's jvp and linearize return them."""
  given = {id(v): p for v, p in zip(values, originals)}
  return [given.get(id(o), o) for o in outs]


# ---------------------------------------------------------------------------------------
# Forward mode

@api_boundary
def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
  """(fun(*primals), the directional derivative along ``tangents``)."""
  _check_callable(fun)
  if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
    raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                    f"{type(primals).__name__} and {type(tangents).__name__}.")
  p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
  t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
  if p_tree != t_tree:
    raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                    f"structure; primals have tree structure {p_tree} whereas tangents have "
                    f"tree structure {t_tree}.")
  for p, t in zip(p_leaves, t_leaves):
    pa, ta = get_aval(p), get_aval(t)
    expected = tangent_aval(pa)
    if pa.shape != ta.shape:
      raise ValueError("jvp called with different primal and tangent shapes;Got primal shape "
                       f"{pa.shape} and tangent shape as {ta.shape}")
    if expected.dtype != ta.dtype:
      raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must be "
                      "equal, or in case of int/bool primal dtype the tangent dtype must be "
                      f"float0.Got primal dtype {pa.dtype} and so expected tangent dtype "
                      f"{expected.dtype}, but got tangent dtype {ta.dtype} instead.")
  # (a tangent keeps its own weak type, as JAX's: jvp of the identity of a strong primal
  # along a weak tangent is weak)
  t_leaves = [ad.Zero(tangent_aval(get_aval(p))) if get_aval(t).dtype == dtypes.float0 else t
              for p, t in zip(p_leaves, t_leaves)]
  aux_box = [] if has_aux else None
  out_box = []
  values = [p if type(p) in _PY_SCALARS else _as_value(p) for p in p_leaves]
  out_p, out_t = ad.jvp_flat(_flat_fun(fun, p_tree, out_box, aux_box), values, t_leaves)
  out_p, aux = _split_aux_outs(_forward_inputs(out_p, values, p_leaves), aux_box)
  out_t = [ad.instantiate(t) for t in out_t[:len(out_p)]]
  primal_out = tree_util.tree_unflatten(out_box[0], out_p)
  tangent_out = tree_util.tree_unflatten(out_box[0], out_t)
  if has_aux:
    return primal_out, tangent_out, aux
  return primal_out, tangent_out


@api_boundary
def linearize(fun: Callable, *primals, has_aux: bool = False):
  """(fun(*primals), f_jvp) where f_jvp evaluates the JVP's linear map at new tangents."""
  _check_callable(fun)
  p_leaves, p_tree = tree_util.tree_flatten(primals)
  aux_box = [] if has_aux else None
  out_box = []
  values = [p if type(p) in _PY_SCALARS else _as_value(p) for p in p_leaves]
  out_p, linear = ad.linearize_flat(_flat_fun(fun, p_tree, out_box, aux_box), values)
  out_p, aux = _split_aux_outs(_forward_inputs(out_p, values, p_leaves), aux_box)
  out_tree = out_box[0]
  in_avals = [tangent_aval(get_aval(p)) for p in p_leaves]

  f_jvp = tree_util.Partial(_LinearMap(linear.jaxpr, p_tree, out_tree, in_avals),
                            *linear.consts)
  primal_out = tree_util.tree_unflatten(out_tree, out_p)
  if has_aux:
    return primal_out, f_jvp, aux
  return primal_out, f_jvp


def _split_otherwise(given, primal) -> bool:
  """Whether a tangent or cotangent's type is split otherwise than its primal's over the
  Explicit axes of the context mesh (JAX compares the types of values made under a mesh
  with Explicit axes)."""
  return (given._sharding != primal._sharding
          and bool(get_abstract_mesh().explicit_axes))


class _LinearMap:
  """The function ``linearize`` returns, as a ``Partial`` whose leaves are the residuals
  (a pytree, as in JAX); this is its static part."""
  __slots__ = ("jaxpr", "p_tree", "out_tree", "in_avals")

  def __init__(self, jaxpr, p_tree, out_tree, in_avals) -> None:
    self.jaxpr, self.p_tree, self.out_tree, self.in_avals = jaxpr, p_tree, out_tree, in_avals

  def __call__(self, *args):
    n = len(self.jaxpr.constvars)
    residuals, tangents = args[:n], args[n:]
    t_leaves, t_tree = tree_util.tree_flatten(tangents)
    if t_tree != self.p_tree:
      raise TypeError(f"linearized function called on tangent values inconsistent with the "
                      f"original primal values: expected structure {self.p_tree}, got "
                      f"{t_tree}")
    for t, a in zip(t_leaves, self.in_avals):
      ta = get_aval(t)
      if ta.shape != a.shape or ta.dtype != a.dtype:
        raise ValueError(f"linearized function called with tangent of type "
                         f"{ta.str_short(short_dtypes=True)} where {a.str_short(short_dtypes=True)} was expected")
      if _split_otherwise(ta, a):
        raise ValueError("linearized function called on tangent values inconsistent with "
                         f"the original primal values:\nGot tangent aval {ta.str_short()} "
                         f"for primal aval {a.str_short()} but expected "
                         f"{tangent_aval(a).str_short()}.")
    outs = eval_jaxpr(self.jaxpr, residuals, *t_leaves)
    # a constant output (a zero tangent) is an array, as JAX's; inputs come back as given
    outs = [make_array(np.asarray(o, v.aval.dtype), weak_type=v.aval.weak_type,
                       dtype=v.aval.dtype) if type(v) is Literal else o
            for o, v in zip(outs, self.jaxpr.outvars)]
    return tree_util.tree_unflatten(self.out_tree, outs[:self.out_tree.num_leaves])


# ---------------------------------------------------------------------------------------
# Reverse mode

@api_boundary
def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
  """(fun(*primals), vjp_fun) where vjp_fun maps output cotangents to input cotangents."""
  _refuse_reduce_axes(reduce_axes, "vjp")
  _check_callable(fun)
  p_leaves, p_tree = tree_util.tree_flatten(primals)
  for p in p_leaves:
    checked_input_aval(p, dtypes.InvalidInputException)
  aux_box = [] if has_aux else None
  out_box = []
  # outputs that are inputs come back canonicalized, as JAX's (a Python float as a
  # TypedFloat, a NumPy value as a TypedNdArray)
  typed = [typed_value(p, get_aval(p)) for p in p_leaves]
  values = [t if type(p) in _PY_SCALARS else _as_value(p) for p, t in zip(p_leaves, typed)]
  out_p, linear = ad.linearize_flat(_flat_fun(fun, p_tree, out_box, aux_box), values)
  out_p, aux = _split_aux_outs(_forward_inputs(out_p, values, typed), aux_box)
  out_tree = out_box[0]
  in_avals = [get_aval(p) for p in p_leaves]
  out_avals = [get_aval(o) for o in out_p]

  vjp_fun = VJP(_Pullback(linear.jaxpr, p_tree, out_tree, in_avals, out_avals),
                *linear.consts)

  primal_out = tree_util.tree_unflatten(out_tree, out_p)
  if has_aux:
    return primal_out, vjp_fun, aux
  return primal_out, vjp_fun


class _Pullback:
  """The function ``vjp`` returns, as a ``Partial`` whose leaves are the residuals (so it
  can be returned from a jitted function, as in JAX); this is its static part."""
  __slots__ = ("jaxpr", "p_tree", "out_tree", "in_avals", "out_avals")

  def __init__(self, jaxpr, p_tree, out_tree, in_avals, out_avals) -> None:
    self.jaxpr, self.p_tree, self.out_tree = jaxpr, p_tree, out_tree
    self.in_avals, self.out_avals = in_avals, out_avals

  def __call__(self, *args):
    n = len(self.jaxpr.constvars)
    residuals, cts = args[:n], args[n:]
    out_tree, out_avals, in_avals = self.out_tree, self.out_avals, self.in_avals
    ct = cts[0] if len(cts) == 1 else cts
    if len(cts) != 1:
      raise TypeError(f"The function returned by vjp takes exactly one argument (the "
                      f"cotangent of the output), got {len(cts)}.")
    ct_leaves, ct_tree = tree_util.tree_flatten(ct)
    if ct_tree != out_tree:
      raise ValueError(f"Expected pytree structure of cotangents to be the same as that of "
                       f"the primal output: got cotangent structure {ct_tree}, expected "
                       f"{out_tree}.")
    for c, a in zip(ct_leaves, out_avals):
      ca = get_aval(c)
      expected = tangent_aval(a)
      if ca.shape != a.shape:
        raise ValueError(f"Shape of cotangent input to vjp pullback function {ca.shape} "
                         f"must be the same as the shape of corresponding primal input "
                         f"{a.shape}.")
      if ca.dtype != expected.dtype and not (expected.dtype == dtypes.float0):
        raise ValueError(f"Type of cotangent input to vjp pullback function ({ca.dtype}) is "
                         f"not the expected tangent type ({expected.dtype}) of corresponding "
                         f"primal output with dtype {a.dtype}.")
      if _split_otherwise(ca, a):
        raise ValueError("unexpected JAX type (e.g. shape/dtype) for argument to VJP "
                         f"function: got {ca.str_short()}, but expected "
                         f"{expected.str_short()} because the corresponding output of the "
                         f"differentiated function had JAX type {a.str_short()}")
    lin_args = [ad.UndefinedPrimal(tangent_aval(a)) for a in in_avals]
    aux_cts = [Zero(o.aval) for o in self.jaxpr.outvars[len(ct_leaves):]]
    with source_info.transform_name_stack("transpose"):
      cts_in = ad.backward_pass(self.jaxpr, residuals, lin_args, ct_leaves + aux_cts)
    out = []
    for c, a in zip(cts_in, in_avals):
      t = tangent_aval(a)
      if type(c) is Zero or c is None:
        out.append(ad.zeros_of(t))
      else:  # its weak type is what the backward pass computed (as JAX)
        out.append(c)
    return tree_util.tree_unflatten(self.p_tree, out)


def checked_input_aval(x, error=TypeError):
  """``get_aval(x)``; for a value that is not a valid JAX type, the error JAX's argument
  check of the differentiating transformations raises (its class ``error``)."""
  try:
    return get_aval(x)
  except TypeError:
    raise error(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None


def _check_grad_input(x, name, allow_int, holomorphic):
  aval = checked_input_aval(x)
  if holomorphic:
    if not dtypes.is_complex(aval.dtype):
      raise TypeError(f"grad with holomorphic=True requires inputs with complex dtype, but "
                      f"got {aval.dtype.name}.")
  elif not dtypes.is_inexact(aval.dtype) and not allow_int:
    raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is a "
                    f"sub-dtype of np.inexact), but got {aval.dtype.name}. If you want to use "
                    "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_scalar_output(out, name, holomorphic):
  try:
    aval = get_aval(out)
  except TypeError:  # a pytree (a tuple, a dict, None)
    raise TypeError(f"Gradient only defined for scalar-output functions. Output was {out!r}."
                    ) from None
  if aval.shape:
    raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                    f"{aval.shape}. For vector-valued outputs use jax.jacrev, jax.jacfwd or "
                    "jax.vjp.")
  if holomorphic:
    if not dtypes.is_complex(aval.dtype):
      raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, "
                      f"but got {aval.dtype.name}.")
  elif not dtypes.is_float(aval.dtype):
    advice = ("For holomorphic differentiation, pass holomorphic=True. For differentiating "
              "non-holomorphic functions involving complex outputs, use jax.vjp directly."
              if dtypes.is_complex(aval.dtype) else
              "For differentiation of functions with integer outputs, use jax.vjp directly.")
    raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                    f"of np.floating), but got {aval.dtype.name}. {advice}")


def argnums_tuple(argnums) -> tuple[tuple, bool]:
  """(the argument indices, whether a sequence of them was given)."""
  if isinstance(argnums, (tuple, list)):
    return tuple(argnums), True
  return (argnums,), False


def select_args(args: tuple, nums: tuple, too_few: Callable | None = None):
  """(the ``args`` at positions ``nums``, a function returning ``args`` with new values at
  those positions).  An index past the end raises ``too_few(len(args))`` when given; other
  out-of-range indices (below -len(args)) JAX's ValueError."""
  n = len(args)
  if any(i < -n for i in nums) or (too_few is None and any(i >= n for i in nums)):
    bad = next(i for i in nums if not -n <= i < n)
    raise ValueError(f"Positional argument indices, e.g. for `static_argnums`, must have value "
                     f"greater than or equal to -len(args) and less than len(args), but got "
                     f"value {bad} for len(args) == {n}.")
  if any(i >= n for i in nums):
    raise too_few(n)
  idx = [i % n for i in nums]

  def with_dyn(values):
    full = list(args)
    for i, v in zip(idx, values):
      full[i] = v
    return full
  return tuple(args[i] for i in idx), with_dyn


def value_and_grad(fun: Callable, argnums=0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False, reduce_axes=()):
  """A function returning (fun(*args), gradient of fun w.r.t. the ``argnums`` args)."""
  _refuse_reduce_axes(reduce_axes, "grad")
  _check_callable(fun)
  nums, multiple = argnums_tuple(argnums)
  name = "grad"

  def too_few(n):
    return TypeError(f"differentiating with respect to argnums={argnums} requires at least "
                     f"{max(nums) + 1} positional arguments to be passed by the caller, but "
                     f"got only {n} positional arguments.")

  @api_boundary
  @wraps(fun)
  def vg(*args, **kwargs):
    if not nums:   # (JAX's class, raised when called)
      raise ValueError(f"{name}: argnums=() selects no argument to differentiate with "
                       "respect to; pass the index of at least one.")
    dyn, with_dyn = select_args(args, nums, too_few)
    for leaf in tree_util.tree_leaves(dyn):
      _check_grad_input(leaf, name, allow_int, holomorphic)

    def partial_fun(*dyn_args):
      return fun(*with_dyn(dyn_args), **kwargs)

    if has_aux:
      out, f_vjp, aux = vjp(partial_fun, *dyn, has_aux=True)
    else:
      out, f_vjp = vjp(partial_fun, *dyn)
    _check_scalar_output(out, name, holomorphic)
    out_aval = get_aval(out)
    grads = f_vjp(_seed(staged_constant(make_array(np.ones((), out_aval.dtype),
                                                   weak_type=out_aval.weak_type)), out))
    g = grads if multiple else grads[0]
    if has_aux:
      return (out, aux), g
    return out, g
  return vg


def _seed(one, out):
  """The output's cotangent ``one``: in a shard_map body, varying as the output does; traced
  under ``set_mesh`` of a mesh with Explicit axes, resharded onto it as the output is (JAX's
  ``reshard 1.0`` equation; eagerly the literal serves, with the same values)."""
  one = varying_like(one, get_aval(out))
  mesh = placement_mesh()
  if mesh is None or not mesh.explicit_axes or not isinstance(out, Tracer):
    return one
  return reshard_p.bind(one, sharding=NamedSharding(typed_context_mesh(), PartitionSpec()))


def grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False, reduce_axes=()):
  """The gradient of scalar-valued ``fun`` w.r.t. its ``argnums`` arguments."""
  vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, reduce_axes)

  @api_boundary
  @wraps(fun)
  def g(*args, **kwargs):
    if has_aux:
      (_, aux), gr = vg(*args, **kwargs)
      return gr, aux
    return vg(*args, **kwargs)[1]
  return g


# ---------------------------------------------------------------------------------------
# vmap

def _check_axes_spec(kind, axes):
  leaves = tree_util.tree_leaves(axes, is_leaf=vmappable.is_spec)
  if not all(vmappable.is_spec(a) or (isinstance(a, int) and not isinstance(a, bool))
             for a in leaves):
    raise TypeError(f"vmap {kind} must be an int, None, or (nested) container with those "
                    f"types as leaves, but got {axes}.")


_flatten_axes = vmappable.flatten_axes


def _arg_names(fun, n: int) -> list[str]:
  """Names of the first ``n`` positional parameters of ``fun`` (``args[i]`` if unknown)."""
  try:
    params = [p.name for p in inspect.signature(fun).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
  except (TypeError, ValueError):
    params = []
  return [params[i] if i < len(params) else f"args[{i}]" for i in range(n)]


def inconsistent_sizes(transform: str, mapped, axis_size=None) -> ValueError:
  """JAX's error for mapped axes of several sizes; ``mapped`` lists (leaf name, axis, aval)
  in argument order. Sizes are listed most common first, each with its first leaf."""
  counts = collections.Counter(a.shape[d] for _, d, a in mapped).most_common()
  lines = [f"  * the `axis_size` argument was {axis_size};"] if axis_size is not None else []
  for k, (size, count) in enumerate(counts):
    name, d, aval = next(m for m in mapped if m[2].shape[m[1]] == size)
    where = f"axis {d} of {name} of type {aval.str_short()}"
    if count == 1:
      lines.append(f"  * one axis had size {size}: {where};")
    else:
      lines.append(f"  * {'most' if k == 0 else 'some'} axes ({count} of them) had size "
                   f"{size}, e.g. {where};")
  return ValueError(f"{transform} got inconsistent sizes for array axes to be mapped:\n"
                    + "\n".join(lines)[:-1])


def leaf_names(fun, args, kwargs):
  """Readable names for the leaves of (args, kwargs): ``argument x['a']``, ``kwargs['b']``."""
  try:  # (as JAX: every parameter's name by position, ``*args`` ones included)
    params = list(inspect.signature(fun).bind(*args, **kwargs).signature.parameters)
  except (TypeError, ValueError):
    params = []
  names = []
  for path, _ in tree_util.tree_flatten_with_path(tuple(args))[0]:
    i = path[0].idx
    names.append(f"argument {params[i]}{tree_util.keystr(path[1:])}" if i < len(params)
                 else f"args{tree_util.keystr(path)}")
  for path, _ in tree_util.tree_flatten_with_path(kwargs)[0]:
    names.append(f"kwargs{tree_util.keystr(path)}")
  return names


_PY_SCALARS = (bool, int, float, complex, np.generic)


_BATCHED = object()  # (an output leaf that its container's rule already batched)


def _containers_batched(out, out_axes, size, sum_match):
  """``out`` with each registered vmappable among it (a sparse BCOO made inside the mapped
  function) batched by its own rule, as JAX's vmap does, and then the out_axes spec of
  each of the result's leaves (``_BATCHED`` for theirs); ``(out, None)`` without any."""
  leaves, tree = tree_util.tree_flatten(out, is_leaf=vmappable.is_vmappable)
  if not any(map(vmappable.is_vmappable, leaves)):
    return out, None
  specs = _flatten_axes("vmap", out, out_axes, "out_axes")
  trace, new, done = current_trace(), [], []
  for i, (o, s) in enumerate(zip(leaves, specs)):
    if vmappable.is_vmappable(o):
      o = vmappable.from_elt(trace, size, i, o, s, sum_match)
      done += [_BATCHED] * len(tree_util.tree_leaves(o))
    else:
      done += [s] * len(tree_util.tree_leaves(o))
    new.append(o)
  return tree_util.tree_unflatten(tree, new), done


def _check_mapped_splits(given, traced, dims, spmd_names):
  """JAX's checks of vmap's inputs over Explicit mesh axes: the mapped dimensions must be
  split alike, no unmapped input split over the mesh axes they are split over, and an
  ``spmd_axis_name`` must be those axes; returns the spmd axis names left to apply (None
  where the types already split the batch) and the mesh axes the mapped inputs are split
  over (None if none)."""
  splits = [spec_of(get_aval(given[i]))[d] for i, d in zip(traced, dims)]
  for s in splits[1:]:
    if s != splits[0]:
      raise ValueError("Mapped away dimension of inputs passed to vmap should be sharded the "
                       f"same. Got inconsistent axis specs: {splits[0]} vs {s}")
  mapped = tuple(spec_axes(splits[0])) if splits else ()
  for i, x in enumerate(given):
    if mapped and i not in traced and is_valid_value(x):
      aval = get_aval(x)
      if set(mapped) & {a for p in spec_of(aval) for a in spec_axes(p)}:
        raise ValueError("Unmapped values passed to vmap cannot be sharded along the mesh axis "
                         f"you are vmapping over. Got type: {aval.str_short(short_dtypes=True)}, in_axes: None "
                         f"and vmapped mesh axis: {mapped}")
  if spmd_names is not None and mapped:
    if spmd_names != mapped:
      raise ValueError("Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis "
                       f"type is allowed. Got spmd_axis_name={spmd_names} and arrays sharded "
                       f"on explicit_mesh_axis={mapped}")
    return None, mapped
  return spmd_names, mapped or None


def vmap(fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
         spmd_axis_name=None, sum_match: bool = False):
  """Vectorizes ``fun`` over the ``in_axes`` of its arguments (keyword arguments are mapped
  over axis 0), stacking the results along ``out_axes``; with ``sum_match``, a batched
  result whose ``out_axes`` entry is None is summed over the mapped axis instead."""
  _check_callable(fun)
  if isinstance(in_axes, list):
    in_axes = tuple(in_axes)
  _check_axes_spec("in_axes", in_axes)
  _check_axes_spec("out_axes", out_axes)

  @api_boundary
  @wraps(fun)
  def vmapped(*args, **kwargs):
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
      raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                       f"corresponding to the positional arguments passed to the function, "
                       f"but got len(in_axes)={len(in_axes)}, len(args)={len(args)}")
    if vmappable.involved(args, kwargs, in_axes, out_axes):  # registered containers
      return vmappable.vmap_call(fun, in_axes, out_axes, axis_name, axis_size, args, kwargs,
                                 spmd_axis_name, sum_match)
    if not args and not kwargs and axis_size is None:
      raise ValueError("vmap wrapped function must be passed at least one argument "
                       "containing an array or axis_size must be specified, got empty "
                       "*args=() and **kwargs={}")
    leaves, in_tree = tree_util.tree_flatten(args)
    kw_leaves, kw_tree = tree_util.tree_flatten(kwargs)
    if isinstance(in_axes, tuple):
      axes = [ax for i, (name, arg, spec) in enumerate(
                  zip(_arg_names(fun, len(args)), args, in_axes))
              for ax in _flatten_axes("vmap", arg, spec, f"in_axes[{i}] (argument {name})")]
    else:
      axes = _flatten_axes("vmap", args, in_axes)
    axes += [0] * len(kw_leaves)
    given = leaves + kw_leaves
    # Unmapped leaves reach `fun` as they were given (any object, as JAX); mapped ones are
    # traced.
    traced = [i for i, ax in enumerate(axes) if ax is not None]
    for i in traced:
      if not is_valid_value(given[i]):
        kind = type(given[i])  # quoted but for strings, as JAX's two messages
        kind = kind if isinstance(given[i], str) else f"'{kind}'"
        raise TypeError(f"Argument '{given[i]}' of type {kind} is not a valid JAX type")
    all_leaves = [_as_value(given[i]) for i in traced]
    every_name = leaf_names(fun, args, kwargs)
    names = [every_name[i] for i in traced]
    axes = [axes[i] for i in traced]
    dims = []
    for x, ax, name in zip(all_leaves, axes, names):
      aval = get_aval(x)
      if not -aval.ndim <= ax < aval.ndim:
        raise ValueError(f"vmap was requested to map its argument along axis {ax}, which "
                         f"implies that its rank should be at least {max(ax + 1, -ax)}, but "
                         f"is only {aval.ndim} (its shape is {aval.shape}) for {name}")
      dims.append(ax % aval.ndim)
    mapped = [(name, d, get_aval(x)) for x, d, name in zip(all_leaves, dims, names)]
    sizes = {a.shape[d] for _, d, a in mapped}
    if axis_size is not None:
      sizes.add(int(axis_size))
    if len(sizes) > 1:
      raise inconsistent_sizes("vmap", mapped, axis_size)
    if not sizes:
      raise ValueError("vmap must have at least one non-None value in in_axes or axis_size "
                       "must be specified")
    size = sizes.pop()
    spmd_names = (spmd_axis_name if isinstance(spmd_axis_name, tuple) or spmd_axis_name is None
                  else (spmd_axis_name,))
    explicit = None
    if sharded_types[0]:
      spmd_names, explicit = _check_mapped_splits(given, traced, dims, spmd_names)
    out_box = []
    n_pos = len(leaves)

    def flat(*xs):
      full = list(given)
      for i, x in zip(traced, xs):
        full[i] = x
      out = fun(*tree_util.tree_unflatten(in_tree, full[:n_pos]),
                **tree_util.tree_unflatten(kw_tree, full[n_pos:]))
      out, done = _containers_batched(out, out_axes, size, sum_match)
      out_leaves, tree = tree_util.tree_flatten(out)
      # Python scalars are kept to come back as they were; no tracer outlives the trace.
      out_box.append((tree, [o if isinstance(o, _PY_SCALARS) else None for o in out_leaves],
                      done))
      for o in out_leaves:
        if not is_valid_value(o):
          raise TypeError(f"Output from batched function {o!r} with type {type(o)} is not a "
                          f"valid JAX type")
      return [_as_value(o) for o in out_leaves]

    axis = batching.AxisData(size, axis_name, spmd_names, explicit)
    with source_info.transform_name_stack("vmap"):
      outs, out_dims = batching.batch_flat(flat, all_leaves, dims, axis)
    out_tree, raw, done = out_box[0]
    # the structure, its leaves bare objects (as JAX's were: distrax's pytrees tell them
    # from metadata by that)
    out_value = tree_util.tree_unflatten(out_tree, [object()] * len(raw))
    out_spec = done or _flatten_axes("vmap", out_value, out_axes, "out_axes")
    out_paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(out_value)[0]]
    results = []
    for o, d, want, path, r in zip(outs, out_dims, out_spec, out_paths, raw):
      if want is _BATCHED:
        results.append(o)
        continue
      if want is None:
        if d is not None and sum_match:
          results.append(o.sum(d))
          continue
        if d is not None:
          raise ValueError(f"at vmap out_axes{path}, got axis spec None but output was "
                           f"batched on axis {d}")
        # unmapped non-array outputs (Python / NumPy scalars) come back as they were
        results.append(o if r is None else r)
        continue
      ndim = get_aval(o).ndim + (d is None)
      if not -ndim <= want < ndim:
        raise ValueError(f"vmap out_axes{path}: axis {want} is out of bounds for an output "
                         f"of rank {ndim} (including the mapped axis)")
      results.append(batching.matchaxis(  # (a Python scalar stays unsplit, as JAX)
          o, d, want % ndim, size, explicit if r is None else None))
    return tree_util.tree_unflatten(out_tree, results)
  return vmapped

