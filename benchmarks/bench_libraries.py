"""Library code on xjax vs JAX: optax's adam update over a 1M-parameter pytree under jit, a
flax linen MLP training step, and a numpyro NUTS run of 1,000 samples.

Each workload runs in a fresh process of an environment that has the libraries: for xjax
the one ``tools/ecosystem.py`` sets up (no ``jax``; run through ``python -m xjax``), for
the reference one with the real JAX 0.10.2 (``tools/ecosystem.py --reference --venv DIR``
makes it).  Both in one run:

    python benchmarks/bench_libraries.py --jax-python DIR/venv/bin/python

The compiled steps print the best mean time per call; NUTS prints the wall time of the
whole run (compilation included) and its mean acceptance, a check that both ran the same
chain.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Each workload runs in another interpreter; it takes best_of from benchmarks/_timing.py.
_TIMER = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from _timing import best_of
"""

WORKLOADS = {
    "optax adam, 1M params (jit)": _TIMER + """
import jax, jax.numpy as jnp, optax
keys = jax.random.split(jax.random.key(0), 10)
params = {f"w{i}": jax.random.normal(k, (1000, 100)) for i, k in enumerate(keys)}
grads = jax.tree.map(lambda p: p * 0.01, params)
opt = optax.adam(1e-3)
state = opt.init(params)

@jax.jit
def step(params, state, grads):
  updates, state = opt.update(grads, state, params)
  return optax.apply_updates(params, updates), state

def run():
  global params, state
  params, state = step(params, state, grads)
  jax.block_until_ready(params)
print(f"{best_of(run, repeat=5, number=20) * 1e3:.3f} ms")
""",
    "flax linen MLP step (jit)": _TIMER + """
import jax, jax.numpy as jnp, optax
import flax.linen as nn

class MLP(nn.Module):
  @nn.compact
  def __call__(self, x):
    for width in (512, 512, 512):
      x = nn.relu(nn.Dense(width)(x))
    return nn.Dense(10)(x)

model = MLP()
kx, kp = jax.random.split(jax.random.key(0))
x = jax.random.normal(kx, (128, 784))
y = jnp.arange(128) % 10
params = model.init(kp, x)
tx = optax.sgd(1e-2, momentum=0.9)
opt_state = tx.init(params)

@jax.jit
def train_step(params, opt_state):
  def loss(p):
    logits = model.apply(p, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
  value, grads = jax.value_and_grad(loss)(params)
  updates, opt_state = tx.update(grads, opt_state, params)
  return optax.apply_updates(params, updates), opt_state, value

def run():
  global params, opt_state
  params, opt_state, value = train_step(params, opt_state)
  value.block_until_ready()
print(f"{best_of(run, repeat=5, number=20) * 1e3:.3f} ms")
""",
    "numpyro NUTS, 1,000 samples (run)": """
import time
import jax, jax.numpy as jnp, numpy as np
import numpyro, numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS

def model(x, y=None):
  w = numpyro.sample("w", dist.Normal(0.0, 1.0).expand([3]).to_event(1))
  b = numpyro.sample("b", dist.Normal(0.0, 1.0))
  sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
  numpyro.sample("y", dist.Normal(x @ w + b, sigma), obs=y)

rng = np.random.RandomState(0)
x = jnp.asarray(rng.randn(200, 3).astype(np.float32))
y = x @ jnp.array([1.0, -2.0, 0.5]) + 0.3 + 0.1 * jnp.asarray(rng.randn(200).astype(np.float32))
mcmc = MCMC(NUTS(model), num_warmup=500, num_samples=1000, progress_bar=False)
t0 = time.perf_counter()
mcmc.run(jax.random.PRNGKey(0), x, y, extra_fields=("accept_prob",))
jax.block_until_ready(mcmc.get_samples())
elapsed = time.perf_counter() - t0
accept = float(mcmc.get_extra_fields()["accept_prob"].mean())
print(f"{elapsed * 1e3:.1f} ms (acceptance {accept:.4f})")
""",
}


# glibc's allocator settings that keep freed buffers in the process (--steady-malloc): the
# steps allocate their outputs afresh each call, and on a small VM the page faults of memory
# given back and taken again vary from process to process by more than the ratios measured.
STEADY_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(64 << 20), "MALLOC_TRIM_THRESHOLD_": str(256 << 20)}


def run(python: list[str], code: str, env: dict | None = None) -> str:
  with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
    f.write(code)
  try:
    done = subprocess.run([*python, f.name], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), env=env)
  finally:
    os.unlink(f.name)
  if done.returncode != 0:
    lines = done.stderr.strip().splitlines()
    return "failed: " + (lines[-1] if lines else f"exit {done.returncode}")
  return done.stdout.strip().splitlines()[-1]


def _leading_number(result: str) -> float:
  """A workload's printed time, for taking the best of several rounds (failures last)."""
  try:
    return float(result.split()[0])
  except ValueError:
    return float("inf")


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--xjax-python", default=str(REPO / ".ecosystem" / "venv" / "bin" / "python"),
                      help="interpreter of the environment without jax (tools/ecosystem.py)")
  parser.add_argument("--jax-python", default=os.environ.get("XJAX_REFERENCE_PYTHON"),
                      help="interpreter of an environment with the reference JAX and the libraries")
  parser.add_argument("--rounds", type=int, default=1,
                      help="run each workload this many times, the implementations taking turns "
                           "going first, and report the best (this machine's timings are noisy)")
  parser.add_argument("--steady-malloc", action="store_true",
                      help="run both implementations with glibc keeping freed memory "
                           "(STEADY_MALLOC), which takes page-fault noise out of the ratios")
  parser.add_argument("rows", nargs="*", help="run only rows whose name holds one of these words")
  args = parser.parse_args()
  impls = [("xjax", [args.xjax_python, "-m", "xjax"])]
  if args.jax_python:
    impls.append(("jax", [args.jax_python]))
  print(f"{'workload':<36s}" + "".join(f"{label:>30s}" for label, _ in impls)
        + ("   xjax/jax" if len(impls) > 1 else ""))
  for name, code in WORKLOADS.items():
    if args.rows and not any(word in name for word in args.rows):
      continue
    env = dict(os.environ, **STEADY_MALLOC) if args.steady_malloc else None
    rounds = []
    for r in range(args.rounds):  # the implementations take turns going first
      done = {label: run(python, code, env) for label, python in (impls if r % 2 == 0 else impls[::-1])}
      rounds.append([done[label] for label, _ in impls])
    results = [min(column, key=_leading_number) for column in zip(*rounds)]
    line = f"{name:<36s}" + "".join(f"{r:>30s}" for r in results)
    try:
      times = [float(r.split()[0]) for r in results]
      if len(times) > 1:
        line += f"   {times[0] / times[1]:7.2f}x"
    except ValueError:
      pass
    print(line, flush=True)


if __name__ == "__main__":
  sys.exit(main())
