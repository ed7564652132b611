"""dLux: the quickstart telescope (a circular aperture and a Zernike BasisOptic in an
AngularOpticalSystem) imaging a polychromatic PointSource, then zodiax's path-based .get/.set
and the gradient and Fisher-style hessian of a PSF loss in the Zernike coefficients."""
import jax
import jax.numpy as np
import dLux as dl
import dLux.utils as dlu


def run():
  wf_npixels, diameter = 64, 1.0
  coords = dlu.pixel_coords(5 * wf_npixels, diameter)
  transmission = dlu.downsample(dlu.circle(coords, diameter / 2), 5)
  basis = dlu.zernike_basis(np.arange(4, 8), dlu.pixel_coords(wf_npixels, diameter), diameter)
  coefficients = 1e-8 * np.array([2.0, -1.0, 0.5, 1.5])
  layers = [("aperture", dl.layers.TransmissiveLayer(transmission, normalise=True)),
            ("aberrations", dl.layers.BasisOptic(basis, coefficients=coefficients))]
  optics = dl.AngularOpticalSystem(wf_npixels, diameter, layers, 32, 0.05, oversample=2)
  source = dl.PointSource(wavelengths=np.linspace(1e-6, 1.2e-6, 3), flux=1e3,
                          position=dlu.arcsec2rad(np.array([0.1, -0.05])))
  psf = optics.model(source)
  data = optics.set("aberrations.coefficients", np.zeros(4)).model(source)

  def loss(c):
    return np.sum((optics.set("aberrations.coefficients", c * 1e-8).model(source) - data) ** 2)

  c0 = coefficients * 1e8
  return {"psf_sum": psf.sum(), "psf_peak": psf.max(), "psf_row": psf[32, 24:40],
          "psf_center": psf[30:34, 30:34], "coefficients": optics.get("aberrations.coefficients"),
          "loss": loss(c0), "grad": jax.jit(jax.grad(loss))(c0),
          "hessian": jax.hessian(loss)(c0)}
