"""What `install_as_jax` presents: the `jax` import redirection and the `jax._src` names
libraries use."""
