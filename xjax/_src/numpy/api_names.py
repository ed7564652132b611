"""The remaining public names of ``xjax.numpy``, gathered from their family modules."""
from xjax._src.numpy.setops import (intersect1d, isin, setdiff1d, setxor1d, union1d,
                                    unique_all, unique_counts, unique_inverse)
from xjax._src.numpy.array_api import (acos, acosh, asin, asinh, astype, atan, atan2, atanh,
                                       bitwise_left_shift, bitwise_right_shift, concat, copy,
                                       matrix_transpose, matvec, permute_dims, pow, unstack,
                                       vecmat)
from xjax._src.numpy.composed_math import (angle, bitwise_count, fmax, fmin, iscomplex, isreal,
                                           spacing)
from xjax._src.numpy.introspection import (can_cast, iscomplexobj, isdtype, isrealobj, isscalar,
                                           iterable, ndim, shape, size)
from xjax._src.numpy.sorting import sort_complex
from xjax._src.numpy.windows import bartlett, blackman, hamming, hanning, kaiser
from xjax._src.numpy.index_tricks import c_, index_exp, ix_, mgrid, ogrid, r_, s_
from xjax._src.numpy.arrayops import (block, choose, compress, delete, diag_indices_from,
                                      extract, fill_diagonal, insert, mask_indices,
                                      put_along_axis, resize, rollaxis, tril_indices_from,
                                      trim_zeros, triu_indices_from)
from xjax._src.numpy.bit_packing import packbits, unpackbits
from xjax._src.numpy.einsum import einsum_path
from xjax._src.numpy.functional import fromfunction, piecewise, vectorize
from xjax._src.numpy.host_io import get_printoptions, printoptions, set_printoptions
from xjax._src.numpy.numeric import unwrap
from xjax._src.numpy.host_io import (ComplexWarning, array_repr, array_str, character,
                                     flexible, frombuffer, fromfile, fromiter, fromstring,
                                     load, object_, save, savez)
from xjax._src.numpy.ufunc_class import frompyfunc, ufunc

__all__ = [
    "intersect1d", "isin", "setdiff1d", "setxor1d", "union1d", "unique_all", "unique_counts",
    "unique_inverse", "acos", "acosh", "angle", "asin", "asinh", "astype", "atan", "atan2",
    "atanh", "bitwise_count", "bitwise_left_shift", "bitwise_right_shift", "can_cast",
    "concat", "copy", "fmax", "fmin", "iscomplex", "iscomplexobj", "isdtype", "isreal",
    "isrealobj", "isscalar", "iterable", "matrix_transpose", "matvec", "ndim",
    "permute_dims", "pow", "shape", "size", "sort_complex", "spacing", "unstack", "vecmat",
    "bartlett", "blackman", "hamming", "hanning", "kaiser", "c_", "index_exp", "ix_",
    "mgrid", "ogrid", "r_", "s_", "block", "choose", "compress", "delete",
    "diag_indices_from", "extract", "fill_diagonal", "insert", "mask_indices",
    "put_along_axis", "resize", "rollaxis", "tril_indices_from", "trim_zeros",
    "triu_indices_from", "einsum_path", "fromfunction", "get_printoptions", "packbits",
    "piecewise", "printoptions", "set_printoptions", "unpackbits",
    "unwrap", "vectorize", "ComplexWarning", "array_repr", "array_str", "character",
    "flexible", "frombuffer", "fromfile", "fromiter", "fromstring", "load", "object_",
    "save", "savez", "frompyfunc", "ufunc",
]
