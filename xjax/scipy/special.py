"""Special functions (``jax.scipy.special``)."""
from xjax._src.libraries.scipy.special.bessel import bessel_jn, i0, i0e, i1, i1e  # noqa: F401
from xjax._src.libraries.scipy.special.exponential_integrals import (exp1, expi, expn,  # noqa: F401
                                                                     sici)
from xjax._src.libraries.scipy.special.faddeeva import dawsn, erfcx, fresnel, wofz  # noqa: F401
from xjax._src.libraries.scipy.special.gamma_functions import (beta, betainc, betaln,  # noqa: F401
                                                               comb, digamma, factorial, gamma,
                                                               gammainc, gammaincc, gammaln,
                                                               gammasgn, loggamma, multigammaln,
                                                               poch, polygamma)
from xjax._src.libraries.scipy.special.hypergeometric import hyp1f1, hyp2f1  # noqa: F401
from xjax._src.libraries.scipy.special.information import (entr, kl_div, rel_entr,  # noqa: F401
                                                           xlog1py, xlogy)
from xjax._src.libraries.scipy.special.log_sum_exp import logsumexp  # noqa: F401
from xjax._src.libraries.scipy.special.normal import (erf, erfc, erfinv, log_ndtr,  # noqa: F401
                                                      ndtr, ndtri, owens_t)
from xjax._src.libraries.scipy.special.softmax import log_softmax, softmax  # noqa: F401
from xjax._src.libraries.scipy.special.spherical_harmonics import sph_harm_y  # noqa: F401
from xjax._src.libraries.scipy.special import spherical_harmonics as _legendre
from xjax._src.libraries.scipy.special.transforms import (boxcox, boxcox1p, expit,  # noqa: F401
                                                          logit)
from xjax._src.libraries.scipy.special.zeta_functions import bernoulli, spence, zeta  # noqa: F401

_DEPRECATED = {"lpmn": _legendre.lpmn, "lpmn_values": _legendre.lpmn_values}


def __getattr__(name):
  if name in _DEPRECATED:  # deprecated in JAX 0.10, with no replacement
    import warnings
    warnings.warn(f"jax.scipy.special.{name} is deprecated; no replacement is planned.",
                  DeprecationWarning, stacklevel=2)
    return _DEPRECATED[name]
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
