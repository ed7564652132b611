"""pyhf (HistFactory statistics) on its JAX backend: a two-bin counting model with a background
uncertainty, the CLs hypothesis test and a maximum-likelihood fit (its README's example)."""
import jax.numpy as jnp
import pyhf


def run():
  pyhf.set_backend("jax")
  model = pyhf.simplemodels.uncorrelated_background(signal=[12.0, 11.0], bkg=[50.0, 52.0],
                                                    bkg_uncertainty=[3.0, 7.0])
  data = [51, 48] + model.config.auxdata
  cls_obs, cls_exp = pyhf.infer.hypotest(1.0, data, model, test_stat="qtilde",
                                         return_expected=True)
  return {"cls_obs": cls_obs, "cls_exp": cls_exp,
          "mle": jnp.asarray(pyhf.infer.mle.fit(data, model)),
          "logpdf": model.logpdf(model.config.suggested_init(), data)[0]}
