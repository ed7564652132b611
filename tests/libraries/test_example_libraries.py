"""xjax.example_libraries.stax and .optimizers: a network and every optimiser and schedule
run the same numbers as JAX 0.10.2 (literals below, taken with the same programs)."""
import pickle

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import random
from xjax.example_libraries import optimizers as O
from xjax.example_libraries import stax

# after 6 jitted steps on LOSS (sm3 eagerly: its get_params reshapes to a traced shape)
OPT_REFERENCE = {'sgd': [[0.5118430256843567, -1.1806609630584717], [[1.0006400346755981, -0.8085880279541016], [0.30553001165390015, 1.0231000185012817]]], 'momentum': [[0.7778109908103943, -0.9279919862747192], [[0.7316210269927979, 1.1939640045166016], [0.5321509838104248, -1.8356200456619263]]], 'nesterov': [[0.663860023021698, -0.5278409719467163], [[0.5335959792137146, 0.747901976108551], [0.9013910293579102, -1.0695550441741943]]], 'adagrad': [[0.3703579902648926, -1.1205949783325195], [[1.1126240491867065, -1.8800209760665894], [0.3797290027141571, 2.87951397895813]]], 'rmsprop': [[0.3683750033378601, -1.1187770366668701], [[1.1013859510421753, -1.8823610544204712], [0.38180598616600037, 2.8814098834991455]]], 'rmsprop_momentum': [[0.6334779858589172, -1.3857779502868652], [[1.2553750276565552, -1.6201720237731934], [0.11683599650859833, 2.614849090576172]]], 'adam': [[0.6799460053443909, -1.4310179948806763], [[1.2101199626922607, -1.5721219778060913], [0.07010599970817566, 2.5690999031066895]]], 'adamax': [[0.7733479738235474, -1.531393051147461], [[1.1933319568634033, -1.4928879737854004], [-0.020732000470161438, 2.470349073410034]]], 'sm3': [[0.37044399976730347, -1.1205949783325195], [[1.0757310390472412, -1.879992961883545], [0.3797290027141571, 2.87951397895813]]], 'sgd_pw': [[0.4584200084209442, -1.1640759706497192], [[1.0291999578475952, -0.982047975063324], [0.32462701201438904, 1.170881986618042]]], 'sgd_poly': [[0.38848599791526794, -1.1294840574264526], [[1.0408480167388916, -1.251389980316162], [0.36246898770332336, 1.436961054801941]]], 'sgd_inv': [[0.46480900049209595, -1.165930986404419], [[1.0255069732666016, -0.9633970260620117], [0.32248398661613464, 1.1557960510253906]]]}

P0 = {"w": np.array([[1., -2.], [0.5, 3.]], np.float32), "b": np.array([0.25, -1.], np.float32)}


def loss(p):
  return (jnp.sum((p["w"] @ np.array([1., 2.], np.float32) + p["b"] - 1.) ** 2)
          + jnp.sum(p["w"] ** 4))


