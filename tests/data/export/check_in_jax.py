"""Checks blobs that xjax's ``Exported.serialize()`` wrote, in the reference JAX 0.10.2: for
each DIR/<case>.bin beside DIR/<case>.npz (the flattened arguments ``in_<i>`` and the
expected flattened results ``out_<i>`` (bfloat16 ones as float32), and for a VJP the output cotangents ``ct_<i>`` and
the expected argument cotangents ``vjp_<i>``), deserializes it with ``jax.export``, calls it
and compares. Prints one line per case; exits 1 if any differs.

    /tmp/ref/bin/python tests/data/export/check_in_jax.py DIR

Run by tests/api/test_export.py in a subprocess of the reference interpreter (jax is
imported only when run).
"""
import collections
import importlib
import sys
from pathlib import Path

import numpy as np

Pair = collections.namedtuple("Pair", "a b")


def main(folder: Path) -> int:
  jax = importlib.import_module("jax")
  export = importlib.import_module("jax.export")
  jax.config.update("jax_enable_x64", True)  # so int64/float64 arguments keep their dtype
  export.register_namedtuple_serialization(Pair, serialized_name="xjax_tests.Pair")
  failed = 0
  for blob in sorted(folder.glob("*.bin")):
    data = np.load(blob.with_suffix(".npz"))
    n_out = sum(k.startswith("out_") for k in data)
    exp = export.deserialize(bytearray(blob.read_bytes()))
    # bfloat16 values are stored as float32: cast each to the exported dtype
    args = [data[f"in_{i}"].astype(a.dtype) for i, a in enumerate(exp.in_avals)]
    args_tree, kwargs_tree = exp.in_tree.unflatten(args)
    got = jax.tree_util.tree_leaves(exp.call(*args_tree, **kwargs_tree))
    want = [data[f"out_{i}"] for i in range(n_out)]
    ok = len(got) == len(want) and all(
        np.allclose(np.asarray(g, np.float64), w.astype(np.float64), rtol=1e-5, atol=1e-6)
        and g.dtype == a.dtype for g, w, a in zip(got, want, exp.out_avals))
    if "ct_0" in data:
      cts = [data[f"ct_{i}"] for i in range(n_out)]
      vjp = exp.vjp().call(*args, *cts)
      ok = ok and all(np.allclose(g, data[f"vjp_{i}"], rtol=1e-5, atol=1e-6)
                      for i, g in enumerate(vjp))
    print(f"{blob.stem}: {'OK' if ok else 'MISMATCH'} platforms={exp.platforms} "
          f"in_avals={exp.in_avals}")
    failed += not ok
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main(Path(sys.argv[1])))
