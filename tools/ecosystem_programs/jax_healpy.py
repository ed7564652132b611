"""jax-healpy: HEALPix pixel centres and their inverse, unit vectors and the nested scheme
under jit (healpy's API on JAX arrays, at nside=8)."""
import jax
import jax.numpy as jnp
import jax_healpy as hp


def run():
  nside = 8
  ipix = jnp.arange(hp.nside2npix(nside))
  theta, phi = hp.pix2ang(nside, ipix)
  nested = jax.jit(lambda t, p: hp.ang2pix(nside, t, p, nest=True))(theta, phi)
  return {"theta": theta[::37], "phi": phi[::37], "angle_sums": (theta.sum(), phi.sum()),
          "round_trip": (hp.ang2pix(nside, theta, phi) == ipix).all(),
          "vectors": jnp.stack(hp.pix2vec(nside, ipix[:12])), "nested": nested[::37],
          "nested_sum": nested.sum(), "resolution": hp.nside2resol(nside)}
