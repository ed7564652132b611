"""orbax-checkpoint with a training state sharded over 4 CPU devices. Not collected by the
suite (the name does not start with test_): tests/compat/test_ecosystem_checkpoint.py runs it
in a process of its own with XLA_FLAGS=--xla_force_host_platform_device_count=4."""
import numpy as np
import pytest

from tests.compat.test_ecosystem_checkpoint import (LOSSES_AFTER_RESTORE, assert_trees_identical,
                                                    train, training_run)
from tests.compat.test_ecosystem_quickstarts import library

pytestmark = pytest.mark.ecosystem

# `jax` is xjax (or the reference JAX, where that is installed): imported by name, as the
# libraries import it
jax, nn, optax, ocp = library("jax", "flax.linen", "optax", "orbax.checkpoint")
if jax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/compat/test_ecosystem_checkpoint.py)",
              allow_module_level=True)

Mesh, NamedSharding, P = jax.sharding.Mesh, jax.sharding.NamedSharding, jax.sharding.PartitionSpec

MESH = Mesh(np.array(jax.devices()).reshape(2, 2), ("batch", "model"))


def _sharding(array):
  """The hidden layer's 16 units split over "model", the rest replicated."""
  if array.ndim == 2 and array.shape[1] == 16:
    return NamedSharding(MESH, P(None, "model"))
  if array.shape == (16,) or array.shape == (16, 1):
    return NamedSharding(MESH, P("model"))
  return NamedSharding(MESH, P())


def _place(tree, kind):
  if kind == "data":  # the examples split over "batch"
    return jax.device_put(tree, NamedSharding(MESH, P("batch")))
  return jax.device_put(tree, jax.tree.map(_sharding, tree))


def _assert_placed(jax, restored, target):
  for leaf, want in zip(jax.tree.leaves(restored), jax.tree.leaves(target)):
    assert leaf.sharding == want.sharding and leaf.sharding.spec == want.sharding.spec
    assert len(leaf.addressable_shards) == 4
    for shard in leaf.addressable_shards:
      assert shard.data.devices() == {shard.device}


def test_sharded_state_round_trip_with_target_shardings(tmp_path):
  state, step = training_run(jax, nn, optax, _place)
  state, _ = train(step, state, 3)
  assert state["params"]["params"]["Dense_1"]["kernel"].sharding.spec == P(None, "model")

  with ocp.CheckpointManager(tmp_path / "run") as manager:
    manager.save(3, args=ocp.args.StandardSave(state))
    manager.wait_until_finished()
    assert manager.all_steps() == [3]
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, state)
    assert abstract["step"].sharding == NamedSharding(MESH, P())
    restored = manager.restore(manager.latest_step(), args=ocp.args.StandardRestore(abstract))

  _assert_placed(jax, restored, state)
  for leaf, want in zip(jax.tree.leaves(restored), jax.tree.leaves(state)):
    for shard, want_shard in zip(leaf.addressable_shards, want.addressable_shards):
      assert shard.device == want_shard.device and shard.index == want_shard.index
      np.testing.assert_array_equal(np.asarray(shard.data), np.asarray(want_shard.data),
                                    strict=True)

  resumed, resumed_losses = train(step, restored, 5)
  uninterrupted, losses = train(step, state, 5)
  assert resumed_losses == losses
  np.testing.assert_allclose(losses, LOSSES_AFTER_RESTORE, rtol=1e-6)
  assert_trees_identical(jax, resumed, uninterrupted)
  _assert_placed(jax, resumed, uninterrupted)


def test_restore_into_other_shardings(tmp_path):
  # saved sharded over "model", restored replicated and then split over "batch" instead
  state, step = training_run(jax, nn, optax, _place)
  state, _ = train(step, state, 3)
  checkpointer = ocp.StandardCheckpointer()
  checkpointer.save(tmp_path / "ckpt", state)
  checkpointer.wait_until_finished()
  for spec in (P(), P("batch")):
    def target(array):
      fits = spec == P() or (array.ndim and array.shape[0] % 2 == 0)
      return jax.ShapeDtypeStruct(array.shape, array.dtype,
                                  sharding=NamedSharding(MESH, spec if fits else P()))
    abstract = jax.tree.map(target, state)
    restored = checkpointer.restore(tmp_path / "ckpt", abstract)
    _assert_placed(jax, restored, abstract)
    assert_trees_identical(jax, restored, state)
