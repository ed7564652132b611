"""Real programs end to end, xjax against the reference JAX: wall time of a fresh process.

Each program (written against JAX's API, in the style of JAX's documentation pages and
examples) runs as a script in a new process: on xjax through ``python -m xjax prog.py``, on
the reference with ``--jax-python`` (an environment with JAX 0.10.2). Caches start cold: every
run gets an empty ``XDG_CACHE_HOME`` (xjax's persistent compilation cache lives there by
default; JAX's is off by default); ``--warm`` instead gives both implementations a persistent
cache (``JAX_COMPILATION_CACHE_DIR``) filled by an unmeasured first run. Each program prints
a checksum, which must agree between the two. Both import from bytecode: the script first
writes xjax's (as ``make setup`` does; pip wrote JAX's when it installed it).

With ``--optax PATTERN`` it times optax's own test files (the ones the wheel ships, in the
environment ``tools/ecosystem.py`` builds) whose path holds PATTERN, side by side: on xjax as
``tools/ecosystem.py`` runs them, on the reference with JAX 0.10.2 put on PYTHONPATH
(``.ecosystem/jax-overlay``), each file in a fresh process.

    .venv/bin/python benchmarks/bench_real_programs.py --jax-python /tmp/ref/bin/python
    .venv/bin/python benchmarks/bench_real_programs.py --jax-python ... quickstart vae
    .venv/bin/python benchmarks/bench_real_programs.py --optax linesearch --no-programs
"""
from __future__ import annotations

import argparse
import compileall
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mnist_vae_model import SOURCE as MNIST_VAE_MODEL

REPO = Path(__file__).resolve().parent.parent

