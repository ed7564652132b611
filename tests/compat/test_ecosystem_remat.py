"""Rematerialization in the libraries: flax.linen's `nn.remat` and equinox's
`filter_checkpoint`, with and without checkpoint policies, give the gradients of the plain
models and save as many residuals as on JAX 0.10.2 (numbers from the reference running this
file).  Run in the ecosystem venv: `.ecosystem/venv/bin/python -m xjax -m pytest FILE`."""
import numpy as np
import pytest

from tests.compat.test_ecosystem_quickstarts import library

pytestmark = pytest.mark.ecosystem


def _residuals(fun, arg, jax):
  _, lin = jax.linearize(fun, arg)
  return len(jax.make_jaxpr(lin)(arg).consts)


def _leaf_sum(tree, jax):
  return sum(float(np.sum(leaf)) for leaf in jax.tree_util.tree_leaves(tree))


def test_flax_remat_with_policies():
  jax, nn, ad_checkpoint = library("jax", "flax.linen", "jax.ad_checkpoint")
  jnp = jax.numpy
  checkpoint_name = ad_checkpoint.checkpoint_name
  cp = jax.checkpoint_policies

  class Block(nn.Module):
    @nn.compact
    def __call__(self, x):
      h = checkpoint_name(nn.Dense(8)(x), "hidden")
      return nn.tanh(nn.Dense(4)(jnp.sin(h)))

  def model(block):
    class MLP(nn.Module):
      @nn.compact
      def __call__(self, x):
        for _ in range(3):
          x = block()(x)
        return jnp.sum(x ** 2)
    return MLP()

  x = jnp.linspace(-1.0, 1.0, 8).reshape(2, 4)
  params = model(Block).init(jax.random.PRNGKey(0), x)
  grad = None
  # model -> residuals of its linearization on JAX 0.10.2
  for block, residuals in [(nn.remat(Block), 16), (nn.remat(Block, policy=cp.dots_saveable), 21),
                           (nn.remat(Block, policy=cp.save_only_these_names("hidden")), 15),
                           (nn.remat(Block, prevent_cse=False, policy=cp.nothing_saveable), 16)]:
    m = model(block)
    tree = jax.tree_util.tree_structure(m.init(jax.random.PRNGKey(0), x))
    p = jax.tree_util.tree_unflatten(tree, jax.tree_util.tree_leaves(params))  # same values
    g = jax.jit(jax.grad(lambda p, m=m: m.apply(p, x)))(p)
    plain = jax.grad(lambda p: model(Block).apply(p, x))(params)
    for a, b in zip(jax.tree_util.tree_leaves(plain), jax.tree_util.tree_leaves(g)):
      np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert _residuals(lambda p, m=m: m.apply(p, x), p, jax) == residuals
    grad = _leaf_sum(g, jax)
  np.testing.assert_allclose(grad, 3.563287, rtol=1e-5)


def test_equinox_filter_checkpoint_with_policies():
  jax, eqx = library("jax", "equinox")
  jnp = jax.numpy
  mlp = eqx.nn.MLP(4, 2, 16, 2, key=jax.random.PRNGKey(1))
  x = jnp.linspace(-1.0, 1.0, 8).reshape(2, 4)

  def loss(model, x):
    return jnp.sum(jax.vmap(model)(x) ** 2)

  plain = eqx.filter_grad(loss)(mlp, x)
  dyn, static = eqx.partition(mlp, eqx.is_array)
  for policy, residuals in [(None, 7), (jax.checkpoint_policies.dots_saveable, 9),
                            (jax.checkpoint_policies.everything_saveable, 10)]:
    checkpointed = lambda m, x, policy=policy: eqx.filter_checkpoint(loss, policy=policy)(m, x)
    g = eqx.filter_jit(eqx.filter_grad(checkpointed))(mlp, x)
    for a, b in zip(jax.tree_util.tree_leaves(plain), jax.tree_util.tree_leaves(g)):
      np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert _residuals(lambda d: checkpointed(eqx.combine(d, static), x), dyn, jax) == residuals
    np.testing.assert_allclose(_leaf_sum(g, jax), -0.294280, rtol=1e-5)
