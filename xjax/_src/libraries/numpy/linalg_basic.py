"""Products: dot, matmul (with batch broadcasting), vdot, inner, outer."""
from __future__ import annotations

from functools import partial

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import PartitionSpec
from xjax._src.core.avals import spec_of
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.dot import dot_general
from xjax._src.primitives.lax.elementwise import convert_element_type, mul
from xjax._src.primitives.lax.shapes import (expand_dims as lax_expand_dims, reshape, squeeze,
                                             transpose)
from xjax._src.libraries.numpy.arguments import check_arraylike, canonical_axis, arraylike
from xjax._src.libraries.numpy.composed_math import conjugate
from xjax._src.libraries.numpy.creation import array, zeros_like
from xjax._src.libraries.numpy.functional import vectorize
from xjax._src.libraries.numpy.promotion import promote_dtypes
from xjax._src.libraries.numpy.shaping import expand_dims, moveaxis, ravel
from xjax._src.libraries.numpy.ufuncs import multiply


@compiled_when_eager(static_argnames=("precision", "preferred_element_type", "out_sharding"))
def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
  """Matrix product with NumPy's rules for vectors and broadcast batch dimensions, laid out
  as ``out_sharding`` says (see ``place_out_sharding``).

  Nothing is broadcast in memory: a batch dimension of size 1 (or missing) on one side is a
  free dimension of the other operand in ``dot_general``, and one transpose puts the
  output dimensions in order.
  """
  a, b = arraylike("matmul", a, b)
  sa, sb = get_aval(a).shape, get_aval(b).shape
  if not sa or not sb:
    raise ValueError(f"matmul input operand {0 if not sa else 1} must have ndim at least 1, "
                     "but it has ndim 0")
  preferred_element_type, out_dtype, out_weak = contraction_types("matmul",
                                                                  preferred_element_type, a, b)
  a_mat, b_mat = len(sa) > 1, len(sb) > 1
  if sa[-1] != sb[-2 if b_mat else 0]:
    raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                    f"got {(sa[-1],)} and {(sb[-2 if b_mat else 0],)}.")
  nb = max(len(sa) - 2, len(sb) - 2, 0)
  batch_a = (None,) * (nb - max(len(sa) - 2, 0)) + sa[:-2]
  batch_b = (None,) * (nb - max(len(sb) - 2, 0)) + sb[:-2]
  specs_a = (None,) * (nb - max(len(sa) - 2, 0)) + spec_of(get_aval(a))[:-2]
  specs_b = (None,) * (nb - max(len(sb) - 2, 0)) + spec_of(get_aval(b))[:-2]
  squeeze_a, squeeze_b, squeeze_both, dims_a, dims_b = [], [], [], [], []
  out_batch, out_a, out_b = [], [], []  # output positions, in dot_general's order
  for i, (da, db, pa, pb) in enumerate(zip(batch_a, batch_b, specs_a, specs_b)):
    if da is None:
      out_b.append(i)
    elif db is None:
      out_a.append(i)
    elif da == 1 and db == 1 and pa is None and pb is None:  # squeezed, put back at the end
      squeeze_a.append(len(out_batch) + len(out_a) + len(squeeze_a))
      squeeze_b.append(len(out_batch) + len(out_b) + len(squeeze_b))
      squeeze_both.append(i)
    elif da == 1 and pa is None:
      out_b.append(i)
      squeeze_a.append(len(out_batch) + len(out_a) + len(squeeze_a))
    elif db == 1 and pb is None:
      out_a.append(i)
      squeeze_b.append(len(out_batch) + len(out_b) + len(squeeze_b))
    elif da == db and pa == pb:
      dims_a.append(len(out_batch) + len(out_a))
      dims_b.append(len(out_batch) + len(out_b))
      out_batch.append(i)
    else:
      raise ValueError(f"Incompatible types for matmul arguments: {get_aval(a).str_short()} "
                       f"and {get_aval(b).str_short()}")
  if a_mat:
    out_a.append(nb)
  if b_mat:
    out_b.append(nb + a_mat)
  a, b = squeeze(a, tuple(squeeze_a)), squeeze(b, tuple(squeeze_b))
  contract = ((get_aval(a).ndim - 1,), (get_aval(b).ndim - 1 - b_mat,))
  perm = tuple(int(i) for i in np.argsort(out_batch + out_a + out_b))
  out = dot_general(a, b, (contract, (tuple(dims_a), tuple(dims_b))),
                        precision=precision, preferred_element_type=preferred_element_type,
                        out_sharding=_before_transpose(out_sharding, perm))
  out = transpose(out, perm)
  if squeeze_both:
    out = lax_expand_dims(out, tuple(squeeze_both))
  return _placed(convert_element_type(out, out_dtype, out_weak), out_sharding)