PROGRAMS = {
    "quickstart (jit, grad, vmap)": """
import jax, jax.numpy as jnp
from jax import grad, jit, vmap, random

def selu(x, alpha=1.67, lmbda=1.05):
  return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

key = random.key(1701)
x = random.normal(key, (1000000,))
selu_jit = jit(selu)
y = selu_jit(x).block_until_ready()

def sum_logistic(x):
  return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))

x_small = jnp.arange(3.)
d = grad(sum_logistic)(x_small)
hess = jax.jacfwd(jax.jacrev(sum_logistic))(x_small)
mat = random.normal(key, (150, 100))
batched_x = random.normal(key, (10, 100))
mv = vmap(lambda v: jnp.dot(mat, v))(batched_x)
print("checksum", float(jnp.sum(y)) + float(jnp.sum(d)) + float(jnp.sum(hess)) + float(jnp.sum(mv)))
""",
    "thinking in JAX (lax, static args, .at)": """
import jax, jax.numpy as jnp
from jax import lax
from functools import partial

x = jnp.arange(10)
y = x.at[0].set(10).at[1:3].add(5).at[-1].multiply(2)
conv = jnp.convolve(jnp.array([1., 2., 1.]), jnp.array([1., 1., 1.]))
lconv = lax.conv_general_dilated(jnp.ones((1, 1, 10)), jnp.ones((1, 1, 3)), (1,), "SAME")

@partial(jax.jit, static_argnums=(1,))
def f(x, neg):
  return -x if neg else x

def norm(X):
  X = X - X.mean(0)
  return X / X.std(0)

X = jnp.asarray(jax.random.normal(jax.random.key(0), (10000, 10)))
n = jax.jit(norm)(X)
print("checksum", int(jnp.sum(y)) + float(jnp.sum(conv)) + float(jnp.sum(lconv))
      + float(f(1., True)) + float(jnp.abs(n).sum()))
""",
    "autodiff cookbook (jacobians, hvp, custom_jvp)": """
import jax, jax.numpy as jnp
from jax import grad, jacfwd, jacrev, jvp, vjp, random

key = random.key(0)
W = random.normal(key, (3,))
b = 0.5
inputs = jnp.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30],
                    [0.74, -2.49, 1.39]])
targets = jnp.array([True, True, False, True])

def predict(W, b, inputs):
  return jax.nn.sigmoid(jnp.dot(inputs, W) + b)

def loss(W, b):
  preds = predict(W, b, inputs)
  label_probs = preds * targets + (1 - preds) * (1 - targets)
  return -jnp.sum(jnp.log(label_probs))

for _ in range(100):
  W = W - 0.1 * grad(loss)(W, b)
J = jacfwd(predict, argnums=1)(W, b, inputs) + jacrev(predict, argnums=1)(W, b, inputs)
H = jax.hessian(loss)(W, b)

def hvp(f, x, v):
  return jvp(grad(f), (x,), (v,))[1]

hv = hvp(lambda w: loss(w, b), W, jnp.ones(3))

@jax.custom_jvp
def log1pexp(x):
  return jnp.log(1. + jnp.exp(x))

@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
  x, = primals
  t, = tangents
  return log1pexp(x), t * (1 - 1 / (1 + jnp.exp(x)))

g = jax.jit(grad(log1pexp))(100.)
y, f_vjp = vjp(jnp.sin, jnp.arange(3.))
print("checksum", float(loss(W, b)) + float(jnp.sum(J)) + float(jnp.sum(H)) + float(jnp.sum(hv))
      + float(g) + float(jnp.sum(f_vjp(jnp.ones(3))[0])))
""",
    "control flow (cond, fori_loop, while_loop, scan)": """
import jax, jax.numpy as jnp
from jax import lax

def collatz_steps(n):
  def cond(s):
    return s[0] != 1
  def body(s):
    n, k = s
    return lax.cond(n % 2 == 0, lambda n: n // 2, lambda n: 3 * n + 1, n), k + 1
  return lax.while_loop(cond, body, (n, 0))[1]

steps = jax.jit(jax.vmap(collatz_steps))(jnp.arange(1, 200))
total = lax.fori_loop(0, 1000, lambda i, acc: acc + i * i, 0)

def cumulative(carry, x):
  carry = carry * 0.9 + x
  return carry, carry

final, ys = jax.jit(lambda xs: lax.scan(cumulative, 0., xs))(jnp.linspace(0., 1., 1000))
g = jax.grad(lambda a: lax.scan(lambda c, x: (c * a + x, c), 0., jnp.ones(50))[0])(0.9)
sw = lax.switch(2, [jnp.sin, jnp.cos, jnp.tanh], 0.5)
print("checksum", int(steps.sum()) + int(total) + float(final) + float(ys.sum()) + float(g) + float(sw))
""",
    "pytrees and random numbers": """
import jax, jax.numpy as jnp
from jax import random, tree_util

class Point:
  def __init__(self, x, y):
    self.x, self.y = x, y

tree_util.register_pytree_node(Point, lambda p: ((p.x, p.y), None), lambda _, c: Point(*c))

def init_mlp(key, sizes):
  keys = random.split(key, len(sizes))
  return [{"w": random.normal(k, (m, n)) * 0.1, "b": jnp.zeros(n)}
          for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

params = init_mlp(random.key(0), [4, 16, 16, 2])
shapes = jax.tree.map(lambda a: a.shape, params)
doubled = jax.tree.map(lambda a: 2 * a, params)
leaves = jax.tree.leaves(doubled)
pts = jax.jit(lambda p: Point(p.x + 1, p.y * 2))(Point(jnp.ones(3), jnp.arange(3.)))
key = random.key(42)
k1, k2, k3 = random.split(key, 3)
u = random.uniform(k1, (1000,))
c = random.categorical(k2, jnp.log(jnp.array([0.2, 0.3, 0.5])), shape=(1000,))
perm = random.permutation(k3, 10)
b = random.bernoulli(random.fold_in(key, 7), 0.3, (1000,))
print("checksum", len(leaves) + sum(float(l.sum()) for l in leaves) + float(pts.x.sum() + pts.y.sum())
      + float(u.sum()) + int(c.sum()) + int(perm[0]) + int(b.sum()))
""",
    "per-example gradients (vmap of grad)": """
import jax, jax.numpy as jnp
from jax import random

def predict(params, x):
  for w, b in params[:-1]:
    x = jnp.tanh(x @ w + b)
  w, b = params[-1]
  return x @ w + b

def loss(params, x, y):
  return jnp.mean((predict(params, x) - y) ** 2)

key = random.key(0)
ks = random.split(key, 4)
sizes = [8, 64, 64, 1]
params = [(random.normal(k, (m, n)) / jnp.sqrt(m), jnp.zeros(n))
          for k, m, n in zip(ks, sizes[:-1], sizes[1:])]
x = random.normal(ks[3], (256, 8))
y = jnp.sin(x.sum(1, keepdims=True))
per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
g = per_example(params, x[:, None], y[:, None])
norms = jax.vmap(lambda *l: jnp.sqrt(sum(jnp.sum(a ** 2) for a in l)))(*jax.tree.leaves(g))
print("checksum", float(norms.sum()))
""",
    "MLP training loop (jit(value_and_grad), SGD)": """
import jax, jax.numpy as jnp
from jax import random

def init(key, sizes):
  keys = random.split(key, len(sizes) - 1)
  return [(random.normal(k, (m, n)) * jnp.sqrt(2 / m), jnp.zeros(n))
          for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

def predict(params, x):
  for w, b in params[:-1]:
    x = jax.nn.relu(x @ w + b)
  w, b = params[-1]
  return x @ w + b

def loss(params, x, labels):
  logits = predict(params, x)
  return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, 10), -1))

@jax.jit
def update(params, x, labels):
  value, grads = jax.value_and_grad(loss)(params, x, labels)
  return jax.tree.map(lambda p, g: p - 0.05 * g, params, grads), value

key = random.key(0)
kx, kp = random.split(key)
x = random.normal(kx, (1024, 64))
labels = jnp.argmax(x[:, :10], axis=1)
params = init(kp, [64, 128, 128, 10])
for epoch in range(5):
  for i in range(0, 1024, 128):
    params, value = update(params, x[i:i + 128], labels[i:i + 128])
accuracy = jnp.mean(jnp.argmax(predict(params, x), 1) == labels)
print("checksum", round(float(accuracy), 2))
""",
    "stax convnet and optimizers (example_libraries)": """
import jax, jax.numpy as jnp
from jax import random
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import Conv, Dense, Flatten, LogSoftmax, MaxPool, Relu

init_fun, apply_fun = stax.serial(Conv(8, (3, 3), padding="SAME"), Relu, MaxPool((2, 2), (2, 2)),
                                  Conv(16, (3, 3), padding="SAME"), Relu, Flatten, Dense(10),
                                  LogSoftmax)
key = random.key(0)
_, params = init_fun(key, (-1, 12, 12, 1))
opt_init, opt_update, get_params = optimizers.adam(1e-3)
opt_state = opt_init(params)
images = random.normal(key, (32, 12, 12, 1))
labels = jax.nn.one_hot(jnp.arange(32) % 10, 10)

def loss(params, batch):
  inputs, targets = batch
  return -jnp.mean(jnp.sum(apply_fun(params, inputs) * targets, axis=1))

@jax.jit
def step(i, opt_state, batch):
  return opt_update(i, jax.grad(loss)(get_params(opt_state), batch), opt_state)

for i in range(10):
  opt_state = step(i, opt_state, (images, labels))
print("checksum", round(float(loss(get_params(opt_state), (images, labels))), 1))
""",
    "VAE (stax, evaluate with an image grid)": """
import jax, jax.numpy as jnp
from jax import lax, random
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import Dense, FanOut, Relu, Softplus

""" + MNIST_VAE_MODEL + """
encoder_init, encode = stax.serial(Dense(128), Relu, Dense(128), Relu,
                                   FanOut(2), stax.parallel(Dense(10), stax.serial(Dense(10), Softplus)))
decoder_init, decode = stax.serial(Dense(128), Relu, Dense(128), Relu, Dense(28 * 28))

key = random.key(0)
enc_key, dec_key, data_key = random.split(key, 3)
_, init_enc = encoder_init(enc_key, (32, 28 * 28))
_, init_dec = decoder_init(dec_key, (32, 10))
opt_init, opt_update, get_params = optimizers.momentum(1e-3, mass=0.9)
opt_state = opt_init((init_enc, init_dec))
train = random.bernoulli(data_key, 0.3, (256, 28 * 28)).astype(jnp.float32)

@jax.jit
def run_epoch(rng, opt_state):
  def body_fun(i, opt_state):
    elbo_rng, data_rng = random.split(random.fold_in(rng, i))
    batch = lax.dynamic_slice_in_dim(train, (i % 8) * 32, 32)
    loss = lambda params: -elbo(elbo_rng, params, batch) / 32
    return opt_update(i, jax.grad(loss)(get_params(opt_state)), opt_state)
  return lax.fori_loop(0, 8, body_fun, opt_state)

@jax.jit
def evaluate(opt_state, images):
  params = get_params(opt_state)
  elbo_rng, image_rng = random.split(key)
  return elbo(elbo_rng, params, images) / images.shape[0], image_sample(image_rng, params, 4, 4)

for epoch in range(3):
  opt_state = run_epoch(random.key(epoch), opt_state)
test_elbo, sampled = evaluate(opt_state, train[:64])
print("checksum", round(float(test_elbo)), sampled.shape)
""",
    "linear algebra and scipy (Gaussian process)": """
import jax, jax.numpy as jnp
from jax import random
from jax.scipy.linalg import cho_factor, cho_solve, solve_triangular
from jax.scipy.stats import norm

def kernel(a, b, lengthscale):
  d = a[:, None] - b[None, :]
  return jnp.exp(-0.5 * (d / lengthscale) ** 2)

key = random.key(0)
x = jnp.linspace(-3, 3, 200)
y = jnp.sin(x) + 0.1 * random.normal(key, x.shape)

def neg_log_marginal(log_ls):
  K = kernel(x, x, jnp.exp(log_ls)) + 0.01 * jnp.eye(x.shape[0])
  c = cho_factor(K, lower=True)
  alpha = cho_solve(c, y)
  return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(c[0])))

log_ls = 0.
g = jax.jit(jax.value_and_grad(neg_log_marginal))
for _ in range(30):
  value, d = g(log_ls)
  log_ls = log_ls - 0.01 * d
L = jnp.linalg.cholesky(kernel(x, x, 1.) + 0.1 * jnp.eye(200))
z = solve_triangular(L, y, lower=True)
e = jnp.linalg.eigh(kernel(x[:50], x[:50], 1.))[0]
q, r = jnp.linalg.qr(random.normal(key, (50, 20)))
print("checksum", round(float(value), 2), round(float(jnp.sum(z ** 2)), 2),
      round(float(jnp.sum(norm.cdf(z))), 2), round(float(e.sum()), 2), round(float(jnp.abs(r).sum()), 1))
""",
    "RNN through lax.scan with Adam": """
import jax, jax.numpy as jnp
from jax import lax, random
from jax.example_libraries import optimizers

T, H = 50, 32
key = random.key(0)
k1, k2, k3 = random.split(key, 3)
params = {"Wx": random.normal(k1, (1, H)) * 0.5, "Wh": random.normal(k2, (H, H)) / jnp.sqrt(H),
          "Wo": random.normal(k3, (H, 1)) * 0.1}
ts = jnp.linspace(0, 8 * jnp.pi, T + 1)
xs, ys = jnp.sin(ts[:-1])[:, None], jnp.sin(ts[1:])[:, None]

def loss(params):
  def step(h, x):
    h = jnp.tanh(x @ params["Wx"] + h @ params["Wh"])
    return h, h @ params["Wo"]
  _, preds = lax.scan(step, jnp.zeros(H), xs)
  return jnp.mean((preds - ys) ** 2)

opt_init, opt_update, get_params = optimizers.adam(1e-2)
state = opt_init(params)

@jax.jit
def update(i, state):
  value, grads = jax.value_and_grad(loss)(get_params(state))
  return opt_update(i, grads, state), value

first = None
for i in range(200):
  state, value = update(i, state)
  first = value if first is None else first
print("checksum", bool(value < first))
""",
}


