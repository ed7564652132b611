"""Pseudo-random numbers with explicit keys (``jax.random``), bit for bit with JAX.

    key = xjax.random.key(0)
    key, subkey = xjax.random.split(key)
    x = xjax.random.normal(subkey, (3,))
"""
from xjax._src.random.keys import (PRNGKey, bits, clone, fold_in, key, key_data,  # noqa: F401
                                   key_dtype, key_impl, split, wrap_key_data)
from xjax._src.random.continuous import (cauchy, double_sided_maxwell, exponential,  # noqa: F401
                                         gumbel, laplace, logistic, lognormal, maxwell,
                                         normal, pareto, rayleigh, triangular,
                                         truncated_normal, uniform, wald, weibull_min)
from xjax._src.random.multivariate import multivariate_normal, orthogonal  # noqa: F401
from xjax._src.random.gamma import (ball, beta, chisquare, dirichlet, f, gamma,  # noqa: F401
                                    generalized_normal, loggamma, random_gamma_p, t)
from xjax._src.random.discrete import (bernoulli, binomial, categorical, choice,  # noqa: F401
                                       geometric, multinomial, permutation, poisson,
                                       rademacher, randint)
