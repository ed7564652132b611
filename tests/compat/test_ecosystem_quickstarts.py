"""The third-party libraries' own quickstarts, written as each README shows them, run on
xjax through the `jax` import redirection, with the numbers JAX 0.10.2 gives (same seeds,
same draws: random is bit-exact). Long chaotic computations (MCMC chains) follow the
reference to float32 rounding for their first steps, so those are kept short.

They run in the ecosystem venv (`make ecosystem`, or
`.ecosystem/venv/bin/python -m xjax -m pytest tests/compat/test_ecosystem_quickstarts.py`) and are
skipped where a library is not installed (the project's own .venv).
"""
import importlib
import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.ecosystem


def library(*names):
  """Imports the library (the first name) and its companions, or skips when one is not
  installed or `import jax` gives neither xjax (`python -m xjax`) nor the reference JAX."""
  for name in names:  # (`jax` itself is xjax where the reference is not installed)
    if name != "jax" and importlib.util.find_spec(name.split(".")[0]) is None:
      pytest.skip(f"{name} is not installed (run in the ecosystem venv: make ecosystem)")
  if importlib.util.find_spec("jax") is None:  # (the alias renames classes process-wide)
    pytest.skip("run through `python -m xjax` (make ecosystem), which makes `jax` xjax")
  return [importlib.import_module(name) for name in names]


def training_losses(step, state, steps: int) -> list[float]:
  """The losses of ``steps`` training steps ``state, loss = step(state)``."""
  losses = []
  for _ in range(steps):
    state, loss = step(state)
    losses.append(float(loss))
  return losses


# ---------------------------------------------------------------------------------------
# numpyro 0.22.0: eight schools with NUTS, and SVI with an AutoNormal guide

def _eight_schools(numpyro, dist):
  def model(J, sigma, y=None):
    mu = numpyro.sample("mu", dist.Normal(0, 5))
    tau = numpyro.sample("tau", dist.HalfCauchy(5))
    with numpyro.plate("J", J):
      theta = numpyro.sample("theta", dist.Normal(mu, tau))
      numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)
  return model


SCHOOLS_Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SCHOOLS_SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def test_numpyro_nuts():
  numpyro, dist, infer, jax = library("numpyro", "numpyro.distributions", "numpyro.infer", "jax")
  mcmc = infer.MCMC(infer.NUTS(_eight_schools(numpyro, dist)), num_warmup=5, num_samples=3,
                    progress_bar=False)
  mcmc.run(jax.random.PRNGKey(0), 8, SCHOOLS_SIGMA, y=SCHOOLS_Y,
           extra_fields=("potential_energy",))
  samples = mcmc.get_samples()
  np.testing.assert_allclose(samples["mu"], [4.495713233947754, 5.332108974456787,
                                             8.665809631347656], rtol=1e-5)
  np.testing.assert_allclose(samples["tau"], [1.4663474559783936, 3.0939438343048096,
                                              4.439284324645996], rtol=1e-5)
  np.testing.assert_allclose(mcmc.get_extra_fields()["potential_energy"].mean(),
                             53.04845428466797, rtol=1e-5)


def test_numpyro_svi():
  numpyro, dist, infer, autoguide, jax = library(
      "numpyro", "numpyro.distributions", "numpyro.infer", "numpyro.infer.autoguide", "jax")
  model = _eight_schools(numpyro, dist)
  svi = infer.SVI(model, autoguide.AutoNormal(model), numpyro.optim.Adam(0.01), infer.Trace_ELBO())
  result = svi.run(jax.random.PRNGKey(1), 200, 8, SCHOOLS_SIGMA, y=SCHOOLS_Y, progress_bar=False)
  np.testing.assert_allclose(result.losses[np.array([0, 1, 50, 199])],
                             [70.18645477294922, 68.58502197265625, 56.05068588256836,
                              31.909500122070312], rtol=1e-6)
  np.testing.assert_allclose(result.params["mu_auto_loc"], 0.29630497097969055, rtol=1e-6)


