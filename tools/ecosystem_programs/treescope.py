"""treescope: render a pytree of jax arrays (with array summaries) to text."""
import jax.numpy as jnp
import treescope


def run():
  tree = {"weights": jnp.arange(6.0).reshape(2, 3), "bias": jnp.zeros(3, jnp.int32),
          "flag": jnp.array(True)}
  text = treescope.render_to_text(tree)
  summary = treescope.render_to_text(jnp.linspace(0.0, 1.0, 5))
  return {"text": text, "summary": summary}
