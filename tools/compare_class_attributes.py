"""Public attributes of JAX's public classes that xjax's lack.

  /tmp/ref/bin/python tools/compare_class_attributes.py dump ref.json        # under JAX
  .venv/bin/python -m xjax tools/compare_class_attributes.py dump xjax.json  # under xjax
  python tools/compare_class_attributes.py diff ref.json xjax.json

`dump` imports `jax` (JAX itself, or xjax through the redirection) and records, for every
public class reachable from JAX's public modules (below) and for the types of a few
representative objects (an array, an aval, a tracer, a PyTreeDef, a sharding, the stages of a
jit, a PRNG key, custom_jvp/custom_vjp objects...), its public attribute names (`dir()`
without leading underscores).  `diff` prints, per class, the names the reference has and the
other lacks; classes missing altogether are listed first.
"""
from __future__ import annotations

import importlib
import inspect
import json
import sys

MODULES = ["jax", "jax.core", "jax.tree_util", "jax.sharding", "jax.stages", "jax.errors",
           "jax.random", "jax.custom_derivatives", "jax.dtypes", "jax.export", "jax.lax",
           "jax.numpy", "jax.typing", "jax.experimental", "jax.extend.core", "jax.ffi",
           "jax.interpreters.batching", "jax.interpreters.ad", "jax.interpreters.mlir"]


def _public(names):
  return sorted(n for n in names if not n.startswith("_"))


def _examples(jax) -> dict:
  """Types of representative objects, by a stable name."""
  import numpy as np
  out = {}
  x = jax.numpy.arange(3.0)
  out["<array>"] = type(x)
  out["<aval>"] = type(jax.typeof(x))
  out["<pytreedef>"] = type(jax.tree_util.tree_structure((1, 2)))
  out["<key>"] = type(jax.random.key(0))
  out["<sharding>"] = type(x.sharding)
  traced = jax.jit(lambda a: a + 1).trace(x)
  lowered = traced.lower()
  out["<traced>"], out["<lowered>"], out["<compiled>"] = (type(traced), type(lowered),
                                                          type(lowered.compile()))
  out["<jitted>"] = type(jax.jit(lambda a: a))
  out["<custom_jvp>"] = type(jax.custom_jvp(lambda a: a))
  out["<custom_vjp>"] = type(jax.custom_vjp(lambda a: a))
  out["<jaxpr>"] = type(jax.make_jaxpr(lambda a: a + 1)(x))
  out["<mesh>"] = type(jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",)))
  seen = []
  jax.vmap(lambda a: seen.append(type(a)) or a)(x)
  out["<batch tracer>"] = seen[0]
  return out


def dump(path: str) -> None:
  import jax
  classes = {}
  for name in MODULES:
    try:
      mod = importlib.import_module(name)
    except ImportError:
      continue
    for attr in _public(dir(mod)):
      try:
        obj = getattr(mod, attr)
      except Exception:  # deprecated names raise on access
        continue
      if inspect.isclass(obj):
        classes[f"{name}.{attr}"] = _public(dir(obj))
  for label, cls in _examples(jax).items():
    classes[label] = _public(dir(cls))
  with open(path, "w") as f:
    json.dump(classes, f, indent=0, sort_keys=True)


def diff(ref_path: str, other_path: str) -> None:
  ref, other = (json.load(open(p)) for p in (ref_path, other_path))
  missing = sorted(set(ref) - set(other))
  if missing:
    print("classes missing:", ", ".join(missing))
  for name in sorted(set(ref) & set(other)):
    lacking = sorted(set(ref[name]) - set(other[name]))
    if lacking:
      print(f"{name}: {', '.join(lacking)}")


if __name__ == "__main__":
  if len(sys.argv) == 3 and sys.argv[1] == "dump":
    dump(sys.argv[2])
  elif len(sys.argv) == 4 and sys.argv[1] == "diff":
    diff(sys.argv[2], sys.argv[3])
  else:
    print(__doc__, file=sys.stderr)
    raise SystemExit(2)
