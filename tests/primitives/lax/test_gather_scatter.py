"""lax's scatter conveniences: scatter_sub (values and derivatives) and scatter_apply; the
ONE_HOT mode."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads


def test_scatter_sub_and_apply():
  dn = lax.ScatterDimensionNumbers((), (0,), (0,))
  idx = jnp.array([[1], [3], [1]])
  upd = jnp.array([1., 2., 3.])
  np.testing.assert_array_equal(lax.scatter_sub(jnp.ones(4), idx, upd, dn), [1., -3., 1., -1.])
  check_grads(lambda o, u: lax.scatter_sub(o, idx, u, dn), (jnp.ones(4), upd), 1)
  out = lax.scatter_apply(jnp.arange(4.), idx, lambda v: v * 10, dn, update_shape=(3,))
  np.testing.assert_array_equal(out, [0., 100., 2., 30.])  # once per hit, as in JAX


def test_one_hot_mode_as_jax():   # JAX 0.10.2: scatters as promise_in_bounds, cannot gather
  mode = xjax.lax.GatherScatterMode
  assert mode.from_any("one_hot") is mode.ONE_HOT and mode.ONE_HOT.value == 4
  x = jnp.arange(5.)
  i = jnp.array([1, 7])   # 7 is out of bounds: its update is dropped
  np.testing.assert_array_equal(x.at[i].set(9., mode="one_hot"), [0., 9., 2., 3., 4.])
  np.testing.assert_array_equal(x.at[i].add(9., mode="one_hot"), [0., 10., 2., 3., 4.])
  np.testing.assert_array_equal(x.at[jnp.array([1, 3])].multiply(3., mode="one_hot"),
                                [0., 3., 2., 9., 4.])
  np.testing.assert_array_equal(
      xjax.jit(lambda v: v.at[i].set(9., mode="one_hot"))(x), [0., 9., 2., 3., 4.])
  np.testing.assert_array_equal(
      xjax.grad(lambda v: v.at[jnp.array([1, 3])].set(9., mode="one_hot").sum())(x),
      [1., 0., 1., 0., 1.])
  np.testing.assert_array_equal(
      xjax.vmap(lambda v: v.at[jnp.array([1, 3])].set(9., mode="one_hot"))(jnp.ones((2, 5))),
      [[1., 9., 1., 9., 1.]] * 2)
  assert "mode=GatherScatterMode.ONE_HOT" in str(
      xjax.make_jaxpr(lambda v: v.at[i].get(mode="one_hot"))(x))
  with pytest.raises(AssertionError, match="ONE_HOT"):
    x.at[i].get(mode="one_hot")


def test_scatter_with_repeated_indices_differentiates_the_update_that_lands():
  # y.at[[0, 0]].set(2 y): one of the two updates lands (XLA's choice); only it gets a
  # cotangent, and row 0 of y none (values from JAX 0.10.2, which lands the last)
  x = jnp.arange(6.).reshape(2, 3)
  w = jnp.arange(1., 7.).reshape(2, 3)
  f = lambda y: y.at[jnp.array([0, 0])].set(y * 2.)
  expected = [[0., 0., 0.], [6., 9., 12.]]
  for grad in (xjax.grad(lambda y: jnp.sum(f(y) * w)),
               xjax.jit(xjax.grad(lambda y: jnp.sum(f(y) * w)))):
    np.testing.assert_array_equal(grad(x), expected)
  jac = xjax.jacfwd(f)(x).reshape(6, 6)   # forward mode agrees with reverse mode
  np.testing.assert_array_equal(jac.T @ w.ravel(), np.ravel(expected))
  batched = xjax.vmap(xjax.grad(lambda y: jnp.sum(f(y) * w)))(jnp.stack([x, x + 1.]))
  np.testing.assert_array_equal(batched, [expected, expected])


def test_scatter_max_ties_share_the_tangent_as_jax_computes_it():
  # three values tie at element (0, 1): the two updates and the retained operand share its
  # tangent; JAX's arithmetic (1 - 1/3 then / 1, ...) gives these bits, not 2/3 rounded
  x = jnp.arange(6.).reshape(2, 3)
  f = lambda y: y.at[jnp.array([0, 1, 0])].max(y[jnp.array([1, 0, 1])] * 0. + 1.)
  g = xjax.grad(lambda y: jnp.sum(f(y) * jnp.arange(1., 7.).reshape(2, 3)))(x)
  assert np.asarray(g).view(np.uint32).ravel().tolist() == [
      0, 1059760812, 1077936128, 1082130432, 1084227584, 1086324736]


def test_scatter_mul_differentiates_its_updates_only_at_unique_indices():
  # as JAX: d out / d updates = operand (finite where an update is 0); repeated indices raise
  x = jnp.arange(6.).reshape(2, 3) - 1.
  g = xjax.grad(lambda y: jnp.sum(jnp.sin(y.at[1].multiply(y[0] - 1.))))(x)
  x0, x1 = np.arange(3.) - 1., np.arange(3.) + 2.   # row 1 becomes x1 * (x0 - 1)
  out1 = x1 * (x0 - 1.)                            # (its last update is 0)
  np.testing.assert_allclose(g, [np.cos(x0) + np.cos(out1) * x1, np.cos(out1) * (x0 - 1.)],
                             rtol=1e-6)
  with pytest.raises(NotImplementedError, match="unique_indices=True"):
    xjax.grad(lambda y: jnp.sum(y.at[jnp.array([0, 0])].multiply(y + 1.)))(x)
  # the operand alone is linear: any indices
  np.testing.assert_array_equal(
      xjax.grad(lambda y: jnp.sum(y.at[jnp.array([0, 0])].multiply(3.)))(x),
      [[9., 9., 9.], [1., 1., 1.]])
