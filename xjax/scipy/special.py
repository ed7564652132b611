"""Special functions (``jax.scipy.special``)."""
from xjax._src.scipy.special.bessel import bessel_jn, i0, i0e, i1, i1e  # noqa: F401
from xjax._src.scipy.special.exponential_integrals import exp1, expi, expn, sici  # noqa: F401
from xjax._src.scipy.special.faddeeva import dawsn, erfcx, fresnel, wofz  # noqa: F401
from xjax._src.scipy.special.gamma_functions import (  # noqa: F401
    beta, betainc, betaln, comb, digamma, factorial, gamma, gammainc, gammaincc, gammaln,
    gammasgn, loggamma, multigammaln, poch, polygamma)
from xjax._src.scipy.special.hypergeometric import hyp1f1, hyp2f1  # noqa: F401
from xjax._src.scipy.special.information import (  # noqa: F401
    entr, kl_div, rel_entr, xlog1py, xlogy)
from xjax._src.scipy.special.log_sum_exp import logsumexp  # noqa: F401
from xjax._src.scipy.special.normal import (  # noqa: F401
    erf, erfc, erfinv, log_ndtr, ndtr, ndtri, owens_t)
from xjax._src.scipy.special.softmax import log_softmax, softmax  # noqa: F401
from xjax._src.scipy.special.spherical_harmonics import sph_harm_y  # noqa: F401
from xjax._src.scipy.special.transforms import boxcox, boxcox1p, expit, logit  # noqa: F401
from xjax._src.scipy.special.zeta_functions import bernoulli, spence, zeta  # noqa: F401
