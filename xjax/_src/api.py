"""User-facing transformations: jvp, linearize, vjp, grad, value_and_grad, vmap, and
device helpers.  (jit, make_jaxpr and eval_shape live in jit.py.)"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from xjax._src import dtypes, tree_util
from xjax._src.array import Array, make_array
from xjax._src.backend import runtime
from xjax._src.core.avals import tangent_aval
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero


def _flat_fun(fun, in_tree, out_tree_box):
  def flat(*leaves):
    args = tree_util.tree_unflatten(in_tree, leaves)
    out = fun(*args)
    leaves_out, tree = tree_util.tree_flatten(out)
    out_tree_box.append(tree)
    return leaves_out
  return flat


def _as_value(x):
  """Python scalars and NumPy values become Arrays so outputs have JAX's types."""
  if isinstance(x, (Array, Tracer)):
    return x
  return make_array(x)


# ---------------------------------------------------------------------------------------
# Forward mode

def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
  """(fun(*primals), the directional derivative along ``tangents``)."""
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
  box = []
  fun_ = (lambda *a: _split_aux(fun(*a), box)) if has_aux else fun
  out_box = []
  out_p, out_t = ad.jvp_flat(_flat_fun(fun_, p_tree, out_box),
                             [_as_value(p) for p in p_leaves], list(t_leaves))
  out_t = [ad.instantiate(t) for t in out_t]
  primal_out = tree_util.tree_unflatten(out_box[0], out_p)
  tangent_out = tree_util.tree_unflatten(out_box[0], out_t)
  if has_aux:
    return primal_out, tangent_out, box[0]
  return primal_out, tangent_out


def _split_aux(out, box):
  if not isinstance(out, (tuple, list)) or len(out) != 2:
    raise TypeError("A function with has_aux=True must return a pair (output, aux); got "
                    f"{type(out).__name__}.")
  box.append(_stop_aux(out[1]))
  return out[0]


def _stop_aux(aux):
  return aux


def linearize(fun: Callable, *primals, has_aux: bool = False):
  """(fun(*primals), f_jvp) where f_jvp evaluates the JVP's linear map at new tangents."""
  p_leaves, p_tree = tree_util.tree_flatten(primals)
  box = []
  fun_ = (lambda *a: _split_aux(fun(*a), box)) if has_aux else fun
  out_box = []
  out_p, linear = ad.linearize_flat(_flat_fun(fun_, p_tree, out_box),
                                    [_as_value(p) for p in p_leaves])
  out_tree = out_box[0]
  in_avals = [tangent_aval(get_aval(p)) for p in p_leaves]

  def f_jvp(*tangents):
    t_leaves, t_tree = tree_util.tree_flatten(tangents)
    if t_tree != p_tree:
      raise TypeError(f"linearized function called on tangent values inconsistent with the "
                      f"original primal values: expected structure {p_tree}, got {t_tree}")
    for t, a in zip(t_leaves, in_avals):
      ta = get_aval(t)
      if ta.shape != a.shape or ta.dtype != a.dtype:
        raise ValueError(f"linearized function called with tangent of type "
                         f"{ta.str_short()} where {a.str_short()} was expected")
    outs = eval_jaxpr(linear.jaxpr, linear.consts, *t_leaves)
    return tree_util.tree_unflatten(out_tree, outs)

  primal_out = tree_util.tree_unflatten(out_tree, out_p)
  if has_aux:
    return primal_out, f_jvp, box[0]
  return primal_out, f_jvp


# ---------------------------------------------------------------------------------------
# Reverse mode

def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
  """(fun(*primals), vjp_fun) where vjp_fun maps output cotangents to input cotangents."""
  p_leaves, p_tree = tree_util.tree_flatten(primals)
  for i, p in enumerate(p_leaves):
    get_aval(p)  # validates the input type
  box = []
  fun_ = (lambda *a: _split_aux(fun(*a), box)) if has_aux else fun
  out_box = []
  out_p, linear = ad.linearize_flat(_flat_fun(fun_, p_tree, out_box),
                                    [_as_value(p) for p in p_leaves])
  out_tree = out_box[0]
  in_avals = [get_aval(p) for p in p_leaves]
  out_avals = [get_aval(o) for o in out_p]

  def vjp_fun(*cts):
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
    lin_args = [ad.UndefinedPrimal(tangent_aval(a)) for a in in_avals]
    cts_in = ad.backward_pass(linear.jaxpr, linear.consts, lin_args, ct_leaves)
    out = []
    for c, a in zip(cts_in, in_avals):
      t = tangent_aval(a)
      if type(c) is Zero or c is None:
        out.append(np.zeros(t.shape, t.dtype) if t.dtype == dtypes.float0 else
                   ad.zeros_of(t))
      else:
        out.append(c)
    return tree_util.tree_unflatten(p_tree, out)

  primal_out = tree_util.tree_unflatten(out_tree, out_p)
  if has_aux:
    return primal_out, vjp_fun, box[0]
  return primal_out, vjp_fun


