"""``jax.experimental.sparse.transform``: the ``sparsify`` transformation."""
from xjax._src.libraries.sparse.transform import eval_sparse, sparsify  # noqa: F401
