"""Recover the stiffness and damping of an oscillator by differentiating through an ODE solver.

Shows: `xjax.experimental.ode.odeint` (adaptive Runge-Kutta, with gradients by the adjoint
method), `value_and_grad` with respect to the ODE's parameters, a check of those gradients against
finite differences, and Adam from `xjax.example_libraries.optimizers`.

    python examples/ode_gradients.py [--smoke] [--plot ode.png]
"""
import time

import xjax
import xjax.numpy as jnp
from xjax import random
from xjax.example_libraries import optimizers
from xjax.experimental.ode import odeint

from example_cli import parse_args, pyplot, save

TIMES = jnp.linspace(0.0, 10.0, 60)
START = jnp.array([1.0, 0.0])        # position, velocity


def oscillator(state, t, log_stiffness, log_damping):
  position, velocity = state
  return jnp.stack([velocity, -jnp.exp(log_stiffness) * position - jnp.exp(log_damping) * velocity])


def positions(params):
  return odeint(oscillator, START, TIMES, params["log_stiffness"], params["log_damping"])[:, 0]


def loss(params, observed):
  return jnp.mean((positions(params) - observed) ** 2)


def main(argv=None):
  args = parse_args(__doc__.splitlines()[0], argv)
  plt = pyplot() if args.plot else None
  steps = 60 if args.smoke else 250
  truth = {"log_stiffness": jnp.log(2.0), "log_damping": jnp.log(0.3)}
  observed = positions(truth) + 0.05 * random.normal(random.key(7), TIMES.shape)

  guess = {"log_stiffness": jnp.log(1.0), "log_damping": jnp.log(0.1)}
  value_and_grad = xjax.jit(xjax.value_and_grad(loss))
  _, grads = value_and_grad(guess, observed)
  eps = 1e-2
  bumped = dict(guess, log_stiffness=guess["log_stiffness"] + eps)
  dropped = dict(guess, log_stiffness=guess["log_stiffness"] - eps)
  finite_diff = (loss(bumped, observed) - loss(dropped, observed)) / (2 * eps)
  print(f"d loss / d log_stiffness: adjoint {float(grads['log_stiffness']):.4f}, "
        f"finite differences {float(finite_diff):.4f}")

  init_opt, update, get_params = optimizers.adam(0.05)

  @xjax.jit
  def step(i, state):
    value, grads = xjax.value_and_grad(loss)(get_params(state), observed)
    return update(i, grads, state), value

  state = init_opt(guess)
  start = time.perf_counter()
  for i in range(steps):
    state, value = step(i, state)
    if i % (steps // 4) == 0:
      print(f"step {i:4d}  loss {float(value):.5f}")
  found = {k: float(jnp.exp(v)) for k, v in get_params(state).items()}
  print(f"fitted in {time.perf_counter() - start:.1f} s: stiffness {found['log_stiffness']:.3f} "
        f"(true 2.0), damping {found['log_damping']:.3f} (true 0.3)")
  if plt:
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(TIMES, observed, "k.", label="noisy observations")
    ax.plot(TIMES, positions(guess), "b:", label="initial guess")
    ax.plot(TIMES, positions(get_params(state)), "r-", label="fitted")
    ax.set_xlabel("time")
    ax.set_ylabel("position")
    ax.legend(fontsize="small")
    ax.set_title("Damped oscillator fitted through odeint")
    save(fig, args.plot)


if __name__ == "__main__":
  main()
