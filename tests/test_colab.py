"""The Colab path, for real: the setup cell clones the course once, explains failures in one sentence,
and one notebook opened alone (as Colab opens it) finds helpers/ and the corpus in the clone."""

import os
import re
import shutil
import subprocess
import sys
import types

import nbformat
import pytest

from helpers.course import REPO_URL
from helpers.data import CORPUS_PATH
from tests.conftest import copy_of_the_course
from tools.notebooks import REPO, REPO_URL_ENV, ROOT, is_setup_cell, notebook_client, notebook_paths, setup_source

CLONE = REPO.split("/")[-1]
# A notebook opened alone, as Colab opens it.
ALONE = ROOT / "notebooks" / "01_bag_of_words.ipynb"
# A shell escape or magic that runs a package manager, or any "<manager> install".
INSTALLS = re.compile(
    r"^\s*[!%]\s*(pip|conda|mamba|uv|apt|apt-get)\b|\b(pip|conda|mamba|apt-get|apt)\s+install\b", re.MULTILINE
)


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", *args], cwd=cwd,
                   check=True, capture_output=True)


def make_remote(folder, whole_course=False):
    """A git repository standing in for the course on GitHub: the working tree, or just an empty helpers/."""
    if whole_course:
        copy_of_the_course(folder)
        (folder / "data").mkdir(exist_ok=True)
        shutil.copy(CORPUS_PATH, folder / "data" / CORPUS_PATH.name)
    else:
        (folder / "helpers").mkdir(parents=True)
        (folder / "helpers" / "__init__.py").write_text("")
        (folder / "notebooks").mkdir()
        (folder / "notebooks" / "README.md").write_text("notebooks live here\n")
    git("init", "--quiet", cwd=folder)
    git("add", "--all", "--force", cwd=folder)  # --force: the corpus is git-ignored in the real repository
    git("commit", "--quiet", "-m", "course", cwd=folder)
    return folder


def run_setup_cell():
    """Execute the setup cell here, as a notebook kernel would, and return its namespace."""
    namespace = {}
    exec(setup_source(), namespace)
    return namespace


@pytest.fixture
def colab(tmp_path, monkeypatch):
    """A Colab-like session: google.colab importable, working in an empty /content, the course cloned from a
    local repository. Returns (content folder, remote repository)."""
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setattr(sys, "path", list(sys.path))
    remote = make_remote(tmp_path / "remote")
    monkeypatch.setenv(REPO_URL_ENV, remote.as_uri())
    content = tmp_path / "content"
    content.mkdir()
    monkeypatch.chdir(content)
    return content, remote


def test_setup_cell_clones_once_then_finds_the_clone(colab, capsys):
    content, remote = colab
    namespace = run_setup_cell()
    assert namespace["COURSE_ROOT"] == content / CLONE
    assert (content / CLONE / "notebooks").samefile(".")
    first = capsys.readouterr().out
    assert re.fullmatch(rf"Course cloned into {CLONE}; device: \w+ \(.+\)\n", first), first

    shutil.rmtree(remote)  # from now on any clone would fail: nothing below may clone
    run_setup_cell()  # the cell run again
    assert capsys.readouterr().out.startswith("Course found at ..; device: ")
    os.chdir(content)  # a restarted kernel starts in /content again
    namespace = run_setup_cell()
    assert capsys.readouterr().out.startswith(f"Course found at {CLONE}; device: ")
    assert namespace["COURSE_ROOT"] == content / CLONE
    assert [p.name for p in content.iterdir()] == [CLONE]


def test_the_address_comes_from_the_environment_or_else_from_helpers_course(colab, monkeypatch):
    content, remote = colab
    run_setup_cell()  # cloned from the address in COURSE_REPO_URL: the local repository
    assert (content / CLONE / "helpers" / "__init__.py").is_file()
    monkeypatch.delenv(REPO_URL_ENV)
    assert run_setup_cell()["REPO_URL"] == REPO_URL


def test_a_failed_clone_is_one_sentence_and_leaves_nothing_behind(colab, monkeypatch):
    content, remote = colab
    missing = remote.parent / "no-such-repository"
    monkeypatch.setenv(REPO_URL_ENV, str(missing))
    with pytest.raises(RuntimeError) as failure:
        run_setup_cell()
    message = str(failure.value)
    assert message.startswith(f"Could not clone the course from {missing} (")
    assert message.endswith("check the address and the network.") and "\n" not in message
    assert failure.value.__cause__ is None and failure.value.__context__ is None  # no CalledProcessError chained
    assert list(content.iterdir()) == []  # no half-cloned folder