def _check_grad_input(x, name, allow_int, holomorphic):
  aval = get_aval(x)
  if holomorphic:
    if not dtypes.is_complex(aval.dtype):
      raise TypeError(f"grad with holomorphic=True requires inputs with complex dtype, but "
                      f"got {aval.dtype.name}.")
  elif dtypes.is_complex(aval.dtype) and False:
    pass
  elif not dtypes.is_inexact(aval.dtype) and not allow_int:
    raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is a "
                    f"sub-dtype of np.inexact), but got {aval.dtype.name}. If you want to use "
                    "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_scalar_output(out, name, holomorphic):
  aval = get_aval(out)
  if aval.shape:
    raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                    f"of np.floating) and a scalar output, but got an output of shape "
                    f"{aval.shape}. For vector-valued outputs use jax.jacrev, jax.jacfwd or "
                    "jax.vjp.")
  if holomorphic:
    if not dtypes.is_complex(aval.dtype):
      raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, "
                      f"but got {aval.dtype.name}.")
  elif not dtypes.is_float(aval.dtype):
    raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                    f"of np.floating), but got {aval.dtype.name}. For holomorphic "
                    "differentiation, pass holomorphic=True. For differentiating non-"
                    "holomorphic functions involving complex outputs, use jax.vjp directly.")


def value_and_grad(fun: Callable, argnums=0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False, reduce_axes=()):
  """A function returning (fun(*args), gradient of fun w.r.t. the ``argnums`` args)."""
  multiple = isinstance(argnums, (tuple, list))
  nums = tuple(argnums) if multiple else (argnums,)
  name = "grad"

  @functools.wraps(fun)
  def vg(*args, **kwargs):
    n = len(args)
    for i in nums:
      if not -n <= i < n:
        raise TypeError(f"differentiating with respect to argnums={argnums} requires at "
                        f"least {max(nums) + 1} positional arguments to be passed by the "
                        f"caller, but got only {n} positional arguments.")
    idx = [i % n for i in nums]
    dyn = tuple(args[i] for i in idx)
    for leaf in tree_util.tree_leaves(dyn):
      _check_grad_input(leaf, name, allow_int, holomorphic)

    def partial_fun(*dyn_args):
      full = list(args)
      for i, v in zip(idx, dyn_args):
        full[i] = v
      return fun(*full, **kwargs)

    if has_aux:
      out, f_vjp, aux = vjp(partial_fun, *dyn, has_aux=True)
    else:
      out, f_vjp = vjp(partial_fun, *dyn)
    _check_scalar_output(out, name, holomorphic)
    one = np.ones((), get_aval(out).dtype)
    grads = f_vjp(make_array(one) if not isinstance(out, Tracer) else
                  _ones_like(out))
    g = grads if multiple else grads[0]
    if has_aux:
      return (out, aux), g
    return out, g
  return vg


def _ones_like(x):
  from xjax._src.lax import lax
  return lax.full_like(x, 1)


def grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False, reduce_axes=()):
  """The gradient of scalar-valued ``fun`` w.r.t. its ``argnums`` arguments."""
  vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

  @functools.wraps(fun)
  def g(*args, **kwargs):
    if has_aux:
      (_, aux), gr = vg(*args, **kwargs)
      return gr, aux
    return vg(*args, **kwargs)[1]
  return g


# ---------------------------------------------------------------------------------------
# vmap

def _flatten_axes(name, tree, axes, kind="in_axes"):
  """Broadcasts an axes prefix tree to the leaves of ``tree``."""
  leaves_proxy = tree_util.tree_map(lambda _: object(), tree)
  try:
    if axes is None or isinstance(axes, int):
      return [axes] * len(tree_util.tree_leaves(tree))
    axes_leaves = tree_util.tree_flatten(axes, is_leaf=lambda x: x is None)[0]
    structure = tree_util.tree_structure(axes, is_leaf=lambda x: x is None)
    subtrees = structure.flatten_up_to(tree)
  except (ValueError, TypeError) as e:
    raise ValueError(f"{name} {kind} specification must be a tree prefix of the "
                     f"corresponding value, got specification {axes} for value tree "
                     f"{tree_util.tree_structure(tree)}.") from None
  out = []
  for ax, sub in zip(axes_leaves, subtrees):
    if ax is not None and not isinstance(ax, int):
      raise ValueError(f"{name} {kind} must be an int, None, or a (nested) container with "
                       f"those types as leaves, but got {ax}.")
    out.extend([ax] * len(tree_util.tree_leaves(sub)))
  del leaves_proxy
  return out


