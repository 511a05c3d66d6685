"""The slide metadata jupyterlab-slideshow and nbconvert's reveal.js decks read, made by rules.

`make stamp` writes it into every notebook (tools.notebooks.stamp calls apply_slide_types);
`python -m tools.notebooks slides [notebooks...]` prints each cell's slide type and changes nothing.
The slide types come from rules, never from hand edits, so they stay right when a notebook changes:

- the title cell (the first `# ` heading) makes the title slide; the Colab badge is skipped (the room
  needs no Colab link, and its image needs the network);
- the setup cell (its source starts with "# Course setup") is skipped: the room need not read it;
- the first cell after the setup cell starts a slide (unless a heading already does);
- a markdown cell that starts with a `## ` heading starts a new slide: one idea per slide;
- a markdown cell that starts with a `### ` heading starts a subslide (a step down, same idea);
- a code cell that shows a picture (its stored outputs hold an image) starts a subslide, so the picture
  is drawn near the top of the screen with its code above it, never below the fold (the words just above it
  open that subslide with it when all fit the screen); the cell after it starts a subslide too, so nothing below
  the picture pushes it off a live slide (jupyterlab-slideshow centres a slide's cells on the screen);
- under a heading that says "Your turn", the cells after the heading are fragments, shown one by one;
- a plain markdown cell right after a code cell starts a subslide, where it leads in to the code after it; where
  it only speaks of what the code above showed (no code follows on its subslide), it stays on the code's slide
  if both fit the screen (by `cell_height`'s estimate), so a printout and the words about it share a screen;
- every other cell continues the slide it is on ("-"), unless the slide would then be taller than the screen:
  then it starts a subslide, so long ideas come in screenfuls (a code cell takes the words just above it along,
  so a lead-in and its code share a screen).

The offline decks (tools/site.py) go one step further, which a live slideshow cannot (`deck_cells`): a code cell
whose outputs would end below a 1280×720 slide, given what stands above it, is shown as two subslides, the code
(with what it printed before a picture) and then its picture or, in a cell without one, what it printed; and a
markdown cell taller than the screen is cut between paragraphs into subslides that fit.
"""

import base64
import copy
import math
import re
import struct

# The live slides' type sizes at 1280×720, as in the offline decks (tools/templates/course_reveal): prose 20 px,
# code and printed output 17 px, widget labels 16 px (JupyterLab's own are 13 to 14 px). jupyterlab-slideshow
# styles a deck through jupyterlab-fonts, which reads these rules from the notebook's metadata and applies them
# to that notebook only, and only while it is presented (the notebook view keeps JupyterLab's sizes).
DECK_STYLE_KEY = "@deathbeds/jupyterlab-fonts"
DECK_STYLES = {"styles": {"": {"body[data-jp-deck-mode='presenting'] &": {
    "--jp-content-font-size1": "20px",
    "--jp-code-font-size": "17px",
    "--jp-ui-font-size1": "17px",
    "--jp-ui-font-size0": "16px",
    "--jp-widgets-font-size": "16px",
}}}}
YOUR_TURN = re.compile(r"your turn", re.IGNORECASE)
PICTURE_TYPES = {"image/png", "image/jpeg", "image/svg+xml"}
# A deck's slide (tools/templates/course_reveal): 720 px tall, code and printed text at 17 px on 23 px lines.
DECK_STAGE_PX = 700
DECK_LINE_PX = 23
DECK_CELL_PADDING_PX = 24
# Prose at 20 px: about 110 characters to a line of 24 px, and more room between paragraphs and list items; fitted
# to the rendered heights of the 119 markdown cells of the 03, 07 and 09 decks (half within 8 px, 90% within 25 px).
PROSE_CHARS_PER_LINE = 110
PROSE_LINE_PX, PROSE_PARAGRAPH_PX, PROSE_ITEM_PX, PROSE_CELL_PX = 24, 30, 20, 15
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s")


# The setup cell is recognised by its first line: a comment that names it (Colab shows it as the form's title).
SETUP_MARKER = "Course setup"


def is_setup_cell(cell) -> bool:
    """Whether `cell` is the setup cell: a code cell whose first line is a comment naming it."""
    first_line = cell["source"].split("\n", 1)[0]
    return cell["cell_type"] == "code" and first_line.startswith("#") and SETUP_MARKER in first_line


def heading_level(cell) -> int:
    """1 for a markdown cell that starts with `# `, 2 for `## `, 3 for `### `; 0 for anything else."""
    if cell["cell_type"] != "markdown":
        return 0
    match = re.match(r"(#{1,6}) ", cell["source"].lstrip())
    return len(match.group(1)) if match else 0


def is_badge(cell) -> bool:
    """Whether a cell is the Open-in-Colab badge."""
    return cell["cell_type"] == "markdown" and "colab-badge" in cell["source"]


