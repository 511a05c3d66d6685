"""The checker of the "your turn" exercises: one generic judge for every Exercise declared in a notebook's module
(the EXERCISES of helpers/explorers/nbNN.py)."""

from .core import ExactZeros, Exercise, Feedback, Mistake, all_exercises, check

__all__ = ["ExactZeros", "Exercise", "Feedback", "Mistake", "all_exercises", "check"]
