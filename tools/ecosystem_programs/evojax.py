"""evojax: PGPE and CMA-ES (its JAX port) minimising a shifted sphere with ask/tell."""
import jax.numpy as jnp
from evojax.algo import CMA_ES_JAX, PGPE


def run():
  out = {}
  for name, algo in (("pgpe", PGPE(pop_size=16, param_size=5, optimizer="adam", seed=0)),
                     ("cma_es", CMA_ES_JAX(pop_size=16, param_size=5, seed=0))):
    for _ in range(20):
      population = algo.ask()
      algo.tell(-jnp.sum((population - 1.0) ** 2, axis=1))
    out[name] = algo.best_params
  return out
