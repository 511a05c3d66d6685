"""Plain-English wording shared by the checkers, the explorers and the pictures' descriptions."""


def counted(n: int, noun: str) -> str:
    """`n` and `noun`, plural unless n is 1: "1 score", "4 scores"."""
    return f"{n} {noun}{'s' * (n != 1)}"


def article(noun: str) -> str:
    """`noun` after "a" or "an", by its first letter: "a list", "an int", "an ndarray"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' or noun == 'ndarray' else 'a'} {noun}"


def listed(items) -> str:
    """Items in words: "a", "a and b", "a, b and c"."""
    items = list(items)
    return " and ".join(filter(None, (", ".join(items[:-1]), items[-1])))
