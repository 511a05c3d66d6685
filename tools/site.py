"""Build the offline slide decks and the static course site from the executed notebooks.

    python -m tools.site slides [notebooks...]   # build/slides/NN_name.slides.html, one reveal.js deck each
    python -m tools.site html [notebooks...]     # build/site/NN_name.html and build/site/index.html

Nothing here needs the network when it runs or when the result is read: reveal.js, require.js, jQuery
and MathJax come from npm (`npm ci`, see package.json) and are copied into build/lib/, which every
page reaches by a relative path, so build/ opens straight from disk (file://) on a machine without
Python or internet. Pictures are stored in the pages themselves (data: URIs), as nbconvert writes them.
"""

import html
import re
import shutil
import sys
from pathlib import Path

import mistune
import nbformat
from traitlets.config import Config

from tools.notebooks import ROOT, notebook_paths
from tools.slides import apply_slide_types, deck_cells
from tools.widgets import drop_widget_views

BUILD = ROOT / "build"
LIB = BUILD / "lib"
SLIDES = BUILD / "slides"
SITE = BUILD / "site"
NODE_MODULES = ROOT / "node_modules"
# The course's nbconvert templates: nbconvert's lab page and reveal.js deck with alt text, colours, 1280×720.
TEMPLATES = Path(__file__).resolve().parent / "templates"
# What an <img> says when its output was stored without alt text (a notebook run before helpers.plots wrote it).
MISSING_ALT = "A figure without a stored description: re-run the notebook (make execute) to store one."
# What each page needs from build/lib/, as seen from build/slides/ or build/site/.
LIB_FROM_PAGE = "../lib"
# The parts of the npm packages a page loads (MathJax 2 is 73 MB; the TeX → HTML path is about 5 MB).
ASSETS = {
    "reveal.js/dist": "reveal.js/dist",
    "reveal.js/plugin/notes": "reveal.js/plugin/notes",
    "requirejs/require.js": "require.js",
    "jquery/dist/jquery.min.js": "jquery.min.js",
    "mathjax/MathJax.js": "mathjax/MathJax.js",
    "mathjax/config/TeX-AMS_CHTML-full.js": "mathjax/config/TeX-AMS_CHTML-full.js",
    "mathjax/config/Safe.js": "mathjax/config/Safe.js",
    "mathjax/extensions": "mathjax/extensions",
    "mathjax/jax/input/TeX": "mathjax/jax/input/TeX",
    "mathjax/jax/output/CommonHTML": "mathjax/jax/output/CommonHTML",
    "mathjax/jax/output/PreviewHTML": "mathjax/jax/output/PreviewHTML",
    "mathjax/jax/element": "mathjax/jax/element",
    "mathjax/fonts/HTML-CSS/TeX/woff": "mathjax/fonts/HTML-CSS/TeX/woff",
    "mathjax/localization/en": "mathjax/localization/en",
}


def copy_assets(lib: Path = LIB, node_modules: Path = NODE_MODULES) -> Path:
    """Copy the browser libraries the pages load from node_modules/ (which `make slides` fills with `npm ci`)
    into `lib`; return `lib`."""
    missing = [source for source in ASSETS if not (node_modules / source).exists()]
    if missing:
        raise SystemExit(f"node_modules/{missing[0]} is missing: run `make slides` or `make html`, whose `npm ci` "
                         "installs the browser libraries the pages need.")
    for source, target in ASSETS.items():
        src, dst = node_modules / source, lib / target
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)
    return lib


def offline_config(**extra) -> Config:
    """nbconvert settings that point every script a page loads at build/lib/ instead of a CDN."""
    config = Config()
    config.HTMLExporter.require_js_url = f"{LIB_FROM_PAGE}/require.js"
    config.HTMLExporter.jquery_url = f"{LIB_FROM_PAGE}/jquery.min.js"
    config.HTMLExporter.mathjax_url = f"{LIB_FROM_PAGE}/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
    for key, value in extra.items():
        section, name = key.split("__")
        setattr(config[section], name, value)
    return config


def offline_exporter(exporter_class, config: Config, **options):
    """An nbconvert exporter with `config` that finds the course's templates (tools/templates/) as well as
    nbconvert's own."""
    options.setdefault("extra_template_basedirs", [str(TEMPLATES)])
    options.setdefault("extra_template_paths", [str(TEMPLATES)])
    return exporter_class(config=config, **options)


def slides_config() -> Config:
    """Settings for the decks: local reveal.js, a theme without web fonts, a 1280×720 stage, long slides
    scroll, no prompts."""
    return offline_config(
        SlidesExporter__reveal_url_prefix=f"{LIB_FROM_PAGE}/reveal.js",
        SlidesExporter__reveal_theme="white",
        SlidesExporter__reveal_scroll=True,
        SlidesExporter__reveal_width="1280",
        SlidesExporter__reveal_height="720",
        SlidesExporter__reveal_transition="none",
        SlidesExporter__exclude_input_prompt=True,
        SlidesExporter__exclude_output_prompt=True,
    )