def picture_outputs(cell) -> list[int]:
    """The indices of a code cell's outputs that hold a picture (PNG, JPEG or SVG); [] for other cells."""
    if cell["cell_type"] != "code":
        return []
    return [i for i, out in enumerate(cell.get("outputs", [])) if PICTURE_TYPES & set(out.get("data", {}))]


def slide_type_for(cells) -> list[str]:
    """The slide type of each cell ("slide", "subslide", "fragment", "skip" or "-"), by the module's rules."""
    types, after_code = [], []  # after_code: the cells that open a subslide only for being prose after code
    seen_title = after_setup = in_exercise = False
    previous = None
    height = 0  # the estimated height of the (sub)slide so far
    for i, cell in enumerate(cells):
        level = heading_level(cell)
        lead_in = None  # the words just above, when they introduce this cell and must share its screen
        if is_setup_cell(cell):
            kind, after_setup = "skip", True
        elif is_badge(cell) and not seen_title:
            kind = "skip"
        elif previous is None or level in (1, 2):
            kind = "slide"
        elif level == 3:
            kind = "subslide"
        elif after_setup:
            kind = "slide"
        elif picture_outputs(previous):
            kind = "subslide"
        elif picture_outputs(cell):
            kind, lead_in = "subslide", introduced_by(previous, cell, fits=True)
        elif in_exercise:
            kind = "fragment"
        elif cell["cell_type"] == "markdown" and previous["cell_type"] == "code":
            kind = "subslide"
            after_code.append(i)
        elif height + cell_height(cell) > DECK_STAGE_PX:
            kind, lead_in = "subslide", introduced_by(previous, cell, fits=False)
        else:
            kind = "-"
        j = max((k for k in range(i) if types[k] != "skip"), default=None)  # where `previous` stands
        if lead_in is not None and types[j] != "fragment":  # the screen starts at the words, not between them and
            if types[j] == "-":  # what they introduce (a fragment of an exercise is left as it is)
                types[j] = "subslide"
            kind, height = "-", cell_height(previous)
        if kind in ("slide", "subslide"):
            height = 0
        if kind != "skip":
            height += cell_height(cell)
            after_setup = False
        if level:
            in_exercise = bool(YOUR_TURN.search(cell["source"].splitlines()[0]))
        seen_title = seen_title or level == 1
        if kind != "skip":
            previous = cell
        types.append(kind)
    for i in after_code:
        keep_words_with_their_code(cells, types, i)
    return types


def introduced_by(previous, cell, fits: bool):
    """`previous` when it is prose that leads in to `cell` (code), so that the two should open a screen together
    (`fits`: only when both fit one screen, as a picture must), else None."""
    if previous["cell_type"] != "markdown" or cell["cell_type"] != "code":
        return None
    if fits and cell_height(previous) + cell_height(cell) > DECK_STAGE_PX:
        return None
    return previous


def keep_words_with_their_code(cells, types: list[str], i: int) -> None:
    """Let prose after code (cell `i`, which opened a subslide) join the code's slide instead, when it is words about
    what the code showed rather than the lead-in to more code: its subslide holds prose only, and both fit one screen
    together."""
    group = [i]
    for j in range(i + 1, len(cells)):
        if types[j] == "skip":
            continue
        if types[j] != "-":
            break
        group.append(j)
    start = max(j for j in range(i) if types[j] in ("slide", "subslide"))
    before = [j for j in range(start, i) if types[j] != "skip"]
    if all(cells[j]["cell_type"] == "markdown" for j in group) and sum(
            cell_height(cells[j]) for j in before + group) <= DECK_STAGE_PX:
        types[i] = "-"


def apply_slide_types(nb) -> bool:
    """Write the rule-made slide types and the deck's type sizes into `nb` in memory; return whether anything changed.

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
    if nb.metadata.get(DECK_STYLE_KEY) != DECK_STYLES or "rise" in nb.metadata:
        nb.metadata[DECK_STYLE_KEY] = copy.deepcopy(DECK_STYLES)
        nb.metadata.pop("rise", None)  # RISE's settings: the course presents with jupyterlab-slideshow
        changed = True
    return changed


def png_height(out) -> int:
    """The height in pixels of a PNG output (read from its header), 0 for any other output."""
    data = out.get("data", {}).get("image/png")
    if not data:
        return 0
    header = base64.b64decode(data[:44])  # 33 bytes: signature, then the IHDR chunk with width and height
    return struct.unpack(">I", header[20:24])[0]


def prose_height(source: str) -> int:
    """About how many pixels a markdown cell of `source` fills on a deck's 1280×720 slide."""
    paragraphs = [p for p in source.split("\n\n") if p.strip()]
    lines = items = 0
    for paragraph in paragraphs:
        pieces, current = [], []
        for line in paragraph.splitlines():
            if LIST_ITEM.match(line) and current:
                pieces.append(" ".join(current))
                current = []
            current.append(line.strip())
        pieces.append(" ".join(current))
        items += len(pieces) - 1
        lines += sum(max(1, math.ceil(len(piece) / PROSE_CHARS_PER_LINE)) for piece in pieces)
    return PROSE_LINE_PX * lines + PROSE_PARAGRAPH_PX * len(paragraphs) + PROSE_ITEM_PX * items + PROSE_CELL_PX


