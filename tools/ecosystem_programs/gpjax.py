"""gpjax: a conjugate GP (Constant mean, RBF kernel, Gaussian likelihood) fitted with gpx.fit
and optax, then its posterior predictive, as GPJax's regression example teaches."""
import jax
import jax.numpy as jnp
import optax as ox
import gpjax as gpx


def run():
  x = jnp.linspace(0.0, 1.0, 20).reshape(-1, 1)
  y = jnp.sin(6.0 * x)
  data = gpx.Dataset(X=x, y=y)
  prior = gpx.gps.Prior(mean_function=gpx.mean_functions.Constant(), kernel=gpx.kernels.RBF())
  posterior = prior * gpx.likelihoods.Gaussian()
  nmll = lambda p, d: -gpx.objectives.conjugate_mll(p, d)
  initial = jax.jit(nmll)(posterior, data)
  trained, history = gpx.fit(model=posterior, objective=nmll, train_data=data,
                             optim=ox.adam(0.05), num_iters=20, verbose=False)
  predictive = trained.condition(data)(jnp.array([[0.25], [0.75]]))
  return {"initial_nmll": initial, "history": history[::5], "final_nmll": history[-1],
          "mean": predictive.mean, "variance": predictive.variance}