def contraction_types(name, preferred_element_type, *operands):
  """(dot_general's preferred_element_type, the result's dtype and weak type) of jnp's
  contraction ``name``, as JAX: the operands' result type unless one is asked for (checked
  as a user's dtype: a 64-bit one without x64 warns)."""
  if preferred_element_type is None:
    out_dtype, out_weak = dtypes.result_type(*operands, return_weak_type_flag=True)
    return out_dtype, out_dtype, out_weak
  out_dtype = dtypes.check_user_dtype_supported(preferred_element_type, name)
  return out_dtype, out_dtype, False


def _before_transpose(out_sharding, perm):
  """The ``out_sharding`` of a result that ``transpose(., perm)`` makes ``out_sharding``."""
  spec = getattr(out_sharding, "spec", out_sharding)
  if not isinstance(spec, PartitionSpec) or perm == tuple(range(len(perm))):
    return out_sharding
  parts = list(spec) + [None] * (len(perm) - len(spec))
  before = [None] * len(perm)
  for i, p in enumerate(perm):
    before[p] = parts[i]
  return (PartitionSpec(*before) if isinstance(out_sharding, PartitionSpec)
          else out_sharding.update(spec=before))


def _placed(x, out_sharding):
  """``x`` laid out as ``out_sharding=`` says (JAX's keyword on dot and matmul)."""
  from xjax._src.primitives.lax.sharding_constraint import place_out_sharding
  return place_out_sharding(x, out_sharding)


@compiled_when_eager(static_argnames=("precision", "preferred_element_type", "out_sharding"))
def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
  """NumPy's dot: sum over the last axis of a and the second-to-last of b (laid out as
  ``out_sharding`` says)."""
  a, b = arraylike("dot", a, b)
  pet, out_dtype, out_weak = contraction_types("dot", preferred_element_type, a, b)
  sa, sb = get_aval(a).shape, get_aval(b).shape
  # the operands go to dot_general in their own dtypes (it computes in ``pet``), as JAX;
  # a scalar operand makes it a contraction over no dimensions
  contract = ((), ()) if not sa or not sb else ((len(sa) - 1,), (max(len(sb) - 2, 0),))
  out = dot_general(a, b, (contract, ((), ())), precision=precision,
                    preferred_element_type=pet, out_sharding=out_sharding)
  return _placed(convert_element_type(out, out_dtype, out_weak), out_sharding)


