"""`make lab` starts a JupyterLab server that answers on its port, and stops cleanly."""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

from tools.notebooks import ROOT

pytestmark = pytest.mark.slow  # a JupyterLab server

TOKEN = "course-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ask(port: int, path: str):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, response.read()


def stop(server: subprocess.Popen) -> None:
    """Stop the server's whole process group (make, jupyter and its kernels): politely first, then for good."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
    except ProcessLookupError:  # already gone
        server.wait(timeout=30)


def test_make_lab_serves_jupyterlab_on_its_port(tmp_path):
    port = free_port()
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={TOKEN}"
    log_path = tmp_path / "lab.log"
    # The server's log goes to a file, not a pipe: nobody reads a pipe while it runs, and a full pipe would stall it.
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            ["make", "--no-print-directory", "lab", f"LAB_ARGS={args}"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                status, body = ask(port, "/api/status")
                break
            except OSError:
                assert server.poll() is None, log_path.read_text(errors="replace")
                assert time.monotonic() < deadline, "JupyterLab did not answer within 90 s"
                time.sleep(0.5)
        assert status == 200 and "started" in json.loads(body)
        status, page = ask(port, "/lab")
        assert status == 200 and b"JupyterLab" in page
        status, listing = ask(port, "/api/contents")
        assert "00_bigram_baseline.ipynb" in {item["name"] for item in json.loads(listing)["content"]}
    finally:
        stop(server)
    assert server.returncode is not None
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "the server should be gone"
