"""Weak types through transformations, recorded from JAX 0.10.2 (values and, for each result
leaf, dtype and weak type); tools/differential_weak_types.py sweeps many more."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
import xjax.scipy.stats as st

ZS = jnp.arange(3.0)
W3 = jnp.full(3, 0.7)


def _scan_ckpt(x, y):
  body = lambda c, z: (c * z + jnp.sin(c) * y, c)
  c, ys = lax.scan(xjax.checkpoint(body), x, ZS)
  return c + ys.sum()


CASES = {
    # the carry's cotangent sums a weak term first: weak, as in JAX
    "scan_sin_grad": (lambda: xjax.grad(lambda x: lax.scan(
        lambda c, z: (c * z + jnp.sin(c), None), x, ZS)[0])(0.7), [3.193577766418457], [True]),
    # a zero cotangent of ys is not summed into the carry's
    "scan_ys_grad": (lambda: xjax.grad(lambda x: lax.scan(
        lambda c, z: (c * z, c), x, ZS)[1].sum())(0.7), [1.0], [True]),
    "scan_ckpt_grad": (lambda: xjax.grad(_scan_ckpt, argnums=(0, 1))(0.7, 0.7),
                       [4.597942352294922, 6.544761657714844], [True, True]),
    "scan_ckpt_hessian": (lambda: xjax.hessian(_scan_ckpt, argnums=(0, 1))(0.7, jnp.asarray(0.7)),
                          [-3.703124761581421, 6.473888397216797, 6.4738874435424805,
                           4.727072238922119], [True] * 4),
    "scan_ckpt_hessian_strong": (
        lambda: xjax.hessian(_scan_ckpt, argnums=(0, 1))(jnp.asarray(0.7), jnp.float32(0.7)),
        [-3.703124761581421, 6.473888397216797, 6.4738874435424805, 4.727072238922119],
        [True, True, False, False]),
    "jvp_pytree": (lambda: xjax.jvp(lambda p: {"a": p["x"] * 2, "b": 3.0}, ({"x": 1.0},),
                                    ({"x": 1.0},)), [2.0, 3.0, 2.0, 0.0], [True] * 4),
    "mvn_weak": (lambda: st.multivariate_normal.logpdf(jnp.full(2, 0.0), jnp.full(2, 0.0), 1.0),
                 [-1.8378770351409912], [True]),
    "mvn_weak_cov": (lambda: st.multivariate_normal.logpdf(
        jnp.full(2, 0.0), jnp.full(2, 0.0), jnp.eye(2) * 1.0), [-1.8378770351409912], [False]),
    # pad is weak only when the operand and the padding value both are
    "pad_weak_strong": (lambda: lax.pad(W3, jnp.float32(0.0), [(1, 1, 0)]),
                        [0.0, 0.7, 0.7, 0.7, 0.0], [False]),
    "pad_weak_weak": (lambda: lax.pad(W3, 0.0, [(1, 0, 1)]), [0.0, 0.7, 0.0, 0.7, 0.0, 0.7], [True]),
    # its transpose pads with a strong zero
    "pad_grad": (lambda: xjax.grad(lambda x, v: lax.pad(lax.broadcast(x, (2,)), v, [(1, 1, 0)]).sum(),
                                   argnums=(0, 1))(0.7, 0.5), [2.0, 2.0], [False, False]),
    # a batched padding value: padded with a zero like the operand (weak), then selected
    "pad_vmap": (lambda: xjax.vmap(lambda x, v: lax.pad(lax.broadcast(x, (2,)), v, [(1, 1, 0)]),
                                   in_axes=(None, 0))(0.7, jnp.full(2, 0.5)),
                 [0.5, 0.7, 0.7, 0.5, 0.5, 0.7, 0.7, 0.5], [True]),
    # cumulative ops differentiate through associative_scan, whose pads make primal and tangent strong
    "cumprod_jvp": (lambda: xjax.jvp(lax.cumprod, (W3,), (jnp.ones(3),)),
                    [0.7, 0.49, 0.343, 1.0, 1.4, 1.47], [False, False]),
    "cummax_jvp": (lambda: xjax.jvp(lax.cummax, (W3,), (jnp.ones(3),)),
                   [0.7, 0.7, 0.7, 1.0, 1.0, 1.0], [False, False]),
    "associative_scan_grad": (lambda: xjax.grad(lambda x, y: lax.associative_scan(
        jnp.add, jnp.stack([x, y])).sum(), argnums=(0, 1))(0.7, 0.5), [2.0, 1.0], [False, False]),
}


@pytest.mark.parametrize("name", CASES)
def test_weak_types_as_jax(name):
  fun, values, weak = CASES[name]
  leaves = xjax.tree_util.tree_leaves(fun())
  np.testing.assert_allclose(np.concatenate([np.ravel(x) for x in leaves]), values, rtol=1e-5)
  assert [xjax.typeof(x).dtype for x in leaves] == [np.float32] * len(leaves)
  assert [xjax.typeof(x).weak_type for x in leaves] == weak