@compiled_when_eager(static_argnames=("precision", "preferred_element_type"))
def vdot(a, b, *, precision=None, preferred_element_type=None):
  """Dot product of the flattened arrays, conjugating the first."""
  check_arraylike("vdot", a, b)
  return dot(conjugate(ravel(a)), ravel(b), precision=precision,
             preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
  """Conjugated dot product along ``axis`` with batch broadcasting: ``vdot`` vectorized
  over the other axes, as JAX computes it."""
  x1, x2 = arraylike("jnp.vecdot", x1, x2)
  a, b = array(x1, copy=False), array(x2, copy=False)
  if get_aval(a).shape[axis] != get_aval(b).shape[axis]:
    raise ValueError(f"axes must match; got shapes {get_aval(a).shape} and "
                     f"{get_aval(b).shape} with {axis=}")
  one = partial(vdot, precision=precision, preferred_element_type=preferred_element_type)
  return vectorize(one, signature="(n),(n)->()")(moveaxis(a, axis, -1), moveaxis(b, axis, -1))


@compiled_when_eager(static_argnames=("precision", "preferred_element_type"))
def inner(a, b, *, precision=None, preferred_element_type=None):
  """Sum product over the last axes of a and b."""
  a, b = arraylike("inner", a, b)
  if not get_aval(a).ndim or not get_aval(b).ndim:
    return mul(*promote_dtypes(a, b))
  return tensordot(a, b, (-1, -1), precision=precision,
                   preferred_element_type=preferred_element_type)


@compiled_when_eager
def outer(a, b, out=None):
  """Outer product of the flattened inputs."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
  a, b = arraylike("outer", a, b)
  a, b = promote_dtypes(a, b)
  column = expand_dims(ravel(a), 1)
  return multiply(column, expand_dims(ravel(b), 0))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
  """Sum products over the given axes (an int N: last N of a with first N of b)."""
  import operator
  a, b = arraylike("tensordot", a, b)
  pet, out_dtype, out_weak = contraction_types("tensordot", preferred_element_type, a, b)
  na, nb = get_aval(a).ndim, get_aval(b).ndim
  if isinstance(axes, (list, tuple)) and len(axes) == 2:
    ax_a, ax_b = axes
    ax_a = ax_a if isinstance(ax_a, (list, tuple)) else (ax_a,)
    ax_b = ax_b if isinstance(ax_b, (list, tuple)) else (ax_b,)
    if len(ax_a) != len(ax_b):
      raise TypeError("tensordot requires axes lists to have equal length, got "
                      f"{ax_a} and {ax_b}.")
  else:
    try:
      n = operator.index(axes)
    except TypeError:
      raise TypeError(f"tensordot axes argument must be an int or a pair of sequences, "
                      f"got {axes}") from None
    if n > min(na, nb):
      raise TypeError(f"Number of tensordot axes (axes {n}) exceeds input ranks "
                      f"({na} and {nb})")
    ax_a, ax_b = tuple(range(na - n, na)), tuple(range(n))
  ax_a = tuple(canonical_axis(x, na) for x in ax_a)
  ax_b = tuple(canonical_axis(x, nb) for x in ax_b)
  out = dot_general(a, b, ((ax_a, ax_b), ((), ())), precision=precision,
                    preferred_element_type=pet, out_sharding=out_sharding)
  return convert_element_type(out, out_dtype, out_weak)


@compiled_when_eager(staged="kron")
def kron(a, b):
  """Kronecker product."""
  a, b = promote_dtypes(a, b)
  na, nb = get_aval(a).ndim, get_aval(b).ndim
  if na < nb:
    a = expand_dims(a, tuple(range(nb - na)))
  elif nb < na:
    b = expand_dims(b, tuple(range(na - nb)))
  nd = max(na, nb)
  shape = tuple(x * y for x, y in zip(get_aval(a).shape, get_aval(b).shape))
  # a's dimensions interleaved with b's, multiplied as lax multiplies (booleans refused)
  return reshape(mul(expand_dims(a, tuple(range(1, 2 * nd, 2))),
                     expand_dims(b, tuple(range(0, 2 * nd, 2)))), shape)


@compiled_when_eager(staged="cross", static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
  """Cross product of 2- or 3-vectors: components by static indexing, products with the
  operators' promotion, the result built as an array of the three components."""
  a, b = arraylike("cross", a, b)
  if axis is not None:
    axisa = axisb = axisc = axis
  a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
  na, nb = get_aval(a).shape[-1], get_aval(b).shape[-1]
  if na not in (2, 3) or nb not in (2, 3):
    raise ValueError("Dimension must be either 2 or 3 for cross product")
  if na == 2 and nb == 2:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
  a0, a1 = a[..., 0], a[..., 1]
  a2 = a[..., 2] if na == 3 else zeros_like(a0)
  b0, b1 = b[..., 0], b[..., 1]
  b2 = b[..., 2] if nb == 3 else zeros_like(b0)
  c = array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
  return moveaxis(c, 0, axisc)
