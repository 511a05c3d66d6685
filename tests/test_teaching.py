"""docs/teaching.md, the class plan: every claim it makes runs or is read off the notebook it names.

Each `## NN · …` section speaks of notebook NN, and within it:
- `explore_…(…)` prints `…`: the call runs on notebook NN's explorer module and prints that text;
- the notebook prints `…`: the text is in notebook NN's stored outputs;
- an *italic phrase* is a heading of notebook NN (a section to stop on or to skip), its own asterisks left out;
- **Their turn.** `name`: notebook NN's exercise, and every `name` after "the checker names" is one of its mistakes;
- every other figure (a number with a decimal point, or of three digits or more) is one notebook NN states or prints;
  the opening's, one that some notebook states or prints.
A notebook without a section is not an error: the plan covers the notebooks it covers.
"""

import contextlib
import functools
import io
import re
from pathlib import Path

import nbformat
import pytest

from helpers.exercises import all_exercises
from helpers.explorers import notebook_modules
from tools.notebooks import notebook_paths

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "teaching.md"
EXPLORER_CLAIM = re.compile(r"`(explore_\w+\([^`]*\))`\s+prints\s+`([^`]+)`")
NOTEBOOK_CLAIM = re.compile(r"the\s+notebook\s+prints\s+`([^`]+)`", re.I)
ANY_CLAIM = re.compile(r"\bprints\s+`")  # each must be one of the two above
FIGURE = re.compile(r"(?<![\w.,])(?:\d+\.\d+|\d{1,3}(?:,\d{3})+|\d{3,})(?!\w|[.,]\d)")
ITALIC = re.compile(r"(?<![*\w])\*(?!\*)([^*]+?)\*(?![*\w])")
THEIR_TURN = re.compile(r"\*\*Their turn\.\*\* `(\w+)`(.*?)(?:\n\n|\Z)", re.S)
NAMES = re.compile(r"the\s+checker\s+names")


def guide_sections(text: str) -> dict[str, str]:
    """{"03": the text of the section `## 03 · …`, up to the next such heading}."""
    parts = re.split(r"^## (\d\d) · ", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@functools.cache
def notebook(number: str):
    """Notebook `number`'s stored form (read once: the tests only read it)."""
    path = next(p for p in notebook_paths() if p.name.startswith(number))
    return nbformat.read(path, as_version=4)


def headings(nb) -> set[str]:
    """The text of every markdown heading of `nb`, without its #s and its own italics' asterisks (the plan writes
    "position *t* sees 0…*t*" as *… position t sees 0…t*)."""
    return {line.lstrip("#").strip().replace("*", "") for cell in nb.cells if cell.cell_type == "markdown"
            for line in cell.source.splitlines() if line.startswith("#")}


def figures(text: str) -> set[str]:
    """The figures of `text` that the plan may quote only from its notebook or an explorer: 0.097, 2,482, 1337."""
    return set(FIGURE.findall(text))


def printed(nb) -> str:
    """Everything `nb`'s stored outputs printed (streams and plain-text results), joined."""
    return "\n".join(output.get("text", "") or output.get("data", {}).get("text/plain", "")
                     for cell in nb.cells if cell.cell_type == "code" for output in cell.get("outputs", []))


def run_explorer(number: str, call: str) -> str:
    """What `call`, an explorer of notebook `number` with its arguments, prints."""
    module = notebook_modules()[f"nb{number}"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        eval(call, vars(module))  # the guide's own text, not a learner's
    return out.getvalue()


SECTIONS = guide_sections(GUIDE.read_text(encoding="utf-8"))
EXPLORER_CLAIMS = [(n, call, text) for n, section in SECTIONS.items() for call, text in EXPLORER_CLAIM.findall(section)]


def test_the_guides_opening_quotes_only_figures_a_notebook_states():
    opening = GUIDE.read_text(encoding="utf-8").split("\n## ", 1)[0]
    stated = set().union(*(figures(printed(nb) + "\n".join(c.source for c in nb.cells))
                           for nb in map(notebook, sorted({p.name[:2] for p in notebook_paths()}))))
    invented = sorted(figures(opening) - stated)
    assert not invented, f"docs/teaching.md's opening quotes {invented}, which no notebook states or prints"


def test_the_guides_sections_are_real_notebooks_and_it_has_claims_to_check():
    numbers = {p.name[:2] for p in notebook_paths()}
    assert SECTIONS and set(SECTIONS) <= numbers, f"docs/teaching.md has sections for {sorted(set(SECTIONS) - numbers)}"
    assert len(EXPLORER_CLAIMS) >= 5


@pytest.mark.parametrize("number, call, text", EXPLORER_CLAIMS, ids=[f"{n}-{c}" for n, c, _ in EXPLORER_CLAIMS])
def test_each_explorer_call_the_guide_suggests_prints_what_it_says(number, call, text, shown_figures):
    out = run_explorer(number, call)
    assert text in out, f"docs/teaching.md says `{call}` prints `{text}`, but it printed:\n{out}"
    assert shown_figures, f"docs/teaching.md suggests `{call}`, which draws nothing: it is a refusal"


@pytest.mark.parametrize("number", sorted(SECTIONS))
def test_what_the_guide_quotes_and_names_is_in_the_notebook(number):
    section, nb = SECTIONS[number], notebook(number)
    claims = len(EXPLORER_CLAIM.findall(section)) + len(NOTEBOOK_CLAIM.findall(section))
    assert len(ANY_CLAIM.findall(section)) == claims, (
        f"docs/teaching.md, notebook {number}'s section: a quote after 'prints' that the test cannot check: write "
        "`explore_…(…)` prints `…` or the notebook prints `…`")
    missing = [text for text in NOTEBOOK_CLAIM.findall(section) if text not in printed(nb)]
    assert not missing, f"docs/teaching.md says notebook {number} prints {missing}, but its stored outputs do not"
    italics = (" ".join(phrase.split()) for phrase in ITALIC.findall(section))  # a line break is a space
    unknown = [phrase for phrase in italics if phrase not in headings(nb)]
    assert not unknown, (f"docs/teaching.md names {unknown} in notebook {number}'s section, but the notebook has no "
                         "such heading: italics there are the notebook's headings, word for word")
    explored = "\n".join(text for _, text in EXPLORER_CLAIM.findall(section))  # what test_each_explorer_call runs
    stated = figures(printed(nb) + "\n".join(cell.source for cell in nb.cells) + explored)
    invented = sorted(figures(section) - stated)
    assert not invented, f"docs/teaching.md quotes {invented} for notebook {number}, which states none of them"


@pytest.mark.parametrize("number", sorted(SECTIONS))
def test_their_turn_names_the_notebooks_exercise_and_mistakes_its_checker_knows(number):
    exercises = all_exercises()
    for name, rest in THEIR_TURN.findall(SECTIONS[number]):
        assert name in exercises and exercises[name].notebook == f"nb{number}", (
            f"docs/teaching.md: `{name}` is not notebook {number}'s exercise")
        named = NAMES.split(rest, maxsplit=1)[-1] if NAMES.search(rest) else ""
        unknown = set(re.findall(r"`(\w+)`", named)) - {m.name for m in exercises[name].mistakes}
        assert not unknown, f"docs/teaching.md: the checker of `{name}` has no mistake named {sorted(unknown)}"
