"""Give every notebook the slide metadata RISE and nbconvert's reveal.js decks read.

    python -m tools.slides stamp [notebooks...]   # write slide types into the notebooks (all by default)
    python -m tools.slides show [notebooks...]    # print each cell's slide type, change nothing

The slide types come from rules, never from hand edits, so they stay right when a notebook changes:

- the Colab badge and the title cell (the first `# ` heading) make the title slide;
- the setup cell (its source starts with "# Course setup") is skipped: the room need not read it;
- the first cell after the setup cell starts a slide (unless a heading already does);
- a markdown cell that starts with a `## ` heading starts a new slide: one idea per slide;
- a markdown cell that starts with a `### ` heading starts a subslide (a step down, same idea);
- a plain markdown cell right after a code cell starts a subslide, so long ideas come in screenfuls;
- under a heading that says "Your turn", the cells after the heading are fragments, shown one by one;
- every other cell continues the slide it is on ("-").
"""

import re
import sys
from pathlib import Path

import nbformat

from tools.notebooks import is_setup_cell, notebook_paths, write_atomically

# Notebook-level settings for RISE: scroll long slides and always start from the title slide.
RISE_SETTINGS = {"scroll": True, "start_slideshow_at": "beginning", "transition": "none"}
YOUR_TURN = re.compile(r"your turn", re.IGNORECASE)


def heading_level(cell) -> int:
    """1 for a markdown cell that starts with `# `, 2 for `## `, 3 for `### `; 0 for anything else."""
    if cell["cell_type"] != "markdown":
        return 0
    match = re.match(r"(#{1,6}) ", cell["source"].lstrip())
    return len(match.group(1)) if match else 0


def is_badge(cell) -> bool:
    """Whether a cell is the Open-in-Colab badge."""
    return cell["cell_type"] == "markdown" and "colab-badge" in cell["source"]


def slide_type_for(cells) -> list[str]:
    """The slide type of each cell ("slide", "subslide", "fragment", "skip" or "-"), by the module's rules."""
    types = []
    seen_title = after_setup = in_exercise = False
    previous = None
    for cell in cells:
        level = heading_level(cell)
        if is_setup_cell(cell):
            kind, after_setup = "skip", True
        elif not types or (is_badge(cell) and not seen_title):
            kind = "slide"
        elif level == 1 and not seen_title:
            kind = "-" if types[-1] == "slide" and is_badge(previous) else "slide"
        elif level in (1, 2):
            kind = "slide"
        elif level == 3:
            kind = "subslide"
        elif after_setup:
            kind = "slide"
        elif in_exercise:
            kind = "fragment"
        elif cell["cell_type"] == "markdown" and previous is not None and previous["cell_type"] == "code":
            kind = "subslide"
        else:
            kind = "-"
        if kind != "skip":
            after_setup = False
        if level:
            in_exercise = bool(YOUR_TURN.search(cell["source"].splitlines()[0]))
        seen_title = seen_title or level == 1
        if kind != "skip":
            previous = cell
        types.append(kind)
    return types


def apply_slide_types(nb) -> bool:
    """Write the rule-made slide types and RISE settings into `nb` in memory; return whether anything changed.

    "-" is the default, so it is stored as no `slideshow` entry at all (smaller diffs).
    """
    changed = False
    for cell, kind in zip(nb.cells, slide_type_for(nb.cells), strict=True):
        wanted = None if kind == "-" else {"slide_type": kind}
        if cell.metadata.get("slideshow") != wanted:
            changed = True
            if wanted is None:
                del cell.metadata["slideshow"]
            else:
                cell.metadata["slideshow"] = wanted
    if nb.metadata.get("rise") != RISE_SETTINGS:
        nb.metadata["rise"] = dict(RISE_SETTINGS)
        changed = True
    return changed


def stamp_slides(path: Path) -> bool:
    """Give the notebook at `path` its slide metadata; rewrite it (atomically) only if that changed it."""
    nb = nbformat.read(path, as_version=4)
    changed = apply_slide_types(nb)
    if changed:
        write_atomically(nb, Path(path))
    return changed


def describe(path: Path) -> str:
    """One line per cell: its slide type and the start of its source."""
    nb = nbformat.read(path, as_version=4)
    lines = [f"{path.name}:"]
    for i, (cell, kind) in enumerate(zip(nb.cells, slide_type_for(nb.cells), strict=True)):
        first = cell.source.strip().splitlines()[0][:70] if cell.source.strip() else ""
        lines.append(f"  {i:3d} {kind:<9} {cell.cell_type:<8} {first}")
    return "\n".join(lines)


def main(argv) -> int:
    if not argv or argv[0] not in ("stamp", "show"):
        print(__doc__)
        return 2
    for path in notebook_paths(argv[1:]):
        if argv[0] == "stamp":
            print(f"{path.name}: {'slide metadata written' if stamp_slides(path) else 'already up to date'}")
        else:
            print(describe(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
