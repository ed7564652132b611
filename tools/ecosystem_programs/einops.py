"""einops: rearrange, reduce, repeat and einsum on jax arrays, jitted and differentiated."""
import jax
import jax.numpy as jnp
from einops import einsum, pack, rearrange, reduce, repeat


def run():
  images = jnp.arange(2 * 4 * 4 * 3, dtype=jnp.float32).reshape(2, 4, 4, 3)
  patches = jax.jit(lambda x: rearrange(x, "b (h p1) (w p2) c -> b (h w) (p1 p2 c)", p1=2, p2=2))(images)
  pooled = reduce(images, "b (h 2) (w 2) c -> b h w c", "max")
  tiled = repeat(jnp.arange(3.0), "c -> b c", b=2)
  grad = jax.grad(lambda x: reduce(x ** 2, "b h w c -> ", "sum"))(images[:1, :2, :2])
  packed, shapes = pack([jnp.ones((2, 3)), jnp.zeros((2, 1))], "b *")
  return {"patches_shape": list(patches.shape), "patches": patches[0, 1, :5], "pooled": pooled[1, :, :, 0],
          "tiled": tiled, "grad": grad.ravel()[:6], "packed": packed[0], "einsum": einsum(images, "b h w c -> b")}
