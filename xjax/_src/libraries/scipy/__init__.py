"""Implementations behind ``xjax.scipy``: one package or module per SciPy submodule."""
