"""augmax: the README's augmentation pipeline (RandomCrop, HorizontalFlip, Rotate) fused with
colour transforms (ByteToFloat, ColorJitter, Normalize) and a Gaussian blur, applied to a
synthetic uint8 image under jax.jit, to a batch under jax.jit(jax.vmap(...)), and to an
image with its segmentation mask (input_types), plus a geometric chain's inverse."""
import jax
import jax.numpy as jnp
import augmax


def image(size=48):
  y, x = jnp.meshgrid(jnp.arange(size), jnp.arange(size), indexing="ij")
  channels = [127 + 120 * jnp.sin(x / 5.0), 127 + 120 * jnp.cos(y / 7.0), (x * y) % 256]
  return jnp.stack(channels, axis=-1).astype(jnp.uint8)


def run():
  rng = jax.random.PRNGKey(27)
  img = image()
  transform = augmax.Chain(
      augmax.RandomCrop(32, 32),
      augmax.HorizontalFlip(),
      augmax.Rotate(),
      augmax.ByteToFloat(),
      augmax.ColorJitter(),
      augmax.Normalize(),
  )
  single = jax.jit(transform)(rng, img)
  images = jnp.stack([img, jnp.flip(img, 0), jnp.roll(img, 5, 1), 255 - img])
  batch = jax.jit(jax.vmap(transform))(jax.random.split(rng, 4), images)

  mask = (img[..., 0] > 127).astype(jnp.float32)
  paired = augmax.Chain(augmax.RandomSizedCrop(24, 24), augmax.Rotate90(), augmax.VerticalFlip(),
                        input_types=[augmax.InputType.IMAGE, augmax.InputType.MASK])
  aug_img, aug_mask = paired(jax.random.PRNGKey(3), [img.astype(jnp.float32) / 255, mask])
  blur = augmax.GaussianBlur(sigma=2, p=1.0)
  blurred, = blur(rng, [img.astype(jnp.float32) / 255])
  geometric = augmax.GeometricChain(augmax.Rotate((-20, 20)), augmax.Translate(3, -2))
  moved = geometric(rng, img.astype(jnp.float32))
  back = geometric.invert(rng, moved)
  return {"single_shape": list(single.shape), "single_mean": single.mean(),
          "single_pixels": single[::8, ::8, 0], "batch_means": batch.mean(axis=(1, 2, 3)),
          "batch_corner": batch[:, 0, 0], "aug_img": aug_img[::6, ::6, 1],
          "aug_mask_sum": aug_mask.sum(), "blurred": blurred[::12, ::12, 2],
          "moved": moved[::12, ::12, 0], "back_error": jnp.abs(back - img)[8:-8, 8:-8].mean()}
