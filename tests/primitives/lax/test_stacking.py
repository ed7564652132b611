"""split / stack / unstack / tile as primitives (split_p, stack_p, unstack_p, tile_p, as in
JAX 0.10.2): values against NumPy, derivatives by finite differences, vmap against loops,
jaxprs as the reference prints them."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads

X = np.arange(12., dtype=np.float32).reshape(3, 4)


def test_values():
  for a, b in zip(lax.split(X, [1, 3], axis=1), np.split(X, [1], axis=1)):
    np.testing.assert_array_equal(a, b)
  np.testing.assert_array_equal(lax.stack([X, 2 * X], 1), np.stack([X, 2 * X], 1))
  np.testing.assert_array_equal(lax.stack([X, X], -1), np.stack([X, X], -1))
  for a, b in zip(lax.unstack(X, 1), X.T):
    np.testing.assert_array_equal(a, b)
  np.testing.assert_array_equal(lax.tile(X, (2, 3)), np.tile(X, (2, 3)))
  assert lax.tile(X, (0, 2)).shape == (0, 8) and lax.unstack(np.ones((0, 3))) == ()
  assert isinstance(lax.unstack(X), tuple) and lax.split(np.ones((0, 2)), []) == []
  assert lax.stack([1., 2.]).weak_type and not lax.stack([1., jnp.float32(2)]).weak_type


def test_prng_keys():
  k = xjax.random.split(xjax.random.key(0), 4)
  data = np.asarray(xjax.random.key_data(k))
  np.testing.assert_array_equal(xjax.random.key_data(lax.tile(k, (2,))), np.tile(data, (2, 1)))
  np.testing.assert_array_equal(xjax.random.key_data(lax.stack([k, k], 1)),
                                np.stack([data, data], 1))
  assert [a.shape for a in lax.split(k, [1, 3])] == [(1,), (3,)] and len(lax.unstack(k)) == 4


def test_jaxprs_as_reference():
  assert str(xjax.make_jaxpr(lambda x: lax.split(x, [1, 3], axis=1))(X)) == (
      "{ lambda ; a:f32[3,4]. let\n    b:f32[3,1] c:f32[3,3] = split[axis=1 sizes=(1, 3)] a\n"
      "  in (b, c) }")
  assert str(xjax.make_jaxpr(lambda x: lax.stack([x, x]))(X)) == (
      "{ lambda ; a:f32[3,4]. let b:f32[2,3,4] = stack[axis=0] a a in (b,) }")
  assert str(xjax.make_jaxpr(lambda x: lax.tile(x, (2, 1)))(X)) == (
      "{ lambda ; a:f32[3,4]. let b:f32[6,4] = tile[reps=(2, 1)] a in (b,) }")
  assert str(xjax.make_jaxpr(lax.unstack)(X)) == (
      "{ lambda ; a:f32[3,4]. let\n    b:f32[4] c:f32[4] d:f32[4] = unstack[axis=0] a\n"
      "  in (b, c, d) }")
  grad_jaxpr = str(xjax.make_jaxpr(xjax.grad(lambda x: (lax.stack([x, 2 * x])**2).sum()))(X))
  assert "unstack[axis=0] g" in grad_jaxpr
  assert "reduce_sum[axes=(0, 2) out_sharding=None] g" in str(
      xjax.make_jaxpr(xjax.grad(lambda x: (lax.tile(x, (2, 1))**2).sum()))(X))
  assert "concatenate[dimension=1] l j" in str(xjax.make_jaxpr(xjax.grad(
      lambda x: sum(a.sum() * i for i, a in enumerate(lax.split(x, [1, 3], axis=1)))))(X))


def test_derivatives():
  x = X / 10
  check_grads(lambda x: lax.split(x, [1, 2, 1], axis=1)[1] ** 2, (x,), 2, atol=2e-2, rtol=2e-2)
  check_grads(lambda x: lax.stack([x, jnp.sin(x)], 1), (x,), 2, atol=2e-2, rtol=2e-2)
  check_grads(lambda x: lax.unstack(x, 1)[2] * lax.unstack(x)[0][1], (x,), 2, atol=2e-2, rtol=2e-2)
  check_grads(lambda x: lax.tile(x, (2, 3)) ** 2, (x,), 2, atol=2e-2, rtol=2e-2)
  ct = xjax.grad(lambda x: lax.tile(x, (2, 3)).sum())(x)
  np.testing.assert_array_equal(ct, np.full(x.shape, 6.))


@pytest.mark.parametrize("axis", [0, 1])
def test_vmap_against_loops(axis):
  xs = np.arange(24., dtype=np.float32).reshape(2, 3, 4)
  ys = xs + 100
  cases = [
      lambda x, y: lax.split(x, [3, 1], axis=1),
      lambda x, y: lax.stack([x, y, x], axis=1),
      lambda x, y: lax.unstack(x, 1),
      lambda x, y: lax.tile(x, (2, 1)),
  ]
  for f in cases:
    batched = xjax.vmap(f, in_axes=(axis, None))(np.moveaxis(xs, 0, axis), ys[0])
    for i in range(2):
      want = f(xs[i], ys[0])
      got = [b[i] for b in batched] if isinstance(want, (list, tuple)) else batched[i]
      for g, w in zip(got if isinstance(want, (list, tuple)) else [got],
                      want if isinstance(want, (list, tuple)) else [want]):
        np.testing.assert_array_equal(g, w)


def test_bad_input():
  with pytest.raises(ValueError, match="must have the same shape"):
    lax.stack([X, X[:2]])
  with pytest.raises(TypeError, match="same dtypes"):
    lax.stack([X, X.astype(np.int32)])
  with pytest.raises(ValueError, match="nonnegative"):
    lax.split(X, [2, -1, 2])
  with pytest.raises(ValueError, match="Sum of sizes 3 must be equal to dimension 1"):
    lax.split(X, [1, 2], axis=1)
  with pytest.raises(ValueError, match="out of bounds"):
    lax.unstack(X, 2)
  with pytest.raises(TypeError, match="reps length must be equal to the ndim"):
    lax.tile(X, (2,))
  with pytest.raises(ValueError, match="non-negative"):
    lax.tile(X, (-1, 2))


def test_numpy_functions_bind_the_primitives_as_jax():
  # jnp.stack/split/array_split/tile show JAX's primitives in jaxprs; a stacked array's rows
  # and jnp.concatenate of one array are reshapes
  x = jnp.arange(24.0).reshape(4, 6)
  eqns = xjax.make_jaxpr(lambda x: (jnp.stack([x, x]), jnp.split(x, 2),
                                    jnp.array_split(x, 4, axis=1), jnp.tile(x, 2)))(x).jaxpr.eqns
  assert [(e.primitive.name, e.params) for e in eqns] == [
      ("stack", {"axis": 0}), ("split", {"axis": 0, "sizes": (2, 2)}),
      ("split", {"axis": 1, "sizes": (2, 2, 1, 1)}), ("tile", {"reps": (1, 2)})]
  eqns = xjax.make_jaxpr(lambda x: (jnp.stack(x, 1), jnp.concatenate(x)))(x).jaxpr.eqns
  assert [e.primitive.name for e in eqns] == ["broadcast_in_dim", "reshape", "reshape"]
  np.testing.assert_array_equal(jnp.stack(x, 1), np.stack(np.asarray(x), 1))
  np.testing.assert_array_equal(jnp.concatenate(x), np.concatenate(np.asarray(x)))
  np.testing.assert_array_equal(jnp.tile(x[0], (2, 1, 2)), np.tile(np.asarray(x[0]), (2, 1, 2)))
  # one piece: a multiple-results primitive with one result (compiled, batched)
  np.testing.assert_array_equal(xjax.jit(lambda x: jnp.split(x, 1))(x)[0], x)
  np.testing.assert_array_equal(xjax.jit(xjax.vmap(lambda r: lax.unstack(r[:1])))(x)[0], x[:, 0])
  with pytest.raises(ZeroDivisionError):
    jnp.split(x, 0)
  with pytest.raises(ValueError, match="rest is 4"):
    jnp.split(x, 5)
  with pytest.raises(NotImplementedError, match="'out'"):
    jnp.stack([x], out=x)
