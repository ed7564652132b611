"""Mutable array references (``jax.Ref``): their types, the state primitives, and the
discharge that turns their use into array operations (see ``discharge.py``)."""
