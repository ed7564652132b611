"""jax-cosmo: the intro notebook: a Planck15 cosmology's comoving distances, angular C_ell for
a weak-lensing probe, a jitted Gaussian likelihood and
its gradient."""
import jax
import jax.numpy as np
import jax_cosmo as jc

TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}


def run():
  cosmo = jc.Planck15()
  a = np.linspace(0.01, 1.0, 5)
  chi = jax.jit(jc.background.radial_comoving_distance)(cosmo, a)
  nzs = [jc.redshift.smail_nz(1., 2., 1.), jc.redshift.smail_nz(1., 2., 0.5)]
  probes = [jc.probes.WeakLensing(nzs, sigma_e=0.26)]
  ell = np.logspace(1, 3, 4)
  cls = jax.jit(lambda c: jc.angular_cl.angular_cl(c, ell, probes))(cosmo)
  mu, _ = jax.jit(lambda c: jc.angular_cl.gaussian_cl_covariance_and_mean(
      c, ell, probes, sparse=True))(cosmo)

  def likelihood(p):
    cosmo = jc.Planck15(Omega_c=p[0], sigma8=p[1])
    m, C = jc.angular_cl.gaussian_cl_covariance_and_mean(cosmo, ell, probes, sparse=True)
    P = jc.sparse.inv(jax.lax.stop_gradient(C))
    r = mu - m
    return -0.5 * r.T @ jc.sparse.sparse_dot_vec(P, r)

  params = np.array([0.3, 0.8])
  value, grad = jax.jit(jax.value_and_grad(likelihood))(params)
  return {"chi": chi, "cls_first": cls[0], "likelihood": value, "grad": grad}
