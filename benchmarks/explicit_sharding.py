"""Sharding in types: what tracing with sharded types costs, and a data- and
tensor-parallel MLP training step over 8 CPU devices (a (4, 2) mesh of Explicit axes), for
xjax and, given a Python with the reference JAX, for JAX on the same machine in the same run.

    .venv/bin/python benchmarks/explicit_sharding.py [--reference /tmp/ref/bin/python]
"""
import argparse
import json
import os
import subprocess
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

from _timing import best_of  # noqa: E402


def measure(jax) -> dict:
  jnp = jax.numpy
  P = jax.sharding.PartitionSpec

  def chain():  # a new function each time (JAX caches the tracing of the same one)
    def f(x):    # 1,500 equations
      for _ in range(500):
        x = jnp.sin(x) * 1.01 + 0.5
      return x
    return f

  unsharded = jnp.ones((8, 4))
  out = {"trace_unsharded_ms": 1e3 * best_of(lambda: jax.make_jaxpr(chain())(unsharded),
                                             number=5)}
  mesh = jax.make_mesh((4, 2), ("X", "Y"))
  with jax.set_mesh(mesh):
    x = jax.device_put(jnp.ones((8, 4)), P("X", "Y"))
    out["trace_sharded_ms"] = 1e3 * best_of(lambda: jax.make_jaxpr(chain())(x), number=5)
    k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
    params = {"w1": jax.device_put(jax.random.normal(k1, (256, 1024)) * 0.05, P(None, "Y")),
              "w2": jax.device_put(jax.random.normal(k2, (1024, 16)) * 0.05, P("Y", None))}
    inputs = jax.device_put(jax.random.normal(k3, (512, 256)), P("X", None))
    targets = jnp.zeros((512, 16), out_sharding=P("X", None))

    def loss(p, x, y):
      hidden = jnp.tanh(x @ p["w1"])
      return jnp.mean((jnp.dot(hidden, p["w2"], out_sharding=P("X", None)) - y) ** 2)

    @jax.jit
    def step(p, x, y):
      grads = jax.grad(loss)(p, x, y)
      return jax.tree.map(lambda w, g: w - 0.1 * g, p, grads)

    holder = [params]

    def run():
      holder[0] = step(holder[0], inputs, targets)
      jax.block_until_ready(holder[0])
    out["step_8_devices_ms"] = 1e3 * best_of(run, number=20)
  return out


def main() -> None:
  parser = argparse.ArgumentParser()
  parser.add_argument("--reference", help="a Python whose `jax` is the reference JAX")
  parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if os.environ.get("BENCH_WITH") == "jax":
    import jax
  else:
    import xjax as jax
  result = measure(jax)
  if args.json:
    print(json.dumps(result))
    return
  rows = {"xjax": result}
  if args.reference:
    env = dict(os.environ, BENCH_WITH="jax")
    done = subprocess.run([args.reference, __file__, "--json"], env=env, capture_output=True,
                          text=True, check=True)
    rows["jax"] = json.loads(done.stdout.strip().splitlines()[-1])
  print(f"{'':24s}" + "".join(f"{name:>12s}" for name in rows)
        + ("    xjax/jax" if "jax" in rows else ""))
  for key in result:
    line = f"{key:24s}" + "".join(f"{r[key]:12.3f}" for r in rows.values())
    if "jax" in rows:
      line += f"{rows['xjax'][key] / rows['jax'][key]:12.2f}"
    print(line)
  print(f"tracing with sharded types / without: "
        f"{result['trace_sharded_ms'] / result['trace_unsharded_ms']:.2f}")


if __name__ == "__main__":
  sys.exit(main())
