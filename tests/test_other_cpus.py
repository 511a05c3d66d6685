"""Claims a notebook makes about CPUs other than the one it ran on, re-run on this one by limiting the instructions
PyTorch and its matrix library may use (a fresh Python for each, since both read the limit when they load).

- 04: on an Intel Xeon limited to AVX2 (the instructions of a CPU without AVX-512), the scores of `s` at position 3
  of `dogs` and `gods` differ in the seventh digit (5e-7), because there the matrix product does not round every row
  of a batch alike (one word given twice in one batch gets slightly different scores at some positions), while
  the vectors that went in are identical; on any CPU, by less than 04's 1e-5.
"""

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent


def cpu_limits(name: str) -> dict:
    """The environment variables of the Makefile's CPU_LIMITS_<name> (what `make cpu-check CPU_LIMIT=<name>` sets)."""
    line = re.search(rf"^CPU_LIMITS_{name} := (.*)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    return dict(setting.split("=", 1) for setting in line[1].split())


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64") or not torch.backends.mkl.is_available(),
                       reason="the instruction limits are those of x86 CPUs and of MKL"),
]


def run_limited(code: str, limits: dict) -> dict:
    """Run `code` (which prints one JSON line last) in a fresh Python under the instruction `limits`; its result."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **limits}, capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout.splitlines()[-1])


POSITIONS_04 = """
import json, torch
from helpers import seed_everything
from helpers.data import encode
from helpers.models import PositionalBigramModel, embed

seed_everything(1337)  # notebook 04's model, as its cells build it
model = PositionalBigramModel()
idx = torch.tensor([encode("dogs"), encode("gods")])
x = embed(model, idx)  # what the model reads: token + position embedding
logits, _ = model(idx)
twice, _ = model(torch.tensor([encode("gods"), encode("gods")]))
print(json.dumps({
    "capability": torch.backends.cpu.get_cpu_capability(),
    "x_equal": torch.equal(x[0, 3], x[1, 3]),
    "gap": (logits[0, 3] - logits[1, 3]).abs().max().item(),
    "twice_gaps": (twice[0] - twice[1]).abs().amax(-1).tolist(),
}))
"""


def test_04_without_avx512_the_same_vector_gets_scores_equal_to_the_seventh_digit():
    found = run_limited(POSITIONS_04, cpu_limits("avx2"))
    print(f"\n04 with AVX2 at most ({found['capability']}): scores of s at position 3, largest difference "
          f"{found['gap']:.1g}; gods twice in one batch, position by position: "
          f"{', '.join(f'{g:.1g}' for g in found['twice_gaps'])}")
    assert found["capability"] == "AVX2"
    assert found["x_equal"], "the vectors that go in are identical"
    assert found["gap"] < 1e-5 and max(found["twice_gaps"]) < 1e-5, "04's assert: rounding at most, never 1e-5"
    if found["gap"] == 0 == max(found["twice_gaps"]):  # this CPU's AVX2 code rounds every row alike
        print("here every row rounds alike; 04's 5e-7 was measured on an Intel Xeon limited to AVX2")
        return
    assert abs(found["gap"] - 5e-7) < 2e-7, "04 quotes the largest difference as 5e-7"
    assert max(found["twice_gaps"]) > 0, "one word twice in one batch: slightly different scores at some position"
