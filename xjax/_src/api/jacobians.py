"""Jacobians, Hessians and ``linear_transpose``, built on jvp/vjp and vmap."""
from __future__ import annotations

from typing import Callable

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.foundations.errors import api_boundary
from xjax._src.api.transformations import (_as_value, _check_callable, _check_grad_input,
                                           checked_input_aval, _refuse_reduce_axes,
                                           argnums_tuple, jvp,
                                           select_args, vjp, vmap)
from xjax._src.core import source_info
from xjax._src.core.avals import spec_of
from xjax._src.core.jaxpr import Literal
from xjax._src.core.values import get_aval
from xjax._src.foundations.sharding import typed_sharding
from xjax._src.interpreters import ad
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.foundations.wrapping import wraps
from xjax._src.core.trace import current_trace, eval_trace
from xjax._src.primitives.lax.elementwise import (add, convert_element_type,
                                                  convert_to_type, eq, real)
from xjax._src.primitives.lax.shapes import broadcasted_iota, reshape, split


def _std_basis(tree):
  """The identity, one column per element of the leaves of ``tree``, unravelled into its
  structure: each leaf ``(total size,) + leaf shape``, split as the leaf is (JAX's; traced,
  jnp.eye's ops)."""
  leaves = tree_util.tree_leaves(tree)
  n = sum(get_aval(x).size for x in leaves)
  dtype = dtypes.result_type(*leaves)
  if current_trace() is eval_trace:
    eye = convert_element_type(np.eye(n, dtype=dtype), dtype)
  else:
    rows, cols = broadcasted_iota(np.int32, (n, n), 0), broadcasted_iota(np.int32, (n, n), 1)
    eye = convert_element_type(eq(add(rows, np.int32(0)), cols), dtype)
  # (JAX's basis gives each piece a new sharding spec, so it is always converted)
  return _unravel(tree, 1, None, eye, always_convert=True, split_as_leaves=True)


def _unravel(tree, axis, example, arr, always_convert=False, split_as_leaves=False):
  """``arr`` split along ``axis`` into the leaves of ``tree`` (that axis becoming each leaf's
  shape), each cast to its leaf's dtype and weak type, or ``example``'s when given. Each
  block keeps ``arr``'s splits of its other dimensions; the leaf's dimensions are unsplit
  (``split_as_leaves``: split as the leaf), as JAX types them."""
  leaves, treedef = tree_util.tree_flatten(tree)
  aval = get_aval(arr)
  shape = aval.shape
  axis %= len(shape)
  cuts = np.cumsum([get_aval(x).size for x in leaves[:-1]])
  sizes = list(np.diff(np.asarray([0, *cuts, shape[axis]])))  # (NumPy ints, as JAX's)
  parts = split(arr, sizes, axis)
  arr_spec = spec_of(aval)
  out = []
  for part, leaf in zip(parts, leaves):
    leaf_aval = get_aval(leaf)
    leaf_shape = shape[:axis] + leaf_aval.shape + shape[axis + 1:]
    if get_aval(part).shape != leaf_shape:
      part = reshape(part, leaf_shape)
    inner = spec_of(leaf_aval) if split_as_leaves else (None,) * leaf_aval.ndim
    source = leaf_aval if split_as_leaves else aval
    target = (*arr_spec[:axis], *inner, *arr_spec[axis + 1:])
    out.append(_possible_downcast(part, leaf if example is None else example, always_convert,
                                  target, source._sharding))
  return tree_util.tree_unflatten(treedef, out)


def _check_inputs(dyn, check):
  # a tree_map (not a loop over leaves): JAX rebuilds the tree here, so a pytree whose
  # unflatten rejects None raises the same error as in JAX
  tree_util.tree_map(check, dyn)


def _check_forward_input(leaf, holomorphic):
  aval = checked_input_aval(leaf)
  if holomorphic:
    if not dtypes.is_complex(aval.dtype):
      raise TypeError(f"jacfwd with holomorphic=True requires inputs with complex dtype, "
                      f"but got {aval.dtype.name}.")
  elif not dtypes.is_float(aval.dtype):
    raise TypeError(f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                    f"np.floating), but got {aval.dtype.name}. For holomorphic "
                    "differentiation, pass holomorphic=True. For differentiation of "
                    "non-holomorphic functions involving complex inputs or integer inputs, "
                    "use jax.jvp directly.")


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
  """The Jacobian of ``fun`` by forward mode (one JVP per input element, vmapped)."""
  _check_callable(fun)
  nums, multiple = argnums_tuple(argnums)

  @api_boundary
  @wraps(fun)
  def jac(*args):
    dyn, partial = select_args(args, nums)
    _check_inputs(dyn, lambda x: _check_forward_input(x, holomorphic))
    def f(*d):
      return fun(*partial(d))

    def push(*t):
      return jvp(f, dyn, t, has_aux=has_aux)
    res = vmap(push, out_axes=(None, -1, None) if has_aux else (None, -1))(*_std_basis(dyn))
    y, jac = res[0], res[1]
    example = dyn if multiple else dyn[0]
    out = tree_util.tree_map(lambda yl, j: _unravel(example, -1, yl, j), y, jac)
    return (out, res[2]) if has_aux else out
  return jac