OPTIMIZERS = {
    "sgd": lambda: O.sgd(1e-2), "momentum": lambda: O.momentum(1e-2, 0.9),
    "nesterov": lambda: O.nesterov(1e-2, 0.9), "adagrad": lambda: O.adagrad(1e-1),
    "rmsprop": lambda: O.rmsprop(1e-2), "rmsprop_momentum": lambda: O.rmsprop_momentum(1e-2),
    "adam": lambda: O.adam(O.exponential_decay(1e-1, 5, 0.5)), "adamax": lambda: O.adamax(1e-1),
    "sm3": lambda: O.sm3(1e-1),
    "sgd_pw": lambda: O.sgd(O.piecewise_constant([2, 4], [1e-2, 5e-3, 1e-3])),
    "sgd_poly": lambda: O.sgd(O.polynomial_decay(1e-2, 4, 1e-3, 2.)),
    "sgd_inv": lambda: O.sgd(O.inverse_time_decay(1e-2, 2, 0.5, staircase=True)),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_matches_reference(name):
  init, update, get = OPTIMIZERS[name]()
  state = init(P0)
  step = lambda i, s: update(i, xjax.grad(loss)(get(s)), s)
  step = step if name == "sm3" else xjax.jit(step)
  for i in range(6):
    state = step(i, state)
  params = get(state)
  want_b, want_w = OPT_REFERENCE[name]
  np.testing.assert_allclose(params["b"], want_b, rtol=2e-5, atol=2e-6)
  np.testing.assert_allclose(params["w"], want_w, rtol=2e-5, atol=2e-6)


def test_adamax_and_state_layout_bit_for_bit():
  # JAX 0.10.2's bits: adamax's bias correction is computed in the moments' dtype.
  params = {"w": jnp.arange(6.).reshape(2, 3) / 7, "b": jnp.ones(3)}
  grads = xjax.tree_util.tree_map(lambda p: jnp.sin(p) + 0.1, params)
  init, update, get = O.adamax(0.1)
  state = init(params)
  for i in range(3):
    state = update(i, grads, state)
  np.testing.assert_array_equal(np.asarray(get(state)["w"]).view(np.uint32),
                                [[3197737366, 3189828103, 3161067064],
                                 [1040427076, 1049295028, 1054088518]])
  np.testing.assert_array_equal(np.asarray(get(state)["b"]).view(np.uint32), [1060320053] * 3)
  # The state's parts are tuples (hashable where they are treedefs), as JAX's.
  packed = O.pack_optimizer_state(O.unpack_optimizer_state(state))
  assert type(state.packed_state) is tuple and type(packed.packed_state) is tuple
  assert type(packed.subtree_defs) is tuple and hash(packed.subtree_defs) is not None


def test_optimizer_utilities_and_errors():
  np.testing.assert_allclose(O.l2_norm(P0), 3.913119, rtol=1e-6)
  np.testing.assert_allclose(O.clip_grads(P0, 1.0)["b"], [0.06388766, -0.25555062], rtol=1e-6)
  np.testing.assert_array_equal(O.clip_grads(P0, 10.0)["w"], P0["w"])
  init, update, get = O.adam(1e-2)
  state = init(P0)
  packed = O.pack_optimizer_state(pickle.loads(pickle.dumps(O.unpack_optimizer_state(state))))
  for a, b in zip(xjax.tree_util.tree_leaves(packed), xjax.tree_util.tree_leaves(state)):
    np.testing.assert_array_equal(a, b)
  assert O.make_schedule(0.5)(3) == 0.5
  with pytest.raises(TypeError, match="gradient tree"):
    update(0, [P0["w"]], state)
  with pytest.raises(ValueError, match="one shorter"):
    O.piecewise_constant([1, 2], [1.])
  leaves, _ = xjax.tree_util.tree_flatten(state)   # OptimizerState is a pytree
  assert len(leaves) == 6


STAX_PARAMS = [0.03843412548303604, -0.14745904505252838, -0.23590950667858124, -0.07917863875627518], [0.009235424920916557, -0.0077540455386042595, 0.004750347696244717, 0.009393764659762383, -0.014887097291648388]
STAX_OUT = [[-2.3628299236297607, -1.2739800214767456, -2.3628299236297607, -2.411020040512085, -2.3628299236297607, -2.3628299236297607, -1.996000051498413, -2.1364998817443848], [-2.0347399711608887, -2.052220106124878, -1.9191499948501587, -2.2433199882507324, -2.057310104370117, -2.052220106124878, -2.2701001167297363, -2.052220106124878]]
TRANSPOSE_2D = [0.25148001313209534, -0.1676899939775467, 0.25148001313209534, -0.1676899939775467, 0.25148001313209534, -0.1676899939775467]
TRANSPOSE_1D = [0.37918001413345337, -0.6454799771308899, -0.703540027141571, -1.7689599990844727, -0.703540027141571, -1.7689599990844727, -0.6681900024414062, -1.4605499505996704]


def test_stax_network_matches_reference():
  net_init, net_apply = stax.serial(
      stax.Conv(4, (3, 3), padding="SAME"), stax.BatchNorm(), stax.Relu,
      stax.MaxPool((2, 2), strides=(2, 2)), stax.AvgPool((2, 2), padding="SAME"),
      stax.SumPool((1, 1)), stax.Flatten, stax.Dense(5), stax.Gelu, stax.FanOut(2),
      stax.parallel(stax.Dense(3), stax.Identity), stax.FanInConcat(), stax.Dropout(0.7),
      stax.LogSoftmax)
  out_shape, params = net_init(random.PRNGKey(0), (2, 6, 6, 3))
  assert tuple(out_shape) == (2, 8)
  np.testing.assert_allclose(np.asarray(params[0][0]).ravel()[:4], STAX_PARAMS[0], rtol=1e-6)
  np.testing.assert_allclose(params[7][1], STAX_PARAMS[1], rtol=1e-6)
  x = np.linspace(-1, 1, 2 * 6 * 6 * 3).reshape(2, 6, 6, 3).astype(np.float32)
  y = net_apply(params, x, rng=random.PRNGKey(1))
  np.testing.assert_allclose(y, STAX_OUT, atol=2e-5)
  y_jit = xjax.jit(lambda p, x, k: net_apply(p, x, rng=k))(params, x, random.PRNGKey(1))
  np.testing.assert_allclose(y_jit, y, atol=2e-5)
  g = xjax.grad(lambda p: jnp.sum(net_apply(p, x, rng=random.PRNGKey(1))[:, 0]))(params)
  assert np.all(np.isfinite(np.asarray(g[0][0])))
  with pytest.raises(ValueError, match="PRNG key"):
    net_apply(params, x)


def test_stax_transposed_convs_and_layers():
  init, apply = stax.GeneralConvTranspose(("NCHW", "OIHW", "NCHW"), 3, (2, 2), strides=(2, 2))
  shape, params = init(random.PRNGKey(2), (1, 2, 3, 3))
  assert tuple(shape) == (1, 3, 6, 6)
  np.testing.assert_allclose(np.asarray(apply(params, np.ones((1, 2, 3, 3), np.float32))).ravel()[:6],
                             TRANSPOSE_2D, atol=2e-5)
  init, apply = stax.Conv1DTranspose(2, (3,), padding="SAME")
  shape, params = init(random.PRNGKey(3), (1, 4, 2))
  assert tuple(shape) == (1, 4, 2)
  np.testing.assert_allclose(np.asarray(apply(params, np.ones((1, 4, 2), np.float32))).ravel(),
                             TRANSPOSE_1D, atol=2e-5)
  x = np.arange(24, dtype=np.float32).reshape(1, 4, 3, 2)
  _, avg = stax.AvgPool((2, 2), padding="SAME")   # SAME pads after; averages valid cells
  want = np.zeros_like(x)
  for i in range(4):
    for j in range(3):
      want[0, i, j] = x[0, i:i + 2, j:j + 2].reshape(-1, 2).mean(0)
  np.testing.assert_allclose(avg((), x), want, rtol=1e-6)
  for layer, fn in [(stax.Tanh, np.tanh), (stax.Exp, np.exp), (stax.Relu, lambda v: np.maximum(v, 0))]:
    np.testing.assert_allclose(layer[1]((), x / 10), fn(x / 10), rtol=1e-6)
  _, bn_params = stax.BatchNorm(axis=(0,))[0](random.PRNGKey(0), (4, 3))
  z = stax.BatchNorm(axis=(0,))[1](bn_params, x.reshape(8, 3)[:4])
  np.testing.assert_allclose(np.asarray(z).mean(0), 0, atol=1e-5)
  shape, _ = stax.shape_dependent(lambda s: stax.Dense(s[-1] * 2))[0](random.PRNGKey(0), (5, 3))
  assert tuple(shape) == (5, 6)
