"""Each notebook's own helpers, one module per notebook (nbNN.py: its explorers and its "your turn" exercises),
and what every explorer shares (core.py)."""

import importlib
import pkgutil
import re

from .core import explore

__all__ = ["explore", "notebook_modules"]


def notebook_modules() -> dict:
    """{"nb01": helpers.explorers.nb01, ...}: every notebook's module, imported, in order."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if re.fullmatch(r"nb\d\d", m.name))
    return {name: importlib.import_module(f"{__name__}.{name}") for name in names}
