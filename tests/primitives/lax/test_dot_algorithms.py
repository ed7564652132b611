"""precision= as a dot algorithm (DotAlgorithm, DotAlgorithmPreset or a preset's name):
accepted and rejected on CPU as JAX 0.10.2, computed in the algorithm's types (numbers
from the reference)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

X = jnp.arange(6.).reshape(2, 3) / 7  # as the reference built them
Y = jnp.arange(12.).reshape(3, 4) / 11
EXACT = [0.25974029302597046, 0.29870134592056274, 0.33766236901283264, 0.37662339210510254]
CPU_OK = {"DEFAULT": EXACT, "F32_F32_F32": EXACT, "BF16_BF16_F32": EXACT,
          "BF16_BF16_F32_X3": EXACT, "BF16_BF16_F32_X6": EXACT,
          "F16_F16_F16": [0.259521484375, 0.298583984375, 0.337646484375, 0.37646484375],
          "F64_F64_F64": [0.25974029302597046, 0.29870131611824036, 0.33766236901283264,
                          0.37662339210510254]}


def test_presets_enum():
  names = [p.name for p in lax.DotAlgorithmPreset]
  assert names[:3] == ["DEFAULT", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM"]
  assert len(names) == 16 and names[-1] == "F64_F64_F64"
  p = lax.DotAlgorithmPreset.BF16_BF16_F32
  assert str(p) == "BF16_BF16_F32" and repr(p) == "DotAlgorithmPreset.BF16_BF16_F32"
  assert p.accumulation_type == np.float32 and p.supported_lhs_types == (jnp.bfloat16,
                                                                         np.float32)
  assert lax.DotAlgorithmPreset.F16_F16_F16.accumulation_type == np.float16
  assert lax.DotAlgorithmPreset.DEFAULT.accumulation_type is None
  a = lax.DotAlgorithm(np.float32, np.float32, np.float32)
  assert a == lax.DotAlgorithm(np.float32, np.float32, np.float32, 1, 1, 1, False)
  assert a.num_primitive_operations == 1 and hash(a) == hash(tuple(a))


@pytest.mark.parametrize("preset", [p.name for p in lax.DotAlgorithmPreset])
def test_preset_values_and_cpu_support(preset):
  for spec in (preset, lax.DotAlgorithmPreset[preset]):
    if preset in CPU_OK:
      r = lax.dot(X, Y, precision=spec)
      assert r.dtype == np.float32 and r[0].tolist() == CPU_OK[preset]
    else:
      with pytest.raises(ValueError, match=f"'{preset}' is not supported by dot_general on CPU"):
        lax.dot(X, Y, precision=spec)


def test_explicit_algorithm_is_rejected_on_cpu():
  with pytest.raises(ValueError, match="not supported by dot_general on CPU"):
    lax.dot(X, Y, precision=lax.DotAlgorithm(np.float32, np.float32, np.float32))


def test_result_dtypes_follow_the_algorithm():
  h = jnp.ones((2, 3), jnp.float16)
  for p in ["BF16_BF16_F32", "F32_F32_F32", "F64_F64_F64", "F16_F16_F16"]:
    assert lax.dot(h, h.T, precision=p).dtype == np.float16
    assert lax.dot(h, h.T, precision=p, preferred_element_type=np.float32).dtype == np.float32
  b = jnp.ones((2, 3), jnp.bfloat16)
  assert lax.dot(b, b.T, precision="BF16_BF16_F32").dtype == jnp.bfloat16
  i = jnp.ones((2, 3), jnp.int32)
  r = lax.dot(i, i.T, precision="F32_F32_F32")
  assert r.dtype == np.int32 and r.tolist() == [[3, 3], [3, 3]]


def test_lowering_jaxpr_and_transformations():
  text = xjax.jit(lambda b: lax.dot(b, b.T, precision="BF16_BF16_F32")).lower(
      jnp.ones((2, 3), jnp.bfloat16)).as_text()
  assert ("algorithm = #stablehlo.dot_algorithm<lhs_precision_type = bf16, "
          "rhs_precision_type = bf16, accumulation_type = f32") in text
  jaxpr = xjax.make_jaxpr(lambda x, y: jnp.matmul(
      x, y, precision=lax.DotAlgorithmPreset.F16_F16_F16))(X, Y)
  assert "precision=F16_F16_F16" in str(jaxpr)
  assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in str(
      xjax.make_jaxpr(lambda x, y: lax.dot(x, y, precision="highest"))(X, Y))
  g = xjax.grad(lambda a: lax.dot(a, Y, precision="F16_F16_F16").sum())(X)
  assert g.tolist() == [[0.54541015625, 2.0, 3.455078125]] * 2
  f16 = CPU_OK["F16_F16_F16"]
  for fn in (lambda x, y: jnp.matmul(x, y, precision="F16_F16_F16"),
             lambda x, y: jnp.einsum("ij,jk->ik", x, y, precision="F16_F16_F16"),
             lambda x, y: xjax.vmap(lambda a: lax.dot(a, y, precision="F16_F16_F16"))(x)):
    assert fn(X, Y)[0].tolist() == f16


@pytest.mark.parametrize("bad,shown", [("HIGHEST", "HIGHEST"), (3, "3"), (("HIGH", "x"), "HIGH"),
                                       ("tf32", "tf32")])
def test_bad_precision(bad, shown):
  with pytest.raises(ValueError, match=f"(?s)Precision argument must be one of.*but got {shown}"):
    lax.dot(X, Y, precision=bad)
