"""Callbacks behind the notebooks' interactive explorers: plain functions, tested directly."""
