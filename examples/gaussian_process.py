"""Gaussian-process regression: fit the kernel's hyperparameters, then predict with uncertainty.

Shows: linear algebra (`jnp.linalg.cholesky`, `xjax.scipy.linalg.cho_solve` and
`solve_triangular`), maximizing the log marginal likelihood with `grad` through a Cholesky
factorization, and a jitted prediction.

    python examples/gaussian_process.py [--smoke] [--plot gp.png]
"""
import time

import xjax
import xjax.numpy as jnp
from xjax import random
from xjax.scipy.linalg import cho_solve, solve_triangular

from example_cli import parse_args, pyplot, save


def rbf(params, a, b):
  """Squared-exponential kernel between point sets a and b."""
  scaled = (a[:, None] - b[None, :]) / jnp.exp(params["log_length"])
  return jnp.exp(2 * params["log_amplitude"]) * jnp.exp(-0.5 * scaled ** 2)


def negative_log_likelihood(params, x, y):
  """-log p(y | x, params) of a zero-mean GP with Gaussian noise."""
  cov = rbf(params, x, x) + (jnp.exp(2 * params["log_noise"]) + 1e-6) * jnp.eye(len(x))
  chol = jnp.linalg.cholesky(cov)
  alpha = cho_solve((chol, True), y)
  return (0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(chol)))
          + 0.5 * len(x) * jnp.log(2 * jnp.pi))


@xjax.jit
def fit_step(params, x, y, learning_rate):
  value, grads = xjax.value_and_grad(negative_log_likelihood)(params, x, y)
  return xjax.tree.map(lambda p, g: p - learning_rate * g, params, grads), value


@xjax.jit
def predict(params, x, y, x_new):
  """Posterior mean and standard deviation at x_new."""
  cov = rbf(params, x, x) + (jnp.exp(2 * params["log_noise"]) + 1e-6) * jnp.eye(len(x))
  chol = jnp.linalg.cholesky(cov)
  cross = rbf(params, x, x_new)
  mean = cross.T @ cho_solve((chol, True), y)
  v = solve_triangular(chol, cross, lower=True)
  var = jnp.exp(2 * params["log_amplitude"]) - jnp.sum(v ** 2, axis=0)
  return mean, jnp.sqrt(jnp.maximum(var, 0.0))


def main(argv=None):
  args = parse_args(__doc__.splitlines()[0], argv)
  plt = pyplot() if args.plot else None
  steps = 100 if args.smoke else 200
  k_x, k_noise = random.split(random.key(3))
  x = jnp.sort(random.uniform(k_x, (40,), minval=-4.0, maxval=4.0))
  y = jnp.sin(1.5 * x) + 0.1 * random.normal(k_noise, x.shape)
  params = {"log_length": jnp.array(0.5), "log_amplitude": jnp.array(0.0), "log_noise": jnp.array(-1.0)}
  start = time.perf_counter()
  for step in range(steps + 1):
    params, value = fit_step(params, x, y, 0.01)
    if step % (steps // 4) == 0:
      print(f"step {step:4d}  negative log likelihood {float(value):8.3f}")
  fitted = {k: float(jnp.exp(v)) for k, v in params.items()}
  print(f"fitted in {time.perf_counter() - start:.1f} s: length {fitted['log_length']:.2f}, "
        f"amplitude {fitted['log_amplitude']:.2f}, noise {fitted['log_noise']:.3f} (true noise 0.1)")
  grid = jnp.linspace(-5.0, 5.0, 200)
  mean, std = predict(params, x, y, grid)
  inside = jnp.abs(grid) < 3.5
  error = float(jnp.max(jnp.where(inside, jnp.abs(mean - jnp.sin(1.5 * grid)), 0.0)))
  print(f"largest error of the posterior mean inside the data: {error:.3f}")
  if plt:
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.fill_between(grid, mean - 2 * std, mean + 2 * std, alpha=0.3, label="mean ± 2 std")
    ax.plot(grid, mean, label="posterior mean")
    ax.plot(grid, jnp.sin(1.5 * grid), "k--", lw=1, label="true function")
    ax.plot(x, y, "k.", label="observations")
    ax.legend(loc="lower left", fontsize="small")
    ax.set_title("Gaussian process with fitted RBF kernel")
    save(fig, args.plot)


if __name__ == "__main__":
  main()
