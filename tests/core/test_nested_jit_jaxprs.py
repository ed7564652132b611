"""jnp functions that JAX implements as jitted functions (or through a jitted helper) print
nested ``jit[name=...]`` equations as JAX 0.10.2's jaxprs do, with the same inputs, literals
and bodies (texts recorded from the reference JAX); values through them are unchanged."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax

X3 = jnp.ones(3)
M33 = jnp.ones((3, 3))
I3 = jnp.arange(3)
M23 = jnp.arange(6.).reshape(2, 3)
K0, K1 = jax.random.key(0), jax.random.key(1)

PROGRAMS = {
    "trunc": (lambda x: jnp.trunc(x), (X3,)),
    "isinf": (lambda x: jnp.isinf(x), (X3,)),
    "fmax": (lambda x, y: jnp.fmax(x, y), (X3, X3)),
    "fmin_scalar": (lambda x: jnp.fmin(x, 1.), (X3,)),
    "flip": (lambda x: jnp.flip(x), (M33,)),
    "rot90_2": (lambda x: jnp.rot90(x, 2), (M33,)),
    "roll": (lambda x: jnp.roll(x, 1), (X3,)),
    "roll_axes": (lambda x: jnp.roll(x, (1, -1), axis=(0, 1)), (M33,)),
    "ptp": (lambda x: jnp.ptp(x, axis=1, keepdims=True), (M33,)),
    "nanmax": (lambda x: jnp.nanmax(x), (X3,)),
    "nanmin_axis": (lambda x: jnp.nanmin(x, axis=0), (M33,)),
    "cumsum_flat": (lambda x: jnp.cumsum(x), (M33,)),
    "cumsum_bool": (lambda x: jnp.cumsum(x, dtype=bool), (I3,)),
    "nancumsum": (lambda x: jnp.nancumsum(x), (X3,)),
    "cumulative_sum_int8": (lambda x: jnp.cumulative_sum(x), (jnp.ones(3, jnp.int8),)),
    "cumulative_prod_initial": (lambda x: jnp.cumulative_prod(x, axis=1, include_initial=True),
                                (M33,)),
    "slice_strides": (lambda x: lax.slice(x, (0,), (2,), (1,)), (X3,)),
    "isclose": (lambda x, y: jnp.isclose(x, y), (M23, M23)),
    "isclose_equal_nan_int": (lambda x: jnp.isclose(x, 3, equal_nan=True), (I3,)),
    "hypot": (lambda x: jnp.hypot(x, x), (M23,)),
    "heaviside": (lambda x: jnp.heaviside(x, 0.5), (M23,)),
    "random_uniform": (lambda k: jax.random.uniform(k, (2,)), (K0,)),
    "random_uniform_bounds": (lambda k, lo: jax.random.uniform(k, (2, 3), minval=lo, maxval=2.),
                              (K0, jnp.zeros((2, 1)))),
    "random_bernoulli": (lambda k: jax.random.bernoulli(k, 0.3, (3,)), (K1,)),
    "random_categorical": (lambda k, x: jax.random.categorical(k, x), (K1, M23)),
    "random_gumbel_high": (lambda k: jax.random.gumbel(k, (2,), mode='high'), (K1,)),
    "random_randint": (lambda k: jax.random.randint(k, (3,), 0, 10), (K1,)),
    "random_randint_uint8": (lambda k: jax.random.randint(k, (3,), 0, 256, jnp.uint8), (K1,)),
    "unpack_rows": (lambda x: [r * 2 for r in x], (M23,)),
    "cross": (lambda x, y: jnp.cross(x, y), (M23, M23)),
    "cross_vmap": (jax.vmap(lambda x, y: jnp.cross(x, y)), (M23, M23)),
    "nanmean": (lambda x: jnp.nanmean(x), (M23,)),
    "nanmean_axis_where": (lambda x, w: jnp.nanmean(x, axis=1, where=w), (M23, M23 > 1)),
    "unwrap": (lambda x: jnp.unwrap(x), (M23,)),
    "unwrap_int_period": (lambda x: jnp.unwrap(x, period=6), (I3,)),
    "vander": (lambda x: jnp.vander(x), (X3,)),
    "cov": (lambda x: jnp.cov(x), (M23,)),
    "diag": (lambda x: jnp.diag(x), (M23,)),
    "diagonal_offset": (lambda x: jnp.diagonal(x, -1), (M33,)),
}

# str(jax.make_jaxpr(f)(*args)) under JAX 0.10.2
RECORDED = {
    'trunc': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[3] = jit[\n'
        '      name=trunc\n'
        '      jaxpr={ lambda ; a:f32[3]. let\n'
        '          c:bool[3] = lt a 0.0:f32[]\n'
        '          d:f32[3] = ceil a\n'
        '          e:f32[3] = floor a\n'
        '          b:f32[3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; c:bool[3] d:f32[3] e:f32[3]. let\n'
        '                b:f32[3] = select_n c e d\n'
        '              in (b,) }\n'
        '          ] c d e\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'isinf': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:bool[3] = jit[\n'
        '      name=isinf\n'
        '      jaxpr={ lambda ; a:f32[3]. let\n'
        '          c:f32[3] = abs a\n'
        '          b:bool[3] = eq c inf:f32[]\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'fmax': (
        '{ lambda ; a:f32[3] b:f32[3]. let\n'
        '    c:f32[3] = jit[\n'
        '      name=fmax\n'
        '      jaxpr={ lambda ; a:f32[3] b:f32[3]. let\n'
        '          d:bool[3] = gt a b\n'
        '          e:bool[3] = ne b b\n'
        '          f:bool[3] = or d e\n'
        '          c:f32[3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; f:bool[3] a:f32[3] b:f32[3]. let\n'
        '                c:f32[3] = select_n f b a\n'
        '              in (c,) }\n'
        '          ] f a b\n'
        '        in (c,) }\n'
        '    ] a b\n'
        '  in (c,) }'
    ),
    'fmin_scalar': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[3] = jit[\n'
        '      name=fmin\n'
        '      jaxpr={ lambda ; a:f32[3] c:f32[]. let\n'
        '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '          e:bool[3] = lt a d\n'
        '          f:bool[] = ne c c\n'
        '          g:bool[] = convert_element_type[new_dtype=bool weak_type=False] f\n'
        '          h:bool[3] = or e g\n'
        '          b:f32[3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; h:bool[3] a:f32[3] c:f32[]. let\n'
        '                i:f32[] = convert_element_type[\n'
        '                  new_dtype=float32\n'
        '                  weak_type=False\n'
        '                ] c\n'
        '                j:f32[3] = broadcast_in_dim i\n'
        '                b:f32[3] = select_n h j a\n'
        '              in (b,) }\n'
        '          ] h a c\n'
        '        in (b,) }\n'
        '    ] a 1.0:f32[]\n'
        '  in (b,) }'
    ),
    'flip': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:f32[3,3] = jit[\n'
        '      name=_flip\n'
        '      jaxpr={ lambda ; a:f32[3,3]. let\n'
        '          b:f32[3,3] = rev[dimensions=(0, 1)] a\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'rot90_2': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:f32[3,3] = jit[\n'
        '      name=rot90\n'
        '      jaxpr={ lambda ; a:f32[3,3]. let\n'
        '          c:f32[3,3] = jit[\n'
        '            name=_flip\n'
        '            jaxpr={ lambda ; a:f32[3,3]. let\n'
        '                c:f32[3,3] = rev[dimensions=(0,)] a\n'
        '              in (c,) }\n'
        '          ] a\n'
        '          b:f32[3,3] = jit[\n'
        '            name=_flip\n'
        '            jaxpr={ lambda ; c:f32[3,3]. let\n'
        '                b:f32[3,3] = rev[dimensions=(1,)] c\n'
        '              in (b,) }\n'
        '          ] c\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'roll': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[3] = jit[\n'
        '      name=_roll_static\n'
        '      jaxpr={ lambda ; a:f32[3]. let\n'
        '          c:f32[1] = slice[limit_indices=(3,) start_indices=(2,) strides=(1,)] a\n'
        '          d:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=(1,)] a\n'
        '          b:f32[3] = concatenate[dimension=0] c d\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'roll_axes': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:f32[3,3] = jit[\n'
        '      name=_roll_static\n'
        '      jaxpr={ lambda ; a:f32[3,3]. let\n'
        '          c:f32[1,3] = slice[\n'
        '            limit_indices=(3, 3)\n'
        '            start_indices=(2, 0)\n'
        '            strides=(1, 1)\n'
        '          ] a\n'
        '          d:f32[2,3] = slice[\n'
        '            limit_indices=(2, 3)\n'
        '            start_indices=(0, 0)\n'
        '            strides=(1, 1)\n'
        '          ] a\n'
        '          e:f32[3,3] = concatenate[dimension=0] c d\n'
        '          f:f32[3,2] = slice[\n'
        '            limit_indices=(3, 3)\n'
        '            start_indices=(0, 1)\n'
        '            strides=(1, 1)\n'
        '          ] e\n'
        '          g:f32[3,1] = slice[\n'
        '            limit_indices=(3, 1)\n'
        '            start_indices=(0, 0)\n'
        '            strides=(1, 1)\n'
        '          ] e\n'
        '          b:f32[3,3] = concatenate[dimension=1] f g\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'ptp': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:f32[3,1] = jit[\n'
        '      name=_ptp\n'
        '      jaxpr={ lambda ; a:f32[3,3]. let\n'
        '          c:f32[3] = reduce_max[axes=(1,)] a\n'
        '          d:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c\n'
        '          e:f32[3] = reduce_min[axes=(1,)] a\n'
        '          f:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '          b:f32[3,1] = sub d f\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'nanmax': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[] = jit[\n'
        '      name=nanmax\n'
        '      jaxpr={ lambda ; a:f32[3]. let\n'
        '          c:bool[3] = ne a a\n'
        '          d:f32[3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; c:bool[3] e:f32[] a:f32[3]. let\n'
        '                f:f32[3] = broadcast_in_dim e\n'
        '                d:f32[3] = select_n c a f\n'
        '              in (d,) }\n'
        '          ] c -inf:f32[] a\n'
        '          g:f32[] = reduce_max[axes=(0,)] d\n'
        '          h:bool[3] = ne a a\n'
        '          i:bool[] = reduce_and[axes=(0,)] h\n'
        '          b:f32[] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; i:bool[] j:f32[] g:f32[]. let\n'
        '                b:f32[] = select_n i g j\n'
        '              in (b,) }\n'
        '          ] i nan:f32[] g\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'nanmin_axis': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:f32[3] = jit[\n'
        '      name=nanmin\n'
        '      jaxpr={ lambda ; a:f32[3,3]. let\n'
        '          c:bool[3,3] = ne a a\n'
        '          d:f32[3,3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; c:bool[3,3] e:f32[] a:f32[3,3]. let\n'
        '                f:f32[3,3] = broadcast_in_dim e\n'
        '                d:f32[3,3] = select_n c a f\n'
        '              in (d,) }\n'
        '          ] c inf:f32[] a\n'
        '          g:f32[3] = reduce_min[axes=(0,)] d\n'
        '          h:bool[3,3] = ne a a\n'
        '          i:bool[3] = reduce_and[axes=(0,)] h\n'
        '          b:f32[3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; i:bool[3] j:f32[] g:f32[3]. let\n'
        '                k:f32[3] = broadcast_in_dim j\n'
        '                b:f32[3] = select_n i g k\n'
        '              in (b,) }\n'
        '          ] i nan:f32[] g\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'cumsum_flat': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:f32[9] = jit[\n'
        '      name=cumsum\n'
        '      jaxpr={ lambda ; a:f32[3,3]. let\n'
        '          c:f32[9] = reshape[dimensions=None new_sizes=(9,) sharding=None] a\n'
        '          b:f32[9] = cumsum[axis=0 reverse=False] c\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'cumsum_bool': (
        '{ lambda ; a:i32[3]. let\n'
        '    b:bool[3] = jit[\n'
        '      name=cumsum\n'
        '      jaxpr={ lambda ; a:i32[3]. let\n'
        '          c:bool[3] = ne a 0:i32[]\n'
        '          d:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] c\n'
        '          e:i32[3] = cumsum[axis=0 reverse=False] d\n'
        '          b:bool[3] = convert_element_type[new_dtype=bool weak_type=False] e\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'nancumsum': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[3] = jit[\n'
        '      name=nancumsum\n'
        '      jaxpr={ lambda ; a:f32[3]. let\n'
        '          c:bool[3] = ne a a\n'
        '          d:f32[3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; c:bool[3] e:f32[] a:f32[3]. let\n'
        '                f:f32[3] = broadcast_in_dim e\n'
        '                d:f32[3] = select_n c a f\n'
        '              in (d,) }\n'
        '          ] c 0.0:f32[] a\n'
        '          b:f32[3] = cumsum[axis=0 reverse=False] d\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'cumulative_sum_int8': (
        '{ lambda ; a:i8[3]. let\n'
        '    b:i32[3] = jit[\n'
        '      name=_cumsum_with_promotion\n'
        '      jaxpr={ lambda ; a:i8[3]. let\n'
        '          c:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
        '          b:i32[3] = cumsum[axis=0 reverse=False] c\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'cumulative_prod_initial': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:f32[3,3] = cumprod[axis=1 reverse=False] a\n'
        '    c:f32[3,1] = broadcast_in_dim 1.0:f32[]\n'
        '    d:f32[3,4] = concatenate[dimension=1] c b\n'
        '  in (d,) }'
    ),
    'slice_strides': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=(1,)] a\n'
        '  in (b,) }'
    ),
    'random_uniform': (
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n'
        '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
        '    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    f:f32[1] = broadcast_in_dim d\n'
        '    g:f32[1] = broadcast_in_dim e\n'
        '    h:u32[2] = random_bits[bit_width=32 shape=(2,)] a\n'
        '    i:u32[2] = shift_right_logical h 9:u32[]\n'
        '    j:u32[2] = or i 1065353216:u32[]\n'
        '    k:f32[2] = bitcast_convert_type[new_dtype=float32] j\n'
        '    l:f32[2] = sub k 1.0:f32[]\n'
        '    m:f32[1] = sub g f\n'
        '    n:f32[2] = mul l m\n'
        '    o:f32[2] = add n f\n'
        '    p:f32[2] = max f o\n'
        '  in (p,) } in\n'
        '{ lambda ; q:key<fry>[]. let\n'
        '    r:f32[2] = jit[name=_uniform jaxpr=_uniform] q 0.0:f32[] 1.0:f32[]\n'
        '  in (r,) }'
    ),
    'random_uniform_bounds': (
        'let _uniform = { lambda ; a:key<fry>[] b:f32[2,1] c:f32[]. let\n'
        '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    e:f32[1,1] = broadcast_in_dim d\n'
        '    f:u32[2,3] = random_bits[bit_width=32 shape=(2, 3)] a\n'
        '    g:u32[2,3] = shift_right_logical f 9:u32[]\n'
        '    h:u32[2,3] = or g 1065353216:u32[]\n'
        '    i:f32[2,3] = bitcast_convert_type[new_dtype=float32] h\n'
        '    j:f32[2,3] = sub i 1.0:f32[]\n'
        '    k:f32[2,1] = sub e b\n'
        '    l:f32[2,3] = mul j k\n'
        '    m:f32[2,3] = add l b\n'
        '    n:f32[2,3] = max b m\n'
        '  in (n,) } in\n'
        '{ lambda ; o:key<fry>[] p:f32[2,1]. let\n'
        '    q:f32[2,3] = jit[name=_uniform jaxpr=_uniform] o p 2.0:f32[]\n'
        '  in (q,) }'
    ),
    'random_bernoulli': (
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n'
        '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
        '    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    f:f32[1] = broadcast_in_dim d\n'
        '    g:f32[1] = broadcast_in_dim e\n'
        '    h:u32[3] = random_bits[bit_width=32 shape=(3,)] a\n'
        '    i:u32[3] = shift_right_logical h 9:u32[]\n'
        '    j:u32[3] = or i 1065353216:u32[]\n'
        '    k:f32[3] = bitcast_convert_type[new_dtype=float32] j\n'
        '    l:f32[3] = sub k 1.0:f32[]\n'
        '    m:f32[1] = sub g f\n'
        '    n:f32[3] = mul l m\n'
        '    o:f32[3] = add n f\n'
        '    p:f32[3] = max f o\n'
        '  in (p,) } in\n'
        '{ lambda ; q:key<fry>[]. let\n'
        '    r:bool[3] = jit[\n'
        '      name=_bernoulli\n'
        '      jaxpr={ lambda ; q:key<fry>[] s:f32[]. let\n'
        '          t:f32[3] = jit[name=_uniform jaxpr=_uniform] q 0.0:f32[] 1.0:f32[]\n'
        '          r:bool[3] = lt t s\n'
        '        in (r,) }\n'
        '    ] q 0.30000001192092896:f32[]\n'
        '  in (r,) }'
    ),
    'random_categorical': (
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n'
        '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
        '    e:f32[1,1] = broadcast_in_dim c\n'
        '    f:f32[1,1] = broadcast_in_dim d\n'
        '    g:u32[2,3] = random_bits[bit_width=32 shape=(2, 3)] a\n'
        '    h:u32[2,3] = shift_right_logical g 9:u32[]\n'
        '    i:u32[2,3] = or h 1065353216:u32[]\n'
        '    j:f32[2,3] = bitcast_convert_type[new_dtype=float32] i\n'
        '    k:f32[2,3] = sub j 1.0:f32[]\n'
        '    l:f32[1,1] = sub f e\n'
        '    m:f32[2,3] = mul k l\n'
        '    n:f32[2,3] = add m e\n'
        '    o:f32[2,3] = max e n\n'
        '  in (o,) } in\n'
        '{ lambda ; p:key<fry>[] q:f32[2,3]. let\n'
        '    r:f32[2,3] = jit[\n'
        '      name=_gumbel\n'
        '      jaxpr={ lambda ; p:key<fry>[]. let\n'
        '          s:f32[2,3] = jit[name=_uniform jaxpr=_uniform] p 1.0:f32[]'
        ' 1.1754943508222875e-38:f32[]\n'
        '          t:f32[2,3] = log s\n'
        '          u:f32[2,3] = neg t\n'
        '          v:f32[2,3] = log u\n'
        '          r:f32[2,3] = neg v\n'
        '        in (r,) }\n'
        '    ] p\n'
        '    w:f32[2,3] = add r q\n'
        '    x:i32[2] = argmax[axes=(1,) index_dtype=int32] w\n'
        '  in (x,) }'
    ),
    'random_gumbel_high': (
        'let _gumbel = { lambda ; a:key<fry>[]. let\n'
        '    b:f32[2,2] = jit[name=_uniform jaxpr=_uniform] a 1.0:f32[] 0.0:f32[]\n'
        '    c:f32[1,2] = slice[limit_indices=(1, 2) start_indices=(0, 0) strides=(1, 1)] b\n'
        '    d:f32[2] = squeeze[dimensions=(0,)] c\n'
        '    e:f32[1,2] = slice[limit_indices=(2, 2) start_indices=(1, 0) strides=(1, 1)] b\n'
        '    f:f32[2] = squeeze[dimensions=(0,)] e\n'
        '    g:bool[2] = ge d 0.5:f32[]\n'
        '    h:f32[2] = mul 1.1920928955078125e-07:f32[] f\n'
        '    i:f32[2] = add d h\n'
        '    j:f32[2] = add i 1.1754943508222875e-38:f32[]\n'
        '    k:f32[2] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; g:bool[2] d:f32[2] j:f32[2]. let\n'
        '          k:f32[2] = select_n g j d\n'
        '        in (k,) }\n'
        '    ] g d j\n'
        '    l:f32[2] = neg k\n'
        '    m:f32[2] = log1p l\n'
        '    n:f32[2] = neg m\n'
        '    o:f32[2] = log n\n'
        '    p:f32[2] = neg o\n'
        '  in (p,) } in\n'
        'let _uniform = { lambda ; q:key<fry>[] r:f32[] s:f32[]. let\n'
        '    t:f32[] = convert_element_type[new_dtype=float32 weak_type=False] s\n'
        '    u:f32[] = convert_element_type[new_dtype=float32 weak_type=False] r\n'
        '    v:f32[1,1] = broadcast_in_dim t\n'
        '    w:f32[1,1] = broadcast_in_dim u\n'
        '    x:u32[2,2] = random_bits[bit_width=32 shape=(2, 2)] q\n'
        '    y:u32[2,2] = shift_right_logical x 9:u32[]\n'
        '    z:u32[2,2] = or y 1065353216:u32[]\n'
        '    ba:f32[2,2] = bitcast_convert_type[new_dtype=float32] z\n'
        '    bb:f32[2,2] = sub ba 1.0:f32[]\n'
        '    bc:f32[1,1] = sub w v\n'
        '    bd:f32[2,2] = mul bb bc\n'
        '    be:f32[2,2] = add bd v\n'
        '    bf:f32[2,2] = max v be\n'
        '  in (bf,) } in\n'
        '{ lambda ; bg:key<fry>[]. let\n'
        '    bh:f32[2] = jit[name=_gumbel jaxpr=_gumbel] bg\n'
        '  in (bh,) }'
    ),
    'random_randint': (
        'let _randint = { lambda ; a:key<fry>[] b:i32[] c:i32[]. let\n'
        '    d:i32[] = jit[\n'
        '      name=clip\n'
        '      jaxpr={ lambda ; e:i32[] f:i32[] g:i32[]. let\n'
        '          h:i32[] = max f e\n'
        '          d:i32[] = min g h\n'
        '        in (d,) }\n'
        '    ] 2147483647:i32[] -2147483648:i32[] 2147483647:i32[]\n'
        '    i:bool[] = gt c d\n'
        '    j:i32[] = jit[name=clip jaxpr=clip] b -2147483648:i32[] 2147483647:i32[]\n'
        '    k:i32[] = convert_element_type[new_dtype=int32 weak_type=False] j\n'
        '    l:i32[] = jit[name=clip jaxpr=clip] c -2147483648:i32[] 2147483647:i32[]\n'
        '    m:i32[] = convert_element_type[new_dtype=int32 weak_type=False] l\n'
        '    n:i32[1] = broadcast_in_dim k\n'
        '    o:i32[1] = broadcast_in_dim m\n'
        '    p:key<fry>[2] = random_split[shape=(2,)] a\n'
        '    q:key<fry>[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] p\n'
        '    r:key<fry>[] = squeeze[dimensions=(0,)] q\n'
        '    s:key<fry>[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(1,)] p\n'
        '    t:key<fry>[] = squeeze[dimensions=(0,)] s\n'
        '    u:u32[3] = random_bits[bit_width=32 shape=(3,)] r\n'
        '    v:u32[3] = random_bits[bit_width=32 shape=(3,)] t\n'
        '    w:i32[1] = sub o n\n'
        '    x:u32[1] = convert_element_type[new_dtype=uint32 weak_type=False] w\n'
        '    y:bool[1] = le o n\n'
        '    z:u32[1] = broadcast_in_dim 1:u32[]\n'
        '    ba:u32[1] = select_n y x z\n'
        '    bb:bool[1] = gt o n\n'
        '    bc:bool[1] = and i bb\n'
        '    bd:u32[1] = add ba 1:u32[]\n'
        '    be:u32[1] = select_n bc ba bd\n'
        '    bf:u32[1] = rem 65536:u32[] be\n'
        '    bg:u32[1] = mul bf bf\n'
        '    bh:u32[1] = rem bg be\n'
        '    bi:u32[3] = rem u be\n'
        '    bj:u32[3] = mul bi bh\n'
        '    bk:u32[3] = rem v be\n'
        '    bl:u32[3] = add bj bk\n'
        '    bm:u32[3] = rem bl be\n'
        '    bn:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] bm\n'
        '    bo:i32[3] = add n bn\n'
        '  in (bo,) } in\n'
        'let clip = { lambda ; bp:i32[] bq:i32[] br:i32[]. let\n'
        '    bs:i32[] = max bq bp\n'
        '    bt:i32[] = min br bs\n'
        '  in (bt,) } in\n'
        '{ lambda ; bu:key<fry>[]. let\n'
        '    bv:i32[3] = jit[name=_randint jaxpr=_randint] bu 0:i32[] 10:i32[]\n'
        '  in (bv,) }'
    ),
    'random_randint_uint8': (
        'let clip = { lambda ; a:i32[] b:i32[] c:i32[]. let\n'
        '    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n'
        '    e:i32[] = max d a\n'
        '    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    g:i32[] = min f e\n'
        '  in (g,) } in\n'
        'let _randint = { lambda ; h:key<fry>[] i:i32[] j:i32[]. let\n'
        '    k:i32[] = jit[name=clip jaxpr=clip1] 2147483647:i32[] -2147483648:i32[]'
        ' 2147483647:i32[]\n'
        '    l:bool[] = gt j k\n'
        '    m:i32[] = jit[name=clip jaxpr=clip1] i -2147483648:i32[] 2147483647:i32[]\n'
        '    n:i32[] = jit[name=clip jaxpr=clip1] j -2147483648:i32[] 2147483647:i32[]\n'
        '    o:i32[1] = broadcast_in_dim m\n'
        '    p:i32[1] = broadcast_in_dim n\n'
        '    q:key<fry>[2] = random_split[shape=(2,)] h\n'
        '    r:key<fry>[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] q\n'
        '    s:key<fry>[] = squeeze[dimensions=(0,)] r\n'
        '    t:key<fry>[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(1,)] q\n'
        '    u:key<fry>[] = squeeze[dimensions=(0,)] t\n'
        '    v:u32[3] = random_bits[bit_width=32 shape=(3,)] s\n'
        '    w:u32[3] = random_bits[bit_width=32 shape=(3,)] u\n'
        '    x:i32[1] = sub p o\n'
        '    y:u32[1] = convert_element_type[new_dtype=uint32 weak_type=False] x\n'
        '    z:bool[1] = le p o\n'
        '    ba:u32[1] = broadcast_in_dim 1:u32[]\n'
        '    bb:u32[1] = select_n z y ba\n'
        '    bc:bool[1] = gt p o\n'
        '    bd:bool[1] = and l bc\n'
        '    be:u32[1] = add bb 1:u32[]\n'
        '    bf:u32[1] = select_n bd bb be\n'
        '    bg:u32[1] = rem 65536:u32[] bf\n'
        '    bh:u32[1] = mul bg bg\n'
        '    bi:u32[1] = rem bh bf\n'
        '    bj:u32[3] = rem v bf\n'
        '    bk:u32[3] = mul bj bi\n'
        '    bl:u32[3] = rem w bf\n'
        '    bm:u32[3] = add bk bl\n'
        '    bn:u32[3] = rem bm bf\n'
        '    bo:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] bn\n'
        '    bp:i32[3] = add o bo\n'
        '  in (bp,) } in\n'
        'let clip1 = { lambda ; bq:i32[] br:i32[] bs:i32[]. let\n'
        '    bt:i32[] = max br bq\n'
        '    bu:i32[] = min bs bt\n'
        '  in (bu,) } in\n'
        '{ lambda ; bv:key<fry>[]. let\n'
        '    bw:i32[] = jit[name=clip jaxpr=clip] 0:i32[] 255:i32[] 0:i32[]\n'
        '    bx:i32[] = jit[name=clip jaxpr=clip] 256:i32[] 256:i32[] 0:i32[]\n'
        '    by:i32[3] = jit[name=_randint jaxpr=_randint] bv bw bx\n'
        '    bz:u8[3] = convert_element_type[new_dtype=uint8 weak_type=False] by\n'
        '  in (bz,) }'
    ),
    'unpack_rows': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=(1, 1)] a\n'
        '    c:f32[3] = squeeze[dimensions=(0,)] b\n'
        '    d:f32[3] = mul c 2.0:f32[]\n'
        '    e:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=(1, 1)] a\n'
        '    f:f32[3] = squeeze[dimensions=(0,)] e\n'
        '    g:f32[3] = mul f 2.0:f32[]\n'
        '  in (d, g) }'
    ),
    'hypot': (
        'let hypot = { lambda ; a:f32[2,3] b:f32[2,3]. let\n'
        '    c:f32[2,3] = abs a\n'
        '    d:f32[2,3] = abs b\n'
        '    e:bool[2,3] = eq c inf:f32[]\n'
        '    f:bool[2,3] = eq d inf:f32[]\n'
        '    g:bool[2,3] = or e f\n'
        '    h:f32[2,3] = max c d\n'
        '    i:f32[2,3] = min c d\n'
        '    j:bool[2,3] = eq h 0.0:f32[]\n'
        '    k:bool[2,3] = eq h 0.0:f32[]\n'
        '    l:f32[2,3] = broadcast_in_dim 1.0:f32[]\n'
        '    m:f32[2,3] = jit[name=_where jaxpr=_where] k l h\n'
        '    n:f32[2,3] = div i m\n'
        '    o:f32[2,3] = square n\n'
        '    p:f32[2,3] = add 1.0:f32[] o\n'
        '    q:f32[2,3] = sqrt p\n'
        '    r:f32[2,3] = mul h q\n'
        '    s:f32[2,3] = jit[name=_where jaxpr=_where] j h r\n'
        '    t:f32[2,3] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; g:bool[2,3] u:f32[] s:f32[2,3]. let\n'
        '          v:f32[2,3] = broadcast_in_dim u\n'
        '          t:f32[2,3] = select_n g s v\n'
        '        in (t,) }\n'
        '    ] g inf:f32[] s\n'
        '  in (t,) } in\n'
        'let _where = { lambda ; w:bool[2,3] x:f32[2,3] y:f32[2,3]. let\n'
        '    z:f32[2,3] = select_n w y x\n'
        '  in (z,) } in\n'
        '{ lambda ; ba:f32[2,3]. let\n'
        '    bb:f32[2,3] = jit[name=hypot jaxpr=hypot] ba ba\n'
        '  in (bb,) }'
    ),
    'heaviside': (
        'let _where = { lambda ; a:bool[2,3] b:f32[] c:f32[2,3]. let\n'
        '    d:f32[2,3] = broadcast_in_dim b\n'
        '    e:f32[2,3] = select_n a c d\n'
        '  in (e,) } in\n'
        '{ lambda ; f:f32[2,3]. let\n'
        '    g:f32[2,3] = jit[\n'
        '      name=heaviside\n'
        '      jaxpr={ lambda ; f:f32[2,3] h:f32[]. let\n'
        '          i:f32[] = convert_element_type[new_dtype=float32 weak_type=False] h\n'
        '          j:bool[2,3] = lt f 0.0:f32[]\n'
        '          k:bool[2,3] = gt f 0.0:f32[]\n'
        '          l:bool[2,3] = ne f f\n'
        '          m:f32[2,3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; l:bool[2,3] f:f32[2,3] i:f32[]. let\n'
        '                n:f32[2,3] = broadcast_in_dim i\n'
        '                m:f32[2,3] = select_n l n f\n'
        '              in (m,) }\n'
        '          ] l f i\n'
        '          o:f32[2,3] = jit[name=_where jaxpr=_where] k 1.0:f32[] m\n'
        '          g:f32[2,3] = jit[name=_where jaxpr=_where] j 0.0:f32[] o\n'
        '        in (g,) }\n'
        '    ] f 0.5:f32[]\n'
        '  in (g,) }'
    ),
    'isclose': (
        'let isclose = { lambda ; a:f32[2,3] b:f32[2,3]. let\n'
        '    c:bool[2,3] = ne a a\n'
        '    d:bool[2,3] = ne b b\n'
        '    e:bool[2,3] = and c d\n'
        '    f:bool[2,3] = is_finite b\n'
        '    g:f32[2,3] = sub a b\n'
        '    h:f32[2,3] = abs g\n'
        '    i:f32[2,3] = abs b\n'
        '    j:f32[2,3] = mul 9.999999747378752e-06:f32[] i\n'
        '    k:f32[2,3] = add 9.99999993922529e-09:f32[] j\n'
        '    l:bool[2,3] = le h k\n'
        '    m:bool[2,3] = eq a b\n'
        '    n:bool[2,3] = and f l\n'
        '    o:bool[2,3] = or m n\n'
        '  in (o,) } in\n'
        '{ lambda ; p:f32[2,3] q:f32[2,3]. let\n'
        '    r:bool[2,3] = jit[name=isclose jaxpr=isclose] p q\n'
        '  in (r,) }'
    ),
    'isclose_equal_nan_int': (
        'let isclose = { lambda ; a:i32[3] b:i32[]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    d:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
        '    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    f:bool[3] = ne d d\n'
        '    g:bool[] = ne e e\n'
        '    h:bool[3] = and f g\n'
        '    i:bool[] = is_finite e\n'
        '    j:f32[3] = sub d e\n'
        '    k:f32[3] = abs j\n'
        '    l:f32[] = abs e\n'
        '    m:f32[] = mul 9.999999747378752e-06:f32[] l\n'
        '    n:f32[] = add 9.99999993922529e-09:f32[] m\n'
        '    o:bool[3] = le k n\n'
        '    p:bool[3] = eq d e\n'
        '    q:bool[3] = and i o\n'
        '    r:bool[3] = or p q\n'
        '    s:bool[3] = or r h\n'
        '  in (s,) } in\n'
        '{ lambda ; t:i32[3]. let\n'
        '    u:bool[3] = jit[name=isclose jaxpr=isclose] t 3:i32[]\n'
        '  in (u,) }'
    ),
    'cross': (
        'let cross = { lambda ; a:f32[2,3] b:f32[2,3]. let\n'
        '    c:f32[2,1] = slice[limit_indices=(2, 1) start_indices=(0, 0) strides=None] a\n'
        '    d:f32[2] = squeeze[dimensions=(1,)] c\n'
        '    e:f32[2,1] = slice[limit_indices=(2, 2) start_indices=(0, 1) strides=None] a\n'
        '    f:f32[2] = squeeze[dimensions=(1,)] e\n'
        '    g:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 2) strides=None] a\n'
        '    h:f32[2] = squeeze[dimensions=(1,)] g\n'
        '    i:f32[2,1] = slice[limit_indices=(2, 1) start_indices=(0, 0) strides=None] b\n'
        '    j:f32[2] = squeeze[dimensions=(1,)] i\n'
        '    k:f32[2,1] = slice[limit_indices=(2, 2) start_indices=(0, 1) strides=None] b\n'
        '    l:f32[2] = squeeze[dimensions=(1,)] k\n'
        '    m:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 2) strides=None] b\n'
        '    n:f32[2] = squeeze[dimensions=(1,)] m\n'
        '    o:f32[2] = mul f n\n'
        '    p:f32[2] = mul h l\n'
        '    q:f32[2] = sub o p\n'
        '    r:f32[2] = mul h j\n'
        '    s:f32[2] = mul d n\n'
        '    t:f32[2] = sub r s\n'
        '    u:f32[2] = mul d l\n'
        '    v:f32[2] = mul f j\n'
        '    w:f32[2] = sub u v\n'
        '    x:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] q\n'
        '    y:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] t\n'
        '    z:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] w\n'
        '    ba:f32[3,2] = concatenate[dimension=0] x y z\n'
        '    bb:f32[2,3] = transpose[permutation=(1, 0)] ba\n'
        '  in (bb,) } in\n'
        '{ lambda ; bc:f32[2,3] bd:f32[2,3]. let\n'
        '    be:f32[2,3] = jit[name=cross jaxpr=cross] bc bd\n'
        '  in (be,) }'
    ),
    'cross_vmap': (
        'let cross = { lambda ; a:f32[2,3] b:f32[2,3]. let\n'
        '    c:f32[2,1] = slice[limit_indices=(2, 1) start_indices=(0, 0) strides=None] a\n'
        '    d:f32[2] = squeeze[dimensions=(1,)] c\n'
        '    e:f32[2,1] = slice[limit_indices=(2, 2) start_indices=(0, 1) strides=None] a\n'
        '    f:f32[2] = squeeze[dimensions=(1,)] e\n'
        '    g:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 2) strides=None] a\n'
        '    h:f32[2] = squeeze[dimensions=(1,)] g\n'
        '    i:f32[2,1] = slice[limit_indices=(2, 1) start_indices=(0, 0) strides=None] b\n'
        '    j:f32[2] = squeeze[dimensions=(1,)] i\n'
        '    k:f32[2,1] = slice[limit_indices=(2, 2) start_indices=(0, 1) strides=None] b\n'
        '    l:f32[2] = squeeze[dimensions=(1,)] k\n'
        '    m:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 2) strides=None] b\n'
        '    n:f32[2] = squeeze[dimensions=(1,)] m\n'
        '    o:f32[2] = mul f n\n'
        '    p:f32[2] = mul h l\n'
        '    q:f32[2] = sub o p\n'
        '    r:f32[2] = mul h j\n'
        '    s:f32[2] = mul d n\n'
        '    t:f32[2] = sub r s\n'
        '    u:f32[2] = mul d l\n'
        '    v:f32[2] = mul f j\n'
        '    w:f32[2] = sub u v\n'
        '    x:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] q\n'
        '    y:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] t\n'
        '    z:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] w\n'
        '    ba:f32[2,3] = concatenate[dimension=1] x y z\n'
        '  in (ba,) } in\n'
        '{ lambda ; bb:f32[2,3] bc:f32[2,3]. let\n'
        '    bd:f32[2,3] = jit[name=cross jaxpr=cross] bb bc\n'
        '  in (bd,) }'
    ),
    'nanmean': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[] = jit[\n'
        '      name=nanmean\n'
        '      jaxpr={ lambda ; a:f32[2,3]. let\n'
        '          c:bool[2,3] = ne a a\n'
        '          d:bool[2,3] = not c\n'
        '          e:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] d\n'
        '          f:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] e\n'
        '          g:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] f\n'
        '          h:f32[] = jit[\n'
        '            name=nansum\n'
        '            jaxpr={ lambda ; a:f32[2,3]. let\n'
        '                i:bool[2,3] = ne a a\n'
        '                j:f32[2,3] = jit[\n'
        '                  name=_where\n'
        '                  jaxpr={ lambda ; i:bool[2,3] k:f32[] a:f32[2,3]. let\n'
        '                      l:f32[2,3] = broadcast_in_dim k\n'
        '                      j:f32[2,3] = select_n i a l\n'
        '                    in (j,) }\n'
        '                ] i 0.0:f32[] a\n'
        '                h:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] j\n'
        '              in (h,) }\n'
        '          ] a\n'
        '          b:f32[] = div h g\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'nanmean_axis_where': (
        'let _where = { lambda ; a:bool[2,3] b:f32[2,3] c:f32[]. let\n'
        '    d:f32[2,3] = broadcast_in_dim c\n'
        '    e:f32[2,3] = select_n a d b\n'
        '  in (e,) } in\n'
        '{ lambda ; f:f32[2,3] g:bool[2,3]. let\n'
        '    h:f32[2] = jit[\n'
        '      name=nanmean\n'
        '      jaxpr={ lambda ; f:f32[2,3] g:bool[2,3]. let\n'
        '          i:bool[2,3] = ne f f\n'
        '          j:bool[2,3] = not i\n'
        '          k:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] j\n'
        '          l:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] k\n'
        '          m:f32[2,3] = jit[name=_where jaxpr=_where] g l 0.0:f32[]\n'
        '          n:f32[2] = reduce_sum[axes=(1,) out_sharding=None] m\n'
        '          o:f32[2] = jit[\n'
        '            name=nansum\n'
        '            jaxpr={ lambda ; f:f32[2,3] g:bool[2,3]. let\n'
        '                p:bool[2,3] = ne f f\n'
        '                q:f32[2,3] = jit[\n'
        '                  name=_where\n'
        '                  jaxpr={ lambda ; p:bool[2,3] r:f32[] f:f32[2,3]. let\n'
        '                      s:f32[2,3] = broadcast_in_dim r\n'
        '                      q:f32[2,3] = select_n p f s\n'
        '                    in (q,) }\n'
        '                ] p 0.0:f32[] f\n'
        '                t:f32[2,3] = jit[name=_where jaxpr=_where] g q 0.0:f32[]\n'
        '                o:f32[2] = reduce_sum[axes=(1,) out_sharding=None] t\n'
        '              in (o,) }\n'
        '          ] f g\n'
        '          h:f32[2] = div o n\n'
        '        in (h,) }\n'
        '    ] f g\n'
        '  in (h,) }'
    ),
    'unwrap': (
        'let unwrap = { lambda ; a:f32[2,3]. let\n'
        '    b:f32[] = div 6.2831854820251465:f32[] 2.0:f32[]\n'
        '    c:f32[] = div 6.2831854820251465:f32[] 2.0:f32[]\n'
        '    d:f32[2,2] = jit[\n'
        '      name=diff\n'
        '      jaxpr={ lambda ; a:f32[2,3]. let\n'
        '          e:f32[2,2] = slice[\n'
        '            limit_indices=(2, 3)\n'
        '            start_indices=(0, 1)\n'
        '            strides=None\n'
        '          ] a\n'
        '          f:f32[2,2] = slice[\n'
        '            limit_indices=(2, 2)\n'
        '            start_indices=(0, 0)\n'
        '            strides=None\n'
        '          ] a\n'
        '          d:f32[2,2] = sub e f\n'
        '        in (d,) }\n'
        '    ] a\n'
        '    g:f32[2,2] = add d c\n'
        '    h:f32[2,2] = jit[\n'
        '      name=remainder\n'
        '      jaxpr={ lambda ; g:f32[2,2] i:f32[]. let\n'
        '          j:f32[2,2] = rem g i\n'
        '          k:bool[2,2] = ne j 0.0:f32[]\n'
        '          l:bool[2,2] = lt j 0.0:f32[]\n'
        '          m:bool[] = lt i 0.0:f32[]\n'
        '          n:bool[2,2] = ne l m\n'
        '          o:bool[2,2] = and n k\n'
        '          p:f32[2,2] = add j i\n'
        '          h:f32[2,2] = select_n o j p\n'
        '        in (h,) }\n'
        '    ] g 6.2831854820251465:f32[]\n'
        '    q:f32[2,2] = sub h c\n'
        '    r:f32[] = neg c\n'
        '    s:bool[2,2] = eq q r\n'
        '    t:bool[2,2] = gt d 0.0:f32[]\n'
        '    u:bool[2,2] = and s t\n'
        '    v:f32[2,2] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; u:bool[2,2] c:f32[] q:f32[2,2]. let\n'
        '          w:f32[2,2] = broadcast_in_dim c\n'
        '          v:f32[2,2] = select_n u q w\n'
        '        in (v,) }\n'
        '    ] u c q\n'
        '    x:f32[2,2] = abs d\n'
        '    y:bool[2,2] = lt x b\n'
        '    z:f32[2,2] = sub v d\n'
        '    ba:f32[2,2] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; y:bool[2,2] bb:i32[] z:f32[2,2]. let\n'
        '          bc:f32[] = convert_element_type[new_dtype=float32 weak_type=False] bb\n'
        '          bd:f32[2,2] = broadcast_in_dim bc\n'
        '          ba:f32[2,2] = select_n y z bd\n'
        '        in (ba,) }\n'
        '    ] y 0:i32[] z\n'
        '    be:f32[2,1] = slice[\n'
        '      limit_indices=(2, 1)\n'
        '      start_indices=(0, 0)\n'
        '      strides=(1, 1)\n'
        '    ] a\n'
        '    bf:f32[2,2] = slice[\n'
        '      limit_indices=(2, 3)\n'
        '      start_indices=(0, 1)\n'
        '      strides=(1, 1)\n'
        '    ] a\n'
        '    bg:f32[2,2] = jit[\n'
        '      name=cumsum\n'
        '      jaxpr={ lambda ; ba:f32[2,2]. let\n'
        '          bg:f32[2,2] = cumsum[axis=1 reverse=False] ba\n'
        '        in (bg,) }\n'
        '    ] ba\n'
        '    bh:f32[2,2] = add bf bg\n'
        '    bi:f32[2,3] = concatenate[dimension=1] be bh\n'
        '  in (bi,) } in\n'
        '{ lambda ; bj:f32[2,3]. let\n'
        '    bk:f32[2,3] = jit[name=unwrap jaxpr=unwrap] bj\n'
        '  in (bk,) }'
    ),
    'unwrap_int_period': (
        'let unwrap = { lambda ; a:i32[3] b:i32[]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    e:f32[] = div d 2.0:f32[]\n'
        '    f:i32[] = jit[\n'
        '      name=floor_divide\n'
        '      jaxpr={ lambda ; c:i32[] g:i32[]. let\n'
        '          h:i32[] = convert_element_type[new_dtype=int32 weak_type=False] g\n'
        '          i:i32[] = div c h\n'
        '          j:i32[] = sign c\n'
        '          k:i32[] = sign h\n'
        '          l:bool[] = ne j k\n'
        '          m:i32[] = rem c h\n'
        '          n:bool[] = ne m 0:i32[]\n'
        '          o:bool[] = and l n\n'
        '          p:i32[] = sub i 1:i32[]\n'
        '          f:i32[] = jit[name=_where jaxpr=_where] o p i\n'
        '        in (f,) }\n'
        '    ] c 2:i32[]\n'
        '    q:i32[2] = jit[\n'
        '      name=diff\n'
        '      jaxpr={ lambda ; a:i32[3]. let\n'
        '          r:i32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=None] a\n'
        '          s:i32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=None] a\n'
        '          q:i32[2] = sub r s\n'
        '        in (q,) }\n'
        '    ] a\n'
        '    t:i32[2] = add q f\n'
        '    u:i32[2] = jit[\n'
        '      name=remainder\n'
        '      jaxpr={ lambda ; t:i32[2] c:i32[]. let\n'
        '          v:bool[] = eq c 0:i32[]\n'
        '          w:i32[] = jit[name=_where jaxpr=_where] v 1:i32[] c\n'
        '          x:i32[2] = rem t w\n'
        '          y:bool[2] = ne x 0:i32[]\n'
        '          z:bool[2] = lt x 0:i32[]\n'
        '          ba:bool[] = lt w 0:i32[]\n'
        '          bb:bool[2] = ne z ba\n'
        '          bc:bool[2] = and bb y\n'
        '          bd:i32[2] = add x w\n'
        '          u:i32[2] = select_n bc x bd\n'
        '        in (u,) }\n'
        '    ] t c\n'
        '    be:i32[2] = sub u f\n'
        '    bf:i32[] = neg f\n'
        '    bg:bool[2] = eq be bf\n'
        '    bh:bool[2] = gt q 0:i32[]\n'
        '    bi:bool[2] = and bg bh\n'
        '    bj:i32[2] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; bi:bool[2] f:i32[] be:i32[2]. let\n'
        '          bk:i32[2] = broadcast_in_dim f\n'
        '          bj:i32[2] = select_n bi be bk\n'
        '        in (bj,) }\n'
        '    ] bi f be\n'
        '    bl:i32[2] = abs q\n'
        '    bm:f32[2] = convert_element_type[new_dtype=float32 weak_type=False] bl\n'
        '    bn:bool[2] = lt bm e\n'
        '    bo:i32[2] = sub bj q\n'
        '    bp:i32[2] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; bn:bool[2] bq:i32[] bo:i32[2]. let\n'
        '          br:i32[] = convert_element_type[new_dtype=int32 weak_type=False] bq\n'
        '          bs:i32[2] = broadcast_in_dim br\n'
        '          bp:i32[2] = select_n bn bo bs\n'
        '        in (bp,) }\n'
        '    ] bn 0:i32[] bo\n'
        '    bt:i32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] a\n'
        '    bu:i32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=(1,)] a\n'
        '    bv:i32[2] = jit[\n'
        '      name=cumsum\n'
        '      jaxpr={ lambda ; bp:i32[2]. let\n'
        '          bv:i32[2] = cumsum[axis=0 reverse=False] bp\n'
        '        in (bv,) }\n'
        '    ] bp\n'
        '    bw:i32[2] = add bu bv\n'
        '    bx:i32[3] = concatenate[dimension=0] bt bw\n'
        '  in (bx,) } in\n'
        'let _where = { lambda ; by:bool[] bz:i32[] ca:i32[]. let\n'
        '    cb:i32[] = select_n by ca bz\n'
        '  in (cb,) } in\n'
        '{ lambda ; cc:i32[3]. let\n'
        '    cd:i32[3] = jit[name=unwrap jaxpr=unwrap] cc 6:i32[]\n'
        '  in (cd,) }'
    ),
    'vander': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[3,3] = jit[\n'
        '      name=vander\n'
        '      jaxpr={ lambda ; a:f32[3]. let\n'
        '          c:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None] \n'
        '          d:f32[3] = sub 2.0:f32[] c\n'
        '          e:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n'
        '          f:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] d\n'
        '          b:f32[3,3] = pow e f\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'cov': (
        'let cov = { lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=atleast_2d\n'
        '      jaxpr={ lambda ; a:f32[2,3]. let  in (a,) }\n'
        '    ] a\n'
        '    c:f32[2] = reduce_sum[axes=(1,) out_sharding=None] b\n'
        '    d:f32[2] = div c 3.0:f32[]\n'
        '    e:f32[2] = broadcast_in_dim 3.0:f32[]\n'
        '    f:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=None] e\n'
        '    g:f32[] = squeeze[dimensions=(0,)] f\n'
        '    h:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] d\n'
        '    i:f32[2,3] = sub b h\n'
        '    j:f32[3,2] = transpose[permutation=(1, 0)] i\n'
        '    k:f32[2,2] = dot_general[\n'
        '      dimension_numbers=(([1], [0]), ([], []))\n'
        '      preferred_element_type=float32\n'
        '    ] i j\n'
        '    l:f32[2,2] = div k 2.0:f32[]\n'
        '  in (l,) } in\n'
        '{ lambda ; m:f32[2,3]. let n:f32[2,2] = jit[name=cov jaxpr=cov] m in (n,) }'
    ),
    'diag': (
        'let diagonal = { lambda ; a:f32[2,3]. let\n'
        '    b:i32[2] = iota[dimension=0 dtype=int32 shape=(2,) sharding=None] \n'
        '    c:i32[2] = iota[dimension=0 dtype=int32 shape=(2,) sharding=None] \n'
        '    d:bool[2] = lt b 0:i32[]\n'
        '    e:i32[2] = add b 2:i32[]\n'
        '    f:i32[2] = select_n d b e\n'
        '    g:bool[2] = lt c 0:i32[]\n'
        '    h:i32[2] = add c 3:i32[]\n'
        '    i:i32[2] = select_n g c h\n'
        '    j:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n'
        '    k:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] i\n'
        '    l:i32[2,2] = concatenate[dimension=1] j k\n'
        '    m:f32[2] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 1)\n'
        '      unique_indices=False\n'
        '    ] a l\n'
        '  in (m,) } in\n'
        '{ lambda ; n:f32[2,3]. let\n'
        '    o:f32[2] = jit[\n'
        '      name=_diag\n'
        '      jaxpr={ lambda ; n:f32[2,3]. let\n'
        '          o:f32[2] = jit[name=diagonal jaxpr=diagonal] n\n'
        '        in (o,) }\n'
        '    ] n\n'
        '  in (o,) }'
    ),
    'diagonal_offset': (
        'let diagonal = { lambda ; a:f32[3,3]. let\n'
        '    b:i32[2] = iota[dimension=0 dtype=int32 shape=(2,) sharding=None] \n'
        '    c:i32[2] = iota[dimension=0 dtype=int32 shape=(2,) sharding=None] \n'
        '    d:i32[2] = add 1:i32[] c\n'
        '    e:bool[2] = lt d 0:i32[]\n'
        '    f:i32[2] = add d 3:i32[]\n'
        '    g:i32[2] = select_n e d f\n'
        '    h:bool[2] = lt b 0:i32[]\n'
        '    i:i32[2] = add b 3:i32[]\n'
        '    j:i32[2] = select_n h b i\n'
        '    k:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] g\n'
        '    l:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] j\n'
        '    m:i32[2,2] = concatenate[dimension=1] k l\n'
        '    n:f32[2] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 1)\n'
        '      unique_indices=False\n'
        '    ] a m\n'
        '  in (n,) } in\n'
        '{ lambda ; o:f32[3,3]. let\n'
        '    p:f32[2] = jit[name=diagonal jaxpr=diagonal] o\n'
        '  in (p,) }'
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jaxpr_text_is_jaxs(name):
  fun, args = PROGRAMS[name]
  assert str(jax.make_jaxpr(fun)(*args)) == RECORDED[name]


X = np.array([[1.5, np.nan, -3.25, np.inf], [-0.5, 2.0, np.nan, -7.75]], np.float32)
Y = np.array([[np.nan, 0.5, -3.25, 1.0], [4.0, np.nan, -1.0, -np.inf]], np.float32)


@pytest.mark.parametrize("fun, ref", [
    (jnp.trunc, np.trunc), (jnp.isinf, np.isinf),
    (lambda a: jnp.flip(a, 1), lambda a: np.flip(a, 1)),
    (lambda a: jnp.rot90(a, 2), lambda a: np.rot90(a, 2)),
    (lambda a: jnp.roll(a, (1, -3), (0, 1)), lambda a: np.roll(a, (1, -3), (0, 1))),
    (lambda a: jnp.roll(a, 5), lambda a: np.roll(a, 5)),
    (lambda a: jnp.nanmax(a, axis=1), lambda a: np.nanmax(a, axis=1)),
    (lambda a: jnp.nanmin(a, axis=1), lambda a: np.nanmin(a, axis=1)),
    (lambda a: jnp.ptp(jnp.nan_to_num(a, posinf=9.), axis=1),
     lambda a: np.ptp(np.nan_to_num(a, posinf=9.), axis=1)),
    (lambda a: jnp.cumsum(a, axis=1), lambda a: np.cumsum(a, axis=1)),
    (lambda a: jnp.nancumprod(a, axis=1), lambda a: np.nancumprod(a, axis=1)),
])
def test_values_eager_jit_vmap_against_numpy(fun, ref):
  want = ref(X)
  np.testing.assert_array_equal(fun(X), want)
  np.testing.assert_array_equal(jax.jit(fun)(X), want)
  np.testing.assert_array_equal(jax.vmap(fun)(np.stack([X, X[::-1]])), [want, ref(X[::-1])])


@pytest.mark.parametrize("fun, ref", [(jnp.fmax, np.fmax), (jnp.fmin, np.fmin)])
def test_fmax_fmin_values(fun, ref):
  for f in (fun, jax.jit(fun), jax.vmap(fun)):
    np.testing.assert_array_equal(f(X, Y), ref(X, Y))
  np.testing.assert_array_equal(fun(np.arange(4), 2), ref(np.arange(4), 2))
  c, d = np.array([1 + 1j, np.nan, 2 - 1j]), np.array([1 + 2j, 3, np.nan])
  np.testing.assert_array_equal(fun(c, d), ref(c, d))
  # ties and NaNs send the gradient to x2 (values recorded from JAX 0.10.2)
  grad = jax.grad(lambda a: fun(a, 1.).sum())(jnp.array([0., 1., 2., np.nan]))
  np.testing.assert_array_equal(grad, [0., 0., 1., 0.] if fun is jnp.fmax else [1., 0., 0., 0.])


def test_gradients_against_finite_differences():
  x = jnp.array([0.3, -1.2, 2.5, 0.7])
  for fun in (lambda a: (jnp.roll(a, 1) * jnp.arange(4.)).sum(),
              lambda a: (jnp.flip(a) * jnp.arange(4.)).sum(),
              lambda a: jnp.cumprod(a)[-1] + jnp.cumsum(a)[2],
              lambda a: jnp.ptp(a) + jnp.nanmax(a) * 2 - jnp.nanmin(a)):
    eps = 1e-3
    fd = [(fun(x.at[i].add(eps)) - fun(x.at[i].add(-eps))) / (2 * eps) for i in range(4)]
    np.testing.assert_allclose(jax.grad(fun)(x), fd, rtol=1e-2, atol=1e-2)


def test_cumulative_dtypes_as_jax():
  # recorded from JAX 0.10.2
  np.testing.assert_array_equal(jnp.cumsum(jnp.array([-1, 1, 0]), dtype=bool), [True] * 3)
  assert jnp.cumulative_sum(jnp.array([1, 2], jnp.int8)).dtype == np.int32
  assert jnp.cumulative_sum(jnp.array([1, 2], jnp.uint8)).dtype == np.uint32
  assert jnp.cumsum(jnp.array([1, 2], jnp.int8)).dtype == np.int8
  out = jnp.cumulative_prod(jnp.array([1, 2], jnp.int8), include_initial=True)
  assert out.dtype == np.int8
  np.testing.assert_array_equal(out, [1, 1, 2])


VAR_STD = {  # of M33
    "var_ddof": lambda x: jnp.var(x, axis=0, ddof=1),
    "std": lambda x: jnp.std(x),
}

# str(jax.make_jaxpr(f)(M33)) under JAX 0.10.2: jit[name=_var] (shared by std's
# jit[name=_std]) takes ddof as an argument and squares
VAR_STD_RECORDED = {
    'var_ddof': (
        'let _var = { lambda ; a:f32[3,3] b:i32[]. let\n'
        '    c:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a\n'
        '    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n'
        '    e:f32[1,3] = div d 3.0:f32[]\n'
        '    f:f32[3,3] = sub a e\n'
        '    g:f32[3,3] = square f\n'
        '    h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
        '    i:f32[] = sub 3.0:f32[] h\n'
        '    j:f32[3] = reduce_sum[axes=(0,) out_sharding=None] g\n'
        '    k:f32[3] = div j i\n'
        '    l:bool[] = gt i 0.0:f32[]\n'
        '    m:f32[3] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; l:bool[] k:f32[3] n:f32[]. let\n'
        '          o:f32[] = convert_element_type[new_dtype=float32 weak_type=False] n\n'
        '          p:f32[3] = broadcast_in_dim o\n'
        '          m:f32[3] = select_n l p k\n'
        '        in (m,) }\n'
        '    ] l k nan:f32[]\n'
        '  in (m,) } in\n'
        '{ lambda ; q:f32[3,3]. let\n'
        '    r:f32[3] = jit[name=_var jaxpr=_var] q 1:i32[]\n'
        '  in (r,) }'
    ),
    'std': (
        'let _var = { lambda ; a:f32[3,3] b:i32[]. let\n'
        '    c:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a\n'
        '    d:f32[1,1] = broadcast_in_dim c\n'
        '    e:f32[1,1] = div d 9.0:f32[]\n'
        '    f:f32[3,3] = sub a e\n'
        '    g:f32[3,3] = square f\n'
        '    h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
        '    i:f32[] = sub 9.0:f32[] h\n'
        '    j:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] g\n'
        '    k:f32[] = div j i\n'
        '    l:bool[] = gt i 0.0:f32[]\n'
        '    m:f32[] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; l:bool[] k:f32[] n:f32[]. let\n'
        '          o:f32[] = convert_element_type[new_dtype=float32 weak_type=False] n\n'
        '          m:f32[] = select_n l o k\n'
        '        in (m,) }\n'
        '    ] l k nan:f32[]\n'
        '  in (m,) } in\n'
        '{ lambda ; p:f32[3,3]. let\n'
        '    q:f32[] = jit[\n'
        '      name=_std\n'
        '      jaxpr={ lambda ; p:f32[3,3] r:i32[]. let\n'
        '          s:f32[] = jit[name=_var jaxpr=_var] p r\n'
        '          q:f32[] = sqrt s\n'
        '        in (q,) }\n'
        '    ] p 0:i32[]\n'
        '  in (q,) }'
    ),
}


@pytest.mark.parametrize("name", sorted(VAR_STD))
def test_var_std_jaxprs_are_jaxs(name):
  assert str(jax.make_jaxpr(VAR_STD[name])(M33)) == VAR_STD_RECORDED[name]


def test_var_std_values_through_the_nested_calls():
  x = np.arange(12., dtype=np.float32).reshape(3, 4) ** 1.5
  for ddof in (0, 1, 2):
    np.testing.assert_allclose(jnp.var(x, axis=1, ddof=ddof), np.var(x, axis=1, ddof=ddof),
                               rtol=1e-6)
    np.testing.assert_allclose(jax.jit(lambda a: jnp.std(a, axis=0, ddof=ddof))(x),
                               np.std(x, axis=0, ddof=ddof), rtol=1e-6)
  assert np.isnan(jnp.var(x, axis=1, ddof=4)).all()   # no degrees of freedom left


def test_var_eager_takes_ddof_at_run_time_as_jax():
  """Eager ``var`` calls ``_var`` with ``ddof`` a run-time argument (JAX: 34/6 divided,
  5.6666665); under an outer jit ddof is a constant, which XLA folds into a product with the
  reciprocal (5.666667). Bits recorded from JAX 0.10.2."""
  i = jnp.asarray([-3, -2, -1, 0, 2, 4], jnp.int32)
  assert np.asarray(jnp.var(i)).view(np.uint32) == np.float32(5.6666665).view(np.uint32)
  assert np.asarray(jax.jit(jnp.var)(i)).view(np.uint32) == np.float32(5.666667).view(np.uint32)
  assert np.asarray(jnp.std(i)) == np.sqrt(np.float32(5.6666665))


def test_unwrap_values_and_integer_period_against_numpy():
  a = np.array([0, 5, 10, 3, -9, 14], np.int32)
  got = jnp.unwrap(a, period=8)
  assert got.dtype == np.int32   # integers with an integer period stay integers
  np.testing.assert_array_equal(got, np.unwrap(a, period=8))
  b = np.array([[0., 5., 10., 3., -9.], [1., -6., 2., 9., 4.]], np.float32)
  for f in (jnp.unwrap, jax.jit(jnp.unwrap)):
    np.testing.assert_allclose(f(b), np.unwrap(b), rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(jnp.unwrap, 1)(b), np.unwrap(b, axis=0).T, rtol=1e-6)
