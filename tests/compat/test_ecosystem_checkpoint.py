"""Checkpointing a training run the ecosystem's way: a flax.linen model and its optax adam
state, saved with orbax-checkpoint 0.12.8 and restored into an abstract target, train on
bit for bit as the run that was never saved (numbers from JAX 0.10.2 running this file).
The same with the state sharded over a 2x2 mesh of CPU devices runs in a process of its own
with 4 devices (tests/compat/ecosystem_checkpoint_sharded_cases.py). Run in the ecosystem
venv: `.ecosystem/venv/bin/python -m xjax -m pytest FILE`."""
import numpy as np
import pytest

from tests.compat.test_ecosystem_quickstarts import library

pytestmark = pytest.mark.ecosystem

# the losses of the 4th to 8th adam steps (JAX 0.10.2, one device or four)
LOSSES_AFTER_RESTORE = [0.5874528288841248, 0.5321087837219238, 0.4857575297355652,
                        0.44780364632606506, 0.41680726408958435]


def training_run(jax, nn, optax, place=lambda tree, kind: tree):
  """(initial state, jitted step) of an MLP fitted by adam; ``place(tree, kind)`` puts the
  data (kind "data") and the state (kind "state") on devices."""
  jnp = jax.numpy

  class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
      return nn.Dense(1)(nn.relu(nn.Dense(16)(x)))

  x = jax.random.normal(jax.random.key(0), (32, 4))
  x, y = place((x, jnp.sin(x.sum(1, keepdims=True))), "data")
  model, tx = MLP(), optax.adam(1e-2)
  params = model.init(jax.random.key(1), x)
  state = place({"params": params, "opt_state": tx.init(params), "step": jnp.array(0)}, "state")

  @jax.jit
  def step(state):
    loss, g = jax.value_and_grad(lambda p: jnp.mean((model.apply(p, x) - y) ** 2))(state["params"])
    updates, opt_state = tx.update(g, state["opt_state"])
    return {"params": optax.apply_updates(state["params"], updates), "opt_state": opt_state,
            "step": state["step"] + 1}, loss
  return state, step


def train(step, state, steps):
  losses = []
  for _ in range(steps):
    state, loss = step(state)
    losses.append(float(loss))
  return state, losses


def assert_trees_identical(jax, a, b):
  assert jax.tree.structure(a) == jax.tree.structure(b)
  for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
    assert u.dtype == v.dtype and u.shape == v.shape
    np.testing.assert_array_equal(np.asarray(u), np.asarray(v), strict=True)


def test_orbax_standard_checkpointer_round_trip(tmp_path):
  jax, nn, optax, ocp = library("jax", "flax.linen", "optax", "orbax.checkpoint")
  state, step = training_run(jax, nn, optax)
  state, _ = train(step, state, 3)

  checkpointer = ocp.StandardCheckpointer()
  checkpointer.save(tmp_path / "ckpt", state)
  checkpointer.wait_until_finished()
  abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, state)
  restored = checkpointer.restore(tmp_path / "ckpt", abstract)
  assert_trees_identical(jax, restored, state)  # the optax namedtuples come back as they were
  assert type(restored["opt_state"][0]) is type(state["opt_state"][0])
  assert all(isinstance(leaf, jax.Array) for leaf in jax.tree.leaves(restored))

  resumed, resumed_losses = train(step, restored, 5)
  uninterrupted, losses = train(step, state, 5)
  assert resumed_losses == losses
  np.testing.assert_allclose(losses, LOSSES_AFTER_RESTORE, rtol=1e-6)
  assert_trees_identical(jax, resumed, uninterrupted)
  assert int(resumed["step"]) == 8


def test_orbax_sharded_state_round_trip():
  jax, *_ = library("jax", "flax.linen", "optax", "orbax.checkpoint")  # skips where missing
  from tests.multi_device_run import run_cases
  through_xjax = hasattr(jax, "install_as_jax")   # (else the reference JAX is installed)
  assert run_cases("tests/compat/ecosystem_checkpoint_sharded_cases.py",
                   as_jax=through_xjax) == 2