def cell_height(cell) -> int:
    """About how many pixels `cell` fills on a deck's slide (a code cell with its stored outputs)."""
    if cell["cell_type"] == "markdown":
        return prose_height(cell["source"])
    return estimated_height(cell["source"], cell.get("outputs", []))


def estimated_height(source: str, outputs) -> int:
    """About how many pixels a code cell with `source` and `outputs` fills on a deck's 1280×720 slide."""
    lines = len(source.splitlines())
    text_lines = sum(
        out.get("text", "").count("\n") if out.get("output_type") == "stream"
        else out.get("data", {}).get("text/plain", "").count("\n") + 1 if "text/plain" in out.get("data", {}) else 0
        for out in outputs if not PICTURE_TYPES & set(out.get("data", {}))
    )
    code = lines * DECK_LINE_PX + DECK_CELL_PADDING_PX if lines else 0
    return code + text_lines * DECK_LINE_PX + sum(png_height(out) + DECK_CELL_PADDING_PX for out in outputs
                                                  if PICTURE_TYPES & set(out.get("data", {})))


def deck_cells(nb):
    """Split, in memory, each cell that would run past the bottom of its deck slide (call it after
    apply_slide_types; returns `nb`).

    A code cell whose outputs would end below the screen, given what stands above it on its slide, becomes two
    subslides: the code, with what it printed before its first picture, and then the rest of its outputs (the
    picture on, or all it printed in a cell without one), repeated with its source hidden (nbconvert's
    `transient.remove_source`). A markdown cell is cut between paragraphs into subslides that fit.
    """
    cells, screen = [], 0  # screen: the estimated height of the deck slide so far
    for cell in nb.cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind == "skip":
            cells.append(cell)
            continue
        if kind in ("slide", "subslide"):
            screen = 0
        if cell.cell_type == "markdown":
            pieces = prose_screens(cell)
            cells += pieces
            screen = (screen if len(pieces) == 1 else 0) + prose_height(pieces[-1].source)
        elif cell.outputs and screen + estimated_height(cell.source, cell.outputs) > DECK_STAGE_PX:
            pictures = picture_outputs(cell)
            first = pictures[0] if pictures else 0
            shown = copy.deepcopy(cell)
            shown.outputs = cell.outputs[first:]
            shown.metadata["slideshow"] = {"slide_type": "subslide"}
            shown.metadata["transient"] = {"remove_source": True}
            if "id" in shown:
                shown.id = f"{cell.id}-{'picture' if pictures else 'output'}"
            cell.outputs = cell.outputs[:first]
            cells += [cell, shown]
            screen = estimated_height("", shown.outputs)
        else:
            cells.append(cell)
            screen += cell_height(cell)
    nb.cells = cells
    return nb


def prose_screens(cell) -> list:
    """A markdown cell as one or more cells, cut between paragraphs so that each fits a deck slide where it can
    (the first keeps the cell's slide type, the others are subslides)."""
    if prose_height(cell.source) <= DECK_STAGE_PX:
        return [cell]
    screens, current = [], []
    for paragraph in cell.source.split("\n\n"):
        if current and prose_height("\n\n".join([*current, paragraph])) > DECK_STAGE_PX:
            lead_in = current[-1].rstrip().endswith(":") and len(current) > 1  # goes on with what it introduces
            screens.append(current[:-1] if lead_in else current)
            current = current[-1:] if lead_in else []
        current.append(paragraph)
    screens.append(current)
    pieces = []
    for k, paragraphs in enumerate(screens):
        piece = copy.deepcopy(cell)
        piece.source = "\n\n".join(paragraphs)
        if k:
            piece.metadata["slideshow"] = {"slide_type": "subslide"}
            if "id" in piece:
                piece.id = f"{cell.id}-{k}"
        pieces.append(piece)
    return pieces


def describe(nb, name: str) -> str:
    """One line per cell of notebook `nb` (called `name`): its slide type and the start of its source."""
    lines = [f"{name}:"]
    for i, (cell, kind) in enumerate(zip(nb.cells, slide_type_for(nb.cells), strict=True)):
        first = cell.source.strip().splitlines()[0][:70] if cell.source.strip() else ""
        lines.append(f"  {i:3d} {kind:<9} {cell.cell_type:<8} {first}")
    return "\n".join(lines)

