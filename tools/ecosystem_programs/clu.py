"""clu: a metrics.Collection (Accuracy, Average of the loss) merged over jitted eval steps
and gathered in a pmap, as clu.metrics' synopsis teaches; parameter_overview of a flax
model's parameters. (metrics.Std is left out: its compute calls jnp.clip(a_min=),
which JAX 0.10.2 no longer takes.)"""
import functools

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
from clu import metrics, parameter_overview


@flax.struct.dataclass
class MyCollection(metrics.Collection):
  accuracy: metrics.Accuracy
  loss: metrics.Average.from_output("loss")


def run():
  model = nn.Dense(3)
  variables = model.init(jax.random.PRNGKey(0), jnp.ones((1, 4)))

  def outputs(inputs, labels):
    logits = model.apply(variables, inputs)
    loss = -jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, 3), axis=-1)
    return loss, logits

  @jax.jit
  def eval_step(collection, inputs, labels):
    loss, logits = outputs(inputs, labels)
    return collection.merge(MyCollection.single_from_model_output(
        loss=loss, logits=logits, labels=labels))

  @functools.partial(jax.pmap, axis_name="batch")
  def gathered(inputs, labels):
    loss, logits = outputs(inputs, labels)
    return MyCollection.gather_from_model_output(loss=loss, logits=logits, labels=labels)

  collection = MyCollection.empty()
  key = jax.random.PRNGKey(1)
  for _ in range(3):
    key, k1, k2 = jax.random.split(key, 3)
    inputs, labels = jax.random.normal(k1, (8, 4)), jax.random.randint(k2, (8,), 0, 3)
    collection = eval_step(collection, inputs, labels)
  computed = collection.compute()
  per_device = gathered(inputs[None], labels[None]).unreplicate().compute()
  return {**{k: v for k, v in computed.items()},
          **{"gathered_" + k: v for k, v in per_device.items()},
          "parameter_count": parameter_overview.count_parameters(variables["params"])}