def notebook_title(nb) -> str:
    """The text of the notebook's first `# ` heading (its title), or "" when it has none."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^# (.+)$", cell.source, re.MULTILINE)
            if match:
                return match.group(1).strip()
    return ""


def is_executed(nb) -> bool:
    """Whether the notebook was stored with its outputs (some code cell has an execution count)."""
    return any(c.cell_type == "code" and c.get("execution_count") for c in nb.cells)


def executed_notebooks(names=()) -> list[tuple[Path, object]]:
    """(path, notebook) for each executed course notebook, in order; unexecuted ones are reported and left out."""
    chosen = []
    for path in notebook_paths(names):
        nb = nbformat.read(path, as_version=4)
        if is_executed(nb):
            chosen.append((path, nb))
        else:
            print(f"{path.name}: not executed (run `make execute`), left out", file=sys.stderr)
    return chosen


NETWORK_IMAGE = re.compile(r"!\[([^\]]*)\]\((?:https?:)?//[^)]*\)")


def plain_title(title: str) -> str:
    """A Markdown title as plain text, for a page's <title>: `dogs` → dogs."""
    return title.replace("`", "").replace("*", "")


def markdown_inline(text: str) -> str:
    """One line of Markdown (a notebook title) as HTML, without the surrounding paragraph."""
    return mistune.html(text).strip().removeprefix("<p>").removesuffix("</p>")


def offline_notebook(nb):
    """The notebook as an offline page shows it (changed in memory, and returned): no widget views, a
    Markdown image from the network (the Colab badge) left as its words, and the title as the page's title."""
    drop_widget_views(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = NETWORK_IMAGE.sub(r"\1", cell.source)
    nb.metadata["title"] = plain_title(notebook_title(nb))
    return nb


def export(exporter, nb, path: Path, out: Path) -> Path:
    """Run `exporter` on `nb` (read from `path`), made offline, and write the page to `out`; return `out`."""
    resources = {"metadata": {"name": path.stem, "path": str(path.parent)},
                 "course_css": (TEMPLATES / "course_style.css").read_text(encoding="utf-8"),
                 "course_missing_alt": MISSING_ALT}
    body, _ = exporter.from_notebook_node(offline_notebook(nb), resources=resources)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(body, encoding="utf-8")
    return out


def build_slides(names=(), out_dir: Path = SLIDES, notebooks=None) -> list[Path]:
    """Write one reveal.js deck per executed notebook into `out_dir`; return their paths.

    The slide types are applied in memory by tools.slides's rules, so a deck is cut right even
    before `make stamp` has written them into the notebook. `notebooks`: (path,
    notebook) pairs to build instead of the stored notebooks (a test builds freshly executed ones).
    """
    from nbconvert import SlidesExporter

    copy_assets(out_dir.parent / "lib")
    exporter = offline_exporter(SlidesExporter, slides_config(), template_name="course_reveal")
    decks = []
    for path, nb in notebooks if notebooks is not None else executed_notebooks(names):
        apply_slide_types(nb)
        decks.append(export(exporter, deck_cells(nb), path, out_dir / f"{path.stem}.slides.html"))
    return decks


def build_site(names=(), out_dir: Path = SITE, notebooks=None) -> list[Path]:
    """Write one HTML page per executed notebook and an index linking pages and decks; return the pages.

    `notebooks`: (path, notebook) pairs to build instead of the stored notebooks, as for build_slides.
    """
    from nbconvert import HTMLExporter

    copy_assets(out_dir.parent / "lib")
    exporter = offline_exporter(HTMLExporter, offline_config(), template_name="course_lab")
    notebooks = notebooks if notebooks is not None else executed_notebooks(names)
    entries = [(path.stem, notebook_title(nb)) for path, nb in notebooks]
    pages = [export(exporter, nb, path, out_dir / f"{path.stem}.html") for path, nb in notebooks]
    (out_dir / "index.html").write_text(index_html(entries), encoding="utf-8")
    return pages


def index_html(entries) -> str:
    """The site's front page: the notebooks in order, each with a link to its page and to its deck."""
    rows = "\n".join(
        f'    <li><a href="{html.escape(stem)}.html">{markdown_inline(title) if title else html.escape(stem)}</a>'
        f' <span class="deck">(<a href="../slides/{html.escape(stem)}.slides.html">slides</a>)</span></li>'
        for stem, title in entries
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>One Line Changed: the notebooks</title>
<style>
  body {{ font-family: system-ui, sans-serif; max-width: 50rem; margin: 2rem auto; padding: 0 1rem;
         line-height: 1.5; color: #222; }}
  li {{ margin: 0.4rem 0; font-size: 1.15rem; }}
  .deck {{ font-size: 0.95rem; }}
</style>
</head>
<body>
<h1>One Line Changed</h1>
<p>From a bigram model to one causal self-attention head, one notebook per step. Each page shows a
notebook as it ran, outputs included; "slides" opens the same notebook as a slide deck
(arrow keys to move, <kbd>Esc</kbd> for an overview). No Python and no network needed.</p>
<ol class="notebooks">
{rows}
</ol>
</body>
</html>
"""


def main(argv) -> int:
    if not argv or argv[0] not in ("slides", "html"):
        print(__doc__)
        return 2
    build = build_slides if argv[0] == "slides" else build_site
    for out in build(argv[1:]):
        print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    if argv[0] == "html":
        print(f"wrote {(SITE / 'index.html').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