# ---------------------------------------------------------------------------------------
# blackjax 1.7.1: NUTS with fixed parameters, then window adaptation and NUTS

def test_blackjax_nuts_with_window_adaptation():
  blackjax, jax, stats = library("blackjax", "jax", "jax.scipy.stats")
  jnp = jax.numpy
  observed = np.random.default_rng(0).normal(10, 20, size=200).astype(np.float32)

  def logdensity_fn(x):
    return jnp.sum(stats.norm.logpdf(observed, x["loc"], x["scale"]))

  nuts = blackjax.nuts(logdensity_fn, 1e-3, jnp.array([1., 1.]))
  state = nuts.init({"loc": 1., "scale": 2.})
  step = jax.jit(nuts.step)
  for i in range(5):
    state, _ = step(jax.random.fold_in(jax.random.key(0), i), state)
  np.testing.assert_allclose([state.position["loc"], state.position["scale"], state.logdensity],
                             [2.5780961513519287, 22.1468563079834, -890.8435668945312],
                             rtol=1e-6)

  warmup = blackjax.window_adaptation(blackjax.nuts, logdensity_fn)
  (state, parameters), _ = warmup.run(jax.random.key(1), {"loc": 1., "scale": 2.}, num_steps=30)
  np.testing.assert_allclose(parameters["step_size"], 0.43930160999298096, rtol=1e-5)
  np.testing.assert_allclose(parameters["inverse_mass_matrix"],
                             [12.981510162353516, 26.54950714111328], rtol=1e-5)
  kernel = jax.jit(blackjax.nuts(logdensity_fn, **parameters).step)
  samples = []
  for i in range(5):
    state, _ = kernel(jax.random.fold_in(jax.random.key(2), i), state)
    samples.append([state.position["loc"], state.position["scale"]])
  np.testing.assert_allclose(samples, [[10.122549057006836, 18.40203094482422],
                                       [10.122549057006836, 18.40203094482422],
                                       [9.378641128540039, 19.731590270996094],
                                       [9.378641128540039, 19.731590270996094],
                                       [13.665613174438477, 19.41929054260254]], rtol=1e-5)


# ---------------------------------------------------------------------------------------
# diffrax 0.7.2: an adaptive Tsit5 solve of Lotka-Volterra, and a gradient through it

def test_diffrax_adaptive_tsit5_and_its_gradient():
  diffrax, jax = library("diffrax", "jax")
  jnp = jax.numpy

  def vector_field(t, y, args):
    prey, predator = y
    a, b, c, d = args
    return jnp.stack([a * prey - b * prey * predator, -c * predator + d * prey * predator])

  def solve(args):
    return diffrax.diffeqsolve(
        diffrax.ODETerm(vector_field), diffrax.Tsit5(), t0=0., t1=10., dt0=0.1,
        y0=jnp.array([10., 10.]), args=args,
        stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-5),
        saveat=diffrax.SaveAt(ts=jnp.linspace(0., 10., 5)))

  args = jnp.array([0.1, 0.02, 0.4, 0.02])
  sol = jax.jit(solve)(args)
  np.testing.assert_allclose(sol.ys, [[10.0, 10.0], [8.70911693572998, 5.821189880371094],
                                      [8.953412055969238, 3.315065860748291],
                                      [10.112727165222168, 1.9579057693481445],
                                      [12.008075714111328, 1.248466968536377]], rtol=1e-6)
  assert (int(sol.stats["num_steps"]), int(sol.stats["num_accepted_steps"])) == (7, 7)
  grad = jax.jit(jax.grad(lambda a: solve(a).ys[-1].sum()))(args)
  np.testing.assert_allclose(grad, [116.29618835449219, -450.3654479980469,
                                    19.741539001464844, -175.22296142578125], rtol=1e-5)


# ---------------------------------------------------------------------------------------
# optimistix 0.1.0 / lineax 0.1.1: a Newton root find, a BFGS minimisation and its
# derivative in a parameter, least squares by QR, Cholesky, and a gradient through a solve