def run_program(command: list[str], code: str, env: dict) -> tuple[float, str]:
  """(wall seconds, its last line of output) of a program run in a fresh process."""
  with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
    f.write(code)
  try:
    t0 = time.perf_counter()
    done = subprocess.run([*command, f.name], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), env=env)
    elapsed = time.perf_counter() - t0
  finally:
    os.unlink(f.name)
  if done.returncode != 0:
    lines = done.stderr.strip().splitlines()
    return math.nan, "failed: " + (lines[-1] if lines else f"exit {done.returncode}")
  return elapsed, done.stdout.strip().splitlines()[-1]


def _environment(cache: str, warm: bool) -> dict:
  env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
  env.pop("PYTHONPATH", None)
  env["XDG_CACHE_HOME"] = cache
  if warm:
    env["JAX_COMPILATION_CACHE_DIR"] = os.path.join(cache, "jax-cache")
  return env


def _agree(ours: str, theirs: str) -> str:
  """Whether two checksum lines agree: exactly, or in every number to a relative 1e-5."""
  if ours == theirs:
    return "yes"
  number = r"-?\d+\.?\d*(?:e[-+]?\d+)?"
  a, b = re.findall(number, ours), re.findall(number, theirs)
  if (re.sub(number, "#", ours) == re.sub(number, "#", theirs) and
      all(math.isclose(float(x), float(y), rel_tol=1e-5) for x, y in zip(a, b))):
    return "to 1e-5"
  return f"no: {ours} / {theirs}"


