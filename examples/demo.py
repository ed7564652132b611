"""`make demo`: the examples of "How to think in JAX" and the JAX FAQ on xjax, eager and under
`jit`: first what behaves differently, then how fast each runs next to NumPy, then placement,
donation and callbacks. Runs in well under a minute on two CPU cores.

    python examples/demo.py [--quick]      (--quick: shorter timings, for tests)
"""
import sys
import time
import timeit
import warnings
from functools import partial

import numpy as np

import xjax
import xjax.numpy as jnp
from xjax import lax

xjax.config.update("jax_num_cpu_devices", 2)   # before the first computation: placement below
QUICK = "--quick" in sys.argv[1:]


def table(header, rows, numbers=True):
  """Prints rows of strings as a table; columns after the first are right-aligned numbers."""
  widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
  line = "  ".join("-" * w for w in widths)
  print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
  print(line)
  for r in rows:
    print("  ".join(c.rjust(w) if i and numbers else c.ljust(w)
                    for i, (c, w) in enumerate(zip(r, widths))).rstrip())
  print()


def outcome(fn):
  """What calling fn gives: its value, or the class of error it raises."""
  try:
    return str(fn())
  except Exception as e:  # noqa: BLE001 (the demo shows which error)
    return type(e).__name__


# ---------------------------------------------------------------- 1. behaviour
def behaviour_rows():
  printed = []
  offset = 0

  def impure(x):
    printed.append("inside")
    return x + offset

  def count_prints(fn):
    nonlocal offset
    printed.clear()
    results = []
    for offset in range(3):
      results.append(int(fn(offset)))
    return f"{results}, printed {len(printed)}x"

  def log_sqrt(x):
    return jnp.log(jnp.sqrt(x))

  def log_exp(x):
    return jnp.log(jnp.exp(x))

  def negatives(x):
    return x[x < 0]

  def maybe_negate(x, neg):
    return -x if neg else x

  values = jnp.array([-1.5, 2.0, -0.5])
  return [
    ["global read + print (FAQ)", count_prints(impure), count_prints(xjax.jit(impure))],
    ["log(sqrt(pi))", outcome(lambda: log_sqrt(jnp.pi)), outcome(lambda: xjax.jit(log_sqrt)(jnp.pi))],
    ["log(exp(100.))", outcome(lambda: log_exp(100.0)), outcome(lambda: xjax.jit(log_exp)(100.0))],
    ["x[x < 0]", outcome(lambda: negatives(values)), outcome(lambda: xjax.jit(negatives)(values))],
    ["-x if neg else x", outcome(lambda: maybe_negate(1, True)),
     outcome(lambda: xjax.jit(maybe_negate)(1, True))],
    ["  ... neg static", "", outcome(lambda: xjax.jit(maybe_negate, static_argnums=1)(1, True))],
    ["x.reshape(jnp.array(x.shape).prod())",
     outcome(lambda: jnp.ones((2, 3)).reshape(jnp.array((2, 3)).prod()).shape),
     outcome(lambda: xjax.jit(lambda x: x.reshape(jnp.array(x.shape).prod()))(jnp.ones((2, 3))).shape)],
    ["  ... with np.prod", "", outcome(lambda: xjax.jit(lambda x: x.reshape(np.prod(x.shape)))(
      jnp.ones((2, 3))).shape)],
  ]


# ---------------------------------------------------------------- 2. speed
def standardize(lib, X):
  X = X - X.mean(0)
  return X / X.std(0)


def gram(lib, x):
  return x.T @ (x - x.mean(axis=0))


def log_sqrt(lib, x):
  return lib.log(lib.sqrt(x)) * 2.0 + 1.0


def iterate(lib, x):
  for _ in range(300):
    x = 0.5 * x + 1.0
  return x


def iterate_fori(x):
  return lax.fori_loop(0, 300, lambda i, x: 0.5 * x + 1.0, x)


def sigmoid_grads_np(x):
  s = 1 / (1 + np.exp(-x))
  return s * (1 - s)


rng = np.random.default_rng(1701)
CASES = [  # name, NumPy function, xjax function, jitted function, argument
  ("standardize columns, 10000x10 (think)", partial(standardize, np), partial(standardize, jnp),
   xjax.jit(partial(standardize, jnp)), rng.random((10000, 10), dtype=np.float32)),
  ("x.T @ (x - x.mean(0)), 500x500 (FAQ)", partial(gram, np), partial(gram, jnp),
   xjax.jit(partial(gram, jnp)), rng.random((500, 500), dtype=np.float32)),
  ("log(sqrt(x)) * 2 + 1, 10^6 elements", partial(log_sqrt, np), partial(log_sqrt, jnp),
   xjax.jit(partial(log_sqrt, jnp)), rng.random(1_000_000, dtype=np.float32) + 0.5),
  ("300-step Python loop on 1000 values", partial(iterate, np), partial(iterate, jnp),
   xjax.jit(partial(iterate, jnp)), np.zeros(1000, np.float32)),
  ("  ... as lax.fori_loop (FAQ)", partial(iterate, np), iterate_fori,
   xjax.jit(iterate_fori), np.zeros(1000, np.float32)),
  ("vmap(grad(sigmoid)), 10^5 points (FAQ)", sigmoid_grads_np, xjax.vmap(xjax.grad(xjax.nn.sigmoid)),
   xjax.jit(xjax.vmap(xjax.grad(xjax.nn.sigmoid))), rng.normal(size=100_000).astype(np.float32)),
]


