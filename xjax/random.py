"""Pseudo-random numbers with explicit keys (``jax.random``), bit for bit with JAX.

    key = xjax.random.key(0)
    key, subkey = xjax.random.split(key)
    x = xjax.random.normal(subkey, (3,))
"""
from xjax._src.libraries.random.keys import (PRNGKey, bits, clone, fold_in, key,  # noqa: F401
                                             key_data, key_dtype, key_impl, split, wrap_key_data)
from xjax._src.libraries.random.continuous import (cauchy, double_sided_maxwell,  # noqa: F401
                                                   exponential, gumbel, laplace, logistic,
                                                   lognormal, maxwell, normal, pareto, rayleigh,
                                                   triangular, truncated_normal, uniform, wald,
                                                   weibull_min)
from xjax._src.libraries.random.multivariate import multivariate_normal, orthogonal  # noqa: F401
from xjax._src.libraries.random.gamma import (ball, beta, chisquare, dirichlet, f,  # noqa: F401
                                              gamma, generalized_normal, loggamma, random_gamma_p,
                                              t)
from xjax._src.libraries.random.discrete import (bernoulli, binomial, categorical,  # noqa: F401
                                                 choice, geometric, multinomial, permutation,
                                                 poisson, rademacher, randint)
