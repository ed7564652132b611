"""Constants in jaxprs, as JAX 0.10.2 makes them: a concrete ``Array`` a traced function
closes over is a constant (a ``constvar``) even when it is a scalar, and operations on it
are staged; Python and NumPy scalars, and arrays made inside the trace, are literals.
Texts recorded from JAX 0.10.2 (``make_jaxpr`` of each program on a float32[2, 3])."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax

C32 = jnp.float32(2.0)
CW = jnp.array(3.0)
CI = jnp.int32(2)
CV = jnp.arange(3.0)
X23 = jnp.arange(6.0).reshape(2, 3)

PROGRAMS = {
    "closed_f32": lambda x: x * C32,
    "closed_weak": lambda x: x * CW,
    "closed_int": lambda x: x * CI,
    "numpy_scalar": lambda x: x * np.float32(4.0),
    "numpy_0d": lambda x: x * np.array(2.0, np.float32),
    "closed_twice": lambda x: x + C32 + C32,
    "grad_closed": jax.grad(lambda x: jnp.sum(x * C32)),
    "vmap_closed": jax.vmap(lambda r: r * C32),
    "cond_closed": lambda x: lax.cond(x[0, 0] > 0, lambda: x * C32, lambda: x),
    "where_closed": lambda x: jnp.where(x > C32, x, C32),
    "inner_jit_closed": lambda x: jax.jit(lambda y: y + C32)(x),
    "scan_closed": lambda x: lax.scan(lambda c, r: (c + r * C32, None), jnp.zeros(3), x)[0],
    "made_inside": lambda x: x * jnp.float32(2.0) + jnp.array(1),
    "jvp_closed": lambda x: jax.jvp(lambda y: y * C32, (x,), (x,))[1],
    "stop_gradient_closed": lambda x: x * lax.stop_gradient(C32),
    "astype_closed": lambda x: C32.astype(jnp.int32) + x.astype(jnp.int32),
    "vector_closed": lambda x: x + CV,
    "index_closed": lambda x: x + CV[1],
    "grad_weak_closed": jax.grad(lambda x: jnp.sum(jnp.sin(x) * CW)),
    "stop_gradient_python": lambda x: x * lax.stop_gradient(2.0),
    "stop_gradient_int_closed": lambda x: x + lax.stop_gradient(CI),
    "stop_gradient_int_traced": lambda x: x + lax.stop_gradient(x.astype(jnp.int32)),
    "grad_stop_gradient_closed": jax.grad(lambda x: jnp.sum(x * lax.stop_gradient(C32))),
    "stage_closed": lambda x: x + lax.stage(C32),
}

RECORDED = {
    "closed_f32": "{ lambda a:f32[]; b:f32[2,3]. let c:f32[2,3] = mul b a in (c,) }",
    "closed_weak": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
        '    d:f32[2,3] = mul b c\n'
        '  in (d,) }'
    ),
    "closed_int": (
        '{ lambda a:i32[]; b:f32[2,3]. let\n'
        '    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
        '    d:f32[2,3] = mul b c\n'
        '  in (d,) }'
    ),
    "numpy_scalar": "{ lambda ; a:f32[2,3]. let b:f32[2,3] = mul a 4.0:f32[] in (b,) }",
    "numpy_0d": "{ lambda ; a:f32[2,3]. let b:f32[2,3] = mul a 2.0:f32[] in (b,) }",
    "closed_twice": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:f32[2,3] = add b a\n'
        '    d:f32[2,3] = add c a\n'
        '  in (d,) }'
    ),
    "grad_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:f32[2,3] = mul b a\n'
        '    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c\n'
        '    d:f32[2,3] = broadcast_in_dim 1.0:f32[]\n'
        '    e:f32[2,3] = mul d a\n'
        '  in (e,) }'
    ),
    "vmap_closed": "{ lambda a:f32[]; b:f32[2,3]. let c:f32[2,3] = mul b a in (c,) }",
    "cond_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:f32[1,1] = slice[limit_indices=(1, 1) start_indices=(0, 0) strides=None] b\n'
        '    d:f32[] = squeeze[dimensions=(0, 1)] c\n'
        '    e:bool[] = gt d 0.0:f32[]\n'
        '    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n'
        '    g:f32[2,3] = cond[\n'
        '      branches=(\n'
        '        { lambda ; h:f32[2,3] i:f32[]. let  in (h,) }\n'
        '        { lambda ; j:f32[2,3] k:f32[]. let l:f32[2,3] = mul j k in (l,) }\n'
        '      )\n'
        '    ] f b a\n'
        '  in (g,) }'
    ),
    "where_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:bool[2,3] = gt b a\n'
        '    d:f32[2,3] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; c:bool[2,3] b:f32[2,3] a:f32[]. let\n'
        '          e:f32[2,3] = broadcast_in_dim a\n'
        '          d:f32[2,3] = select_n c e b\n'
        '        in (d,) }\n'
        '    ] c b a\n'
        '  in (d,) }'
    ),
    "inner_jit_closed": (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=<lambda>\n'
        '      jaxpr={ lambda c:f32[]; a:f32[2,3]. let b:f32[2,3] = add a c in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    "scan_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:f32[3] = broadcast_in_dim 0.0:f32[]\n'
        '    d:f32[3] = scan[\n'
        '      jaxpr={ lambda ; e:f32[] f:f32[3] g:f32[3]. let\n'
        '          h:f32[3] = mul g e\n'
        '          i:f32[3] = add f h\n'
        '        in (i,) }\n'
        '      length=2\n'
        '      num_carry=1\n'
        '      num_consts=1\n'
        '      reverse=False\n'
        '      unroll=1\n'
        '    ] a c b\n'
        '  in (d,) }'
    ),
    "made_inside": (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = mul a 2.0:f32[]\n'
        '    c:f32[2,3] = add b 1.0:f32[]\n'
        '  in (c,) }'
    ),
    "jvp_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    _:f32[2,3] = mul b a\n'
        '    c:f32[2,3] = mul b a\n'
        '  in (c,) }'
    ),
    "stop_gradient_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:f32[] = stop_gradient a\n'
        '    d:f32[2,3] = mul b c\n'
        '  in (d,) }'
    ),
    "astype_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
        '    d:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    e:i32[2,3] = add c d\n'
        '  in (e,) }'
    ),
    "vector_closed": (
        '{ lambda a:f32[3]; b:f32[2,3]. let\n'
        '    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n'
        '    d:f32[2,3] = add b c\n'
        '  in (d,) }'
    ),
    "index_closed": (
        '{ lambda a:f32[3]; b:f32[2,3]. let\n'
        '    c:f32[1] = slice[limit_indices=(2,) start_indices=(1,) strides=None] a\n'
        '    d:f32[] = squeeze[dimensions=(0,)] c\n'
        '    e:f32[2,3] = add b d\n'
        '  in (e,) }'
    ),
    "grad_weak_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:f32[2,3] = sin b\n'
        '    d:f32[2,3] = cos b\n'
        '    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
        '    f:f32[2,3] = mul c e\n'
        '    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] f\n'
        '    g:f32[2,3] = broadcast_in_dim 1.0:f32[]\n'
        '    h:f32[2,3] = mul g e\n'
        '    i:f32[2,3] = mul h d\n'
        '  in (i,) }'
    ),
    "stop_gradient_python": (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[] = stop_gradient 2.0:f32[]\n'
        '    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
        '    d:f32[2,3] = mul a c\n'
        '  in (d,) }'
    ),
    "stop_gradient_int_closed": (
        '{ lambda a:i32[]; b:f32[2,3]. let\n'
        '    c:i32[] = stop_gradient a\n'
        '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    e:f32[2,3] = add b d\n'
        '  in (e,) }'
    ),
    "stop_gradient_int_traced": (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
        '    c:i32[2,3] = stop_gradient b\n'
        '    d:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '    e:f32[2,3] = add a d\n'
        '  in (e,) }'
    ),
    "grad_stop_gradient_closed": (
        '{ lambda a:f32[]; b:f32[2,3]. let\n'
        '    c:f32[] = stop_gradient a\n'
        '    d:f32[2,3] = mul b c\n'
        '    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d\n'
        '    e:f32[2,3] = broadcast_in_dim 1.0:f32[]\n'
        '    f:f32[2,3] = mul e c\n'
        '  in (f,) }'
    ),
    "stage_closed": "{ lambda a:f32[]; b:f32[2,3]. let c:f32[2,3] = add b a in (c,) }",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jaxpr_constants_are_jaxs(name):
  assert str(jax.make_jaxpr(PROGRAMS[name])(X23)) == RECORDED[name]


def test_closed_over_scalars_keep_their_values_under_jit_grad_and_vmap():
  f = lambda x: jnp.sum(x * C32 + CI) * CW
  want = float(np.sum(np.arange(6.0) * 2.0 + 2) * 3.0)
  assert float(f(X23)) == float(jax.jit(f)(X23)) == want
  np.testing.assert_allclose(np.asarray(jax.grad(f)(X23)), np.full((2, 3), 6.0))
  np.testing.assert_allclose(np.asarray(jax.vmap(lambda r: r * C32)(X23)),
                             np.arange(6.0).reshape(2, 3) * 2)
  assert float(jax.grad(lambda x: jnp.sum(x * lax.stop_gradient(x)))(jnp.float32(3.0))) == 3.0