def _geomean(ratios: list[float]) -> str:
  ratios = [r for r in ratios if r == r]
  return f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}×" if ratios else "–"


def time_programs(impls: list[tuple[str, list[str]]], words: list[str], warm: bool) -> None:
  print("| program | " + " | ".join(f"{label} s" for label, _ in impls)
        + (" | xjax/JAX | checksums agree |" if len(impls) > 1 else " | output |"))
  print("| --- |" + " ---: |" * len(impls) + (" ---: | --- |" if len(impls) > 1 else " --- |"))
  ratios = []
  for name, code in PROGRAMS.items():
    if words and not any(w in name for w in words):
      continue
    results = []
    for _, command in impls:
      with tempfile.TemporaryDirectory() as cache:
        env = _environment(cache, warm)
        if warm:
          run_program(command, code, env)
        results.append(run_program(command, code, env))
    cells = " | ".join(f"{t:.2f}" if t == t else out for t, out in results)
    if len(impls) == 1:
      print(f"| {name} | {cells} | {results[0][1]} |", flush=True)
      continue
    ratio = results[0][0] / results[1][0]
    ratios.append(ratio)
    shown = f"{ratio:.2f}×" if ratio == ratio else "–"
    print(f"| {name} | {cells} | {shown} | {_agree(results[0][1], results[1][1])} |", flush=True)
  if len(impls) > 1:
    print(f"| geometric mean | {' | ' * (len(impls) - 1)} | {_geomean(ratios)} | |")


