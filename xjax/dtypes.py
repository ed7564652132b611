"""Dtypes and type promotion (``jax.dtypes``)."""
from xjax._src.foundations.dtypes import (
    TypePromotionError as TypePromotionError,
    bfloat16 as bfloat16,
    canonicalize_dtype as canonicalize_dtype,
    extended as extended,
    prng_key as prng_key,
    finfo as finfo,
    float0 as float0,
    iinfo as iinfo,
    issubdtype as issubdtype,
    itemsize_bits as itemsize_bits,
    result_type as result_type,
    scalar_type_of as scalar_type_of,
)
