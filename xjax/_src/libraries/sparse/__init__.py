"""``jax.experimental.sparse`` implementations: sparse formats as pytrees of arrays whose
operations are primitives (BCOO, BCSR, COO, CSR), and the ``sparsify`` transformation."""
