"""The cases of issue 34 (fidelity, last mile), run under xjax or the reference JAX, compared.

    python tools/differential_fidelity.py record --lib xjax  --out /tmp/x.json   # .venv python
    python tools/differential_fidelity.py record --lib jax   --out /tmp/j.json   # reference venv
    python tools/differential_fidelity.py compare /tmp/x.json /tmp/j.json

Each case prints a summary of its result: values (rounded to 6 significant digits), dtype
and weak type of each leaf, or the exception's class and first line; jaxprs as text.
``compare`` lists the cases whose summaries differ.  Broader sweeps of the same kind:
tools/differential_errors.py (error classes) and tools/differential_weak_types.py.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys

import numpy as np


def _load(lib: str):
  jax = importlib.import_module(lib)
  for sub in ("numpy", "nn", "scipy.linalg", "scipy.stats", "experimental", "sharding",
              "example_libraries.stax", "example_libraries.optimizers"):
    importlib.import_module(f"{lib}.{sub}")
  return jax


def _summary(value):
  leaves = value if isinstance(value, (list, tuple)) else [value]
  out = []
  for leaf in leaves:
    if hasattr(leaf, "dtype") and hasattr(leaf, "shape"):
      arr = np.asarray(leaf)
      weak = getattr(getattr(leaf, "aval", None), "weak_type", None)
      vals = arr.astype(np.float64).round(5).ravel()[:12].tolist() if arr.dtype.kind in "fc" \
          else arr.ravel()[:12].tolist()
      out.append([str(arr.dtype), list(arr.shape), weak, repr(vals)])
    else:
      out.append(repr(leaf)[:200])
  return out


def cases(jax):
  jnp, lax = jax.numpy, jax.lax
  rng = np.random.RandomState(0)
  X = jnp.asarray(rng.standard_normal((120, 4)).astype(np.float32))
  w = jnp.full(4, 0.3)
  logistic = lambda w: jnp.sum(jnp.logaddexp(0.0, X @ w))
  y = jnp.array([0.35, 0.5, 0.75])

  class Shape:   # a TensorShape-like sequence of __index__ objects
    def __init__(self, dims):
      self.dims = dims

    def __iter__(self):
      return iter([Dim(d) for d in self.dims])

    def __len__(self):
      return len(self.dims)

    def __getitem__(self, i):
      return Dim(self.dims[i])

  class Dim:
    def __init__(self, v):
      self.v = v

    def __index__(self):
      return self.v

  io_callback = jax.experimental.io_callback
  dev = jax.devices()[0]
  return {
      # 1. second-order derivatives
      "hessian_logistic": lambda: jax.hessian(logistic)(w),
      "jit_hessian_logistic": lambda: jax.jit(jax.hessian(logistic))(w),
      "jacfwd_jacrev_logistic": lambda: jax.jacfwd(jax.jacrev(logistic))(w),
      "vmap_hessian_hypot": lambda: jax.vmap(jax.hessian(lambda x: jnp.sum(jnp.hypot(x, y))))(
          jnp.array([[0.3, 0.6, 0.7], [0.6, 0.1, 0.2]])),
      "hessian_log_softmax": lambda: jax.hessian(
          lambda x: jnp.sum(jax.nn.log_softmax(x) * y))(y),
      # 2. error classes
      "broadcast_ranks": lambda: jnp.ones(100) + jnp.ones((100, 10)),
      "broadcast_same_rank": lambda: jnp.multiply(jnp.ones(3), jnp.ones(4)),
      "grad_io_callback": lambda: jax.grad(lambda x: io_callback(
          lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), x))(1.),
      "one_hot_traced": lambda: jax.jit(lambda n: jax.nn.one_hot(jnp.arange(3), n))(3),
      "cho_solve_shapes": lambda: jax.scipy.linalg.cho_solve((jnp.eye(3), True), jnp.ones(4)),
      "error_module": lambda: type(jax.errors.TracerBoolConversionError).__module__ and
      jax.errors.TracerBoolConversionError.__module__.replace("xjax", "jax"),
      # 3. weak types
      "jvp_pytree": lambda: jax.tree_util.tree_leaves(jax.jvp(
          lambda p: {"a": p["x"] * 2, "b": 3.}, ({"x": 1.},), ({"x": 1.},))),
      "hessian_scan_checkpoint": lambda: jax.hessian(lambda x: lax.scan(
          jax.checkpoint(lambda c, _: (jnp.sin(c) * 2., None)), x, None, length=3)[0])(1.),
      "norm_logpdf_scalars": lambda: jax.scipy.stats.norm.logpdf(1., 0., 2.),
      "poisson_pmf": lambda: jax.scipy.stats.poisson.pmf(2, 3.),
      # 4. small API gaps
      "device_put_tuple": lambda: jax.device_put((jnp.ones(2), jnp.ones(3)), (dev, dev)),
      "make_mesh_positional": lambda: jax.make_mesh(
          (1,), ("x",), (jax.sharding.AxisType.Explicit,)).axis_types,
      "lstsq_residuals": lambda: jnp.linalg.lstsq(jnp.asarray(rng.rand(5, 3)),
                                                  jnp.asarray(rng.rand(5)))[1],
      "cholesky_not_pd": lambda: jnp.linalg.cholesky(jnp.array([[4., 2., 0], [2., -1., 0],
                                                                [0, 0, 1.]])),
      "broadcast_to_index_shape": lambda: jnp.broadcast_to(1., Shape([2, 3])),
      "zeros_array_shape": lambda: jnp.zeros(np.array([2, 3])),
      "api_util_names": lambda: sorted(n for n in dir(jax.api_util) if not n.startswith("_")),
      # 5. modules older code imports
      "stax_relu": lambda: jax.example_libraries.stax.relu(jnp.array([-1., 2.])),
      "optimizers_names": lambda: sorted(n for n in ("Params", "State", "Schedule", "Updates")
                                         if hasattr(jax.example_libraries.optimizers, n)),
      "sparse_names": lambda: sorted(n for n in ("BCOO", "BCSR", "COO", "CSR", "sparsify",
                                                 "bcoo_dot_general") if hasattr(
          importlib.import_module(jax.__name__ + ".experimental.sparse"), n)),
      "sparse_matvec": lambda: importlib.import_module(
          jax.__name__ + ".experimental.sparse").BCOO.fromdense(jnp.eye(3) * 2.) @ y,
      "compilation_cache_module": lambda: hasattr(importlib.import_module(
          jax.__name__ + ".experimental.compilation_cache.compilation_cache"), "set_cache_dir"),
      # 6. jaxpr printing
      "jaxpr_where_clip_dot": lambda: str(jax.make_jaxpr(
          lambda a, b: jnp.where(a > 0, jnp.clip(a, 0, 1), jnp.dot(a, b)))(
              jnp.ones((3, 3)), jnp.ones((3, 3)))),
      "jaxpr_grad_where": lambda: str(jax.make_jaxpr(jax.grad(
          lambda x: jnp.sum(jnp.where(x > 0, x, 0.))))(jnp.ones(3))),
  }


def record(lib: str, out: str) -> None:
  jax = _load(lib)
  results = {}
  for name, case in cases(jax).items():
    try:
      value = case()
      results[name] = ["ok", _summary(value) if not isinstance(value, str) else value]
    except Exception as e:  # noqa: BLE001 - the class is what is compared
      cls = type(e)
      classes = [c.__name__ for c in cls.__mro__ if c.__module__ == "builtins"][:1]
      results[name] = ["raises", cls.__name__, classes, str(e).split("\n")[0][:200]]
  text = json.dumps(results, indent=1, default=str)
  text = text.replace("xjax", "jax")
  with open(out, "w") as f:
    f.write(text)


def compare(ours: str, theirs: str) -> int:
  a, b = json.load(open(ours)), json.load(open(theirs))
  bad = [k for k in b if a.get(k) != b[k]]
  for k in bad:
    print(f"--- {k}\n  xjax: {json.dumps(a.get(k))[:600]}\n  jax:  {json.dumps(b[k])[:600]}")
  print(f"{len(bad)} of {len(b)} cases differ")
  return 1 if bad else 0


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  sub = parser.add_subparsers(dest="cmd", required=True)
  r = sub.add_parser("record")
  r.add_argument("--lib", choices=["jax", "xjax"], required=True)
  r.add_argument("--out", required=True)
  c = sub.add_parser("compare")
  c.add_argument("ours")
  c.add_argument("theirs")
  args = parser.parse_args()
  if args.cmd == "record":
    record(args.lib, args.out)
  else:
    sys.exit(compare(args.ours, args.theirs))


if __name__ == "__main__":
  main()
