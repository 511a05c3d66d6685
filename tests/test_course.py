"""The course's public address and the Colab links built from it."""

import re
from urllib.parse import urlparse

from helpers.course import BRANCH, REPO, REPO_URL, colab_url
from tools.notebooks import NOTEBOOK_DIR, notebook_paths


def test_repo_is_an_owner_and_a_name_not_an_address():
    assert re.fullmatch(r"[A-Za-z0-9-]+/[A-Za-z0-9._-]+", REPO) and not REPO.endswith(".git"), REPO
    assert re.fullmatch(r"[A-Za-z0-9._/-]+", BRANCH), BRANCH


def test_repo_url_is_the_github_address_git_clones():
    url = urlparse(REPO_URL)
    assert (url.scheme, url.netloc, url.path) == ("https", "github.com", f"/{REPO}")


def test_colab_url_opens_each_notebook_from_the_repository():
    for path in notebook_paths():
        url = urlparse(colab_url(path.name))
        assert (url.scheme, url.netloc) == ("https", "colab.research.google.com")
        owner_name, notebook = url.path.removeprefix("/github/").split(f"/blob/{BRANCH}/")
        assert owner_name == REPO
        assert (NOTEBOOK_DIR.parent / notebook).samefile(path)
