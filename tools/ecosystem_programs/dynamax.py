"""dynamax: a linear Gaussian state-space model: sample, marginal log-likelihood, smoother."""
import jax.numpy as jnp
import jax.random as jr
from dynamax.linear_gaussian_ssm import LinearGaussianSSM


def run():
  model = LinearGaussianSSM(state_dim=2, emission_dim=1)
  params, props = model.initialize(jr.PRNGKey(0))
  states, emissions = model.sample(params, jr.PRNGKey(1), num_timesteps=20)
  posterior = model.smoother(params, emissions)
  return {"emissions": emissions[:5, 0], "marginal_log_prob": model.marginal_log_prob(params, emissions),
          "smoothed": posterior.smoothed_means[-1], "filtered_ll": posterior.marginal_loglik}
