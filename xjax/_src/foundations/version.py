"""xjax's version (the package's ``__version__``; pyproject.toml names the same)."""
__version__ = "0.1.0"