def test_without_git_the_setup_cell_says_so_in_one_sentence(colab, monkeypatch, tmp_path):
    content, _ = colab
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    with pytest.raises(RuntimeError, match=r"^git is not installed here, so the course cannot be cloned\.$") as failure:
        run_setup_cell()
    assert failure.value.__cause__ is None and list(content.iterdir()) == []


def test_a_repository_without_helpers_is_refused(colab, monkeypatch, tmp_path):
    content, _ = colab
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("not the course\n")
    git("init", "--quiet", cwd=empty)
    git("add", "--all", cwd=empty)
    git("commit", "--quiet", "-m", "x", cwd=empty)
    monkeypatch.setenv(REPO_URL_ENV, empty.as_uri())
    with pytest.raises(RuntimeError, match=r"\(it has no helpers/ folder\): check the address"):
        run_setup_cell()
    assert list(content.iterdir()) == []


def test_a_leftover_incomplete_folder_gets_one_clear_sentence(colab):
    content, _ = colab
    (content / CLONE).mkdir()  # e.g. a clone interrupted by hand, or an unrelated folder of that name
    with pytest.raises(RuntimeError, match=rf"^{CLONE}/ is here but is not a whole copy of the course: delete it"):
        run_setup_cell()


def test_our_own_leftover_partial_clone_is_cleared_automatically(colab):
    content, _ = colab
    (content / f"{CLONE}.partial" / "helpers").mkdir(parents=True)  # a clone interrupted half-way
    run_setup_cell()
    assert sorted(p.name for p in content.iterdir()) == [CLONE]
    assert (content / CLONE / "helpers" / "__init__.py").is_file()


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_no_code_cell_installs_packages(path):
    """Colab already has torch, matplotlib and ipywidgets; reinstalling them breaks more than it fixes."""
    nb = nbformat.read(path, as_version=4)
    installing = [c.source for c in nb.cells if c.cell_type == "code" and INSTALLS.search(c.source)]
    assert installing == []


def test_install_pattern_catches_the_usual_spellings():
    for line in ("!pip install torch", "%pip install -q x", "!apt-get install -y git", "%conda install numpy",
                 "subprocess.run('pip install x', shell=True)"):
        assert INSTALLS.search(line), line
    assert not INSTALLS.search("print('pipeline installed')\nx = pip_count")


@pytest.mark.slow  # a kernel
def test_in_a_colab_kernel_the_setup_cell_clones_once_and_the_notebook_finds_helpers_and_the_corpus(tmp_path,
                                                                                                   monkeypatch):
    """One notebook opened alone, as Colab opens it: its setup cell, then its import cell and the corpus, from the
    clone; then the setup cell again, which clones nothing. (Every cell of every notebook runs under nbval.)"""
    remote = make_remote(tmp_path / "remote", whole_course=True)
    fake = tmp_path / "fake-colab"
    (fake / "google" / "colab").mkdir(parents=True)
    (fake / "google" / "colab" / "__init__.py").write_text('"""Stands in for Colab\'s module."""\n')
    content = tmp_path / "content"
    content.mkdir()
    shutil.copy(ALONE, content)
    monkeypatch.setenv("PYTHONPATH", str(fake))  # the kernel sees google.colab, and no course
    monkeypatch.setenv(REPO_URL_ENV, remote.as_uri())

    code = [c for c in nbformat.read(content / ALONE.name, as_version=4).cells if c.cell_type == "code"]
    setup, imports = code[0], code[1]
    assert is_setup_cell(setup)
    corpus = nbformat.v4.new_code_cell("from helpers.data import load_text\nprint(len(load_text()))")
    nb = nbformat.v4.new_notebook(cells=[setup, imports, corpus])
    client = notebook_client(nb, content, timeout=300)
    with client.setup_kernel():
        for i, cell in enumerate(nb.cells):
            client.execute_cell(cell, i)  # raises CellExecutionError on the first failing cell
        first = "".join(o.get("text", "") for o in setup.outputs)
        shutil.rmtree(remote)  # a second clone would now fail
        client.execute_cell(setup, 0)
        again = "".join(o.get("text", "") for o in setup.outputs)

    assert first.startswith(f"Course cloned into {CLONE}; device: "), first
    assert again.startswith("Course found at ..; device: "), again
    assert "".join(o.get("text", "") for o in corpus.outputs).strip() == "1115394"
    assert sorted(p.name for p in content.iterdir()) == sorted([ALONE.name, CLONE])
