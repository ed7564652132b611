"""qdax: MAP-Elites on the Rastrigin function (its README's quality-diversity loop): an
isoline-variation emitter, a CVT-free grid repertoire, ten jitted updates."""
import functools

import jax
from qdax.core.containers.mapelites_repertoire import compute_euclidean_centroids
from qdax.core.emitters.mutation_operators import isoline_variation
from qdax.core.emitters.standard_emitters import MixingEmitter
from qdax.core.map_elites import MAPElites
from qdax.tasks.standard_functions import rastrigin_scoring_function
from qdax.utils.metrics import default_qd_metrics


def run():
  key, sub = jax.random.split(jax.random.key(0))
  init = jax.random.uniform(sub, (16, 4), minval=-5.12, maxval=5.12)
  variation = functools.partial(isoline_variation, iso_sigma=0.05, line_sigma=0.1,
                                minval=-5.12, maxval=5.12)
  emitter = MixingEmitter(mutation_fn=None, variation_fn=variation, variation_percentage=1.0,
                          batch_size=16)
  algorithm = MAPElites(scoring_function=rastrigin_scoring_function, emitter=emitter,
                        metrics_function=functools.partial(default_qd_metrics,
                                                           qd_offset=4 * 5.12 ** 2 * 10))
  centroids = compute_euclidean_centroids(grid_shape=(10, 10), minval=-10.24, maxval=10.24)
  key, sub = jax.random.split(key)
  repertoire, state, metrics = algorithm.init(init, centroids, sub)
  update = jax.jit(algorithm.update)
  for _ in range(10):
    key, sub = jax.random.split(key)
    repertoire, state, metrics = update(repertoire, state, sub)
  return {name: metrics[name] for name in ("coverage", "max_fitness", "qd_score")}
