"""Interactive explorers: `explore` and the parsing every explorer shares (callbacks live in nbNN.py)."""

from .core import check_position, explore, fmt_row, link_range, parse_numbers, parse_word, report

__all__ = ["check_position", "explore", "fmt_row", "link_range", "parse_numbers", "parse_word", "report"]
