"""Jaxprs of transformed programs print as JAX 0.10.2 prints them: batching and transpose
rules' parameters, literals, donation, custom_vjp and debugging primitives (texts recorded
from the reference JAX)."""
import re

import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax

X23 = jnp.arange(6.0).reshape(2, 3)

# Batching, transposition, literals, donation, custom_vjp and debugging primitives, as
# JAX 0.10.2 prints them: NumPy integers where JAX's rules compute them, Python floats as
# written, ``donated_invars`` through transformations, the ``debug_print`` primitive with
# its parameters (``{np_printoptions}`` stands for the NumPy print options in effect;
# addresses masked).
_CV = jax.custom_vjp(lambda y: jnp.sin(y))
_CV.defvjp(lambda y: (jnp.sin(y), jnp.cos(y)), lambda res, g: (res * g,))
_DONATING = jax.jit(lambda y, z: y * z + 1, donate_argnums=0)
_CV2 = jax.custom_vjp(lambda a, b: a * b)
_CV2.defvjp(lambda a, b: (a * b, (a, b)), lambda r, t: (r[1] * t, r[0] * t))
_CLOSES_NP = jax.jit(lambda y: y * np.arange(3.0))
TRANSFORMED_PROGRAMS = {  # one-argument programs of X23
    "vmap_in_axes_none": lambda x: jax.vmap(lambda a, b: a * b, in_axes=(0, None))(x, x[0]),
    "vmap_grad_sum": jax.vmap(jax.grad(lambda y: jnp.sum(jnp.sin(y)))),
    "vmap_reduce_max": jax.vmap(lambda r: jnp.max(r, axis=0), in_axes=1),
    "jacfwd_sin": lambda x: jax.jacfwd(jnp.sin)(x[0]),
    "grad_softmax": jax.grad(lambda y: jnp.sum(jax.nn.softmax(y) ** 2)),
    "allclose": lambda x: jnp.allclose(x, x),
    "where_literal": lambda x: jnp.where(x > 0.3, x, 0.7),
    "lax_add_literal": lambda x: lax.add(x, 0.1),
    "mul_literal": lambda x: x * 0.1,
    "isclose_rtol": lambda x: jnp.isclose(x, x, rtol=0.3),
    "debug_print": lambda x: jax.debug.print("{}", x),
    "debug_print_kw": lambda x: jax.debug.print("x={x} {s}", x=x, s="hi"),
    "debug_print_ordered": lambda x: jax.debug.print(ordered=True)("{}", x),
    "debug_print_grad": jax.grad(lambda y: (jax.debug.print("{}", y), jnp.sum(y))[1]),
    "debug_callback": lambda x: jax.debug.callback(lambda a: None, x),
    "index_grad": jax.grad(lambda y: y[1, 2] + y[0, 0]),
    "strided_slice_grad": jax.grad(lambda y: jnp.sum(lax.slice(y, (0, 1), (2, 3), (1, 2)) ** 2)),
    "custom_vjp_call": lambda x: _CV(x),
    "jit_donate": lambda x: _DONATING(x, x),
    "jit_keep_unused": lambda x: jax.jit(lambda a, b: a, keep_unused=True)(x, x),
    "vmap_jit_donate": lambda x: jax.vmap(_DONATING)(x, x),
    "jvp_jit_donate": lambda x: jax.jvp(lambda a: _DONATING(a, a), (x,), (x,)),
    "grad_jit_donate": jax.grad(lambda a: jnp.sum(_DONATING(a, 2.))),
    "custom_vjp_jvp": lambda x: jax.jvp(_CV, (x,), (x,)),
    "custom_vjp_jvp_zero": lambda x: jax.jvp(lambda a: _CV2(a, x), (x,), (x,)),
    "fori_loop_literals": lambda x: lax.fori_loop(0, 3, lambda k, c: c + k, x),
    "scan_closing_over_literal": lambda x: lax.scan(lambda c, r: (c * jnp.float32(2), r * c), x[0, 0], x),
    "vmap_scan": jax.vmap(lambda r: lax.scan(lambda c, e: (c + e, c), 0., r)),
    "array_in_jit": lambda x: x + jnp.array([0., 2., 3.]) + jnp.float32(2) * 1.5,
    'jit_closing_over_numpy': lambda x: _CLOSES_NP(x) + 1,
    'grad_jit_closing_over_numpy': jax.grad(lambda y: jnp.sum(_CLOSES_NP(y))),
    'vmap_jit_closing_over_numpy': jax.vmap(_CLOSES_NP),
    'linearize_jit_closing_over_numpy': lambda x: jax.linearize(_CLOSES_NP, x)[1](x),
    'jit_closing_over_tracer': lambda x: jax.jit(lambda y: y * x)(x),
}

