"""The third-party libraries' own quickstarts, written as each README shows them, run on
xjax through the `jax` import redirection, with the numbers JAX 0.10.2 gives (same seeds,
same draws: random is bit-exact). Long chaotic computations (MCMC chains) follow the
reference to float32 rounding for their first steps, so those are kept short.

They run in the ecosystem venv (`make ecosystem`, or
`.ecosystem/venv/bin/python -m xjax -m pytest tests/test_ecosystem_quickstarts.py`) and are
skipped where a library is not installed (the project's own .venv).
"""
import importlib
import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.ecosystem


def library(*names):
  """Imports the library (the first name) and its companions, or skips when one is not
  installed; once any is, `import jax` must give xjax or the reference JAX."""
  for name in names:
    if importlib.util.find_spec(name.split(".")[0]) is None:
      pytest.skip(f"{name} is not installed (run in the ecosystem venv: make ecosystem)")
  if importlib.util.find_spec("jax") is None:
    import xjax
    xjax.install_as_jax()
  return [importlib.import_module(name) for name in names]


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