def test_optimistix_and_lineax():
  optx, lx, jax = library("optimistix", "lineax", "jax")
  jnp, jr = jax.numpy, jax.random

  def fn(y, args):
    a, b = y
    return jnp.tanh(b.sum() + 1) - a, a ** 2 - jnp.sinh(b) + args

  sol = optx.root_find(fn, optx.Newton(rtol=1e-6, atol=1e-6), (jnp.array(0.), jnp.zeros(2)),
                       args=0.5)
  np.testing.assert_allclose(sol.value[0], 0.9977047443389893, rtol=1e-6)
  np.testing.assert_allclose(sol.value[1], [1.1922171115875244] * 2, rtol=1e-6)
  assert int(sol.stats["num_steps"]) == 7

  def minimum(scale):
    objective = lambda y, a: jnp.sum(10 * (y[1:] - y[:-1] ** 2) ** 2 + (a - y[:-1]) ** 2)
    return optx.minimise(objective, optx.BFGS(rtol=1e-6, atol=1e-6), jnp.zeros(3),
                         args=scale).value
  np.testing.assert_allclose(jax.jit(minimum)(1.5), [1.2656445503234863, 1.5925936698913574,
                                                     2.5363523960113525], rtol=1e-5)
  np.testing.assert_allclose(jax.jacfwd(minimum)(1.5), [0.47089576721191406, 1.1745169162750244,
                                                        3.7410566806793213], rtol=1e-4)

  mk, vk = jr.split(jr.PRNGKey(0))
  matrix, vector = jr.normal(mk, (10, 8)), jr.normal(vk, (10,))
  x = lx.linear_solve(lx.MatrixLinearOperator(matrix), vector, solver=lx.QR()).value
  np.testing.assert_allclose(x, [-0.9001689553260803, 0.014176682569086552, 1.1072425842285156,
                                 -0.11275369673967361, 0.5766700506210327, 0.30868738889694214,
                                 0.6622522473335266, 0.4402996897697449], rtol=1e-5)
  spd = matrix.T @ matrix + jnp.eye(8)
  y = lx.linear_solve(lx.MatrixLinearOperator(spd, lx.positive_semidefinite_tag), vector[:8],
                      solver=lx.Cholesky()).value
  np.testing.assert_allclose(y[:4], [-0.3461509346961975, -0.27098798751831055,
                                     0.11205585300922394, -0.04896552488207817], rtol=1e-5)
  g = jax.grad(lambda m: lx.linear_solve(lx.MatrixLinearOperator(m), vector[:8]).value.sum())(spd)
  np.testing.assert_allclose(g[0, :4], [-0.006533888168632984, -0.0051151239313185215,
                                        0.002115147653967142, -0.0009242651285603642], rtol=1e-4)


# ---------------------------------------------------------------------------------------
# tinygp 0.3.1: a Matern-5/2 Gaussian process in float64 (log likelihood, conditioning,
# gradient of the likelihood in the hyperparameters, a sample)

