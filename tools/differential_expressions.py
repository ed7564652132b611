"""Differential sweep of one-line expressions: xjax against the reference JAX, bit by bit.

Each line of a file in tools/expressions/ is a Python expression evaluated with `jax`, `jnp`,
`lax`, `random`, `nn`, `jsp` (jax.scipy), `np` and a few operands in scope (see `_namespace`).
A line may start with `name: ` to label it; `#` starts a comment.  Every result leaf is recorded
as [dtype, weak type, shape, value bytes] (non-array leaves by repr), a failure as the
exception's class and first line.  `compare` prints the expressions whose classes, dtypes,
weak types, shapes or values differ (values: any bit; `--ulps N` to allow N ulps).

    /tmp/ref/bin/python tools/differential_expressions.py record --out /tmp/expr_ref.json
    .venv/bin/python tools/differential_expressions.py record --lib xjax --out /tmp/expr_x.json
    .venv/bin/python tools/differential_expressions.py compare /tmp/expr_ref.json /tmp/expr_x.json

`record --only random` runs tools/expressions/random.txt alone; `record --x64` runs every
expression with `jax_enable_x64` on (record both sides so).  Not run by CI: it needs the
reference JAX.
"""
from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import re
import sys
import warnings

import numpy as np

HERE = pathlib.Path(__file__).parent / "expressions"


def _namespace(lib: str, x64: bool = False) -> dict:
  jax = importlib.import_module(lib)
  jax.config.update("jax_enable_x64", x64)
  for sub in ("numpy", "lax", "random", "nn", "scipy.special", "scipy.stats", "scipy.linalg",
              "scipy.signal", "scipy.ndimage", "tree_util", "experimental"):
    importlib.import_module(f"{lib}.{sub}")
  jnp = jax.numpy
  rng = np.random.RandomState(0)
  return dict(
      jax=jax, jnp=jnp, lax=jax.lax, random=jax.random, nn=jax.nn, jsp=jax.scipy, np=np,
      key=jax.random.PRNGKey(0), nkey=jax.random.key(0),
      x=jnp.asarray(rng.standard_normal(6).astype(np.float32)),
      y=jnp.asarray(rng.standard_normal(6).astype(np.float32)),
      m=jnp.asarray(rng.standard_normal((3, 4)).astype(np.float32)),
      sq=jnp.asarray(rng.standard_normal((3, 3)).astype(np.float32)),
      t=jnp.asarray(rng.standard_normal((2, 3, 4)).astype(np.float32)),
      i=jnp.arange(6, dtype=jnp.int32), b=jnp.asarray([True, False, True, True, False, True]),
      xn=np.asarray(rng.standard_normal(6).astype(np.float32)),
  )


def _leaf(leaf):
  if hasattr(leaf, "dtype") and hasattr(leaf, "shape") and not isinstance(leaf, type):
    try:
      arr = np.asarray(leaf)
    except Exception as e:   # a key array, or a tracer
      return ["unreadable", str(leaf.dtype), list(leaf.shape), type(e).__name__]
    weak = getattr(getattr(leaf, "aval", None), "weak_type", None)
    if arr.dtype == object:
      return ["object", list(arr.shape), repr(arr.tolist())[:200]]
    return [str(arr.dtype), weak, list(arr.shape), arr.tobytes().hex()]
  text = repr(leaf)
  if " at 0x" in text:
    text = text.split(" at 0x")[0]
  return ["repr", text[:300]]


def _flatten(value):
  if isinstance(value, (list, tuple)):
    out = [type(value).__name__]
    for v in value:
      out.extend(_flatten(v))
    return out
  if isinstance(value, dict):
    out = ["dict"]
    for k in sorted(value, key=repr):
      out.append(repr(k))
      out.extend(_flatten(value[k]))
    return out
  return [_leaf(value)]


def _lines(only):
  for path in sorted(HERE.glob("*.txt")):
    if only and path.stem not in only:
      continue
    for n, line in enumerate(path.read_text().splitlines(), 1):
      line = line.strip()
      if not line or line.startswith("#"):
        continue
      name, sep, expr = line.partition(": ")
      if not sep or not re.fullmatch(r"[A-Za-z_][\w.\-]*", name):
        name, expr = f"{path.stem}:{n}", line
      yield f"{path.stem}/{name}", expr


def record(lib: str, only, x64: bool = False) -> dict:
  ns = _namespace(lib, x64)
  out = {}
  for name, expr in _lines(only):
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      try:
        out[name] = {"expr": expr, "result": _flatten(eval(expr, dict(ns)))}
      except Exception as e:  # the class and the first line are what's compared
        out[name] = {"expr": expr,
                     "error": [type(e).__name__, (str(e).splitlines() or [""])[0][:200]]}
  return out


