"""Sparse-aware differentiation: `grad` and `value_and_grad` of functions of sparse arrays
give the derivatives with respect to their stored values, as sparse arrays with the
arguments' indices."""
from __future__ import annotations

import functools

from xjax._src.api import transformations
from xjax._src.libraries.sparse.sparse_array import JAXSparse


def _rebuild(like, data):
  if not isinstance(like, JAXSparse):
    return data
  children, aux = like.tree_flatten()
  return type(like).tree_unflatten(aux, [data] + list(children[1:]))


def _sparse_aware(transform, with_value: bool):
  def make(fun, argnums=0, has_aux=False, **kwargs):
    @functools.wraps(fun)
    def wrapped(*args, **kw):
      nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

      def on_data(*xs):
        full = list(args)
        for k, x in zip(nums, xs):
          full[k] = _rebuild(args[k], x)
        return fun(*full, **kw)
      xs = [args[k].data if isinstance(args[k], JAXSparse) else args[k] for k in nums]
      inner_nums = 0 if isinstance(argnums, int) else tuple(range(len(nums)))
      out = transform(on_data, argnums=inner_nums, has_aux=has_aux, **kwargs)(*xs)
      value, d = out if with_value else (None, out[0] if has_aux else out)
      d = _rebuild(args[nums[0]], d) if isinstance(argnums, int) else tuple(
          _rebuild(args[k], g) for k, g in zip(nums, d))
      if with_value:
        return value, d
      return (d, out[1]) if has_aux else d
    return wrapped
  return make


grad = _sparse_aware(transformations.grad, with_value=False)
value_and_grad = _sparse_aware(transformations.value_and_grad, with_value=True)


def _jacobian(name):
  def jac(fun, argnums=0, has_aux=False, **kwargs):
    raise NotImplementedError(f"sparse.{name} is not implemented in xjax; use sparse.grad, "
                              "or the dense jacobian with respect to the data")
  jac.__name__ = name
  return jac


jacfwd, jacrev, jacobian = _jacobian("jacfwd"), _jacobian("jacrev"), _jacobian("jacobian")
