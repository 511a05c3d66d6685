"""The "your turn" exercises: each declared once in an nbNN module, judged by one generic checker.

Importing this package imports every nbNN module beside it, so `check("name", fn)` knows every exercise.
"""

import importlib
import pkgutil
import re

from .core import EXERCISES, Exercise, Feedback, Mistake, check, declare

for _module in pkgutil.iter_modules(__path__):
    if re.fullmatch(r"nb\d\d", _module.name):
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["EXERCISES", "Exercise", "Feedback", "Mistake", "check", "declare"]