def test_tinygp_gaussian_process():
  tinygp, jax = library("tinygp", "jax")
  jnp = jax.numpy
  jax.config.update("jax_enable_x64", True)
  try:
    random = np.random.default_rng(42)
    t = np.sort(np.append(random.uniform(0, 3.8, 28), random.uniform(5.5, 10, 18)))
    yerr = random.uniform(0.08, 0.22, len(t))
    y = 0.2 * (t - 5) + np.sin(3 * t + 0.1 * (t - 5) ** 2) + yerr * random.normal(size=len(t))

    def build(params):
      kernel = jnp.exp(params["log_amp"]) * tinygp.kernels.Matern52(
          scale=jnp.exp(params["log_scale"]))
      return tinygp.GaussianProcess(kernel, t, diag=yerr ** 2, mean=params["mean"])

    params = {"log_amp": np.log(1.5), "log_scale": np.log(1.5), "mean": 0.1}
    gp = build(params)
    np.testing.assert_allclose(gp.log_probability(y), -46.04186728837164, rtol=1e-12)
    _, cond = gp.condition(y, np.linspace(0, 10, 5))
    np.testing.assert_allclose(cond.loc, [-0.3292151269907294, 0.418139568098409,
                                          -1.2615603305518774, -0.26514245681027016,
                                          1.3193850202538777], rtol=1e-12)
    np.testing.assert_allclose(cond.variance, [0.028148917491455983, 0.00438205168383532,
                                               0.308923282486782, 0.00544408755668635,
                                               0.04831931835473413], rtol=1e-10)
    grad = jax.jit(jax.grad(lambda p: -build(p).log_probability(y)))(params)
    np.testing.assert_allclose([grad["log_amp"], grad["log_scale"], grad["mean"]],
                               [-40.54863366307417, 162.26271693559312, -0.33050011136225166],
                               rtol=1e-12)
    np.testing.assert_allclose(gp.sample(jax.random.PRNGKey(0))[:3],
                               [-0.15361407705068317, -0.30429069331786207,
                                0.16102323459856696], rtol=1e-10)
  finally:
    jax.config.update("jax_enable_x64", False)


# ---------------------------------------------------------------------------------------
# flax 0.12.8 linen: an MLP trained with optax's adam under jit

def test_flax_linen_mlp_with_optax():
  nn, optax, jax = library("flax.linen", "optax", "jax")
  jnp = jax.numpy

  class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
      return nn.Dense(1)(nn.relu(nn.Dense(16)(x)))

  x = jax.random.normal(jax.random.key(0), (32, 4))
  y = jnp.sin(x.sum(1, keepdims=True))
  model = MLP()
  params = model.init(jax.random.key(1), x)
  tx = optax.adam(1e-2)
  opt_state = tx.init(params)

  @jax.jit
  def step(state):
    params, opt_state = state
    loss, g = jax.value_and_grad(lambda p: jnp.mean((model.apply(p, x) - y) ** 2))(params)
    updates, opt_state = tx.update(g, opt_state)
    return (optax.apply_updates(params, updates), opt_state), loss

  losses = training_losses(step, (params, opt_state), 20)
  np.testing.assert_allclose([losses[0], losses[9], losses[19]],
                             [0.8128836154937744, 0.37166720628738403, 0.25876492261886597],
                             rtol=1e-6)


# ---------------------------------------------------------------------------------------
# flax 0.12.8 nnx: an MLP (Linear, BatchNorm, Dropout) trained with nnx.Optimizer(optax.adam)
# under nnx.jit and nnx.value_and_grad; then eval mode, split/merge and state
# (values re-taken from JAX 0.10.2 on 2026-12-02, on an AMD EPYC: the earlier recording's
# eval-mode values differed by 3% from what JAX gives with these pins now; xjax's are JAX's)

def test_flax_linen_scan_rnn():
  # nn.scan builds ShapedArrays with JAX's sharding= keyword and reads jax.version
  nn, jax = library("flax.linen", "jax")
  jnp = jax.numpy

  class Cell(nn.Module):
    @nn.compact
    def __call__(self, c, x):
      h = nn.tanh(nn.Dense(4)(jnp.concatenate([c, x], -1)))
      return h, h

  class RNN(nn.Module):
    @nn.compact
    def __call__(self, xs):
      scan = nn.scan(Cell, variable_broadcast="params", split_rngs={"params": False})
      return scan()(jnp.zeros(4), xs)

  xs = jnp.ones((5, 3))
  params = RNN().init(jax.random.key(0), xs)
  carry, ys = RNN().apply(params, xs)
  assert ys.shape == (5, 4)
  np.testing.assert_allclose(float(carry.sum()), 0.9798634052276611, rtol=1e-6)  # JAX 0.10.2