def seconds_per_call(fn, arg):
  """Best time of one call (results waited for), over a few repeats."""
  def call():
    out = fn(arg)
    if hasattr(out, "block_until_ready"):
      out.block_until_ready()
  timer = timeit.Timer(call)
  number, _ = timer.autorange() if not QUICK else (1, None)
  return min(timer.repeat(repeat=2 if QUICK else 3, number=number)) / number


def progress(text):
  print(f"\r{text:<72}", end="" if sys.stdout.isatty() else "\n", flush=True)


def fmt_time(s):
  return f"{s * 1e3:.2f} ms" if s >= 1e-4 else f"{s * 1e6:.0f} us"


def speed_rows():
  rows = []
  for i, (name, np_fn, eager_fn, jit_fn, arg) in enumerate(CASES, 1):
    label = name.strip(" .")
    progress(f"[{i}/{len(CASES)}] {label}: compiling ...")
    dev_arg = xjax.device_put(arg)
    start = time.perf_counter()
    jit_fn(dev_arg).block_until_ready()
    compile_s = time.perf_counter() - start
    eager_fn(dev_arg).block_until_ready()            # compiles each operation once
    progress(f"[{i}/{len(CASES)}] {label}: timing (first call {fmt_time(compile_s)}) ...")
    assert np.allclose(np.asarray(jit_fn(dev_arg)), np_fn(arg), rtol=1e-3, atol=1e-3), name
    t_np, t_eager, t_jit = (seconds_per_call(np_fn, arg), seconds_per_call(eager_fn, dev_arg),
                            seconds_per_call(jit_fn, dev_arg))
    rows.append([name, fmt_time(t_np), fmt_time(t_eager), fmt_time(t_jit), fmt_time(compile_s),
                 f"{t_eager / t_jit:.1f}x", f"{t_np / t_jit:.1f}x"])
  progress("")
  if sys.stdout.isatty():
    print("\r", end="")
  return rows


# ---------------------------------------------------------------- 3. devices, donation, callbacks
def showcase():
  pinned = xjax.device_put(jnp.arange(3.0), xjax.devices()[1])
  result = pinned * 2 + jnp.ones(3)
  print(f"devices: {xjax.devices()}")
  print(f"  computation follows committed data: (pinned * 2 + ones) is on {result.devices()}, "
        f"committed={result.committed}")
  params = xjax.device_put(np.ones((1000, 1000), np.float32))
  step = xjax.jit(lambda p: p - 0.1 * p, donate_argnums=0)
  new = step(params)
  print(f"donation: the step reused its input's buffer; input deleted={params.is_deleted()}, "
        f"output {new.shape}")
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    xjax.jit(lambda a, b: a + b, donate_argnums=(0, 1))(jnp.ones(3), jnp.ones(3))
  print(f"  donating two inputs to one output warns: {str(caught[0].message).splitlines()[0]}")

  @xjax.jit
  def traced(x):
    xjax.debug.print("  debug.print inside jit sees runtime values: {}", x)
    return xjax.pure_callback(lambda v: np.sort(v)[::-1].copy(), xjax.ShapeDtypeStruct(x.shape, x.dtype), x)
  print(f"callbacks: pure_callback ran NumPy's sort inside jit -> {traced(jnp.array([2.0, 3.0, 1.0]))}")
  print(f"grad through Python control flow: grad(x / y if y >= 1 else 0)(3., 2.) = "
        f"{xjax.grad(lambda x, y: x / y if y >= 1.0 else 0.0)(3.0, 2.0)}")


def main():
  start = time.perf_counter()
  print("xjax demo: the examples of 'How to think in JAX' and the JAX FAQ\n")
  print("1. What changes under jit\n")
  table(["example", "eager", "jit"], behaviour_rows(), numbers=False)
  print("2. Speed: time per call (best of several, results waited for). Eager runs each operation")
  print("   as its own compiled program; 'first call' is jit's: tracing, and XLA compilation")
  print("   or a load from xjax's on-disk compilation cache.\n")
  rows = speed_rows()
  table(["example", "NumPy", "eager", "jit", "first call", "jit vs eager", "jit vs NumPy"], rows)
  print("3. Devices, donation, callbacks\n")
  showcase()
  print(f"\ndone in {time.perf_counter() - start:.1f} s. More: docs/guide/ (make docs), examples/*.py")


if __name__ == "__main__":
  main()
