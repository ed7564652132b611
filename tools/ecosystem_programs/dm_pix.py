"""dm-pix: image augmentations (blur, flips, brightness, random crop) on jax arrays."""
import dm_pix as pix
import jax
import jax.numpy as jnp


def run():
  image = jnp.linspace(0.0, 1.0, 8 * 8 * 3).reshape(8, 8, 3)
  blurred = jax.jit(lambda im: pix.gaussian_blur(im, sigma=1.0, kernel_size=3))(image)
  flipped = pix.flip_left_right(image)
  bright = pix.adjust_brightness(image, 0.1)
  crop = pix.random_crop(jax.random.PRNGKey(0), image, (4, 4, 3))
  rotated = pix.rot90(image)
  ssim = pix.ssim(image, blurred)
  return {"blurred": blurred[3, :4, 0], "flipped": flipped[0, :3, 0], "bright": bright[7, 7],
          "crop": crop[0, :, 1], "rotated": rotated[0, :3, 2], "ssim": ssim,
          "hsv": pix.rgb_to_hsv(image)[2, 2]}