def _ulps_apart(a, b, ulps: int) -> bool:
  if a[0] != b[0] or a[0] in ("repr", "object", "unreadable") or ulps == 0:
    return a != b
  import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)
  try:
    dt = np.dtype(a[0])
  except TypeError:  # e.g. float0, whose str() NumPy cannot parse back
    return a != b
  x = np.frombuffer(bytes.fromhex(a[3]), dt)
  y = np.frombuffer(bytes.fromhex(b[3]), dt)
  is_float = dt.kind in "fc"
  if dt.kind == "V" and dt.names is None:   # bfloat16 and the float8s are kind "V"
    try:
      ml_dtypes.finfo(dt)
      is_float = True
    except ValueError:
      pass
  if not is_float:
    return not np.array_equal(x, y)
  if dt.kind == "c":
    x, y = x.view(dt.type(0).real.dtype), y.view(dt.type(0).real.dtype)
  xf, yf = x.astype(np.float64), y.astype(np.float64)
  same = (xf == yf) | (np.isnan(xf) & np.isnan(yf))
  # One ulp of the reference value in its own format (float16/bfloat16 included; the old code
  # measured those in float32 ulps).  Infinities and NaNs must match exactly.
  fi = ml_dtypes.finfo(x.dtype)
  with np.errstate(all="ignore"):
    expo = np.floor(np.log2(np.maximum(np.abs(xf), float(fi.smallest_normal))))
    spacing = np.exp2(expo) * float(fi.eps)
    close = np.isfinite(xf) & np.isfinite(yf) & (np.abs(xf - yf) <= ulps * spacing)
  return not np.all(same | close)


def compare(ref_path: str, got_path: str, ulps: int) -> int:
  ref, got = json.load(open(ref_path)), json.load(open(got_path))
  bad = 0
  for name, r in ref.items():
    g = got.get(name)
    if g is None:
      continue
    if "error" in r or "error" in g:
      if r.get("error", [None])[0] != g.get("error", [None])[0]:
        bad += 1
        print(f"CLASS {name}: {r['expr']}\n  jax:  {r.get('error') or 'ok'}\n"
              f"  xjax: {g.get('error') or 'ok'}")
      continue
    rr, gg = r["result"], g["result"]
    kind = None
    if len(rr) != len(gg):
      kind = "STRUCT"
    else:
      for a, b in zip(rr, gg):
        if isinstance(a, str) or isinstance(b, str):
          kind = kind or (a != b and "STRUCT")
        elif a[0] != b[0]:
          kind = "DTYPE"
        elif a[0] not in ("repr", "object", "unreadable") and (a[1], a[2]) != (b[1], b[2]):
          kind = "WEAK" if a[2] == b[2] else "SHAPE"
        elif _ulps_apart(a, b, ulps):
          kind = kind or "VALUE"
    if kind:
      bad += 1
      def short(v):
        return [x if isinstance(x, str) or x[0] == "repr" else x[:3] + [x[3][:32]]
                for x in v][:4] if isinstance(v, list) else v
      print(f"{kind} {name}: {r['expr']}\n  jax:  {short(rr)}\n  xjax: {short(gg)}")
      if len(rr) == len(gg):
        k = next(k for k, (a, b) in enumerate(zip(rr, gg)) if a != b)
        if k >= 4 or (not isinstance(rr[k], str) and len(str(rr[k])) > 100):
          print(f"  first difference at leaf {k}:\n    jax:  {rr[k]}\n    xjax: {gg[k]}")
  print(f"{bad} of {len(ref)} differ")
  return 1 if bad else 0


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  sub = parser.add_subparsers(dest="cmd", required=True)
  rec = sub.add_parser("record")
  rec.add_argument("--lib", default="jax")
  rec.add_argument("--out", required=True)
  rec.add_argument("--only", nargs="*")
  rec.add_argument("--x64", action="store_true", help="with jax_enable_x64 on")
  cmp = sub.add_parser("compare")
  cmp.add_argument("ref")
  cmp.add_argument("got")
  cmp.add_argument("--ulps", type=int, default=0)
  args = parser.parse_args()
  if args.cmd == "record":
    if args.lib == "xjax":
      sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))
    json.dump(record(args.lib, args.only, args.x64), open(args.out, "w"))
    return 0
  return compare(args.ref, args.got, args.ulps)


if __name__ == "__main__":
  sys.exit(main())
