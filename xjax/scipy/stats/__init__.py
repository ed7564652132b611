"""Probability distributions and sample summaries (``jax.scipy.stats``)."""
from xjax.scipy.stats import (  # noqa: F401
    bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, gennorm,
    geom, gumbel_l, gumbel_r, laplace, logistic, multinomial, multivariate_normal, nbinom,
    norm, pareto, poisson, t, truncnorm, uniform, vonmises, wrapcauchy)
from xjax._src.libraries.scipy.stats.summaries import mode, rankdata, sem  # noqa: F401
from xjax._src.libraries.scipy.stats.kde import gaussian_kde  # noqa: F401