def test_flax_nnx_mlp_with_optax():
  nnx, optax, jax = library("flax.nnx", "optax", "jax")
  jnp = jax.numpy

  class MLP(nnx.Module):
    def __init__(self, din, dmid, dout, *, rngs):
      self.linear1 = nnx.Linear(din, dmid, rngs=rngs)
      self.bn = nnx.BatchNorm(dmid, rngs=rngs)
      self.dropout = nnx.Dropout(0.2, rngs=rngs)
      self.linear2 = nnx.Linear(dmid, dout, rngs=rngs)

    def __call__(self, x):
      return self.linear2(nnx.relu(self.dropout(self.bn(self.linear1(x)))))

  model = MLP(4, 16, 1, rngs=nnx.Rngs(0))
  optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)
  x = jax.random.normal(jax.random.key(1), (32, 4))
  y = jnp.sin(x.sum(axis=1, keepdims=True))

  @nnx.jit
  def train_step(model, optimizer):
    loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
    optimizer.update(model, grads)
    return loss

  losses = training_losses(lambda s: (s, train_step(*s)), (model, optimizer), 10)
  np.testing.assert_allclose([losses[0], losses[4], losses[9]],
                             [2.3010542392730713, 1.1938879489898682, 0.6993247866630554],
                             rtol=1e-6)
  np.testing.assert_allclose(model.linear1.kernel[...][0, :3],
                             [0.5554248690605164, -0.40547382831573486, -0.312918484210968],
                             rtol=1e-6)
  assert int(optimizer.step[...]) == 10
  model.eval()
  eval_loss = float(jnp.mean((model(x) - y) ** 2))
  graphdef, state = nnx.split(model)
  merged = nnx.merge(graphdef, state)
  assert float(jnp.mean((merged(x) - y) ** 2)) == eval_loss
  np.testing.assert_allclose(eval_loss, 0.7564940452575684, rtol=1e-6)
  params = jax.tree.leaves(nnx.state(model, nnx.Param))
  np.testing.assert_allclose(float(sum(jnp.sum(p) for p in params)), 21.3914852142334,
                             rtol=1e-5)
  np.testing.assert_allclose(float(model.bn.mean[...].sum()), -0.0018019082490354776,
                             rtol=1e-5)


def test_flax_nnx_layers_and_transforms():
  nnx, jax = library("flax.nnx", "jax")
  jnp = jax.numpy
  rngs = nnx.Rngs(0)
  conv = nnx.Conv(3, 4, kernel_size=(3, 3), rngs=rngs)
  x = jax.random.normal(jax.random.key(2), (2, 8, 8, 3))
  layer_norm = nnx.LayerNorm(4, rngs=rngs)
  embed = nnx.Embed(10, 5, rngs=rngs)
  attention = nnx.MultiHeadAttention(num_heads=2, in_features=8, qkv_features=8,
                                     decode=False, rngs=rngs)
  q = jax.random.normal(jax.random.key(3), (2, 5, 8))
  np.testing.assert_allclose(
      [float(conv(x).sum()), float(layer_norm(conv(x)).std()),
       float(embed(jnp.array([1, 2, 3])).sum()), float(attention(q).sum())],
      [2.293407917022705, 0.9999986290931702, 1.3199034929275513, 2.205045700073242],
      rtol=1e-5)

  class Block(nnx.Module):
    def __init__(self, rngs):
      self.linear = nnx.Linear(4, 4, rngs=rngs)

    def __call__(self, x):
      return nnx.relu(self.linear(x))

  @nnx.split_rngs(splits=3)
  @nnx.vmap(in_axes=(0,), out_axes=0)
  def make_stack(rngs):
    return Block(rngs)

  @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
  def run(x, block):
    return block(x)

  stack = make_stack(nnx.Rngs(5))
  assert stack.linear.kernel.shape == (3, 4, 4)
  np.testing.assert_allclose(float(run(jnp.ones((2, 4)), stack).sum()), 0.060555003583431244,
                             rtol=1e-5)
  block = Block(nnx.Rngs(3))

  def loss(m, x):
    y = m(x)
    return (y ** 2).mean(), y.sum()
  (value, aux), grads = nnx.value_and_grad(loss, has_aux=True)(block, jnp.ones((2, 4)))
  checkpointed = nnx.remat(lambda m, x: m(x).sum())(block, jnp.ones((2, 4)))
  branch = nnx.cond(True, lambda m, x: m(x).sum(), lambda m, x: -m(x).sum(), block, jnp.ones(4))
  looped = nnx.fori_loop(0, 3, lambda i, c: (c[0], c[0](jnp.ones(4)).sum() + c[1]),
                         (block, jnp.zeros(())))[1]
  reference = [0.0012499919394031167, 0.1414209008216858, 0.1414209008216858,
               0.1414209008216858, 0.0707104504108429, 0.2121313512325287]   # JAX 0.10.2
  np.testing.assert_allclose([float(value), float(aux), float(grads.linear.kernel[...].sum()),
                              float(checkpointed), float(branch), float(looped)],
                             reference, rtol=1e-5)
  assert nnx.eval_shape(lambda: Block(nnx.Rngs(0))).linear.kernel.shape == (4, 4)