TRANSFORMED_RECORDED = {
    'vmap_in_axes_none': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n'
        '    c:f32[3] = squeeze[dimensions=(0,)] b\n'
        '    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] c\n'
        '    e:f32[2,3] = mul a d\n'
        '  in (e,) }'
    ),
    'vmap_grad_sum': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = sin a\n'
        '    c:f32[2,3] = cos a\n'
        '    _:f32[2] = reduce_sum[axes=(np.int64(1),) out_sharding=None] b\n'
        '    d:f32[3] = broadcast_in_dim 1.0:f32[]\n'
        '    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] d\n'
        '    f:f32[2,3] = mul e c\n'
        '  in (f,) }'
    ),
    'vmap_reduce_max': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[3] = reduce_max[axes=(np.int64(0),)] a\n'
        '  in (b,) }'
    ),
    'jacfwd_sin': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n'
        '    c:f32[3] = squeeze[dimensions=(0,)] b\n'
        '    d:i32[3,3] = iota[dimension=0 dtype=int32 shape=(3, 3) sharding=None] \n'
        '    e:i32[3,3] = iota[dimension=1 dtype=int32 shape=(3, 3) sharding=None] \n'
        '    f:i32[3,3] = add d 0:i32[]\n'
        '    g:bool[3,3] = eq f e\n'
        '    h:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] g\n'
        '    i:f32[3,3] = split[axis=1 sizes=(np.int64(3),)] h\n'
        '    j:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] i\n'
        '    _:f32[3] = sin c\n'
        '    k:f32[3] = cos c\n'
        '    l:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] k\n'
        '    m:f32[3,3] = mul j l\n'
        '    n:f32[3,3] = transpose[permutation=(1, 0)] m\n'
        '    o:f32[3,3] = split[axis=1 sizes=(np.int64(3),)] n\n'
        '  in (o,) }'
    ),
    'grad_softmax': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2] = reduce_max[axes=(1,)] a\n'
        '    c:f32[2,1] = reshape[dimensions=None new_sizes=(2, 1) sharding=None] b\n'
        '    d:bool[2,3] = eq a c\n'
        '    e:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] d\n'
        '    _:f32[2] = reduce_sum[axes=(1,) out_sharding=None] e\n'
        '    f:f32[2] = max -inf:f32[] b\n'
        '    g:bool[2] = eq b f\n'
        '    h:f32[2] = broadcast_in_dim 1.0:f32[]\n'
        '    i:f32[2] = broadcast_in_dim 0.0:f32[]\n'
        '    j:f32[2] = select_n g i h\n'
        '    k:bool[2] = eq -inf:f32[] f\n'
        '    l:f32[2] = broadcast_in_dim 2.0:f32[]\n'
        '    m:f32[2] = broadcast_in_dim 1.0:f32[]\n'
        '    n:f32[2] = select_n k m l\n'
        '    _:f32[2] = div j n\n'
        '    o:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n'
        '    p:f32[2,1] = stop_gradient o\n'
        '    q:f32[2,3] = sub a p\n'
        '    r:f32[2,3] = exp q\n'
        '    s:f32[2] = reduce_sum[axes=(1,) out_sharding=None] r\n'
        '    t:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] s\n'
        '    u:f32[2,3] = div r t\n'
        '    v:f32[2,1] = integer_pow[y=-2] t\n'
        '    w:f32[2,3] = integer_pow[y=2] u\n'
        '    x:f32[2,3] = mul 2.0:f32[] u\n'
        '    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] w\n'
        '    y:f32[2,3] = broadcast_in_dim 1.0:f32[]\n'
        '    z:f32[2,3] = mul y x\n'
        '    ba:f32[2,3] = mul z v\n'
        '    bb:f32[2,3] = mul ba r\n'
        '    bc:f32[2] = reduce_sum[axes=(1,) out_sharding=None] bb\n'
        '    bd:f32[2,1] = reshape[dimensions=None new_sizes=(2, 1) sharding=None] bc\n'
        '    be:f32[2,1] = neg bd\n'
        '    bf:f32[2,3] = div z t\n'
        '    bg:f32[2] = reduce_sum[axes=(1,) out_sharding=None] be\n'
        '    bh:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(0),)] bg\n'
        '    bi:f32[2,3] = add_any bf bh\n'
        '    bj:f32[2,3] = mul bi r\n'
        '  in (bj,) }'
    ),
    'allclose': (
        'let isclose = { lambda ; a:f32[2,3] b:f32[2,3] c:f32[] d:f32[]. let\n'
        '    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n'
        '    g:bool[2,3] = ne a a\n'
        '    h:bool[2,3] = ne b b\n'
        '    i:bool[2,3] = and g h\n'
        '    j:bool[2,3] = is_finite b\n'
        '    k:f32[2,3] = sub a b\n'
        '    l:f32[2,3] = abs k\n'
        '    m:f32[2,3] = abs b\n'
        '    n:f32[2,3] = mul e m\n'
        '    o:f32[2,3] = add f n\n'
        '    p:bool[2,3] = le l o\n'
        '    q:bool[2,3] = eq a b\n'
        '    r:bool[2,3] = and j p\n'
        '    s:bool[2,3] = or q r\n'
        '  in (s,) } in\n'
        '{ lambda ; t:f32[2,3]. let\n'
        '    u:bool[] = jit[\n'
        '      name=allclose\n'
        '      jaxpr={ lambda ; t:f32[2,3] v:f32[2,3]. let\n'
        '          w:bool[2,3] = jit[name=isclose jaxpr=isclose] t v 1e-05:f32[] 1e-08:f32[]\n'
        '          u:bool[] = reduce_and[axes=(0, 1)] w\n'
        '        in (u,) }\n'
        '    ] t t\n'
        '  in (u,) }'
    ),
    'where_literal': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:bool[2,3] = gt a 0.30000001192092896:f32[]\n'
        '    c:f32[2,3] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; b:bool[2,3] a:f32[2,3] d:f32[]. let\n'
        '          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n'
        '          f:f32[2,3] = broadcast_in_dim e\n'
        '          c:f32[2,3] = select_n b f a\n'
        '        in (c,) }\n'
        '    ] b a 0.7:f32[]\n'
        '  in (c,) }'
    ),
    'lax_add_literal': (
        '{ lambda ; a:f32[2,3]. let b:f32[2,3] = add a 0.1:f32[] in (b,) }'
    ),
    'mul_literal': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = mul a 0.10000000149011612:f32[]\n'
        '  in (b,) }'
    ),
    'isclose_rtol': (
        'let isclose = { lambda ; a:f32[2,3] b:f32[2,3] c:f32[]. let\n'
        '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    e:bool[2,3] = ne a a\n'
        '    f:bool[2,3] = ne b b\n'
        '    g:bool[2,3] = and e f\n'
        '    h:bool[2,3] = is_finite b\n'
        '    i:f32[2,3] = sub a b\n'
        '    j:f32[2,3] = abs i\n'
        '    k:f32[2,3] = abs b\n'
        '    l:f32[2,3] = mul d k\n'
        '    m:f32[2,3] = add 9.99999993922529e-09:f32[] l\n'
        '    n:bool[2,3] = le j m\n'
        '    o:bool[2,3] = eq a b\n'
        '    p:bool[2,3] = and h n\n'
        '    q:bool[2,3] = or o p\n'
        '  in (q,) } in\n'
        '{ lambda ; r:f32[2,3]. let\n'
        '    s:bool[2,3] = jit[name=isclose jaxpr=isclose] r r 0.3:f32[]\n'
        '  in (s,) }'
    ),
    'debug_print': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    debug_print[\n'
        '      fmt={}\n'
        '      has_placeholders=True\n'
        '      in_tree=PyTreeDef(((*,), {}))\n'
        '      logging_record=None\n'
        '      np_printoptions={np_printoptions}\n'
        '      ordered=False\n'
        '      partitioned=False\n'
        '      static_args=()\n'
        '    ] a\n'
        '  in () }'
    ),
    'debug_print_kw': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    debug_print[\n'
        '      fmt=x={x} {s}\n'
        '      has_placeholders=True\n'
        "      in_tree=PyTreeDef(((), {'s': *, 'x': *}))\n"
        '      logging_record=None\n'
        '      np_printoptions={np_printoptions}\n'
        '      ordered=False\n'
        '      partitioned=False\n'
        "      static_args=((0, 'hi'),)\n"
        '    ] a\n'
        '  in () }'
    ),
    'debug_print_ordered': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    debug_print[\n'
        '      fmt={}\n'
        '      has_placeholders=True\n'
        '      in_tree=PyTreeDef(((*,), {}))\n'
        '      logging_record=None\n'
        '      np_printoptions={np_printoptions}\n'
        '      ordered=True\n'
        '      partitioned=False\n'
        '      static_args=()\n'
        '    ] a\n'
        '  in () }'
    ),
    'debug_print_grad': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    debug_print[\n'
        '      fmt={}\n'
        '      has_placeholders=True\n'
        '      in_tree=PyTreeDef(((*,), {}))\n'
        '      logging_record=None\n'
        '      np_printoptions={np_printoptions}\n'
        '      ordered=False\n'
        '      partitioned=False\n'
        '      static_args=()\n'
        '    ] a\n'
        '    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a\n'
        '    b:f32[2,3] = broadcast_in_dim 1.0:f32[]\n'
        '  in (b,) }'
    ),
    'debug_callback': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    debug_callback[\n'
        '      callback=<function debug_callback.<locals>._debug_callback.<locals>._flat_callback at 0xXXXXXXXXXXXX>\n'
        '      effect=Debug\n'
        '      partitioned=False\n'
        '    ] a\n'
        '  in () }'
    ),
    'index_grad': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,1] = slice[limit_indices=(2, 3) start_indices=(1, 2) strides=None] a\n'
        '    c:f32[] = squeeze[dimensions=(0, 1)] b\n'
        '    d:f32[1,1] = slice[limit_indices=(1, 1) start_indices=(0, 0) strides=None] a\n'
        '    e:f32[] = squeeze[dimensions=(0, 1)] d\n'
        '    _:f32[] = add c e\n'
        '    f:f32[1,1] = broadcast_in_dim 1.0:f32[]\n'
        '    g:f32[2,3] = pad[padding_config=((0, np.int64(1), 0), (0, np.int64(2), 0))] f\n'
        '      0.0:f32[]\n'
        '    h:f32[1,1] = broadcast_in_dim 1.0:f32[]\n'
        '    i:f32[2,3] = pad[padding_config=((1, np.int64(0), 0), (2, np.int64(0), 0))] h\n'
        '      0.0:f32[]\n'
        '    j:f32[2,3] = add_any g i\n'
        '  in (j,) }'
    ),
    'strided_slice_grad': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 1) strides=(1, 2)] a\n'
        '    c:f32[2,1] = integer_pow[y=2] b\n'
        '    d:f32[2,1] = mul 2.0:f32[] b\n'
        '    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c\n'
        '    e:f32[2,1] = broadcast_in_dim 1.0:f32[]\n'
        '    f:f32[2,1] = mul e d\n'
        '    g:f32[2,3] = pad[\n'
        '      padding_config=((0, np.int64(0), np.int64(0)), (1, np.int64(1), np.int64(1)))\n'
        '    ] f 0.0:f32[]\n'
        '  in (g,) }'
    ),
    'custom_vjp_call': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = custom_vjp_call[\n'
        '      name=<lambda>\n'
        '      bwd=<lambda>\n'
        '      call_jaxpr={ lambda ; c:f32[2,3]. let d:f32[2,3] = sin c in (d,) }\n'
        '      fwd=<lambda>\n'
        '      symbolic_zeros=False\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'jit_donate': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      donated_invars=(True, False)\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:f32[2,3]. let\n'
        '          d:f32[2,3] = mul a c\n'
        '          b:f32[2,3] = add d 1.0:f32[]\n'
        '        in (b,) }\n'
        '    ] a a\n'
        '  in (b,) }'
    ),
    'jit_keep_unused': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:f32[2,3]. let  in (a,) }\n'
        '      keep_unused=True\n'
        '    ] a a\n'
        '  in (b,) }'
    ),
    'vmap_jit_donate': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      donated_invars=(True, False)\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:f32[2,3]. let\n'
        '          d:f32[2,3] = mul a c\n'
        '          b:f32[2,3] = add d 1.0:f32[]\n'
        '        in (b,) }\n'
        '    ] a a\n'
        '  in (b,) }'
    ),
    'jvp_jit_donate': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] c:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      donated_invars=(True, False, True, False)\n'
        '      jaxpr={ lambda ; a:f32[2,3] d:f32[2,3] e:f32[2,3] f:f32[2,3]. let\n'
        '          g:f32[2,3] = mul a d\n'
        '          h:f32[2,3] = mul e d\n'
        '          i:f32[2,3] = mul a f\n'
        '          c:f32[2,3] = add_any h i\n'
        '          b:f32[2,3] = add g 1.0:f32[]\n'
        '        in (b, c) }\n'
        '    ] a a a a\n'
        '  in (b, c) }'
    ),
    'grad_jit_donate': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] c:f32[] = jit[\n'
        '      name=<lambda>\n'
        '      donated_invars=(True, False)\n'
        '      jaxpr={ lambda ; a:f32[2,3] d:f32[]. let\n'
        '          c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n'
        '          e:f32[2,3] = mul a c\n'
        '          b:f32[2,3] = add e 1.0:f32[]\n'
        '        in (b, c) }\n'
        '    ] a 2.0:f32[]\n'
        '    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b\n'
        '    f:f32[2,3] = broadcast_in_dim 1.0:f32[]\n'
        '    g:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda ; c:f32[] f:f32[2,3]. let g:f32[2,3] = mul f c in (g,) }\n'
        '    ] c f\n'
        '  in (g,) }'
    ),
    'custom_vjp_jvp': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = sin a\n'
        '    c:f32[2,3] = cos a\n'
        '    d:f32[2,3] = custom_lin[\n'
        '      bwd=<lambda>\n'
        '      in_zeros=[False]\n'
        '      num_res=1\n'
        '      symbolic_zeros=False\n'
        '    ] c a\n'
        '  in (b, d) }'
    ),
    'custom_vjp_jvp_zero': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = mul a a\n'
        '    c:f32[2,3] = custom_lin[\n'
        '      bwd=<lambda>\n'
        '      in_zeros=[False, True]\n'
        '      num_res=2\n'
        '      symbolic_zeros=False\n'
        '    ] a a a\n'
        '  in (b, c) }'
    ),
    'fori_loop_literals': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    _:i32[] b:f32[2,3] = scan[\n'
        '      jaxpr={ lambda ; c:i32[] d:f32[2,3]. let\n'
        '          e:i32[] = add c 1:i32[]\n'
        '          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '          g:f32[2,3] = add d f\n'
        '        in (e, g) }\n'
        '      length=3\n'
        '      num_carry=2\n'
        '      num_consts=0\n'
        '      reverse=False\n'
        '      unroll=1\n'
        '    ] 0:i32[] a\n'
        '  in (b,) }'
    ),
    'scan_closing_over_literal': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,1] = slice[limit_indices=(1, 1) start_indices=(0, 0) strides=None] a\n'
        '    c:f32[] = squeeze[dimensions=(0, 1)] b\n'
        '    d:f32[] e:f32[2,3] = scan[\n'
        '      jaxpr={ lambda ; f:f32[] g:f32[3]. let\n'
        '          h:f32[] = mul f 2.0:f32[]\n'
        '          i:f32[3] = mul g f\n'
        '        in (h, i) }\n'
        '      length=2\n'
        '      num_carry=1\n'
        '      num_consts=0\n'
        '      reverse=False\n'
        '      unroll=1\n'
        '    ] c a\n'
        '  in (d, e) }'
    ),
    'vmap_scan': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2] = broadcast_in_dim 0.0:f32[]\n'
        '    c:f32[3,2] = transpose[permutation=(1, 0)] a\n'
        '    d:f32[2] e:f32[3,2] = scan[\n'
        '      jaxpr={ lambda ; f:f32[2] g:f32[2]. let\n'
        '          h:f32[2] = convert_element_type[new_dtype=float32 weak_type=False] f\n'
        '          i:f32[2] = add h g\n'
        '        in (i, f) }\n'
        '      length=3\n'
        '      num_carry=1\n'
        '      num_consts=0\n'
        '      reverse=False\n'
        '      unroll=1\n'
        '    ] b c\n'
        '    j:f32[2,3] = transpose[permutation=(1, 0)] e\n'
        '  in (d, j) }'
    ),
    'array_in_jit': (
        '{ lambda a:f32[3]; b:f32[2,3]. let\n'
        '    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n'
        '    d:f32[2,3] = add b c\n'
        '    e:f32[] = mul 2.0:f32[] 1.5:f32[]\n'
        '    f:f32[2,3] = add d e\n'
        '  in (f,) }'
    ),
    'jit_closing_over_numpy': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda c:f32[3]; a:f32[2,3]. let\n'
        '          d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n'
        '          b:f32[2,3] = mul a d\n'
        '        in (b,) }\n'
        '    ] a\n'
        '    e:f32[2,3] = add b 1.0:f32[]\n'
        '  in (e,) }'
    ),
    'grad_jit_closing_over_numpy': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] c:f32[1,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda d:f32[3]; a:f32[2,3]. let\n'
        '          c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] d\n'
        '          b:f32[2,3] = mul a c\n'
        '        in (b, c) }\n'
        '    ] a\n'
        '    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b\n'
        '    e:f32[2,3] = broadcast_in_dim 1.0:f32[]\n'
        '    f:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda ; c:f32[1,3] e:f32[2,3]. let f:f32[2,3] = mul e c in (f,) }\n'
        '    ] c e\n'
        '  in (f,) }'
    ),
    'vmap_jit_closing_over_numpy': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda c:f32[3]; a:f32[2,3]. let\n'
        '          d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] c\n'
        '          b:f32[2,3] = mul a d\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'linearize_jit_closing_over_numpy': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    _:f32[2,3] b:f32[1,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda c:f32[3]; a:f32[2,3]. let\n'
        '          b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n'
        '          _:f32[2,3] = mul a b\n'
        '        in (_, b) }\n'
        '    ] a\n'
        '    d:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda ; b:f32[1,3] a:f32[2,3]. let d:f32[2,3] = mul a b in (d,) }\n'
        '    ] b a\n'
        '  in (d,) }'
    ),
    'jit_closing_over_tracer': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:f32[2,3]. let b:f32[2,3] = mul c a in (b,) }\n'
        '    ] a a\n'
        '  in (b,) }'
    ),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMED_PROGRAMS))
def test_transformed_jaxpr_text_is_jaxs(name):
  text = re.sub(r"0x[0-9a-f]+", "0xX", str(jax.make_jaxpr(TRANSFORMED_PROGRAMS[name])(X23)))
  options = str(tuple(np.get_printoptions().items()))
  assert text == TRANSFORMED_RECORDED[name].replace("{np_printoptions}", options)
