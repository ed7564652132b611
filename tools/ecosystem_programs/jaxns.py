"""jaxns: the README's linear-regression model: priors from TFP distributions, a sanity check,
and a nested-sampling run with its evidence and posterior means."""
import jax
import jax.numpy as jnp
from jaxns.core import NestedSampler
from jaxns.model import Model
from jaxns.priors import Prior
from tensorflow_probability.substrates import jax as tfp

tfpd = tfp.distributions
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


def prior_model(predictor, observations, measurement_uncertainty):
  intercept = Prior(tfpd.Normal(loc=0.0, scale=1.0), name="intercept").realise()
  slope = Prior(tfpd.Normal(loc=0.0, scale=2.0), name="slope").realise()
  prediction = intercept + slope * predictor
  return jnp.sum(tfpd.Normal(loc=prediction, scale=measurement_uncertainty).log_prob(observations))


def run():
  model = Model(prior_model=prior_model)
  args = (jnp.linspace(0.0, 1.0, 6), jnp.asarray([0.15, 0.32, 0.83, 1.08, 1.52, 1.77]),
          jnp.asarray(0.15))
  model.sanity_check(key=jax.random.PRNGKey(1), args=args)
  state = NestedSampler(model=model).run(key=jax.random.PRNGKey(6), args=args)
  results = state.to_result().trim()
  return {"log_Z_mean": results.log_Z_mean, "log_Z_uncert": results.log_Z_uncert}
