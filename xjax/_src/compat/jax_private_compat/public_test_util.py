"""`jax._src.public_test_util`: `check_grads` and the tolerance helpers that libraries' tests
import (tinygp's `check_close`), from xjax's test_util, which has JAX's semantics."""
from xjax._src.libraries.test_util import (  # noqa: F401
    EPS, ToleranceDict, add, check_close, check_grads, check_jvp, check_vjp, conj,
    default_gradient_tolerance, default_tolerance, inner_prod, is_python_scalar,
    numerical_jvp, rand_like, safe_sub, scalar_mul, sub, tolerance)
