"""JAX's ``out_sharding=`` keyword of the samplers and of lax.conv_general_dilated: the type
sharding of an unsplit array (what flax nnx passes) leaves the result as it is; a bare
PartitionSpec outside a mesh context is JAX's ValueError."""
import inspect

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax, random
from xjax.sharding import PartitionSpec as P


def test_type_sharding_gives_the_same_draw():
  k = random.key(0)
  x = jnp.ones((4,))
  # JAX 0.10.2: bernoulli(key(0), 0.5, (4,)) == [False, False, True, True]
  np.testing.assert_array_equal(
      random.bernoulli(k, 0.5, (4,), out_sharding=xjax.typeof(x).sharding),
      [False, False, True, True])
  drawn = xjax.jit(lambda k, x: random.normal(k, x.shape, out_sharding=xjax.typeof(x).sharding))
  np.testing.assert_array_equal(drawn(k, x), random.normal(k, (4,)))


def test_partition_spec_needs_a_mesh():
  with pytest.raises(ValueError, match="not under a mesh context"):
    random.uniform(random.key(0), (4,), out_sharding=P("x"))


@pytest.mark.parametrize("name", ["ball", "bernoulli", "beta", "bits", "categorical", "cauchy",
                                  "chisquare", "dirichlet", "exponential", "f", "gamma",
                                  "generalized_normal", "geometric", "gumbel", "laplace",
                                  "loggamma", "logistic", "lognormal", "maxwell",
                                  "multivariate_normal", "normal", "orthogonal", "pareto",
                                  "permutation", "poisson", "rademacher", "randint", "rayleigh",
                                  "t", "triangular", "truncated_normal", "uniform", "wald"])
def test_samplers_take_out_sharding_keyword(name):
  param = inspect.signature(getattr(random, name)).parameters["out_sharding"]
  assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default is None


def test_conv_general_dilated_takes_out_sharding():
  x, w = jnp.ones((1, 3, 5, 5)), jnp.ones((2, 3, 3, 3))
  out = lax.conv_general_dilated(x, w, (1, 1), "SAME", out_sharding=None)
  same = lax.conv_general_dilated(x, w, (1, 1), "SAME", out_sharding=xjax.typeof(x).sharding)
  np.testing.assert_array_equal(out, same)
  assert float(out[0, 0, 2, 2]) == 27.
  with pytest.raises(ValueError, match="not under a mesh context"):
    lax.conv_general_dilated(x, w, (1, 1), "SAME", out_sharding=P())
