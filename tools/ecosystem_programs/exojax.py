"""exojax: its emission-spectrum workflow without a line database: a wavenumber grid, a
power-law temperature profile on an ArtEmisPure atmosphere, line-by-line Voigt cross sections
(LPF: doppler_sigma, gamma_exomol, line_strength, xsmatrix) of a few synthetic lines, the
layer optical depths and the intensity-based emission spectrum, its rotational and
instrumental broadening (SopRotation, SopInstProfile), a transmission spectrum (ArtTransPure),
and jax.grad of a fit's chi-square in the temperature and the abundance."""
import jax
import jax.numpy as jnp
import numpy as np
from exojax.database.core.broadening import doppler_sigma, gamma_exomol
from exojax.database.core.line_strength import line_strength
from exojax.opacity.lpf.lpf import xsmatrix
from exojax.opacity.lpf.make_numatrix import make_numatrix0
from exojax.postproc.specop import SopInstProfile, SopRotation
from exojax.rt import ArtEmisPure, ArtTransPure
from exojax.utils.grids import wavenumber_grid

MOLMASS = 28.0
LINES = np.array([4220.3, 4231.7, 4245.2, 4252.8, 4268.1, 4280.6])
LOGSIJ0 = np.log(np.array([3e-20, 1e-20, 5e-21, 2e-20, 8e-21, 1.5e-20]))
ELOWER = np.array([100.0, 400.0, 900.0, 250.0, 1500.0, 600.0])


def xs_matrix(nu_grid, temperature, pressure):
  numatrix = make_numatrix0(nu_grid, jnp.asarray(LINES))
  qt = (temperature / 296.0) ** 1.5
  sij = jax.vmap(line_strength, (0, None, None, None, 0, None))(
      temperature, LOGSIJ0, LINES, ELOWER, qt[:, None] * jnp.ones(len(LINES)), 296.0)
  sigma_d = jax.vmap(doppler_sigma, (None, 0, None))(LINES, temperature, MOLMASS)
  gamma_l = gamma_exomol(pressure, temperature, 0.5, 0.07)[:, None] * jnp.ones(len(LINES))
  return xsmatrix(numatrix, sigma_d, gamma_l, sij)


def run():
  nu_grid, wav, res = wavenumber_grid(4200.0, 4300.0, 1000, xsmode="lpf", unit="cm-1")
  art = ArtEmisPure(pressure_top=1e-5, pressure_btm=1e1, nlayer=40, nu_grid=nu_grid)
  gravity = 2478.57

  def spectrum(t0, mmr):
    temperature = art.powerlaw_temperature(t0, 0.1)
    xs = xs_matrix(nu_grid, temperature, art.pressure)
    dtau = art.opacity_profile_xs(xs, art.constant_mmr_profile(mmr), MOLMASS, gravity)
    return art.run(dtau, temperature), dtau

  flux, dtau = spectrum(1300.0, 0.01)
  rotation = SopRotation(nu_grid, vsini_max=100.0)
  rotated = rotation.rigid_rotation(flux, 30.0, 0.1, 0.1)
  inst = SopInstProfile(nu_grid, vrmax=100.0)
  observed = inst.ipgauss(rotated, 5.0)
  nu_obs = jnp.linspace(4210.0, 4290.0, 40)
  sampled = inst.sampling(observed, 10.0, nu_obs)

  def chi2(params):
    model = inst.sampling(inst.ipgauss(spectrum(params[0], params[1])[0], 5.0), 10.0, nu_obs)
    return jnp.sum(((model - sampled * 1.02) / (0.01 * sampled)) ** 2)

  trans = ArtTransPure(pressure_top=1e-5, pressure_btm=1e1, nlayer=40, nu_grid=nu_grid)
  t_trans = trans.powerlaw_temperature(1300.0, 0.1)
  radius = trans.run(dtau, t_trans, MOLMASS * jnp.ones(40), 7.1e9, gravity)
  return {"nu_grid": nu_grid[::100], "resolution": res, "pressure": art.pressure[::8],
          "dtau": dtau[::8, ::125], "flux": flux[::50], "rotated": rotated[::50],
          "observed": observed[::50], "sampled": sampled[::4],
          "transit": radius[::50], "chi2_grad": jax.grad(chi2)(jnp.array([1300.0, 0.01]))}
