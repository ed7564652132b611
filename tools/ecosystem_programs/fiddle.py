"""fiddle: its flax example: an auto_config'd configuration of a flax linen MLP whose
activation and kernel initializer are JAX functions (fiddle.extensions.jax enabled), mutated
(fdl.copy_with, attribute assignment), built with fdl.build and applied (init + jitted
apply), printed flat, turned into Python code (codegen), and round-tripped through fiddle's
JSON serialization (which imports JAX symbols by their module path) to the same outputs."""
import json
import re
from typing import Callable, Sequence

import fiddle as fdl
import fiddle.extensions.jax
import flax.linen as nn
import jax
import jax.numpy as jnp
from fiddle import printing
from fiddle.codegen import codegen
from fiddle.experimental import auto_config, serialization


class MLP(nn.Module):
  features: Sequence[int]
  activation: Callable = nn.relu
  kernel_init: Callable = nn.initializers.lecun_normal()

  @nn.compact
  def __call__(self, x):
    for i, width in enumerate(self.features):
      x = nn.Dense(width, kernel_init=self.kernel_init)(x)
      if i < len(self.features) - 1:
        x = self.activation(x)
    return x


@auto_config.auto_config
def mlp_config():
  return MLP(features=[16, 8, 3], activation=jax.nn.gelu,
             kernel_init=jax.nn.initializers.glorot_uniform())


def outputs(model):
  x = jnp.linspace(-1.0, 1.0, 10).reshape(2, 5)
  params = model.init(jax.random.key(0), x)
  return jax.jit(model.apply)(params, x)


def pyrefs(tree):
  """The module.name of each Python reference in serialized JSON."""
  if isinstance(tree, dict):
    found = [f"{tree['module']}.{tree['name']}"] if tree.get("type") == "pyref" else []
    return found + [r for value in tree.values() for r in pyrefs(value)]
  if isinstance(tree, list):
    return [r for value in tree for r in pyrefs(value)]
  return []


def as_jax_names(text):
  """Module names as the redirection maps them: standing in for `jax`, xjax's modules keep
  their own names (`jax.numpy` is the module `xjax.numpy`, `jax._src.X` is
  `xjax._src.compat.jax_private_compat.X`), which fiddle writes (a no-op on JAX)."""
  return re.sub(r"\bxjax\.", "jax.", text.replace("xjax._src.compat.jax_private_compat.",
                                                   "jax._src."))


def run():
  fiddle.extensions.jax.enable()
  config = mlp_config.as_buildable()
  narrow = fdl.copy_with(config, features=[8, 3])
  narrow.activation = jax.nn.tanh
  narrow.kernel_init = fdl.Config(jax.nn.initializers.normal, stddev=0.5)
  text = re.sub(r" at 0x[0-9a-f]+", "", printing.as_str_flattened(narrow))
  code = as_jax_names("\n".join(codegen.codegen_dot_syntax(narrow).lines()))
  serialized = serialization.dump_json(config)
  restored = serialization.load_json(serialized)
  references = sorted({as_jax_names(r) for r in pyrefs(json.loads(serialized)) if "jax" in r})
  return {"direct": outputs(mlp_config()), "built": outputs(fdl.build(config)),
          "narrow": outputs(fdl.build(narrow)), "restored": outputs(fdl.build(restored)),
          "printed": text, "code": code, "same_config": restored == config,
          "jax_references": references}
