"""evermore: the README's binned likelihood (a signal strength and an asymmetric log-normal
systematic on two histograms, Poisson NLL plus parameter constraints, in 64 bits), its
nnx.grad, and a few jitted gradient-descent steps on the dynamic parameters."""
from typing import NamedTuple

import jax
import jax.numpy as jnp
from flax import nnx
import evermore as evm

jax.config.update("jax_enable_x64", True)


def model(params, hists):
  mu_modifier = params.mu.scale()
  syst_modifier = params.syst.scale_log_asymmetric(up=1.1, down=0.9)
  return mu_modifier(hists["signal"]) + syst_modifier(hists["bkg"])


def loss(dynamic, args):
  graphdef, static, hists, observation = args
  params = nnx.merge(graphdef, dynamic, static)
  expectation = model(params, hists)
  log_likelihood = evm.pdf.PoissonContinuous(lamb=expectation).log_prob(observation).sum()
  log_likelihood += evm.util.sum_over_leaves(evm.loss.get_log_probs(params))
  return -jnp.sum(log_likelihood)


class Params(NamedTuple):
  mu: evm.Parameter
  syst: evm.NormalParameter


def run():
  hists = {"signal": jnp.array([3.0, 5.0]), "bkg": jnp.array([10.0, 7.0])}
  observation = jnp.array([15.0, 11.0])
  params = Params(mu=evm.Parameter(1.0), syst=evm.NormalParameter(0.0))
  graphdef, dynamic, static = nnx.split(params, evm.filter.is_dynamic_parameter, ...)
  args = (graphdef, static, hists, observation)
  grads = nnx.grad(loss)(dynamic, args)

  @jax.jit
  def step(dynamic):
    g = jax.grad(loss)(dynamic, args)
    return jax.tree.map(lambda p, d: p - 0.05 * d, dynamic, g)

  fitted = dynamic
  for _ in range(20):
    fitted = step(fitted)
  best = nnx.merge(graphdef, fitted, static)
  return {"loss": loss(dynamic, args), "grad_mu": grads["mu"].value,
          "grad_syst": grads["syst"].value, "fitted_mu": best.mu.value,
          "fitted_syst": best.syst.value, "fitted_loss": loss(fitted, args),
          "expectation": model(best, hists)}