# ---------------------------------------------------------------------------------------
# dm-haiku 0.0.17: transform/apply of an MLP, its gradient under jit, BatchNorm state,
# dropout with an rng

def test_haiku_transform_apply():
  hk, jax = library("haiku", "jax")
  jnp = jax.numpy
  net = hk.without_apply_rng(hk.transform(lambda x: hk.nets.MLP([16, 1])(x)))
  x = jax.random.normal(jax.random.key(0), (8, 4))
  params = net.init(jax.random.PRNGKey(42), x)
  assert sorted((k, v["w"].shape) for k, v in params.items()) == [
      ("mlp/~/linear_0", (4, 16)), ("mlp/~/linear_1", (16, 1))]
  np.testing.assert_allclose(net.apply(params, x)[:3, 0], [
      -0.042945802211761475, -0.17293007671833038, 0.057693541049957275], rtol=1e-6)
  g = jax.jit(jax.grad(lambda p: jnp.mean(net.apply(p, x) ** 2)))(params)
  np.testing.assert_allclose([g["mlp/~/linear_0"]["w"].sum(), g["mlp/~/linear_1"]["b"][0]],
                             [0.04941814765334129, 0.09304947406053543], rtol=1e-5)

  def batchnormed(x):
    bn = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.9)
    return bn(hk.Linear(3)(x), is_training=True)
  stateful = hk.transform_with_state(batchnormed)
  p, s = stateful.init(jax.random.PRNGKey(1), x)
  out, s2 = stateful.apply(p, s, None, x)
  np.testing.assert_allclose(out[0], [-0.5205609202384949, 1.3886897563934326,
                                      -0.2748478949069977], rtol=1e-5)
  np.testing.assert_allclose(np.ravel(jax.tree.leaves(s2)[0])[:3], [
      -0.31265103816986084, -0.040975138545036316, -0.08053310215473175], rtol=1e-5)
  dropout = hk.transform(lambda x: hk.dropout(hk.next_rng_key(), 0.5, x))
  np.testing.assert_allclose(dropout.apply({}, jax.random.PRNGKey(3), x)[0],
                             [3.24528431892395, 0.0, -0.8671888709068298, 0.0], rtol=1e-6)


# ---------------------------------------------------------------------------------------
# jaxopt 0.8.5: L-BFGS and gradient descent on a regularised logistic regression, implicit
# differentiation of the solution, bisection

