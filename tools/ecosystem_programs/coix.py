"""coix: inference combinators on its NumPyro backend: a conjugate normal model and a guide,
in a particle plate, composed by coix.algo.svi_iwae and coix.algo.rws (traced evaluation:
ESS, loss, log weights), then a short jitted training with coix.util.train and optax."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import optax
import coix

DATA = np.array([[0.3, -1.2], [1.1, 0.4], [-0.5, 0.9], [0.8, -0.1]], np.float32)


def model(params):
  del params
  z = numpyro.sample("z", dist.Normal(jnp.zeros(2), 2.0).to_event(1))
  x_loc = jnp.broadcast_to(z[..., None, :], z.shape[:-1] + DATA.shape)
  numpyro.sample("x", dist.Normal(x_loc, 1.0).to_event(2), obs=DATA)
  return z


def guide(params, *args):
  del args
  scale = jnp.exp(params["log_scale"])
  return numpyro.sample("z", dist.Normal(params["loc"], scale).to_event(1))


def particles(fn):
  def in_plate(*args):
    with numpyro.plate("particle", 6, dim=-1):
      return fn(*args)
  return in_plate


def program(make, params):
  return make(particles(functools.partial(model, params)),
              particles(functools.partial(guide, params)))


def run():
  coix.set_backend("coix.numpyro")
  params = {"loc": jnp.zeros(2), "log_scale": jnp.zeros(2)}
  key = jax.random.PRNGKey(0)
  _, trace, metrics = coix.traced_evaluate(program(coix.algo.svi_iwae, params), seed=key)()
  _, _, rws_metrics = coix.traced_evaluate(program(coix.algo.rws, params), seed=key)()

  def loss_fn(params, key):
    metrics = coix.traced_evaluate(program(coix.algo.svi_iwae, params), seed=key)()[2]
    return metrics["loss"], metrics

  trained, _ = coix.util.train(loss_fn, params, optax.adam(0.05), num_steps=60, log_every=1000)
  return {"z": trace["z"]["value"], "z_log_prob": trace["z"]["log_prob"],
          "ess": metrics["ess"], "iwae_loss": metrics["loss"],
          "log_weight": metrics["log_weight"], "rws_loss": rws_metrics["loss"],
          "loc": trained["loc"], "log_scale": trained["log_scale"]}
