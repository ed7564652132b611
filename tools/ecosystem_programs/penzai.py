"""penzai: a named-axis MLP built with simple_mlp.MLP.from_config and applied to a NamedArray."""
import jax
import jax.numpy as jnp
from penzai import pz
from penzai.models import simple_mlp


def run():
  mlp = simple_mlp.MLP.from_config(name="mlp", init_base_rng=jax.random.key(0), feature_sizes=[3, 8, 2])
  x = pz.nx.wrap(jnp.linspace(-1.0, 1.0, 12).reshape(4, 3)).tag("batch", "features")
  y = mlp(x)
  params = pz.unbind_params(mlp)[1]
  total = sum(jnp.sum(p.value.unwrap(*p.value.named_axes)) for p in params)
  return {"out": y.unwrap("batch", "features"), "named_shape": str(dict(y.named_shape)),
          "n_params": len(params), "param_total": total}
