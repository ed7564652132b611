"""Testing helpers (``check_grads``)."""
from xjax._src.libraries.test_util import check_grads, check_jvp, check_vjp  # noqa: F401
