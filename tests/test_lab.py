"""`make lab` starts a JupyterLab server that answers on its port, and stops cleanly."""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

from tools.notebooks import ROOT

TOKEN = "course-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ask(port: int, path: str):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, response.read()


def test_make_lab_serves_jupyterlab_on_its_port():
    port = free_port()
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={TOKEN}"
    server = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_ARGS={args}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                status, body = ask(port, "/api/status")
                break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode(errors="replace")
                assert time.monotonic() < deadline, "JupyterLab did not answer within 90 s"
                time.sleep(0.5)
        assert status == 200 and "started" in json.loads(body)
        status, page = ask(port, "/lab")
        assert status == 200 and b"JupyterLab" in page
        status, listing = ask(port, "/api/contents")
        assert "00_bigram_baseline.ipynb" in {item["name"] for item in json.loads(listing)["content"]}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "the server should be gone"
