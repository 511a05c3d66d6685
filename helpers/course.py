"""Facts about the course itself: where it lives in public, in exactly one place."""

# The repository's public address. Edit it here only, then run `make stamp`:
# every notebook's Colab badge and setup cell are generated from these two names.
REPO = "one-line-changed/one-line-changed"
BRANCH = "main"

REPO_URL = f"https://github.com/{REPO}"


def colab_url(notebook_name: str) -> str:
    """The address that opens `notebooks/<notebook_name>` in Google Colab."""
    return f"https://colab.research.google.com/github/{REPO}/blob/{BRANCH}/notebooks/{notebook_name}"
