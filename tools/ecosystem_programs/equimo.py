"""equimo: a small Vision Transformer (its models' building blocks in equinox) applied to an
image, vmapped over a batch, differentiated with filter_grad and run under filter_jit."""
import equinox as eqx
import equimo.models as em
import jax
import jax.numpy as jnp


def run():
  model = em.VisionTransformer(img_size=32, in_channels=3, dim=32, patch_size=8,
                               num_heads=[2], depths=[2], num_classes=10,
                               key=jax.random.PRNGKey(0))
  x = jax.random.normal(jax.random.PRNGKey(1), (3, 32, 32))
  logits = model(x, key=jax.random.PRNGKey(2), inference=True)
  batch = jax.vmap(lambda im: model(im, inference=True))(jnp.stack([x, -x]))
  loss = lambda m: jnp.sum(jax.vmap(lambda im: m(im, inference=True))(
      jnp.stack([x, 2 * x])) ** 2)
  grads = jax.tree.leaves(eqx.filter(eqx.filter_grad(loss)(model), eqx.is_array))
  jitted = eqx.filter_jit(lambda m, im: m(im, inference=True))(model, x)
  return {"logits": logits, "batch": batch, "grad_leaves": len(grads),
          "grad_abs_sum": sum(jnp.sum(jnp.abs(g)) for g in grads), "jitted": jitted}
