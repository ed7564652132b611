"""Writes the serialized ``jax.export`` blobs that tests/api/test_export.py reads, made by the
reference JAX 0.10.2 (its flatbuffer format), into tests/data/export/jax_<case>.bin:

    /tmp/ref/bin/python tools/jax_export_blobs.py

Not run by CI: it needs the reference JAX (imported only when run), which xjax's
environment does not hold. The tests check the calls' values against NumPy.
"""
from __future__ import annotations

import collections
import importlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "export"

Pair = collections.namedtuple("Pair", "a b")


class Box:
  """A custom pytree node whose aux data (a tag) is serialized as bytes."""

  def __init__(self, v, tag):
    self.v, self.tag = v, tag


def main() -> None:
  jax = importlib.import_module("jax")
  jnp = importlib.import_module("jax.numpy")
  export = importlib.import_module("jax.export")
  sds = jax.ShapeDtypeStruct
  export.register_namedtuple_serialization(Pair, serialized_name="xjax_tests.Pair")
  jax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), b.tag),
                                     lambda tag, c: Box(c[0], tag))
  export.register_pytree_node_serialization(
      Box, serialized_name="xjax_tests.Box", serialize_auxdata=lambda tag: tag.encode(),
      deserialize_auxdata=lambda b: b.decode())
  f32, i32 = jnp.float32, jnp.int32
  blobs = {}

  def pytrees(t, l, d, p, box):
    return {"sum": t[0] * 2 + t[1], "ints": [l[0] + 1, None], "flags": ~d["a"],
            "bf": d["b"] * 2, "pair": Pair(p.a + p.b, p.a * p.b), "box": Box(box.v * 3, box.tag)}
  blobs["pytrees"] = export.export(jax.jit(pytrees))(
      (sds((2, 3), f32), sds((3,), f32)), [sds((3,), i32), None],
      {"a": sds((4,), jnp.bool_), "b": sds((2,), jnp.bfloat16)},
      Pair(sds((), f32), sds((), f32)), Box(sds((2,), f32), "tag")).serialize()
  blobs["vjp"] = export.export(jax.jit(lambda x: jnp.sin(x) * x))(
      sds((3,), f32)).serialize(vjp_order=1)
  blobs["multi_platform"] = export.export(jax.jit(lambda x: jnp.cos(x) + 1),
                                          platforms=("cpu", "cuda"))(sds((4,), f32)).serialize()
  blobs["tpu_unchecked"] = export.export(
      jax.jit(lambda x: x * 2), platforms=("tpu",),
      disabled_checks=[export.DisabledSafetyCheck.platform()])(sds((3,), f32)).serialize()
  blobs["kept_vars"] = export.export(jax.jit(lambda x, unused, y: x * y))(
      sds((2,), f32), sds((5,), i32), sds((2,), f32)).serialize()
  sharding = importlib.import_module("jax.sharding")
  one = sharding.NamedSharding(jax.make_mesh((1,), ("x",)), sharding.PartitionSpec("x"))
  blobs["sharded_one_device"] = export.export(jax.jit(  # Shardy's sdy.mesh in the module
      lambda x: x * 2 + 1, in_shardings=one, out_shardings=one))(sds((4,), f32)).serialize()
  b4 = export.symbolic_shape("b, 4")
  blobs["poly_b4"] = export.export(jax.jit(lambda x: (jnp.sin(x) * 2, x.sum(axis=0))))(
      sds(b4, f32)).serialize(vjp_order=1)
  b4c = export.symbolic_shape("b, 4", constraints=["b >= 2"])
  blobs["poly_constraint"] = export.export(jax.jit(lambda x: x[1:] - x[:-1]))(
      sds(b4c, f32)).serialize()
  ab = export.symbolic_shape("a, b")
  blobs["poly_ab"] = export.export(jax.jit(
      lambda x, y: (x.T, jnp.concatenate([x.ravel(), y]))))(
          sds(ab, f32), sds((ab[0] * ab[1] + 1,), f32)).serialize()
  with jax.enable_x64(True):
    blobs["f64"] = export.export(jax.jit(lambda x, n: (x ** 2, n * 3)))(
        sds((3,), jnp.float64), sds((), jnp.int64)).serialize()
  OUT.mkdir(parents=True, exist_ok=True)
  for name, blob in blobs.items():
    (OUT / f"jax_{name}.bin").write_bytes(bytes(blob))
    print(f"wrote jax_{name}.bin ({len(blob)} bytes)")


if __name__ == "__main__":
  main()
