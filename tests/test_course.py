"""The course's public address and the Colab links built from it."""

from helpers.course import BRANCH, REPO, REPO_URL, colab_url


def test_colab_url_opens_the_notebook_from_the_repository():
    assert REPO_URL == f"https://github.com/{REPO}"
    assert colab_url("00_bigram_baseline.ipynb") == (
        f"https://colab.research.google.com/github/{REPO}/blob/{BRANCH}/notebooks/00_bigram_baseline.ipynb"
    )
