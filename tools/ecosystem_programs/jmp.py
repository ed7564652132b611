"""jmp (DeepMind's mixed precision): a bfloat16-compute policy around a linear layer, and a
dynamic loss scale scaling, unscaling and adjusting its gradients (its README's recipe)."""
import jax
import jax.numpy as jnp
import jmp


def run():
  policy = jmp.get_policy("params=float32,compute=bfloat16,output=float32")
  params = {"w": jnp.ones((3, 4)) * 0.5, "b": jnp.arange(4.0)}
  x = jnp.linspace(-1, 1, 6).reshape(2, 3)

  def f(p, x):
    p, x = policy.cast_to_compute((p, x))
    return policy.cast_to_output(x @ p["w"] + p["b"])
  scale = jmp.DynamicLossScale(jnp.float32(2 ** 15))
  grads = scale.unscale(jax.grad(lambda p: scale.scale(f(p, x).sum()))(params))
  finite = jmp.all_finite(grads)
  return {"out": f(params, x), "out_dtype": str(f(params, x).dtype), "grad_w": grads["w"],
          "grad_b": grads["b"], "finite": finite,
          "next_scale": scale.adjust(finite).loss_scale, "half": str(jmp.half_dtype())}
