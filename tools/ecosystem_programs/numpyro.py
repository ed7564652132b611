"""numpyro: a regression model's prior predictive, log density, and NUTS (short chain)."""
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS, Predictive
from numpyro.infer.util import log_density


def model(x, y=None):
  a = numpyro.sample("a", dist.Normal(0.0, 1.0))
  b = numpyro.sample("b", dist.Normal(0.0, 1.0))
  sigma = numpyro.sample("sigma", dist.Exponential(1.0))
  numpyro.sample("y", dist.Normal(a + b * x, sigma), obs=y)


def run():
  x = jnp.linspace(-1.0, 1.0, 10)
  prior = Predictive(model, num_samples=3)(jax.random.PRNGKey(0), x)
  y = 0.5 + 2.0 * x
  logp, _ = log_density(model, (x, y), {}, {"a": 0.4, "b": 1.9, "sigma": 0.3})
  mcmc = MCMC(NUTS(model), num_warmup=5, num_samples=3, progress_bar=False)
  mcmc.run(jax.random.PRNGKey(1), x, y)
  samples = mcmc.get_samples()
  return {"prior_a": prior["a"], "prior_y0": prior["y"][:, 0], "log_density": logp,
          "b": samples["b"]}
