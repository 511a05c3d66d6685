"""helpers.seed_spread: the benchmark notebook 09 quotes runs each seed and recipe and summarises them.

The real recipes take minutes; a three-step recipe checks the plumbing.
"""

import pytest

from helpers import seed_spread, stage_spread

TINY = {"tiny": {"batch_size": 4, "lr": 1e-3, "steps": 3, "eval_interval": 3, "eval_iters": 1}}


def test_one_line_per_run_then_a_summary_and_the_same_seed_repeats():
    lines = []
    losses = seed_spread.spread_table([5, 6, 5], recipes=TINY, out=lines.append)
    assert len(losses["tiny"]) == 3 and all(3.5 < value < 4.8 for value in losses["tiny"])  # near ln 65 ≈ 4.17
    assert losses["tiny"][0] == losses["tiny"][2] != losses["tiny"][1]  # a seed repeats its run exactly
    assert lines[0].split() == ["recipe", "seed", "val", "loss", "seconds"]
    assert len(lines) == 1 + 3 + 1 and lines[-1].startswith("tiny     over 3 seeds: mean ")


def test_the_09_recipe_is_the_notebooks():
    assert seed_spread.RECIPES["09"] == {"batch_size": 64, "lr": 3e-3, "steps": 4000, "eval_interval": 500,
                                         "eval_iters": 20}


@pytest.mark.parametrize("argv", [["one"], ["1.5"]])
@pytest.mark.parametrize("module", [seed_spread, stage_spread])
def test_a_seed_that_is_not_a_whole_number_gets_one_sentence(module, argv, capsys):
    assert module.main(argv) == 2  # before training anything
    out = capsys.readouterr().out
    assert "Seeds are whole numbers" in out and f"python -m {module.__name__} 1337 7" in out