def _possible_downcast(block, example, always=False, parts=(), typed_by=None):
  """A Jacobian block in the dtype and weak type of the value it differentiates with
  respect to (jacrev: the input; jacfwd: the output), as JAX, split over the Explicit
  mesh axes ``parts`` names (those of ``typed_by``'s mesh)."""
  ex = get_aval(example)
  if dtypes.is_complex(get_aval(block).dtype) and not dtypes.is_complex(ex.dtype):
    block = real(block)
  current = get_aval(block)._sharding
  mesh = typed_by.mesh if typed_by is not None else current.mesh if current is not None else None
  target = typed_sharding(mesh, parts) if mesh is not None and any(parts) else None
  if target != current:  # (one that splits nothing: unsharded)
    return convert_to_type(block, ex.dtype, ex.weak_type,
                           target or typed_sharding(mesh, [None] * len(parts)))
  if always:
    return convert_to_type(block, ex.dtype, ex.weak_type)
  return convert_element_type(block, ex.dtype, ex.weak_type)


def _check_output(leaf, holomorphic, name):
  dtype = get_aval(leaf).dtype
  if holomorphic and not dtypes.is_complex(dtype):
    raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, "
                    f"but got {dtype.name}.")
  if not holomorphic and not dtypes.is_float(dtype):
    hint = ("For holomorphic differentiation, pass holomorphic=True. For differentiation of "
            "non-holomorphic functions involving complex outputs, use jax.vjp directly."
            if dtypes.is_complex(dtype) else
            "For differentiation of functions with integer outputs, use jax.vjp directly.")
    raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                    f"of np.floating), but got {dtype.name}. {hint}")


def jacrev(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False):
  """The Jacobian of ``fun`` by reverse mode (one VJP per output element, vmapped)."""
  _check_callable(fun)
  nums, multiple = argnums_tuple(argnums)

  @api_boundary
  @wraps(fun)
  def jac(*args):
    dyn, partial = select_args(args, nums)
    _check_inputs(dyn, lambda x: _check_grad_input(x, "jacrev", allow_int, holomorphic))
    res = vjp(lambda *d: fun(*partial(d)), *dyn, has_aux=has_aux)
    y, pullback = res[0], res[1]
    y_leaves, y_tree = tree_util.tree_flatten(y)
    for leaf in y_leaves:
      _check_output(leaf, holomorphic, "jacrev")
    jac = vmap(pullback)(_std_basis(y))
    example = dyn if multiple else dyn[0]
    jac = jac if multiple else jac[0]
    per_input = tree_util.tree_map(lambda x, j: _unravel(y, 0, x, j), example, jac)
    out = tree_util.tree_transpose(tree_util.tree_structure(example), y_tree, per_input)
    return (out, res[2]) if has_aux else out
  return jac


jacobian = jacrev


def hessian(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
  """The Hessian of scalar ``fun``: ``jacfwd(jacrev(fun))``."""
  return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


def linear_transpose(fun: Callable, *primals, reduce_axes=()) -> Callable:
  """The transpose of linear ``fun`` at the types of ``primals``: a ``Partial`` (a pytree
  whose leaves are the constants ``fun`` closes over, as JAX's)."""
  _refuse_reduce_axes(reduce_axes, "transpose")
  leaves, in_tree = tree_util.tree_flatten(primals)
  in_avals = [get_aval(x) for x in leaves]
  out_box = []

  def flat(*xs):
    out = fun(*tree_util.tree_unflatten(in_tree, xs))
    ls, t = tree_util.tree_flatten(out)
    out_box.append(t)
    return ls

  closed = trace_to_jaxpr(flat, in_avals)
  out_avals = closed.out_avals
  in_dtypes, out_dtypes = [a.dtype for a in in_avals], [a.dtype for a in out_avals]
  if not (all(dtypes.is_inexact(d) for d in in_dtypes + out_dtypes)
          or all(dtypes.is_integer(d) for d in in_dtypes + out_dtypes)):
    raise TypeError(f"linear_transpose only supports [float or complex] -> [float or "
                    f"complex], and integer -> integer functions, but got {in_dtypes} -> "
                    f"{out_dtypes}.")
  return tree_util.Partial(_Transposed(closed.jaxpr, in_tree, out_box[0], in_avals, out_avals),
                           *closed.consts)


class _Transposed:
  """The static part of ``linear_transpose``'s result: the jaxpr and its types."""

  def __init__(self, jaxpr, in_tree, out_tree, in_avals, out_avals) -> None:
    self.jaxpr, self.in_tree, self.out_tree = jaxpr, in_tree, out_tree
    self.in_avals, self.out_avals = in_avals, out_avals

  def __call__(self, *consts_and_cts):
    consts = consts_and_cts[:len(self.jaxpr.constvars)]
    cts = consts_and_cts[len(consts):]
    ct = cts[0] if len(cts) == 1 else cts
    ct_leaves, ct_tree = tree_util.tree_flatten(ct)
    if ct_tree != self.out_tree:
      raise TypeError(f"cotangent tree does not match function output, expected "
                      f"{self.out_tree}, got {ct_tree}")
    for c, a in zip(ct_leaves, self.out_avals):
      c_aval = get_aval(c)
      if c_aval.shape != a.shape or c_aval.dtype != a.dtype:
        raise TypeError("cotangent type does not match function output, expected "
                        f"{a.str_short(short_dtypes=True)} but got "
                        f"{c_aval.str_short(short_dtypes=True)}")
    args = [ad.UndefinedPrimal(a) for a in self.in_avals]
    with source_info.transform_name_stack("transpose"):
      outs = ad.backward_pass(self.jaxpr, consts, args, ct_leaves)
    # A cotangent that went through an operation is an array, as JAX's transposition rules
    # make; one passed straight through (an input that is an output) is as it was given.
    direct = set(v for v in self.jaxpr.outvars if not isinstance(v, Literal))
    outs = [ad.instantiate(o) if v in direct else _as_value(ad.instantiate(o))
            for o, v in zip(outs, self.jaxpr.invars)]
    return tree_util.tree_unflatten(self.in_tree, outs)
