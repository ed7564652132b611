"""The ``xjax.numpy`` namespace, assembled from its family modules."""
from __future__ import annotations

import numpy as np

from xjax._src import dtypes as _dtypes
from xjax._src.array import Array
from xjax._src.basearray import Array as _PublicArray
from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.numpy.creation import (arange, array, asarray, empty, empty_like, full,
                                      full_like, ones, ones_like, zeros, zeros_like)
from xjax._src.numpy.linalg_basic import dot, matmul
from xjax._src.numpy.reductions import (all, amax, amin, any, argmax, argmin, max, mean, min,
                                        prod, std, sum, var)
from xjax._src.numpy.shaping import (broadcast_arrays, broadcast_shapes, broadcast_to,
                                     concatenate, expand_dims, ravel, reshape, squeeze, stack,
                                     transpose)
from xjax._src.numpy.ufuncs import *  # noqa: F401,F403
from xjax._src.numpy.where import where
from xjax._src.numpy.math_extra import *  # noqa: F401,F403
from xjax._src.numpy.math_extra import divmod  # noqa: F401
from xjax._src.numpy.creation import geomspace, linspace, logspace
from xjax._src.numpy.matrices import (diag, diagflat, diagonal, eye, identity, meshgrid, trace,
                                      tri, tril, triu)
from xjax._src.numpy.shaping import moveaxis
from xjax._src.numpy.rearrange import (array_split, atleast_1d, atleast_2d, atleast_3d,
                                       column_stack, dsplit, dstack, flip, fliplr, flipud,
                                       hsplit, hstack, repeat, roll, rot90, row_stack, split,
                                       tile, vsplit, vstack)
from xjax._src.numpy.padding import pad
from xjax._src.numpy.cumulative import (cumprod, cumproduct, cumsum, cumulative_prod,
                                        cumulative_sum, nancumprod, nancumsum)
from xjax._src.numpy.sorting import argsort, lexsort, searchsorted, sort
from xjax._src.numpy.searching import (argwhere, count_nonzero, flatnonzero, nonzero, unique,
                                       unique_values)
from xjax._src.numpy.statistics import (average, median, nanargmax, nanargmin, nanmax,
                                        nanmean, nanmedian, nanmin, nanpercentile, nanprod,
                                        nanquantile, nanstd, nansum, nanvar, percentile, ptp,
                                        quantile)
from xjax._src.numpy.linalg_basic import (cross, inner, kron, outer, tensordot, vdot, vecdot)
from xjax._src.numpy.einsum import einsum
from xjax._src.numpy.polynomial import polyadd, polyder, polyint, polymul, polysub, vander
from xjax._src.numpy.lstsq_small import polyfit
from xjax._src.numpy.linalg_roots import roots  # noqa: E402
from xjax._src.numpy.rearrange import (append, diag_indices, indices, select, tril_indices,
                                       triu_indices)
from xjax._src.numpy.numeric import (allclose, array_equal, array_equiv, bincount, convolve,
                                     correlate, diff, digitize, ediff1d, gradient, histogram,
                                     histogram_bin_edges, interp, isclose, polyval,
                                     ravel_multi_index, trapezoid, unravel_index)
from xjax._src.numpy.indexing import place, put, take, take_along_axis  # noqa: F401
from xjax._src.numpy.functional import apply_along_axis, apply_over_axes
from xjax._src.numpy.sorting import argpartition, partition
from xjax._src.numpy.statistics import corrcoef, cov
from xjax._src.numpy.api_names import *  # noqa: F401,F403  (NumPy 2 aliases, set ops, ...)
from xjax._src.numpy.numeric import histogram2d, histogramdd

ndarray = _PublicArray
pi = np.pi
e = np.e
inf = np.inf
nan = np.nan
euler_gamma = np.euler_gamma
newaxis = None

promote_types = _dtypes.promote_types
result_type = _dtypes.result_type
issubdtype = _dtypes.issubdtype
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo
dtype = np.dtype

from xjax._src.numpy.scalar_types import (bfloat16, bool_, cdouble, complex64, complex128,
                                          complex_, csingle, double, float16, float32,
                                          float64, float_, int8, int16, int32, int64, int_,
                                          single, uint, uint8, uint16, uint32, uint64)
generic, number, integer, signedinteger, unsignedinteger = (
    np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger)
inexact, floating, complexfloating = np.inexact, np.floating, np.complexfloating


def real(x):
  x = asarray(x)
  return lax.real(x) if _dtypes.is_complex(get_aval(x).dtype) else x


def imag(x):
  x = asarray(x)
  return lax.imag(x) if _dtypes.is_complex(get_aval(x).dtype) else zeros_like(x)


def conjugate(x):
  x = asarray(x)
  return lax.conj(x) if _dtypes.is_complex(get_aval(x).dtype) else x


conj = conjugate


def swapaxes(a, axis1, axis2):
  a = asarray(a)
  nd = get_aval(a).ndim
  perm = list(range(nd))
  from xjax._src.numpy.util import canonical_axis
  i, j = (canonical_axis(ax, nd, error=IndexError) for ax in (axis1, axis2))
  perm[i], perm[j] = perm[j], perm[i]
  return lax.transpose(a, perm)


def round(a, decimals=0, out=None):
  a = asarray(a)
  dt = get_aval(a).dtype
  if dt == np.bool_:
    raise ValueError("round does not accept boolean inputs")
  if not _dtypes.is_inexact(dt):
    if decimals < 0:
      raise NotImplementedError("integer round is not implemented for decimals < 0")
    return a
  if _dtypes.is_complex(dt):  # as JAX: real and imaginary parts rounded separately
    return lax.complex(round(lax.real(a), decimals), round(lax.imag(a), decimals))
  if decimals == 0:
    from xjax._src.lax.rounding import round_half_even
    return round_half_even(a)
  factor = np.asarray(10.0 ** decimals, get_aval(a).dtype)[()]
  from xjax._src.lax.rounding import round_half_even
  return lax.div(round_half_even(lax.mul(a, factor)), factor)


around = round

# Last: the functions JAX exposes as jnp.ufunc objects replace their plain versions.
from xjax._src.numpy.ufunc_objects import (add, bitwise_and, bitwise_or,  # noqa: E402,F401
                                           bitwise_xor, logaddexp, logaddexp2, logical_and,
                                           logical_or, logical_xor, maximum, minimum, multiply,
                                           negative, subtract)
