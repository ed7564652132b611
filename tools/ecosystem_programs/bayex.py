"""bayex: the README's Bayesian optimisation of a 1-D function over a Real domain (a GP fitted
on the evaluations, the expected-improvement acquisition maximised from a JAX PRNG key)."""
import jax
import numpy as np
import bayex


def f(x):
  return -(1.4 - 3 * x) * np.sin(18 * x)


def run():
  domain = {"x": bayex.domain.Real(0.0, 2.0)}
  optimizer = bayex.Optimizer(domain=domain, maximize=True, acq="EI")
  params = {"x": [0.0, 0.5, 1.0]}
  opt_state = optimizer.init([f(x) for x in params["x"]], params)
  ori_key = jax.random.key(42)
  sampled = []
  for step in range(4):  # (a 5th suggestion does not finish on JAX 0.10.2)
    key = jax.random.fold_in(ori_key, step)
    new_params = optimizer.sample(key, opt_state)
    sampled.append(new_params["x"])
    opt_state = optimizer.fit(opt_state, f(**new_params), new_params)
  return {"sampled": sampled, "best_score": opt_state.best_score,
          "best_x": opt_state.best_params["x"]}
