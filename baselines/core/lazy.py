"""Objects named by 'module:attribute' strings, imported only when first used (registries cost no imports)."""
from __future__ import annotations

import importlib
from typing import Callable


def import_object(target: str):
    """The object that `target` ('package.module:Name', or 'package.module:Outer.Inner') names."""
    module, separator, attribute = target.partition(":")
    if not separator or not module or not attribute:
        raise ValueError(f"expected 'module:attribute', got {target!r}")
    value = importlib.import_module(module)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


def lazy_function(target: str) -> Callable:
    """A function that imports `target` on its first call and forwards every call to it."""

    def call(*args, **kwargs):
        return import_object(target)(*args, **kwargs)

    call.__qualname__ = target
    return call