def test_jaxopt_solvers_and_implicit_differentiation():
  jaxopt, jax = library("jaxopt", "jax")
  jnp = jax.numpy
  x = np.random.default_rng(0).normal(size=(50, 5)).astype(np.float32)
  y = (x @ np.array([1., -2., 0.5, 0., 1.], np.float32) > 0).astype(np.float32)

  def loss(w, l2reg):
    logits = x @ w
    return jnp.mean(jnp.logaddexp(0., logits) - y * logits) + 0.5 * l2reg * jnp.sum(w ** 2)

  res = jaxopt.LBFGS(fun=loss, maxiter=50).run(jnp.zeros(5), l2reg=0.1)
  np.testing.assert_allclose(res.params, [0.19530372321605682, -1.2180134057998657,
                                          0.49957039952278137, -0.208225816488266,
                                          0.4867969751358032], rtol=1e-5)
  assert int(res.state.iter_num) == 5
  gd = jaxopt.GradientDescent(fun=loss, maxiter=30, stepsize=0.5).run(jnp.zeros(5), l2reg=0.1)
  np.testing.assert_allclose(gd.params, [0.19029881060123444, -1.2175999879837036,
                                         0.5008900761604309, -0.20946656167507172,
                                         0.4900266230106354], rtol=1e-5)
  dw = jax.jacobian(lambda l: jaxopt.LBFGS(fun=loss, maxiter=50, tol=1e-6).run(
      jnp.zeros(5), l2reg=l).params)(0.1)
  np.testing.assert_allclose(dw, [-1.41566002368927, 5.77769136428833, -2.5157361030578613,
                                  0.7165907621383667, -2.2650301456451416], rtol=1e-4)
  root = jaxopt.Bisection(optimality_fun=lambda v: v ** 3 - 2., lower=0., upper=2.).run().params
  np.testing.assert_allclose(root, 1.2599220275878906, rtol=1e-6)


# ---------------------------------------------------------------------------------------
# jraph 0.0.6.dev0: a graph convolution (segment sums), its gradient, batching graphs

def test_jraph_gcn():
  jraph, jax = library("jraph", "jax")
  jnp = jax.numpy
  nodes = jnp.arange(12., dtype=jnp.float32).reshape(4, 3) / 10
  senders, receivers = jnp.array([0, 1, 2, 3, 0]), jnp.array([1, 2, 3, 0, 2])
  graph = jraph.GraphsTuple(nodes=nodes, edges=None, senders=senders, receivers=receivers,
                            n_node=jnp.array([4]), n_edge=jnp.array([5]), globals=None)
  w = jax.random.normal(jax.random.key(0), (3, 2))

  def net(w, graph):
    gcn = jraph.GraphConvolution(update_node_fn=lambda n: n @ w, add_self_edges=True)
    return gcn(graph).nodes
  np.testing.assert_allclose(net(w, graph), [[0.6069180965423584, 0.25483110547065735],
                                             [0.19737648963928223, -0.03753633052110672],
                                             [0.4922228753566742, 0.12548846006393433],
                                             [1.0157127380371094, 0.5286390781402588]],
                             rtol=1e-6)
  grad = jax.jit(jax.grad(lambda w: jnp.sum(net(w, graph) ** 2)))(w)
  np.testing.assert_allclose(grad, [[2.4907166957855225, 1.1032605171203613],
                                    [2.953153610229492, 1.277317762374878],
                                    [3.415590286254883, 1.4513752460479736]], rtol=1e-6)
  batched = jraph.batch([graph, graph])
  np.testing.assert_array_equal(batched.n_node, [4, 4])
  np.testing.assert_allclose(net(w, batched).sum(), 6.367304801940918, rtol=1e-6)
  np.testing.assert_allclose(jraph.segment_mean(nodes[:, 0], receivers[:4], 4),
                             [0.9000000357627869, 0.0, 0.30000001192092896, 0.6000000238418579])


# ---------------------------------------------------------------------------------------
# distrax 0.1.9 (on tfp-nightly's JAX backend): sampling, log densities, KL, a transformed
# distribution through a bijector chain, a gradient, a categorical

