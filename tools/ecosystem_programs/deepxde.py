"""deepxde (JAX backend, DDE_BACKEND=jax): the documentation's 1-D Poisson equation with
Dirichlet boundary conditions (-u'' = pi^2 sin(pi x) on [-1, 1]) solved by a physics-informed
network (a flax FNN, optax adam), with the PDE residual from dde.grad.hessian, the L2 relative
error metric, and the trained network's predictions and residual on test points."""
import os

os.environ["DDE_BACKEND"] = "jax"

import jax.numpy as jnp
import numpy as np
import deepxde as dde


def pde(x, y):
  dy_xx, _ = dde.grad.hessian(y, x)  # (the JAX backend gives the value and its function)
  return -dy_xx - np.pi ** 2 * jnp.sin(np.pi * x)


def solution(x):
  return np.sin(np.pi * x)


def run():
  dde.config.set_random_seed(0)
  dde.config.set_default_float("float32")
  geom = dde.geometry.Interval(-1, 1)
  bc = dde.icbc.DirichletBC(geom, solution, lambda _, on_boundary: on_boundary)
  data = dde.data.PDE(geom, pde, bc, 16, 2, solution=solution, num_test=50)
  net = dde.nn.FNN([1] + [20] * 2 + [1], "tanh", "Glorot uniform")
  model = dde.Model(data, net)
  model.compile("adam", lr=1e-3, metrics=["l2 relative error"])
  losshistory, train_state = model.train(iterations=300, display_every=100, verbose=0)
  x = geom.uniform_points(9, True)
  prediction = model.predict(x)
  residual = model.predict(x, operator=pde)
  return {"train_x": np.sort(data.train_x[:, 0]), "loss_train": np.array(losshistory.loss_train),
          "loss_test": np.array(losshistory.loss_test),
          "metrics": np.array(losshistory.metrics_test), "prediction": prediction,
          "residual": residual, "best_step": train_state.best_step}
