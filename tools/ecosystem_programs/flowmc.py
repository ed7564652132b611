"""flowMC: normalizing-flow-enhanced MCMC (the RQSpline + MALA bundle, as its quickstart)
on a correlated 2-d Gaussian: a short training and production run, read from its buffers."""
import jax
import jax.numpy as jnp
from flowMC.resource_strategy_bundle.RQSpline_MALA import RQSpline_MALA_Bundle
from flowMC.Sampler import Sampler

TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}


def log_posterior(x, data):
  cov = jnp.array([[1.0, 0.6], [0.6, 2.0]])
  return -0.5 * x @ jnp.linalg.solve(cov, x) + 0.0 * data["offset"]


def run():
  n_chains, n_dims = 8, 2
  key = jax.random.PRNGKey(42)
  key, subkey = jax.random.split(key)
  initial = jax.random.normal(subkey, (n_chains, n_dims))
  bundle = RQSpline_MALA_Bundle(
      key, n_chains, n_dims, log_posterior, n_local_steps=10, n_global_steps=5,
      n_training_loops=2, n_production_loops=2, n_epochs=3, rq_spline_hidden_units=(8, 8),
      rq_spline_n_layers=2, batch_size=64, n_max_examples=200, n_NFproposal_batch_size=64)
  sampler = Sampler(n_dim=n_dims, n_chains=n_chains, rng_key=key, resource_strategy_bundles=bundle,
                    checkpoint_interval=0.0)
  sampler.sample(initial, {"offset": jnp.zeros(())})
  r = sampler.resources
  return {"positions": r["positions_production"].data, "log_prob": r["log_prob_production"].data,
          "local_acc": r["local_accs_production"].data, "loss": r["loss_buffer"].data}
