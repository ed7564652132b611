"""The ``xjax.numpy`` namespace, assembled from its family modules."""

import numpy as _np

from xjax._src.foundations import dtypes as _dtypes
from xjax._src.execution.basearray import Array as _PublicArray
from xjax._src.libraries.numpy.creation import (arange, array, asarray, empty, empty_like, full,
                                                full_like, ones, ones_like, zeros, zeros_like)
from xjax._src.libraries.numpy.linalg_basic import dot, matmul
from xjax._src.libraries.numpy.reductions import (all, amax, amin, any, argmax, argmin, max, mean,
                                                  min, prod, std, sum, var)
from xjax._src.libraries.numpy.shaping import (broadcast_arrays, broadcast_shapes, broadcast_to,
                                               concatenate, expand_dims, ravel, squeeze, stack,
                                               transpose)
from xjax._src.libraries.numpy.shaping import user_reshape as reshape
from xjax._src.libraries.numpy.ufuncs import *  # noqa: F401,F403
from xjax._src.libraries.numpy.where import where
from xjax._src.libraries.numpy.composed_math import *  # noqa: F401,F403
from xjax._src.libraries.numpy.composed_math import divmod  # noqa: F401
from xjax._src.libraries.numpy.numerical_ranges import geomspace, linspace, logspace
from xjax._src.libraries.numpy.dlpack import from_dlpack  # noqa: F401
from xjax._src.libraries.numpy.matrices import (diag, diagflat, diagonal, eye, identity, meshgrid,
                                                trace, tri, tril, triu)
from xjax._src.libraries.numpy.shaping import moveaxis, swapaxes
from xjax._src.libraries.numpy.rearrange import (array_split, atleast_1d, atleast_2d, atleast_3d,
                                                 column_stack, dsplit, dstack, flip, fliplr, flipud,
                                                 hsplit, hstack, repeat, roll, rot90,
                                                 split, tile, vsplit, vstack)
from xjax._src.libraries.numpy.padding import pad
from xjax._src.libraries.numpy.cumulative import (cumprod, cumsum, cumulative_prod,
                                                  cumulative_sum, nancumprod, nancumsum)
from xjax._src.libraries.numpy.sorting import argsort, lexsort, searchsorted, sort
from xjax._src.libraries.numpy.nonzero import nonzero
from xjax._src.libraries.numpy.searching import (argwhere, count_nonzero, flatnonzero, unique,
                                                 unique_values)
from xjax._src.libraries.numpy.statistics import (average, median, nanargmax, nanargmin, nanmax,
                                                  nanmean, nanmedian, nanmin, nanpercentile,
                                                  nanprod, nanquantile, nanstd, nansum, nanvar,
                                                  percentile, ptp, quantile)
from xjax._src.libraries.numpy.linalg_basic import (cross, inner, kron, outer, tensordot, vdot,
                                                    vecdot)
from xjax._src.libraries.numpy.einsum import einsum
from xjax._src.libraries.numpy.polynomial import (poly, polyadd, polyder, polydiv,  # noqa: E402
                                                  polyfit, polyint, polymul, polysub, polyval,
                                                  roots, vander)
from xjax._src.libraries.numpy.rearrange import (append, diag_indices, indices, select,
                                                 tril_indices, triu_indices)
from xjax._src.libraries.numpy.numeric import (allclose, array_equal, array_equiv, bincount,
                                               convolve, correlate, diff, digitize, ediff1d,
                                               gradient, histogram, histogram_bin_edges, interp,
                                               isclose, ravel_multi_index, trapezoid, unravel_index)
from xjax._src.libraries.numpy.indexing import (place, put, put_along_axis, take,  # noqa: F401
                                                take_along_axis)
from xjax._src.libraries.numpy.functional import apply_along_axis, apply_over_axes
from xjax._src.libraries.numpy.sorting import argpartition, partition
from xjax._src.libraries.numpy.statistics import corrcoef, cov
# NumPy 2 aliases, set operations, introspection, windows, index tricks, host I/O
from xjax._src.libraries.numpy.setops import (intersect1d, isin, setdiff1d, setxor1d,  # noqa: F401
                                              union1d, unique_all, unique_counts, unique_inverse)
