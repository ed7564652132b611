"""Small example libraries of JAX (`stax` layers, `optimizers`), with the same names."""
