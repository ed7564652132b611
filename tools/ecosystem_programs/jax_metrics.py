"""jax-metrics: the README's training setup: a linear softmax classifier whose jitted step
computes the Crossentropy loss and updates Metrics (Accuracy, and the mean absolute error of
the softmax against one-hot targets through rename_arguments) as a pytree carried through
jax.grad's aux output, accumulated over batches, then reset; plus the standalone losses."""
import jax
import jax.numpy as jnp
import jax_metrics as jm


def run():
  key_x, key_w = jax.random.split(jax.random.PRNGKey(0))
  x = jax.random.normal(key_x, (4, 16, 3))
  y = jnp.argmax(x @ jnp.array([[1.0, -1.0, 0.5], [0.2, 1.0, -1.0], [-0.5, 0.3, 1.0]]), -1)
  params = {"w": 0.1 * jax.random.normal(key_w, (3, 3)), "b": jnp.zeros(3)}
  crossentropy = jm.losses.Crossentropy()
  metrics = jm.Metrics({"accuracy": jm.metrics.Accuracy(),
                        "mae": jm.metrics.MeanAbsoluteError().rename_arguments(target="onehot",
                                                                               preds="probs")})
  metrics = metrics.reset()

  def loss_fn(params, metrics, x, y):
    logits = x @ params["w"] + params["b"]
    metrics = metrics.update(target=y, preds=logits, onehot=jax.nn.one_hot(y, 3),
                             probs=jax.nn.softmax(logits))
    return crossentropy(target=y, preds=logits), metrics

  @jax.jit
  def train_step(params, metrics, x, y):
    grads, metrics = jax.grad(loss_fn, has_aux=True)(params, metrics, x, y)
    params = jax.tree.map(lambda p, g: p - 0.5 * g, params, grads)
    return params, metrics

  for i in range(4):
    params, metrics = train_step(params, metrics, x[i], y[i])
  logits = x[0] @ params["w"] + params["b"]
  return {**dict(sorted(metrics.compute().items())), "w": params["w"],
          "after_reset": metrics.reset().compute()["accuracy"],
          "crossentropy": jm.losses.Crossentropy()(target=y[0], preds=logits),
          "mse": jm.losses.MeanSquaredError()(target=jax.nn.one_hot(y[0], 3), preds=logits),
          "huber": jm.losses.Huber()(target=jax.nn.one_hot(y[0], 3), preds=logits)}
