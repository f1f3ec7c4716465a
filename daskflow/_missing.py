"""The error for a TF1 name daskflow does not have: it says so, instead of a bare
``AttributeError``, and points at the coverage table."""


def missing(module: str, name: str) -> AttributeError:
    """``AttributeError`` for ``module.name`` (``module`` as users write it: ``tf.nn``)."""
    if name.startswith("_"):
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    return AttributeError(
        f"{module}.{name} is not part of daskflow (docs/api-coverage.md lists the TF1 names it has)"
    )