def test_distrax_distributions_and_bijectors():
  distrax, jax = library("distrax", "jax")
  jnp = jax.numpy
  key = jax.random.PRNGKey(1234)
  mu, sigma = jnp.array([-1., 0., 1.]), jnp.array([0.1, 0.2, 0.3])
  dist = distrax.MultivariateNormalDiag(mu, sigma)
  samples = dist.sample(seed=key)
  np.testing.assert_allclose(samples, [-0.8896898627281189, 0.17261245846748352,
                                       0.898395299911499], rtol=1e-6)
  np.testing.assert_allclose(dist.log_prob(samples), 1.3209729194641113, rtol=1e-6)
  np.testing.assert_allclose(dist.entropy(), -0.8591804504394531, rtol=1e-6)
  np.testing.assert_allclose(dist.kl_divergence(distrax.MultivariateNormalDiag(mu + 1, sigma * 2)),
                             17.96833038330078, rtol=1e-6)
  flow = distrax.Transformed(distrax.Normal(0., 1.),
                             distrax.Chain([distrax.ScalarAffine(1., 2.), distrax.Tanh()]))
  x, lp = flow.sample_and_log_prob(seed=key, sample_shape=(3,))
  np.testing.assert_allclose(x, [2.6032209396362305, 2.3956642150878906, 0.34739887714385986],
                             rtol=1e-6)
  np.testing.assert_allclose(lp, [-1.1916608810424805, -1.3171037435531616,
                                  -1.5568609237670898], rtol=1e-6)
  assert float(jax.grad(lambda m: distrax.Normal(m, 1.).log_prob(2.))(0.5)) == 1.5
  cat = distrax.Categorical(logits=jnp.array([0.1, 0.5, -0.2]))
  np.testing.assert_array_equal(cat.sample(seed=key, sample_shape=(5,)), [1, 0, 0, 1, 1])
  np.testing.assert_allclose(cat.probs, [0.30934441089630127, 0.46148762106895447,
                                         0.22916798293590546], rtol=1e-6)


# ---------------------------------------------------------------------------------------
# equinox 0.13.8: an MLP trained with filter_jit / filter_value_and_grad

def test_equinox_mlp():
  eqx, jax = library("equinox", "jax")
  jnp = jax.numpy
  mkey, dkey = jax.random.split(jax.random.PRNGKey(0))
  model = eqx.nn.MLP(in_size=2, out_size=1, width_size=8, depth=2, key=mkey)
  x = jax.random.normal(dkey, (16, 2))
  y = jnp.sin(x[:, :1])

  @eqx.filter_jit
  def step(model):
    loss, grads = eqx.filter_value_and_grad(
        lambda m: jnp.mean((jax.vmap(m)(x) - y) ** 2))(model)
    return eqx.apply_updates(model, jax.tree.map(lambda g: -0.1 * g, grads)), loss

  losses = training_losses(step, model, 10)
  np.testing.assert_allclose([losses[0], losses[4], losses[9]],
                             [0.29802435636520386, 0.24692176282405853, 0.20200727880001068],
                             rtol=1e-6)


# ---------------------------------------------------------------------------------------
# jaxtyping 0.3.11: shape-annotated array types checked by isinstance under jaxtyped

def test_jaxtyping_shape_checks():
  jaxtyping, jax = library("jaxtyping", "jax")
  jnp = jax.numpy
  Array, Float, Int, Shaped = jaxtyping.Array, jaxtyping.Float, jaxtyping.Int, jaxtyping.Shaped

  def matmul(x, y):
    with jaxtyping.jaxtyped("context"):
      assert isinstance(x, Float[Array, "dim1 dim2"])
      assert isinstance(y, Float[Array, "dim2 dim3"])
      out = x @ y
      assert isinstance(out, Float[Array, "dim1 dim3"])
      return out
  assert matmul(jnp.ones((2, 3)), jnp.ones((3, 4))).shape == (2, 4)
  with pytest.raises(AssertionError):
    matmul(jnp.ones((2, 3)), jnp.ones((4, 4)))
  assert jax.jit(matmul)(jnp.ones((2, 3)), jnp.ones((3, 4))).shape == (2, 4)
  assert isinstance(jnp.zeros(3, jnp.int32), Int[Array, "3"])
  assert not isinstance(jnp.zeros(3), Int[Array, "3"])
  assert isinstance(jnp.zeros((2, 3)), Shaped[Array, "_ 3"])
  assert isinstance({"a": jnp.ones(2)}, jaxtyping.PyTree[Float[Array, "2"]])
