"""quax: the README's LoRA array and a custom array type dispatched through quax.quaxify."""
import equinox as eqx
import jax
import jax.numpy as jnp
import quax
import quax.examples.lora as lora


def run():
  key1, key2 = jax.random.split(jax.random.PRNGKey(0))
  linear = eqx.nn.Linear(4, 3, key=key1)
  lora_linear = lora.loraify(linear, rank=2, key=key2)
  x = jnp.arange(4.0)
  out = quax.quaxify(lora_linear)(x)
  grads = jax.grad(lambda m: jnp.sum(quax.quaxify(m)(x) ** 2))(lora_linear)
  jitted = eqx.filter_jit(quax.quaxify(lora_linear))(x)
  return {"out": out, "jitted": jitted, "grad_bias": grads.bias,
          "grad_b": grads.weight.b}