from xjax._src.libraries.numpy.array_api import (acos, acosh, asin, asinh, astype,  # noqa: F401
                                                 atan, atan2, atanh, bitwise_left_shift,
                                                 bitwise_right_shift, concat, copy,
                                                 matrix_transpose, matvec, permute_dims, pow,
                                                 unstack, vecmat)
from xjax._src.libraries.numpy.composed_math import (angle, bitwise_count, fmax, fmin,  # noqa: F401
                                                     iscomplex, isreal, spacing)
from xjax._src.libraries.numpy.introspection import (can_cast, iscomplexobj, isdtype,  # noqa: F401
                                                     isrealobj, isscalar, iterable, ndim, shape,
                                                     size)
from xjax._src.libraries.numpy.sorting import sort_complex  # noqa: F401
from xjax._src.libraries.numpy.windows import (bartlett, blackman, hamming, hanning,  # noqa: F401
                                               kaiser)
from xjax._src.libraries.numpy.index_tricks import (c_, index_exp, ix_, mgrid, ogrid,  # noqa: F401
                                                    r_, s_)
from xjax._src.libraries.numpy.arrayops import (block, choose, compress, delete,  # noqa: F401
                                                diag_indices_from, extract, fill_diagonal, insert,
                                                mask_indices, resize, rollaxis,
                                                tril_indices_from, trim_zeros, triu_indices_from)
from xjax._src.libraries.numpy.bit_packing import packbits, unpackbits  # noqa: F401
from xjax._src.libraries.numpy.einsum import einsum_path  # noqa: F401
from xjax._src.libraries.numpy.functional import fromfunction, piecewise, vectorize  # noqa: F401
from xjax._src.libraries.numpy.host_io import (get_printoptions, printoptions,  # noqa: F401
                                               set_printoptions)
from xjax._src.libraries.numpy.numeric import unwrap  # noqa: F401
from xjax._src.libraries.numpy.host_io import (ComplexWarning, array_repr, array_str,  # noqa: F401
                                               character, flexible, frombuffer, fromfile, fromiter,
                                               fromstring, load, object_, save, savez)
from xjax._src.libraries.numpy.ufunc_class import frompyfunc, ufunc  # noqa: F401
from xjax._src.libraries.numpy.numeric import histogram2d, histogramdd

ndarray = _PublicArray
pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None

promote_types = _dtypes.promote_types
result_type = _dtypes.result_type
issubdtype = _dtypes.issubdtype
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo
dtype = _np.dtype

from xjax._src.libraries.numpy.scalar_types import (bfloat16, bool_, cdouble, complex128, complex64,
                                                    complex_, csingle, double, float16, float32,
                                                    float4_e2m1fn, float64, float6_e2m3fn,
                                                    float6_e3m2fn, float8_e3m4, float8_e4m3,
                                                    float8_e4m3b11fnuz, float8_e4m3fn,
                                                    float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,
                                                    float8_e8m0fnu, float_, int16, int2,
                                                    int32, int4, int64, int8, int_, single, uint,
                                                    uint16, uint2, uint32, uint4, uint64, uint8)
try:
  from xjax._src.libraries.numpy.scalar_types import int1, uint1
except ImportError:  # ml_dtypes before 0.6 has no 1-bit integers: absent, as in JAX
  pass
generic, number, integer, signedinteger, unsignedinteger = (
    _np.generic, _np.number, _np.integer, _np.signedinteger, _np.unsignedinteger)
inexact, floating, complexfloating = _np.inexact, _np.floating, _np.complexfloating


# Last: the functions JAX exposes as jnp.ufunc objects replace their plain versions.
from xjax._src.libraries.numpy.ufunc_objects import (add, bitwise_and,  # noqa: E402,F401
                                                     bitwise_or, bitwise_xor, logaddexp, logaddexp2,
                                                     logical_and, logical_or, logical_xor, maximum,
                                                     minimum, multiply, negative, subtract)