def vmap(fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
         spmd_axis_name=None):
  """Vectorizes ``fun`` over the ``in_axes`` of its arguments."""
  if isinstance(in_axes, list):
    in_axes = tuple(in_axes)

  @functools.wraps(fun)
  def vmapped(*args, **kwargs):
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
      raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                       f"corresponding to the positional arguments passed to the function, "
                       f"but got len(in_axes)={len(in_axes)}, len(args)={len(args)}")
    leaves, in_tree = tree_util.tree_flatten(args)
    axes = _flatten_axes("vmap", args, in_axes if isinstance(in_axes, tuple) or
                         in_axes is None or isinstance(in_axes, int) else in_axes)
    if kwargs:
      kw_leaves, kw_tree = tree_util.tree_flatten(kwargs)
    else:
      kw_leaves, kw_tree = [], None
    sizes = {}
    dims = []
    for i, (x, ax) in enumerate(zip(leaves, axes)):
      aval = get_aval(x)
      if ax is None:
        dims.append(None)
        continue
      if not -aval.ndim <= ax < aval.ndim:
        raise ValueError(f"vmap was requested to map its argument along axis {ax}, which "
                         f"implies that its rank should be at least {max(ax + 1, -ax)}, but "
                         f"is only {aval.ndim} (its shape is {aval.shape})")
      d = ax % aval.ndim
      dims.append(d)
      sizes.setdefault(aval.shape[d], []).append(i)
    for x in kw_leaves:
      aval = get_aval(x)
      if not aval.ndim:
        raise ValueError("vmap maps keyword arguments along axis 0; got a scalar keyword "
                         "argument")
      sizes.setdefault(aval.shape[0], []).append(-1)
    if len(sizes) > 1:
      lines = [f"  argument {i} (axis {ax}) has size {get_aval(x).shape[ax % get_aval(x).ndim]}"
               for i, (x, ax) in enumerate(zip(leaves, axes)) if ax is not None]
      raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                       + "\n".join(lines))
    if not sizes:
      if axis_size is None:
        raise ValueError("vmap must have at least one non-None value in in_axes, or "
                         "axis_size must be given")
      size = int(axis_size)
    else:
      size = next(iter(sizes))
      if axis_size is not None and axis_size != size:
        raise ValueError(f"vmap got axis_size={axis_size} but the mapped arguments have "
                         f"size {size}")
    out_box = []
    n_pos = len(leaves)

    def flat(*all_leaves):
      a = tree_util.tree_unflatten(in_tree, all_leaves[:n_pos])
      kw = tree_util.tree_unflatten(kw_tree, all_leaves[n_pos:]) if kw_tree else {}
      out = fun(*a, **kw)
      out_leaves, tree = tree_util.tree_flatten(out)
      out_box.append(tree)
      return out_leaves

    axis = batching.AxisData(size, axis_name)
    outs, out_dims = batching.batch_flat(flat, [_as_value(x) for x in leaves] + kw_leaves,
                                         dims + [0] * len(kw_leaves), axis)
    out_tree = out_box[0]
    out_spec = _flatten_axes("vmap", tree_util.tree_unflatten(out_tree, outs), out_axes,
                             "out_axes")
    results = []
    for o, d, want in zip(outs, out_dims, out_spec):
      if want is None:
        if d is not None:
          raise ValueError("vmap has mapped output but out_axes is None")
        results.append(o)
        continue
      ndim_out = get_aval(o).ndim + (d is None)
      results.append(batching.matchaxis(o, d, want % ndim_out, size))
    return tree_util.tree_unflatten(out_tree, results)
  return vmapped


# ---------------------------------------------------------------------------------------
# Devices

def device_put(x, device=None, *, src=None, donate: bool = False, may_alias=None):
  """Places ``x`` (a pytree) on ``device`` (committed) or the default device (uncommitted)."""
  def put(leaf):
    if isinstance(leaf, Tracer):
      return leaf
    if isinstance(leaf, Array):
      if device is None:
        return leaf
      buf = runtime.copy_to_device(leaf._buf, _resolve_device(device))
      return Array._from_buffer(buf, leaf.aval, True)
    target = runtime.default_device() if device is None else _resolve_device(device)
    return make_array(leaf, device=target, committed=device is not None)
  return tree_util.tree_map(put, x)


def _resolve_device(device):
  if hasattr(device, "_device"):
    return device._device
  return device


def device_get(x):
  def get(leaf):
    if isinstance(leaf, Array):
      return np.asarray(leaf)
    return leaf
  return tree_util.tree_map(get, x)


def block_until_ready(x):
  def block(leaf):
    if isinstance(leaf, Array):
      leaf.block_until_ready()
    return leaf
  return tree_util.tree_map(block, x)