def time_optax(pattern: str, timeout: float) -> None:
  """optax's test files whose path holds ``pattern``, on xjax and on the reference, side by side."""
  sys.path.insert(0, str(REPO / "tools"))
  import ecosystem  # tools/ecosystem.py: the environment and the way its suites run
  venv = REPO / ".ecosystem" / "venv"
  python = venv / "bin" / "python"
  if not python.exists():
    raise SystemExit(f"{python} is missing: run tools/ecosystem.py first (make ecosystem)")
  overlay = ecosystem.jax_overlay(python, venv)
  files = {k: p for k, p in ecosystem.test_files(python, "optax").items() if pattern in k}
  print(f"\n| optax test file ({len(files)}) | xjax s | JAX s | xjax/JAX | passed xjax / JAX |")
  print("| --- | ---: | ---: | ---: | ---: |")
  ratios, totals = [], [0.0, 0.0]
  with tempfile.TemporaryDirectory() as work:
    for key, path in files.items():
      outcomes = []
      for reference in (False, True):
        with tempfile.TemporaryDirectory() as cache:
          env = _environment(cache, warm=False)
          if reference:
            env["PYTHONPATH"] = str(overlay)
          outcomes.append(ecosystem.run_file(python, path, reference, timeout, Path(work), env))
      seconds = [o["seconds"] for o in outcomes]
      passed = [sum(v[0] == "passed" for v in o["tests"].values()) for o in outcomes]
      ratio = seconds[0] / seconds[1] if seconds[1] else math.nan
      ratios.append(ratio)
      totals = [a + b for a, b in zip(totals, seconds)]
      late = "".join(f" ({o['status']})" for o in outcomes if o["status"] != "ran")
      print(f"| {key} | {seconds[0]:.1f} | {seconds[1]:.1f} | {ratio:.2f}× | "
            f"{passed[0]} / {passed[1]}{late} |", flush=True)
  if files:
    print(f"| total; geometric mean of the files' ratios | {totals[0]:.1f} | {totals[1]:.1f} | "
          f"{totals[0] / totals[1]:.2f}×; {_geomean(ratios)} | |")


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("XJAX_REFERENCE_PYTHON"),
                      help="interpreter of an environment with the reference JAX 0.10.2")
  parser.add_argument("--warm", action="store_true",
                      help="time a second run, with a persistent compilation cache the first filled")
  parser.add_argument("--optax", metavar="PATTERN",
                      help="also time optax's test files whose path holds PATTERN ('' for all)")
  parser.add_argument("--no-programs", action="store_true", help="skip the programs")
  parser.add_argument("--timeout", type=float, default=600.0, help="seconds per optax test file")
  parser.add_argument("programs", nargs="*", help="run only programs whose name holds one of these words")
  args = parser.parse_args()
  compileall.compile_dir(REPO / "xjax", quiet=1)
  if not args.no_programs:
    impls = [("xjax", [sys.executable, "-m", "xjax"])]
    if args.jax_python:
      impls.append(("JAX", [args.jax_python]))
    time_programs(impls, args.programs, args.warm)
  if args.optax is not None:
    time_optax(args.optax, args.timeout)


if __name__ == "__main__":
  main()
