"""pytensor: a symbolic graph (a tanh regression loss, its gradients, softmax, cumsum, a
linear solve and a scan) compiled with `mode="JAX"`, PyMC's JAX backend."""
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytensor.tensor.special


def run():
  x, w, b = pt.matrix("x"), pt.vector("w"), pt.scalar("b")
  z = pt.tanh(x @ w + b)
  loss = pt.mean((z - 0.5) ** 2) + 0.1 * pt.sum(w ** 2)
  gw, gb = pytensor.grad(loss, [w, b])
  f = pytensor.function(
      [x, w, b], [loss, gw, gb, pytensor.tensor.special.softmax(x, axis=-1), pt.cumsum(x, 0),
                  pt.linalg.solve(x.T @ x + pt.eye(3), w)], mode="JAX")
  rng = np.random.RandomState(0)
  floatx = pytensor.config.floatX
  outs = f(rng.randn(5, 3).astype(floatx), rng.randn(3).astype(floatx), np.asarray(0.3, floatx))
  a = pt.vector("a")
  powers, _ = pytensor.scan(fn=lambda prior, a: prior * a, outputs_info=pt.ones_like(a),
                            non_sequences=a, n_steps=3, return_updates=True)
  cube = pytensor.function([a], powers[-1], mode="JAX")
  return {"outs": [np.asarray(o).tolist() for o in outs],
          "cube": np.asarray(cube(np.arange(4.).astype(floatx))).tolist()}
