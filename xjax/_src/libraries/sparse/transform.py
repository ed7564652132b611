"""`sparsify`: runs a function written with dense operations on sparse (BCOO) inputs, by
tracing it at the inputs' dense shapes and interpreting the jaxpr with a sparse rule for
each primitive that meets a sparse value."""
from __future__ import annotations

import functools

from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import Literal
from xjax._src.core.values import get_aval
from xjax._src.foundations.tree_util import tree_flatten, tree_unflatten
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.sparse import bcoo as B
from xjax._src.libraries.sparse.api import todense, todense_p
from xjax._src.libraries.sparse.bcsr import BCSR
from xjax._src.libraries.sparse.sparse_array import JAXSparse


def _is_sparse(x) -> bool:
  return isinstance(x, JAXSparse)


def sparsify(f, use_tracer: bool = False):
  """`f` accepting BCOO (and BCSR) arrays where it takes arrays: each primitive that meets
  a sparse value runs its sparse rule; NotImplementedError where there is none."""
  if use_tracer:
    raise NotImplementedError("sparsify(use_tracer=True): xjax interprets the traced jaxpr "
                              "(the default mode)")

  @functools.wraps(f)
  def wrapped(*args, **kwargs):
    leaves, tree = tree_flatten((args, kwargs), is_leaf=_is_sparse)
    leaves = [x.to_bcoo() if isinstance(x, BCSR) else x for x in leaves]
    avals = [ShapedArray(x.shape, x.dtype) if _is_sparse(x) else get_aval(x)
             for x in leaves]
    out_tree = []

    def flat(*xs):
      a, k = tree_unflatten(tree, xs)
      outs, t = tree_flatten(f(*a, **k))
      out_tree.append(t)
      return outs
    closed = trace_to_jaxpr(flat, avals)
    outs = eval_sparse(closed.jaxpr, closed.consts, leaves)
    return tree_unflatten(out_tree[0], outs)
  return wrapped


def eval_sparse(jaxpr, consts, args):
  """`jaxpr` evaluated on `args`, some of them sparse."""
  env = {}

  def read(atom):
    return atom.val if type(atom) is Literal else env[atom]
  for v, x in zip(jaxpr.constvars, consts):
    env[v] = x
  for v, x in zip(jaxpr.invars, args):
    env[v] = x
  for eqn in jaxpr.eqns:
    ins = [read(a) for a in eqn.invars]
    prim = eqn.primitive
    if not any(_is_sparse(x) for x in ins):
      outs = prim.bind(*ins, **eqn.params)
    elif prim.name in _ZERO_PRESERVING:
      (x,) = ins
      outs = _with_data(x, prim.bind(x.data, **eqn.params))
    elif prim.name in _RULES:
      outs = _RULES[prim.name](*ins, **eqn.params)
    elif prim.name in _DENSIFYING:
      raise NotImplementedError(
          f"sparse rule for {prim.name} is not implemented because it would result in "
          "dense output. If this is your intent, use sparse.todense() to convert your "
          "arguments to dense matrices.")
    else:
      raise NotImplementedError(f"sparse rule for {prim.name} is not implemented.")
    outs = outs if prim.multiple_results else [outs]
    for v, o in zip(eqn.outvars, outs):
      env[v] = o
  return [read(v) for v in jaxpr.outvars]


def _with_data(x, data):
  return B.BCOO((data, x.indices), shape=x.shape, indices_sorted=x.indices_sorted,
                unique_indices=x.unique_indices)


_ZERO_PRESERVING = {
    "abs", "asin", "asinh", "atan", "atanh", "ceil", "conj", "copy", "copy_p", "erf",
    "expm1", "floor", "imag", "log1p", "neg", "real", "round", "sign", "sin", "sinh",
    "sqrt", "square", "tan", "tanh", "is_finite", "convert_element_type",
    "reduce_precision"}
_DENSIFYING = {"exp", "exp2", "cos", "cosh", "log", "acos", "acosh", "logistic", "rsqrt",
               "erfc", "erf_inv", "lgamma", "digamma"}


def _integer_pow(x, *, y):
  if y <= 0:
    raise NotImplementedError("sparse rule for integer_pow with a non-positive exponent "
                              "is not implemented because it would result in dense output.")
  return _with_data(x, x.data ** y)


def _add(x, y):
  return B.add_operands(*(todense(v) if _is_sparse(v) and not isinstance(v, B.BCOO) else v
                          for v in (x, y)))


def _sub(x, y):
  return B.subtract_operands(x, y)


def _mul(x, y):
  if _is_sparse(x) and _is_sparse(y):
    return B.bcoo_multiply_sparse(x, y)
  sp, dense = (x, y) if _is_sparse(x) else (y, x)
  return B.multiply_dense(sp, dense)


def _div(x, y):
  if _is_sparse(y):
    raise NotImplementedError("Division by a sparse array.")
  dense = jnp.broadcast_to(y, x.shape)
  return _with_data(x, x.data / B.bcoo_extract(x, dense, assume_unique=True).data)


def _dot_general(x, y, *, dimension_numbers, precision=None, preferred_element_type=None,
                 out_sharding=None, **_):
  return B.bcoo_dot_general(x, y, dimension_numbers=dimension_numbers,
                            preferred_element_type=preferred_element_type)


def _reduce_sum(x, *, axes, **_):
  out = B.bcoo_reduce_sum(x, axes=axes)
  return out.data.sum() if out.shape == () else out   # (a total is dense, as JAX's)


def _call(*args, jaxpr, **_):
  return eval_sparse(jaxpr.jaxpr, jaxpr.consts, args)


def _todense(*leaves, tree):
  return todense(tree_unflatten(tree, leaves))


_RULES = {
    "add": _add,
    "add_any": _add,
    "sub": _sub,
    "mul": _mul,
    "div": _div,
    "integer_pow": _integer_pow,
    "dot_general": _dot_general,
    "reduce_sum": _reduce_sum,
    "transpose": lambda x, *, permutation: B.bcoo_transpose(x, permutation=permutation),
    "broadcast_in_dim": lambda x, *, shape, broadcast_dimensions, **_: (
        B.bcoo_broadcast_in_dim(x, shape=shape, broadcast_dimensions=broadcast_dimensions)),
    "reshape": lambda x, *, new_sizes, dimensions=None, **_: B.bcoo_reshape(
        x, new_sizes=new_sizes, dimensions=dimensions),
    "squeeze": lambda x, *, dimensions: B.bcoo_squeeze(x, dimensions=dimensions),
    "rev": lambda x, *, dimensions: B.bcoo_rev(x, dimensions),
    "concatenate": lambda *xs, dimension: B.bcoo_concatenate(xs, dimension=dimension),
    "slice": lambda x, *, start_indices, limit_indices, strides: B.bcoo_slice(
        x, start_indices=start_indices, limit_indices=limit_indices, strides=strides),
    "jit": _call,
    "pjit": _call,
    todense_p.name: _todense,
}
