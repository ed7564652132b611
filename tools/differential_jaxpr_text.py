"""Compares the text of `jax.make_jaxpr(f)(x)` under xjax and the reference JAX.

Each case is the body of a one-argument function of `x`, a float32 (2, 3) array, written
against the public API (`jnp`, `lax`, `jax`). `record` traces every case under one library
and writes {case: jaxpr text} ("ERR <class>" where tracing raises) as JSON; `compare`
prints the cases whose texts differ, each with a unified diff, and their count.

    .venv/bin/python tools/differential_jaxpr_text.py record --lib xjax --out /tmp/x.json
    /tmp/ref/bin/python tools/differential_jaxpr_text.py record --lib jax --out /tmp/j.json
    python tools/differential_jaxpr_text.py compare /tmp/j.json /tmp/x.json
    python tools/differential_jaxpr_text.py both --ref-python /tmp/ref/bin/python   # all three
    python tools/differential_jaxpr_text.py both take var   # only the named cases

Not run by CI: it needs the reference JAX, which xjax's environment does not hold.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import json
import re
import subprocess
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CASES = {
  "var": "jnp.var(x)",
  "std": "jnp.std(x, axis=0)",
  "diag": "jnp.diag(x)",
  "take": "jnp.take(x, jnp.array([0, 1]), axis=1)",
  "interp": "jnp.interp(x, jnp.arange(3.), jnp.arange(3.))",
  "isin": "jnp.isin(x, jnp.array([1., 2.]))",
  "fft": "jnp.fft.fft(x)",
  "rfft": "jnp.fft.rfft(x)",
  "pad": "jnp.pad(x, 1)",
  "relu": "jax.nn.relu(x)",
  "slice_in_dim": "lax.slice_in_dim(x, 0, 1, axis=1)",
  "mean": "jnp.mean(x)",
  "softmax": "jax.nn.softmax(x)",
  "logsumexp": "jax.nn.logsumexp(x)",
  "gelu": "jax.nn.gelu(x)",
  "linspace": "jnp.linspace(0., 1., 5) + x[0, 0]",
  "cumsum": "jnp.cumsum(x, axis=0)",
  "argmax": "jnp.argmax(x, axis=1)",
  "einsum": "jnp.einsum('ij,kj->ik', x, x)",
  "norm": "jnp.linalg.norm(x)",
  "triu": "jnp.triu(x)",
  "tile": "jnp.tile(x, 2)",
  "roll": "jnp.roll(x, 1)",
  "sort": "jnp.sort(x)",
  "median": "jnp.median(x)",
  "flip": "jnp.flip(x)",
  "outer": "jnp.outer(x, x)",
  "allclose": "jnp.allclose(x, x)",
  "nan_to_num": "jnp.nan_to_num(x)",
  "round": "jnp.round(x, 2)",
  "polyval": "jnp.polyval(jnp.array([1., 2.]), x)",
  "cross": "jnp.cross(x, x)",
  "trace": "jnp.trace(x)",
  "ravel_multi": "x.ravel()",
  "split": "jnp.split(x, 3, axis=1)",
  "one_hot": "jax.nn.one_hot(jnp.array([0, 2]), 3)",
  "silu": "jax.nn.silu(x)",
  "log_softmax": "jax.nn.log_softmax(x)",
  "normalize": "jax.nn.standardize(x)",
  "dot_int": "jnp.dot(x, jnp.ones((3,), jnp.int32))",
  "matmul_mixed": "x @ jnp.ones((3, 2), jnp.float16)",
  "where1": "jnp.where(x > 1)",
  "clip_int": "jnp.clip(x, 1, 2)",
  "searchsorted": "jnp.searchsorted(jnp.arange(5.), x)",
  "histogram": "jnp.histogram(x, bins=3, range=(0, 5))[0]",
  "digitize": "jnp.digitize(x, jnp.array([1., 2.]))",
  "convolve": "jnp.convolve(x[0], x[1])",
  "kron": "jnp.kron(x, x)",
  "vander": "jnp.vander(x[0])",
  "average": "jnp.average(x, weights=x)",
  "cov": "jnp.cov(x)",
  "corrcoef": "jnp.corrcoef(x)",
  "unwrap": "jnp.unwrap(x)",
  "diff": "jnp.diff(x)",
  "meshgrid": "jnp.meshgrid(x[0], x[1])",
  "argsort": "jnp.argsort(x)",
  "percentile": "jnp.percentile(x, 50.)",
  "nanmean": "jnp.nanmean(x)",
  "logaddexp": "jnp.logaddexp(x, 1.)",
  "sigmoid": "jax.nn.sigmoid(x)",
  "softplus": "jax.nn.softplus(x)",
  "hypot": "jnp.hypot(x, x)",
  "arctan2": "jnp.arctan2(x, 1.)",
  "sinc": "jnp.sinc(x)",
  "i0": "jnp.i0(x)",
  "heaviside": "jnp.heaviside(x, 0.5)",
  "ldexp": "jnp.ldexp(x, 2)",
  "frexp": "jnp.frexp(x)",
  "modf": "jnp.modf(x)",
  "divmod": "jnp.divmod(x, 2.)",
  "floor_divide": "x // 2.",
  "power": "x ** 3",
  "power_f": "x ** 2.5",
  "mod": "x % 2.",
  "at_set": "x.at[0, 1].set(5.)",
  "at_add": "x.at[:, 1].add(5.)",
  "index_arr": "x[jnp.array([1, 0])]",
  "index_bool": "x[:, jnp.array([True, False, True])]",
  "index_neg": "x[-1]",
  "index_slice": "x[:, 1:]",
  "expand": "x[None, :, None]",
  "random_normal": "jax.random.normal(jax.random.key(0), (2,)) + x[0, :2]",
  "random_uniform": "jax.random.uniform(jax.random.PRNGKey(0), (2,)) + x[0, :2]",
  "random_split": "jax.random.split(jax.random.key(0))",
  "random_bernoulli": "jax.random.bernoulli(jax.random.key(1), 0.3, (3,))",
  "random_categorical": "jax.random.categorical(jax.random.key(1), x)",
  "random_randint": "jax.random.randint(jax.random.key(1), (3,), 0, 10)",
  # transformations and control flow, as JAX's tutorials print them
  "grad_sin": "jax.grad(lambda y: jnp.sum(jnp.sin(y)))(x)",
  "grad_tanh_mlp": "jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w.T)))(x)",
  "grad_logsumexp": "jax.grad(lambda y: jax.nn.logsumexp(y))(x)",
  "grad_softmax": "jax.grad(lambda y: jnp.sum(jax.nn.softmax(y) ** 2))(x)",
  "grad_mean_sq": "jax.grad(lambda y: jnp.mean((y - 1.) ** 2))(x)",
  "grad_where": "jax.grad(lambda y: jnp.sum(jnp.where(y > 1, y, 0.)))(x)",
  "grad_max": "jax.grad(lambda y: jnp.max(y))(x)",
  "grad_norm": "jax.grad(lambda y: jnp.linalg.norm(y))(x)",
  "value_and_grad": "jax.value_and_grad(lambda y: jnp.sum(y ** 3))(x)",
  "jvp_exp": "jax.jvp(jnp.exp, (x,), (x,))",
  "vjp_sin": "jax.vjp(jnp.sin, x)[1](x)",
  "vmap_dot": "jax.vmap(jnp.dot)(x, x)",
  "vmap_in_axes": "jax.vmap(lambda a, b: a * b, in_axes=(0, None))(x, x[0])",
  "vmap_grad": "jax.vmap(jax.grad(lambda y: jnp.sum(jnp.sin(y))))(x)",
  "jacfwd": "jax.jacfwd(jnp.sin)(x[0])",
  "jacrev": "jax.jacrev(jnp.sin)(x[0])",
  "hessian": "jax.hessian(lambda y: jnp.sum(y ** 3))(x[0])",
  "nested_jit": "jax.jit(lambda y: jnp.sin(y) * 2)(x)",
  "jit_static": "jax.jit(lambda y, n: y * n, static_argnums=1)(x, 3)",
  "cond": "lax.cond(x[0, 0] > 0, lambda y: y + 1, lambda y: y - 1, x)",
  "switch": "lax.switch(1, [jnp.sin, jnp.cos], x)",
  "while_loop": "lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2), (0, x))",
  "fori_loop": "lax.fori_loop(0, 3, lambda i, c: c + i, x)",
  "scan": "lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(3), x)",
  "scan_grad": "jax.grad(lambda y: lax.scan(lambda c, r: (c * r, None), 1., y.ravel())[0])(x)",
  "map": "lax.map(jnp.sum, x)",
  "checkpoint": "jax.grad(lambda y: jnp.sum(jax.checkpoint(jnp.sin)(y)))(x)",
  "custom_jvp": "jax.grad(lambda y: jnp.sum(jax.nn.relu(y)))(x)",
  "stop_gradient": "jax.grad(lambda y: jnp.sum(lax.stop_gradient(y) * y))(x)",
  "pure_callback": "jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct((2, 3), jnp.float32), x)",
  "debug_print": "jax.debug.print('{}', x)",
  "cumsum_grad": "jax.grad(lambda y: jnp.sum(jnp.cumsum(y, axis=1) ** 2))(x)",
  "sort_grad": "jax.grad(lambda y: jnp.sum(jnp.sort(y, axis=1) * jnp.arange(3.)))(x)",
  "index_grad": "jax.grad(lambda y: y[1, 2] + y[0, 0])(x)",
  "at_set_grad": "jax.grad(lambda y: jnp.sum(y.at[0].set(2.) ** 2))(x)",
  "reshape_grad": "jax.grad(lambda y: jnp.sum(y.reshape(3, 2) @ y))(x)",
  "astype": "x.astype(jnp.int32) + 1",
  "weak_scalar": "x * 2 + 1.5",
  "int_pow": "x ** 2",
  "concat": "jnp.concatenate([x, x], axis=0)",
  "stack": "jnp.stack([x, x])",
  "transpose": "x.T @ x",
  "sum_keepdims": "jnp.sum(x, axis=1, keepdims=True)",
  "argmin": "jnp.argmin(x, axis=0)",
  "zeros_like": "jnp.zeros_like(x) + jnp.ones(3)",
  "eye": "jnp.eye(3) @ x.T",
  "arange_dyn": "jnp.arange(3) * x",
  "layer_norm": "(x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)",
  "dropout": "jnp.where(jax.random.bernoulli(jax.random.key(0), 0.5, x.shape), x / 0.5, 0)",
}


def record(lib: str, names: list[str]) -> dict[str, str]:
  warnings.simplefilter("ignore")
  jax = importlib.import_module(lib)
  ns = {"jax": jax, "jnp": importlib.import_module(f"{lib}.numpy"),
        "lax": importlib.import_module(f"{lib}.lax")}
  x = ns["jnp"].arange(6.0).reshape(2, 3)
  out = {}
  for name in names or CASES:
    f = eval(f"lambda x: {CASES[name]}", ns)  # noqa: S307 - the cases above
    try:
      out[name] = re.sub(r"0x[0-9a-f]+", "0xADDRESS", str(jax.make_jaxpr(f)(x)))
    except Exception as e:  # a case the library refuses to trace
      out[name] = f"ERR {type(e).__name__}"
  return out


def compare(ref: dict, ours: dict) -> int:
  differ = [name for name in ref if ref[name] != ours.get(name)]
  for name in differ:
    print(f"===== {name}: {CASES.get(name, '')}")
    print("\n".join(difflib.unified_diff(ref[name].splitlines(),
                                         ours.get(name, "missing").splitlines(),
                                         "jax", "xjax", lineterm="", n=1)))
  print(f"{len(differ)} of {len(ref)} jaxpr texts differ: {' '.join(differ)}")
  return len(differ)


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  sub = parser.add_subparsers(dest="mode", required=True)
  r = sub.add_parser("record")
  r.add_argument("--lib", choices=["jax", "xjax"], required=True)
  r.add_argument("--out", required=True)
  r.add_argument("names", nargs="*")
  cmp = sub.add_parser("compare")
  cmp.add_argument("ref")
  cmp.add_argument("ours")
  both = sub.add_parser("both")
  both.add_argument("--ref-python", default="/tmp/ref/bin/python")
  both.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
  both.add_argument("names", nargs="*")
  args = parser.parse_args()
  if args.mode == "record":
    Path(args.out).write_text(json.dumps(record(args.lib, args.names), indent=1))
  elif args.mode == "compare":
    compare(json.loads(Path(args.ref).read_text()), json.loads(Path(args.ours).read_text()))
  else:
    files = {}
    for lib, python in [("jax", args.ref_python), ("xjax", args.python)]:
      files[lib] = Path(f"/tmp/differential_jaxpr_text_{lib}.json")
      subprocess.run([python, __file__, "record", "--lib", lib, "--out", str(files[lib]),
                      *args.names], check=True)
    compare(json.loads(files["jax"].read_text()), json.loads(files["xjax"].read_text()))


if __name__ == "__main__":
  main()
