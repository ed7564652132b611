"""evosax: CMA-ES ask/tell on a sphere function."""
import jax
import jax.numpy as jnp
from evosax.algorithms import CMA_ES


def run():
  es = CMA_ES(population_size=8, solution=jnp.zeros(3))
  params = es.default_params
  key = jax.random.PRNGKey(0)
  state = es.init(key, jnp.full(3, 2.0), params)
  best = []
  for i in range(10):
    key, key_ask, key_tell = jax.random.split(key, 3)
    population, state = es.ask(key_ask, state, params)
    fitness = jnp.sum(population ** 2, axis=1)
    state, metrics = es.tell(key_tell, population, fitness, state, params)
    best.append(state.best_fitness)
  return {"best": best, "mean": state.mean}
