"""Claims a notebook makes from runs it does not make in its own cells, re-run here (CI's `make test-slow`, and again
under each of `make cpu-check`'s CPU limits).

- 04: at seeds 1 to 5 the model with positions, trained in two stages, ends on the counted bigram's floor (0.003 to
  0.010 above it) and no better than the split bigram (0.001 to 0.003 above it).
- 07: at seeds 1, 2 and 3 the wide unscaled head (256) stays near one-hot in 93% or more of its rows from step 200
  on, and the narrow one (32) ends at 2.493, 2.472 and 2.462, within 0.03 of the counted bigram; the share of rows
  each leaves saturated by the gradient test is printed (07 quotes it in a comment).
- 08: at seeds 1, 2 and 3 the three steps of position 7's gap, from the encoder to the decoder, lie in the ranges
  08 quotes, and the middle one (graded alone, nothing to copy) is the largest each time.
- 09: what its trained head reads (the y of `you`, not the h of `hou`) is its run's luck: at seeds 1 and 2, and at
  its own seed without the loss reports, the head reads and predicts otherwise; seeds 1 and 2 move `you` further
  from the bigram than its own run does, `hou` and `thou` by up to 0.12.
- 10: at seeds 1338 and 1339 four heads given one shared weighting end back near one head's loss, over 0.1 above four
  free heads (without the projection), at the losses 10 quotes; taking the output projection out of 11's models
  changes their loss by about as much as a change of seed; that no head reads the h of `hou` holds at seed 1337
  only; the single head weighs the past the same way from every seed, unlike four heads (two of which come within
  about 0.2 of each other at another seed), and unlike itself once a residual path frees it (whose loss still hardly
  moves); at a u after an o, head 0's reading the y two back lowers the loss on the next character, while no head
  reads the h (taking it away changes nothing), though counted, the h tells something and a c (hardly read) as much
  as the y; at seeds 1338 and 1339 the narrow feed-forward layer gains a little more than at 1337, the wide one still
  far more, and the wide one without its ReLU nothing; trained with the plain form of AdamW, as on a PyTorch older
  than 2.4, its feed-forward model ends at most about 0.01 from the fused form's loss.
- 11: without residual paths some head carries each position's own character, at other seeds too; with them, the heads
  are free, not forced, to read elsewhere (at seed 1339 one head's u of `hou` still reads itself, at 1338 none does),
  and at seed 1338, silenced, each model scores what 11 quotes. At seeds 1338, 1339 and 7, as at 1337, one block at a
  constant 3e-2 ends 0.09 to 0.13 lower with LayerNorm (0.02 to 0.04 at 1e-2), without it falling behind only after a
  while; at 1337, 1338 and 1339, at learning rate 1e-2, the falling rate, not the longer run, closes LayerNorm's gap.
  After 150 steps the four stacks draw the same picture at seed 1338, and the stack with neither has no cliff at 1338 or
  1339, its block 1's weights moving nearly as far as its block 3's; untrained, the stacks built from those seeds pass
  their input to the top, or blur it, as at 1337, and block 1's gradient in the stack with neither is 122 and 98 times
  below block 3's. A stack of blocks without residual paths or LayerNorm can learn at a smaller learning rate, while at
  1e-2 every ReLU of one of its feed-forward layers dies (unless a CPU limit sends it another way); three blocks without
  their LayerNorms end a little lower at the recipe (at seeds 1337 to 1339), while at constant rates the LayerNorms
  help; a longer context takes the finished model further; and the finished model does not overfit yet, and dropout only
  raises its loss (so its dropout is 0). In 150-step runs, ln_f's division by each position's size is most of what puts
  the stack with LayerNorm behind (without it, the stack reads x's length for part of its predictions, yet trained with
  no length to read it learns as fast; what the leading stacks share is a gradient that reaches x's overall length
  (through ln_f it has no part along x): cut it and the lead goes, give it to ln_f and ln_f catches up, while a fixed
  factor does not); the cliff of the stack with neither is x grown about nine times through its parts by its third
  update (scaled back, it scores as before), and plain gradient descent's third step, in place of AdamW's, would have
  lengthened x by 2%; at 1e-2 x grows tens of times before that stack's units die; and held to one length between its
  parts, that stack keeps its units alive at 1e-2.

Each run uses the notebook's own models and recipe, at its seed, 1337, and at the other seeds it quotes; and each
test prints its figures: `python -m pytest -s tests/test_quoted_runs.py` shows them (`-k 09` only 09's).
"""

import ast
import itertools
import math
import os
from collections import Counter

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parameters_to_vector, vector_to_parameters
from torch.optim.optimizer import register_optimizer_step_post_hook

from helpers import blocks
from helpers.attention import Head, attend_qkv, attend_scaled, attention_weights
from helpers.data import VOCAB_SIZE, consecutive_chunks, decode, encode, get_batch, load_text, train_val_split
from helpers.models import OneHeadModel, PositionalBigramModel, SplitBigramModel, counted_bigram, embed
from helpers.runtime import pick_device, seed_everything
from helpers.training import cpu_threads, model_device, token_losses, train, train_and_measure
from tests.test_notebook_copies import notebook_definition

# Under one of `make cpu-check`'s CPU limits (the Makefile's CPU_LIMITS_*) a few chaotic runs take another path;
# the tests that meet one say what they check there instead.
CPU_LIMITED = bool(os.environ.get("ATEN_CPU_CAPABILITY"))


@pytest.fixture(scope="module")
def splits():
    """(train_data, val_data), as every notebook makes them."""
    return train_val_split(torch.tensor(encode(load_text()), dtype=torch.long))


def notebook_namespace(number: str, names: tuple, **given) -> dict:
    """The notebook's own definitions of `names`, run in order in a namespace that holds `given` (what they use)."""
    namespace = dict(given)
    for name in names:
        _, node = notebook_definition(number, name)
        exec(compile(ast.Module([node], type_ignores=[]), f"notebook {number}'s {name}", "exec"), namespace)
    return namespace


@pytest.mark.slow  # ten trainings of 04's two bigrams, about 10 s
def test_04_the_model_with_positions_sits_on_the_floor_at_seeds_1_to_5(splits):
    """04's model with positions and its split bigram (the same without the position table), trained by 04's own
    two_stage_run (300 steps at 3e-2, then 300 at 3e-3, batches of 256) from seeds 1 to 5 in place of 1337 (for the
    starting weights and the batches), scored by 04's validation_loss."""
    train_data, val_data = splits
    device = pick_device(verbose=False)
    x_val, y_val = consecutive_chunks(val_data, 8, device=device)  # the whole validation text, as in 04
    made = notebook_namespace("04", ("validation_loss", "two_stage_run"), torch=torch, x_val=x_val, y_val=y_val,
                              seed_everything=seed_everything, device=device, cpu_threads=cpu_threads, train=train,
                              train_data=train_data, val_data=val_data)
    floor = made["validation_loss"](lambda x: counted_bigram(train_data).to(device)(x)[0].log_softmax(-1))

    def two_stage_run(model_class, seed: int) -> float:
        """04's two_stage_run from `seed`: the trained model's validation loss at step 600."""
        return made["two_stage_run"](model_class, seed=seed)[1][-1]

    above = {}  # seed → (the model with positions above the floor, above the split bigram)
    for seed in range(1, 6):
        with_positions = two_stage_run(PositionalBigramModel, seed)
        above[seed] = (with_positions - floor, with_positions - two_stage_run(SplitBigramModel, seed))
    figures = (f"the counted bigram (the floor) {floor:.3f}; the model with positions, " + "; ".join(
        f"seed {seed}: {over_floor:+.4f} above the floor, {over_split:+.4f} above the split bigram"
        for seed, (over_floor, over_split) in above.items()))
    print(figures)
    assert abs(floor - 2.482) < 0.0005, f"04's counted floor ({figures})"
    # 04 quotes, from seeds 1 to 5: 0.003 to 0.010 above the floor, 0.001 to 0.003 above the split bigram
    assert all(0.002 <= over_floor <= 0.012 for over_floor, _ in above.values()), f"on the floor ({figures})"
    assert all(0 <= over_split <= 0.004 for _, over_split in above.values()), (
        f"and no better than the model without positions ({figures})")


@pytest.mark.slow  # six trainings of 07's unscaled heads, about 30 s
def test_07_the_unscaled_heads_at_seeds_1_2_and_3(splits):
    """07's two unscaled heads (head sizes 32 and 256), trained by 07's own train_one_head (09's model and recipe, 800
    steps), from seeds 1, 2 and 3 in place of 1337."""
    train_data, val_data = splits
    device = pick_device(verbose=False)
    x_val, y_val = consecutive_chunks(val_data, 8)  # the whole validation text, as in 07
    made = notebook_namespace(
        "07", ("UnscaledHead", "near_one_hot", "read_adamw", "train_one_head", "score_gradient", "saturated_share",
               "validation_loss"),
        torch=torch, F=F, Head=Head, attend_qkv=attend_qkv, attention_weights=attention_weights, embed=embed,
        OneHeadModel=OneHeadModel, cpu_threads=cpu_threads, train=train, train_data=train_data, val_data=val_data,
        x_val=x_val, y_val=y_val, device=device, saturated_below=1e-4)  # 07's threshold for its gradient test
    validation_loss = made["validation_loss"]
    bigram = validation_loss(counted_bigram(train_data).to(device))
    runs = {}  # (seed, head size) → (the fewest rows near one-hot from step 200 on, saturated at the end, val loss)
    for seed in (1, 2, 3):
        for head_size in (32, 256):
            seed_everything(seed)  # as 07 seeds each head
            model, steps, shares, _ = made["train_one_head"](made["UnscaledHead"](32, head_size), attend_qkv)
            runs[seed, head_size] = (shares[steps.index(200):, 0].min().item(), made["saturated_share"](model, False),
                                     validation_loss(model))
    figures = f"the bigram from counts {bigram:.3f}; " + "; ".join(
        f"seed {seed}, head size {size}: near one-hot from step 200 on {100 * fewest:.1f}% or more, saturated at the "
        f"end {100 * saturated:.1f}%, val loss {loss:.3f}" for (seed, size), (fewest, saturated, loss) in runs.items())
    print(figures)
    # 94% or more on an Intel Xeon; on an AMD EPYC 93.9% at the lowest (seed 2)
    assert all(runs[seed, 256][0] >= 0.93 for seed in (1, 2, 3)), f"256: 93% or more from step 200 on ({figures})"
    # 07 quotes the 32 head's loss at seeds 1, 2 and 3: 2.493, 2.472 and 2.462, within 0.03 of the bigram's 2.482
    narrow = torch.tensor([runs[seed, 32][2] for seed in (1, 2, 3)])
    torch.testing.assert_close(narrow, torch.tensor([2.493, 2.472, 2.462]), atol=0.01, rtol=0,
                               msg=f"the 32 unscaled head's losses 07 quotes ({figures})")
    assert ((narrow - bigram).abs() < 0.03).all(), f"32: about level with the bigram ({figures})"
    # The gradient test at the end is printed, not asserted; 07's comment on it quotes an Intel Xeon's run of this test
    # (6 Dec 2026): 256 unscaled 99.7% to 99.9% saturated, 32 unscaled 1.3% to 15.3%.


@pytest.mark.slow  # twelve brief trainings of 08's one-head models, about 10 s
def test_08_ending_the_copying_is_the_largest_step_of_position_7s_gap_at_seeds_1_2_and_3(splits):
    """08's four models at position 7 (the encoder graded on all 8 positions, on position 7 counted 8 times, on
    position 7 alone, and the decoder), trained by 08's recipe (train_briefly) from seeds 1, 2 and 3 in place of 1337
    (for the starting weights and the batches); the gap between the first and the last, step by step."""
    train_data, val_data = splits
    device = pick_device(verbose=False)
    made = notebook_namespace("08", ("attend_unmasked", "EncoderHead", "position_7_counted_8_times", "position_7_only",
                                     "loss_per_position", "fresh_models", "train_briefly"),
                              torch=torch, F=F, Head=Head, OneHeadModel=OneHeadModel, VOCAB_SIZE=VOCAB_SIZE,
                              device=device, seed_everything=seed_everything, cpu_threads=cpu_threads, train=train,
                              train_data=train_data, val_data=val_data)
    val_x, val_y = consecutive_chunks(val_data, 8, 2000, device)  # as in 08

    def at_7(seed: int, model: str, loss_for=None) -> float:
        """08's fresh_models(seed)[model], given `loss_for` when one is named, trained by 08's train_briefly with
        batches from `seed`: its loss at position 7."""
        trained = made["fresh_models"](seed)[model]
        if loss_for is not None:
            trained.loss_for = made[loss_for]
        made["train_briefly"](trained, seed)
        return made["loss_per_position"](trained, val_x, val_y, past_only=False)[7].item()

    steps = {}  # seed → the three steps of the gap at position 7, top to bottom of 08's table
    for seed in (1, 2, 3):
        losses = [at_7(seed, "encoder"), at_7(seed, "encoder", "position_7_counted_8_times"),
                  at_7(seed, "encoder", "position_7_only"), at_7(seed, "decoder")]
        steps[seed] = [above - below for above, below in zip(losses, losses[1:], strict=False)]
    figures = "; ".join(f"seed {seed}: " + ", ".join(f"{step:.3f}" for step in found) for seed, found in steps.items())
    print(f"the gap at position 7, step by step: {figures}")
    # 08 quotes, from seeds 1 to 3: 0.19 to 0.29, 0.40 to 0.44, 0.13 to 0.20; ±0.03 for another machine's path
    found, quoted = torch.tensor(list(steps.values())), torch.tensor([[0.19, 0.40, 0.13], [0.29, 0.44, 0.20]])
    assert ((quoted[0] - 0.03 <= found) & (found <= quoted[1] + 0.03)).all(), f"the ranges 08 quotes ({figures})"
    assert (found.argmax(1) == 1).all(), f"ending the copying is the largest step at every seed ({figures})"


def trained_09_head(splits, seed: int, eval_interval: int | None = 500) -> OneHeadModel:
    """09's model trained as 09's training cell trains it (4,000 steps at 3e-3, batch 64, one CPU thread), from `seed`;
    with `eval_interval=None` without its loss reports, so that the batches drawn for training differ."""
    seed_everything(seed)
    model = OneHeadModel(vocab_size=VOCAB_SIZE, n_embd=32, block_size=8, head_size=32).to(pick_device(verbose=False))
    with cpu_threads(1):
        train(model, *splits, steps=4000, lr=3e-3, batch_size=64, eval_interval=eval_interval, eval_iters=20,
              verbose=False)
    return model.eval()


@torch.no_grad()
def reads_and_says(model: OneHeadModel, word: str) -> tuple[torch.Tensor, torch.Tensor]:
    """What the last character of `word` reads (its row of wei) and what the model says next (probabilities)."""
    idx = torch.tensor([encode(word)], device=next(model.parameters()).device)
    row = attention_weights(attend_scaled, embed(model, idx), model.sa_head.query, model.sa_head.key)[0, -1]
    return row.cpu(), F.softmax(model(idx)[0][0, -1], dim=-1).cpu()


@pytest.mark.slow  # three trainings of 09's head, about 20 s
def test_09_what_the_trained_head_reads_is_its_runs_luck(splits):
    words = ("hou", "you", "thou", "fou", "sou", "mou", "wou", "tou")
    runs = {}  # run → {word: (what its last character reads, what the model says next)}
    for name, seed, eval_interval in (("seed 1337 unreported", 1337, None), ("seed 1", 1, 500), ("seed 2", 2, 500)):
        model = trained_09_head(splits, seed, eval_interval)
        runs[name] = {word: reads_and_says(model, word) for word in words}
    with torch.no_grad():
        after_u = F.softmax(counted_bigram(splits[0])(torch.tensor([encode("u")]))[0][0, -1], dim=-1)
    away = {name: {word: (run[word][1] - after_u).abs().max().item() for word in ("hou", "you", "thou")}
            for name, run in runs.items()}  # the largest difference from the bigram's prediction, as 09 prints it
    favourite = {name: {word: decode(run[word][1].argmax()) for word in words} for name, run in runs.items()}
    unreported, seed_1 = runs["seed 1337 unreported"], runs["seed 1"]
    reads = {"the y of 'you', unreported": unreported["you"][0][0].item(),
             "the h of 'hou', seed 1": seed_1["hou"][0][0].item()}
    you_as_hou = (unreported["you"][1] - unreported["hou"][1]).abs().max().item()
    space, r = encode(" ")[0], encode("r")[0]
    quoted = {  # what 09's text quotes → (this run's probability, the text's)
        "unreported, a space after you": (unreported["you"][1][space].item(), 0.21),
        "unreported, an r after you": (unreported["you"][1][r].item(), 0.22),
        "seed 1, a space after hou": (seed_1["hou"][1][space].item(), 0.23),
        "seed 1, a space after thou": (seed_1["thou"][1][space].item(), 0.26),
        **{f"seed 1, a space after {word}": (seed_1[word][1][space].item(), 0.225) for word in words[3:]},
    }
    lines = [f"{name}: away from the bigram " + ", ".join(f"{w} {d:.2f}" for w, d in away[name].items())
             + "; a favourite of " + " ".join(f"{w} {favourite[name][w]!r}" for w in words) for name in runs]
    lines += [", ".join(f"{what} gets {share:.3f}" for what, share in reads.items()),
              f"unreported, the predictions after you and hou differ by at most {you_as_hou:.3f}",
              ", ".join(f"{what} {got:.2f}" for what, (got, _) in quoted.items())]
    figures = "\n".join(lines)
    print(figures)
    # Trained probabilities: ±0.03 leaves room for another machine's path, as 09's own checks do.
    assert all(abs(got - text) <= 0.03 for got, text in quoted.values()), f"the probabilities 09 quotes ({figures})"
    assert reads["the y of 'you', unreported"] < 0.02 and you_as_hou < 0.02, (
        f"without the reports, the same seed's head ignores the y, and you is predicted as hou ({figures})"
    )
    for name in ("seed 1", "seed 2"):
        assert away[name]["you"] > 0.15 > max(away[name]["hou"], away[name]["thou"]), (
            f"{name}: you moves well away from the bigram, hou and thou a little ({figures})"
        )
    # 09 quotes, from seeds 1 and 2: hou 0.10 and 0.05, thou 0.12 and 0.05 ("up to 0.12"), you 0.50 and 0.29 ("further
    # than here": its own run's you, 0.23)
    moved = torch.tensor([[away[name][word] for word in ("hou", "thou", "you")] for name in ("seed 1", "seed 2")])
    torch.testing.assert_close(moved, torch.tensor([[0.10, 0.12, 0.50], [0.05, 0.05, 0.29]]), atol=0.03, rtol=0,
                               msg=f"how far seeds 1 and 2 move hou, thou and you from the bigram, as 09 quotes "
                                   f"({figures})")
    assert favourite["seed 1"]["hou"] == favourite["seed 1"]["thou"] == " ", f"seed 1: a space first ({figures})"
    assert favourite["seed 2"]["hou"] == "r", f"seed 2: r first after hou ({figures})"
    assert reads["the h of 'hou', seed 1"] < 0.05 and all(favourite["seed 1"][word] == " " for word in words[3:]), (
        f"seed 1's space does not come from reading the h: it reads it little, and puts a space first after "
        f"fou, sou, mou, wou and tou too ({figures})"
    )


def notebook_11_heads_on():
    """11's own `heads_on(model, texts)`: each head's wei on `texts`, a (n_head, B, T, T) CPU tensor."""
    given = {"torch": torch, "embed": embed, "attention_weights": attention_weights, "attend_scaled": attend_scaled}
    return notebook_namespace("11", ("heads_on",), **given)["heads_on"]


def what_the_heads_read(make, splits, seed: int) -> tuple[torch.Tensor, torch.Tensor, nn.Module]:
    """`make()` trained with the recipe from `seed`; (what hou's final u gives the h, the o and itself in each head,
    (n_head, 3); what positions 1–7 give themselves over the whole validation text in each head, (n_head,); the
    trained model)."""
    model = train_and_measure(make, *splits, seed=seed)[0]
    heads_on, device = notebook_11_heads_on(), next(model.parameters()).device
    with torch.no_grad():
        hou = heads_on(model, torch.tensor([encode("hou")], device=device))[:, 0, -1]
        chunks = consecutive_chunks(splits[1], 8, device=device)[0]
        self_share = heads_on(model, chunks).diagonal(dim1=-2, dim2=-1)[..., 1:].mean((1, 2))
    return hou, self_share, model


@pytest.mark.slow  # two trainings of 10's four heads, about 10 s
def test_10_at_other_seeds_a_head_reads_the_h_of_hou(splits):
    heads = {seed: what_the_heads_read(blocks.MultiHeadModel, splits, seed)[0] for seed in (1338, 1339)}
    on_h = {seed: hou[:, 0].max().item() for seed, hou in heads.items()}
    figures = ", ".join(f"seed {seed}: {w:.2f}" for seed, w in on_h.items())
    print(f"the most any of the four heads gives the h of hou: {figures}")
    assert all(w > 0.9 for w in on_h.values()), f"at seeds 1338 and 1339 one head reads the h ({figures})"


@pytest.mark.slow  # four trainings of 11's one-block models, about 20 s
def test_11_the_residual_path_frees_the_heads_and_does_not_force_them(splits):
    """10's feed-forward model (no residual path) and 11's residual model, trained with the recipe from seeds 1338 and
    1339: what their heads read, and at seed 1338 what each model scores with its heads silenced by 11's own
    without_heads."""
    read = {(make, seed): what_the_heads_read(make, splits, seed)
            for make in (blocks.FeedForwardModel, blocks.ResidualModel) for seed in (1338, 1339)}
    without = {seed: read[blocks.FeedForwardModel, seed][1].max().item() for seed in (1338, 1339)}
    on_itself = {seed: read[blocks.ResidualModel, seed][0][:, -1].max().item() for seed in (1338, 1339)}
    self_share = read[blocks.ResidualModel, 1339][1]
    without_heads = notebook_namespace("11", ("without_heads",), torch=torch,
                                       device=pick_device(verbose=False))["without_heads"]
    silenced = [token_losses(without_heads(read[make, 1338][2]), splits[1]).mean().item()
                for make in (blocks.FeedForwardModel, blocks.ResidualModel)]
    figures = (", ".join(f"seed {seed}: {share:.2f}" for seed, share in without.items()) + " without the residual "
               f"path; at seed 1339 with it, at most {self_share.max():.2f}. With it, hou's final u gives itself at "
               f"most {on_itself[1338]:.2f} in any head at seed 1338, {on_itself[1339]:.2f} in one head at 1339. At "
               f"seed 1338, heads silenced: 10's model {silenced[0]:.3f}, the residual model {silenced[1]:.3f}")
    print(f"the most a head gives its own position over the validation text: {figures}")
    assert all(share > 0.9 for share in without.values()), f"without it, some head carries the character ({figures})"
    assert self_share.max() < 0.5, f"with it, no head keeps to itself ({figures})"
    # yet one still may: hou's final u gives itself 0.65 to 0.89 in one head at seed 1339 (11 quotes the range), on
    # every machine and CPU limit tried but one: on the AMD EPYC limited to SSE4 (6 December 2026) it gave 0.23, which
    # 11 also quotes. Under a CPU limit the test only checks that no head keeps to itself.
    if not CPU_LIMITED:
        assert on_itself[1339] > 0.5, f"yet at seed 1339 one head's final u of hou still gives itself most ({figures})"
    # 11 quotes 0.05 at most at seed 1338 (the Intel Xeon's; limited to AVX2 and SSE4 it gives 0.11 and 0.10): below
    # the 0.15 that 11's cell asks of seed 1337's, on every machine
    assert on_itself[1338] < 0.15, f"at seed 1338, hou's final u gives itself almost nothing in every head ({figures})"
    # 11 quotes 3.478 and 2.888 (the Intel Xeon); ±0.04, as 11's cell leaves seed 1337's for another machine
    torch.testing.assert_close(torch.tensor(silenced), torch.tensor([3.478, 2.888]), atol=0.04, rtol=0,
                               msg=f"silenced at seed 1338, as 11 quotes ({figures})")


def without_projections(model: nn.Module) -> nn.Module:
    """`model` with the output projection of every MultiHeadAttention taken out (its heads' outputs go on as they are).

    Taken out after the model is built, so every other weight starts as it does with the projection."""
    for module in model.modules():
        if isinstance(module, blocks.MultiHeadAttention):
            module.proj = nn.Identity()
    return model


@pytest.mark.slow  # six trainings, about 75 s
def test_10_the_projection_changes_the_loss_of_11s_models_as_little_as_a_seed(splits):
    moved = {}
    for make in (blocks.ResidualModel, blocks.LayerNormModel, blocks.TransformerModel):
        with_it = train_and_measure(make, *splits)[1]
        moved[make.__name__] = train_and_measure(lambda make=make: without_projections(make()), *splits)[1] - with_it
    figures = ", ".join(f"{name} {change:+.3f}" for name, change in moved.items())
    print(f"the loss without the projection minus with it: {figures}")
    # 10 quotes this test's figures at seed 1337; 11's table spreads each of these losses over up to 0.012 by seed, and
    # 10's four heads over 0.019. The Intel Xeon gives +0.015 for LayerNormModel at seed 1337, so the bound is 0.02
    assert all(abs(change) < 0.02 for change in moved.values()), f"about as much as a change of seed ({figures})"


@pytest.mark.slow  # four trainings of 10's four heads, about 16 s
def test_10_four_weightings_make_the_gain_at_seeds_1338_and_1339(splits):
    """10's four heads without the projection (four weightings) and with one weighting shared (tied), from the two
    seeds it quotes besides its own."""
    made = notebook_namespace("10", ("without_projection", "one_weighting"), MultiHeadModel=blocks.MultiHeadModel,
                              nn=nn)
    losses = {seed: [train_and_measure(made[name], *splits, seed=seed)[1]
                     for name in ("without_projection", "one_weighting")] for seed in (1338, 1339)}
    figures = "; ".join(f"seed {seed}: four free heads without the projection {free:.3f}, one weighting {tied:.3f}"
                        for seed, (free, tied) in losses.items())
    print(figures)
    # 10 quotes free 2.220 and 2.256, tied 2.378 and 2.382 (this test's figures); ±0.015, 10's own margin
    torch.testing.assert_close(torch.tensor(list(losses.values())), torch.tensor([[2.220, 2.378], [2.256, 2.382]]),
                               atol=0.015, rtol=0, msg=f"the losses 10 quotes ({figures})")
    assert all(tied - free > 0.1 for free, tied in losses.values()), f"the four weightings make the gain ({figures})"


def heads_on_validation(model: nn.Module, splits) -> torch.Tensor:
    """Each head's weights on every validation chunk, by 10's own `heads_wei`: (n_head, n_chunks, 8, 8), on the CPU."""
    heads_wei = notebook_namespace("10", ("heads_wei",), torch=torch, attention_weights=attention_weights,
                                   attend_scaled=attend_scaled)["heads_wei"]
    heads = model.sa_heads.heads if hasattr(model, "sa_heads") else [model.sa_head]
    chunks = consecutive_chunks(splits[1], 8, device=model_device(model))[0]
    with torch.no_grad():
        return heads_wei(heads, embed(model, chunks)).cpu()


def head_rows_apart(a: torch.Tensor, b: torch.Tensor) -> float:
    """How far apart two heads' rows 1–7 are, each head's weights (n_chunks, 8, 8), as 10 measures two heads: half
    the summed absolute difference, averaged over the rows."""
    return (a[:, 1:] - b[:, 1:]).abs().sum(-1).mean().item() / 2


def rows_apart(a: torch.Tensor, b: torch.Tensor) -> float:
    """How far apart two models' heads' rows 1–7 are, as 10 measures two heads (head_rows_apart), with the heads of
    `b` matched to those of `a` in the order that makes them closest."""
    heads = range(len(a))
    apart = [[head_rows_apart(a[i], b[j]) for j in heads] for i in heads]
    return min(sum(apart[i][j] for i, j in enumerate(order)) / len(a) for order in itertools.permutations(heads))


class ResidualOneHead(OneHeadModel):
    """10's single head of 32 with 11's residual path: the head's output is added to x instead of replacing it."""

    def forward(self, idx, targets=None):
        x = embed(self, idx)  # (B, T, C)
        x = x + self.sa_head(x)  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


@pytest.mark.slow  # eight trainings of one head and three of four heads, about 40 s
def test_10_the_single_head_weighs_the_past_alike_from_every_seed_until_a_residual_path_frees_it(splits):
    found, weis = {}, {}
    single = (1337, 1338, 1339, 1340)
    for make, seeds in ((OneHeadModel, single), (ResidualOneHead, single), (blocks.MultiHeadModel, single[:3])):
        runs = {seed: train_and_measure(make, *splits, seed=seed) for seed in seeds}
        wei = weis[make.__name__] = {seed: heads_on_validation(model, splits) for seed, (model, _) in runs.items()}
        found[make.__name__] = {
            "losses": [loss for _, loss in runs.values()],
            "on itself": [w.diagonal(dim1=-2, dim2=-1)[..., 1:].mean().item() for w in wei.values()],
            "on the one before": [w.diagonal(offset=-1, dim1=-2, dim2=-1).mean().item() for w in wei.values()],
            "rows apart": [rows_apart(wei[a], wei[b]) for a, b in itertools.combinations(seeds, 2)],
        }
    for name, figures in found.items():
        print(name + ": " + "; ".join(f"{what} {min(v):.3f} to {max(v):.3f}" for what, v in figures.items()))
    closest = {seed: min(head_rows_apart(w[a], w[b]) for a, b in itertools.combinations(range(len(w)), 2))
               for seed, w in weis["MultiHeadModel"].items()}  # the closest two heads of one model, as 10 pairs them
    nearest = "four heads, how far apart the rows of the closest two heads are: " + ", ".join(
        f"seed {seed} {apart:.3f}" for seed, apart in closest.items())
    print(nearest)
    one, freed, four = found["OneHeadModel"], found["ResidualOneHead"], found["MultiHeadModel"]
    figures = f"one head {one}, with a residual path {freed}, four heads {four}"
    spread = {name: max(f["losses"]) - min(f["losses"]) for name, f in found.items()}
    # 10 quotes, for one head over seeds 1337-1340: 0.78 to 0.81 on itself, 0.16 or 0.17 on the one before, rows
    # 0.06 or 0.07 apart, losses within 0.006; with a residual path 0.39 to 0.47 on itself, 0.46 to 0.53 on the one
    # before, rows 0.17 to 0.21 apart, losses within 0.008; four heads over 1337-1339: rows 0.26 to 0.28 apart
    # (matched), and within one model, at seeds other than 1337, the closest two heads as near as 0.2 (on an Intel
    # Xeon, 0.21 at seed 1338 and 0.26 at 1339; at 1337 10's own cell prints 0.33)
    assert all(0.75 <= v <= 0.83 for v in one["on itself"]), f"one head: about 0.8 on itself at every seed ({figures})"
    assert all(0.13 <= v <= 0.20 for v in one["on the one before"]), f"one head: the rest on the one before ({figures})"
    assert max(one["rows apart"]) < 0.1 < 0.2 < min(four["rows apart"]), (
        f"two seeds' single heads weigh the past alike; two seeds' four heads do not, however matched ({figures})")
    assert max(freed["on itself"]) < 0.55 and min(freed["rows apart"]) > max(one["rows apart"]) + 0.05, (
        f"freed by a residual path, the single head reads itself less, and differently at each seed ({figures})")
    on_itself, before = four["on itself"], four["on the one before"]
    assert all(0.6 < v < 0.8 for v in on_itself) and all(0.15 < v < 0.3 for v in before), (
        f"four heads, on average over the heads: about 0.7 on itself, 0.2 on the one before ({figures})")
    assert max(freed["losses"]) < min(one["losses"]) - 0.05, f"the residual path lowers the loss ({figures})"
    assert spread["OneHeadModel"] < 0.01 and spread["ResidualOneHead"] < 0.015, (
        f"yet the freed head's loss stays about as steady as the plain one's ({figures})")
    assert min(closest[1338], closest[1339]) < 0.25, (
        f"at other seeds, two of the four heads can weigh the past within about 0.2 of each other ({nearest})")


@torch.no_grad()
def losses_after_the_u(model, chunks, targets, chunk, place, change=None) -> torch.Tensor:
    """The four-head model's loss on the character after each u at (chunk, place), computed head by head as its
    forward computes it; `change(wei)`, when given, first edits head 0's weights in place."""
    x = embed(model, chunks)
    heads = model.sa_heads.heads
    wei = [attention_weights(attend_scaled, x, head.query, head.key) for head in heads]
    if change is not None:
        change(wei[0])
    out = torch.cat([w @ head.value(x) for w, head in zip(wei, heads, strict=True)], -1)  # the heads side by side
    logits = model.lm_head(model.sa_heads.proj(out))
    return F.cross_entropy(logits[chunk, place], targets[chunk, place], reduction="none")


@pytest.mark.slow  # one training of 10's four heads, about 5 s
def test_10_reading_the_y_of_you_is_worth_its_weight_and_nothing_reads_the_h(splits):
    """At a u after an o, head 0 reads the y two back and skips the h: what each is worth to the next character."""
    model, loss = train_and_measure(blocks.MultiHeadModel, *splits)
    chunks, targets = consecutive_chunks(splits[1], 8, device=model_device(model))
    u, o = encode("uo")
    chunk, place = ((chunks[:, 2:] == u) & (chunks[:, 1:-1] == o)).nonzero().unbind(1)  # as 10 finds them
    place = place + 2
    two_back = chunks[chunk, place - 2]

    def skip_two_back(w):  # head 0's weight on the character two back, shared out over the rest of its row
        w[chunk, place, place - 2] = 0
        w[chunk, place] /= w[chunk, place].sum(-1, keepdim=True)

    def only_two_back(w):
        w[chunk, place] = 0
        w[chunk, place, place - 2] = 1

    on_two_back = heads_on_validation(model, splits)[:, chunk.cpu(), place.cpu(), place.cpu() - 2]  # (n_head, n_u)
    runs = {name: losses_after_the_u(model, chunks, targets, chunk, place, change)
            for name, change in (("as trained", None), ("with head 0 skipping it", skip_two_back),
                                 ("with head 0 reading only it", only_two_back))}
    with torch.no_grad():  # the forward computed head by head is the model's own
        own = F.cross_entropy(model(chunks)[0][chunk, place], targets[chunk, place], reduction="none")
    torch.testing.assert_close(runs["as trained"], own, msg="losses_after_the_u computes as the model does")
    found = {}
    for ch in "yhc":
        sel = two_back == encode(ch)[0]
        found[ch] = {"count": int(sel.sum()), "weight": on_two_back[:, sel.cpu()].mean(1).tolist(),
                     **{name: loss[sel].mean().item() for name, loss in runs.items()}}
    text = load_text()  # counted: how much the character two back tells about the one after an ou
    entropy_bits = notebook_namespace("10", ("entropy_bits",), math=math)["entropy_bits"]
    after = {}
    for i in range(2, len(text) - 1):
        if text[i - 1 : i + 1] == "ou":
            after.setdefault(text[i - 2], Counter())[text[i + 1]] += 1
    bits = {ch: entropy_bits(after[ch]) for ch in "yhc"}
    bits["any"] = entropy_bits(sum(after.values(), Counter()))
    you = after["y"]
    space_or_r = (you[" "] + you["r"]) / you.total()  # after `you`: mostly a space, or the r of `your`
    figures = "; ".join(
        f"{ch} two back ({f['count']} u's): each head's weight on it {', '.join(f'{w:.2f}' for w in f['weight'])}; "
        + ", ".join(f"loss after the u {name} {f[name]:.3f}" for name in runs) for ch, f in found.items())
    figures += "; bits left after an ou, counted in all the text: " + ", ".join(f"{k} {b:.3f}" for k, b in bits.items())
    figures += f"; after you, a space or an r {space_or_r:.1%}; cou {after['c'].total()} times in all the text"
    figures += f"; the four heads' loss {loss:.3f}"
    print(figures)
    y, h, c = found["y"], found["h"], found["c"]
    assert (y["count"], h["count"], c["count"]) == (398, 210, 22), f"10's u's after an o ({figures})"
    assert abs(loss - 2.220) < 0.01 and y["weight"][0] > 0.9, f"10's model, reading the y as 10 shows ({figures})"
    # 10 quotes: after a y 1.62, rising to 2.01 without head 0's weight on it; after an h 1.84 either way, 2.40 when
    # head 0 reads only the h; on average no head gives the h over 0.01; bits 2.99 for any ou, 2.12 y, 2.33 h, 2.06 c
    skipping, reading = "with head 0 skipping it", "with head 0 reading only it"
    quoted = torch.tensor([y["as trained"], y[skipping], h["as trained"], h[reading]])
    # another CPU's rounding, or a GPU's, moves them a little: ±0.05
    torch.testing.assert_close(quoted, torch.tensor([1.62, 2.01, 1.84, 2.40]), atol=0.05, rtol=0,
                               msg=f"the losses 10 quotes ({figures})")
    assert y[skipping] > y["as trained"] + 0.25, f"reading the y lowers the loss after the u ({figures})"
    assert max(h["weight"]) < 0.015, f"on average no head gives the h over 0.01 ({figures})"
    assert abs(h[skipping] - h["as trained"]) < 0.02, f"so taking it away changes nothing ({figures})"
    assert h[reading] > h["as trained"] + 0.3, f"made to read only the h, head 0 misleads ({figures})"
    assert c["weight"][0] < 0.2, f"head 0 gives the c little ({figures})"
    torch.testing.assert_close(torch.tensor([bits[k] for k in ("any", "y", "h", "c")]),
                               torch.tensor([2.991, 2.115, 2.325, 2.063]), atol=0.0005, rtol=0,
                               msg=f"counted, so the same on every machine ({figures})")
    assert bits["c"] <= bits["y"] < bits["h"] < bits["any"], f"the c tells at least as much as the y ({figures})"
    assert round(100 * space_or_r) == 79, f"79% of the text's yous are followed by a space or an r ({figures})"
    assert after["c"].total() == text.count("cou") == 597, f"a small group: 597 cous in the whole text ({figures})"


@pytest.mark.slow  # eight trainings of 10's one-layer models, about 40 s
def test_10_the_feed_forward_layers_gains_at_seeds_1338_and_1339(splits):
    """What 10's feed-forward layers gain below the four heads alone at the two seeds it quotes besides its own: the
    narrow one (32 → 32 and a ReLU), the 4× wide one, and the wide one without its ReLU."""
    made = notebook_namespace("10", ("without_relu", "lecture_width"), FeedForwardModel=blocks.FeedForwardModel, nn=nn)
    makers = {"4 heads": blocks.MultiHeadModel, "narrow": made["lecture_width"], "wide": blocks.FeedForwardModel,
              "wide, no ReLU": made["without_relu"]}
    gains = {}
    for seed in (1338, 1339):
        loss = {name: train_and_measure(make, *splits, seed=seed)[1] for name, make in makers.items()}
        print(f"seed {seed}, validation loss: " + ", ".join(f"{name} {value:.4f}" for name, value in loss.items()))
        gains[seed] = {name: loss["4 heads"] - loss[name] for name in ("narrow", "wide", "wide, no ReLU")}
    figures = "; ".join(f"seed {seed}: " + ", ".join(f"{name} {gain:+.3f}" for name, gain in layers.items())
                        for seed, layers in gains.items())
    print(f"below the four heads alone: {figures}")
    found = torch.tensor([[g["narrow"], g["wide"], g["wide, no ReLU"]] for g in gains.values()])
    # 10 quotes, from the Intel Xeon that made its copy: the narrow layer 0.044 and 0.048 below the four heads, the wide
    # one 0.112 and 0.113, the wide one without its ReLU 0.003 below and 0.024 above. Another CPU rounds differently:
    # on an AMD EPYC (6 December 2026) 0.047 and 0.052, 0.100 and 0.108, 0.003 and -0.024, which 10 also quotes: ±0.015.
    torch.testing.assert_close(found, torch.tensor([[0.044, 0.112, 0.003], [0.048, 0.113, -0.024]]), atol=0.015,
                               rtol=0, msg=f"the gains 10 quotes ({figures})")
    assert all(g["wide"] > g["narrow"] + 0.04 for g in gains.values()), f"the narrow layer gains far less ({figures})"
    assert all(g["narrow"] > 0.02 for g in gains.values()), f"yet more than the seed moves four heads ({figures})"
    assert all(g["wide, no ReLU"] < 0.02 for g in gains.values()), f"without the ReLU, no better ({figures})"


@pytest.mark.slow  # two trainings of 10's feed-forward model, about 20 s
def test_10_without_fused_adamw_the_feed_forward_model_ends_about_0_01_away(splits, monkeypatch):
    """10 and the README say that on a PyTorch without fused AdamW for the CPU (before 2.4), where `train` falls back
    to the plain (foreach) form, a loss can end up to about 0.01 from the text's: 10's feed-forward model 2.123, not
    2.133."""
    fused = train_and_measure(blocks.FeedForwardModel, *splits)[1]
    real = torch.optim.AdamW

    def adamw_before_2_4(params, lr, **options):  # as PyTorch 2.3 answers fused=True for CPU weights
        if options.get("fused"):
            raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported "
                               "devices: ['cuda', 'xpu', 'privateuseone'].")
        return real(params, lr=lr, **options)

    monkeypatch.setattr(torch.optim, "AdamW", adamw_before_2_4)
    plain = train_and_measure(blocks.FeedForwardModel, *splits)[1]
    print(f"10's feed-forward model: {fused:.4f} with fused AdamW, {plain:.4f} with the plain form")
    # Quoted: 2.133 and 2.123 on an AMD EPYC (7 December 2026; the same 2.123 on torch 2.3.1 with the real fallback).
    # Limited to AVX2 the same machine gave 2.127 and 2.125, to SSE4 2.129 and 2.124: the gap is up to about 0.01.
    assert abs(plain - 2.123) <= 0.015, f"the plain form ends near 2.123 ({plain:.4f})"
    assert abs(plain - fused) <= 0.015, f"at most about 0.01 from the fused form's {fused:.4f}"


def notebook_11_stack():
    """11's own `stack(residual, layer_norm)` (and the PlainBlock it uses), run from the notebook's definitions."""
    namespace = notebook_namespace("11", ("PlainBlock", "stack"), Block=blocks.Block,
                                   TransformerModel=blocks.TransformerModel, nn=nn)
    return namespace["stack"]


def layer_norms_gap(splits, batch_gaps: list | None = None, **recipe) -> float:
    """Validation loss without LayerNorm minus with it, after `recipe` (below 0: LayerNorm behind); when `batch_gaps` is
    given, the same difference in training loss, batch by batch on the same batches, is appended to it."""
    without, with_ = [], []  # each run's training loss, batch by batch
    loss = train_and_measure(blocks.ResidualModel, *splits, batch_losses=without, **recipe)[1]
    loss -= train_and_measure(blocks.LayerNormModel, *splits, batch_losses=with_, **recipe)[1]
    if batch_gaps is not None:
        batch_gaps.extend(a - b for a, b in zip(without, with_, strict=True))
    return loss


@pytest.mark.slow  # twenty-six trainings of one block, about 80 s
def test_11_layer_norm_leads_one_block_at_constant_rates_until_the_falling_rate_closes_its_gap(splits):
    """11's one block without LayerNorm (ResidualModel) and with it (LayerNormModel): 500 steps at a constant 1e-2 and
    3e-2 from seeds 1338, 1339 and 7 (11's cell runs seed 1337's); and from seeds 1337, 1338 and 1339, the runs that
    tell the falling rate from the longer run: 500 steps at a constant 1e-2, 1,500 steps at 1e-2, 500 steps falling
    from 1e-2 to 1e-3, and 500 at a constant 5.5e-3 (the falling rate's average)."""
    recipes = {"1e-2": {}, "3e-2": {"lr": 3e-2}, "1,500 steps at 1e-2": {"steps": 1500},
               "falling to 1e-3": {"decay": True}, "5.5e-3": {"lr": 5.5e-3}}  # each from 500 steps at 1e-2, constant
    falling_runs = ("1e-2", "1,500 steps at 1e-2", "falling to 1e-3", "5.5e-3")
    plan = {1337: falling_runs, 1338: tuple(recipes), 1339: tuple(recipes), 7: ("1e-2", "3e-2")}  # 11 runs 1337's 3e-2
    gaps, hundreds = {}, {}  # (seed, run) → without minus with LayerNorm; seed → the 3e-2 gap per hundred batches
    for seed, names in plan.items():
        for run in names:
            batch_gaps = []
            gaps[seed, run] = layer_norms_gap(splits, batch_gaps, seed=seed,
                                              **({"steps": 500, "decay": False} | recipes[run]))
            if run == "3e-2":
                hundreds[seed] = torch.tensor(batch_gaps).view(5, 100).mean(1)  # steps 0–99, …, 400–499
    figures = "; ".join(f"seed {seed}: " + ", ".join(f"{run} {gaps[seed, run]:+.3f}" for run in names)
                        + (f" (the 3e-2 gap per hundred batches {', '.join(f'{g:.2f}' for g in hundreds[seed])})"
                           if seed in hundreds else "") for seed, names in plan.items())
    print(f"LayerNorm's gap in one block (without minus with), after 500 steps at a constant rate unless named: "
          f"{figures}")
    for seed in (1338, 1339, 7):
        # 11 quotes 0.114, 0.091 and 0.132 at 3e-2 (the Intel Xeon; the AMD EPYC gave 0.115, 0.115 and 0.098), and
        # 0.02 to 0.04 at 1e-2
        assert 0.07 < gaps[seed, "3e-2"] < 0.15, f"at 3e-2, LayerNorm lower by 0.09 to 0.13 ({figures})"
        assert 0.01 < gaps[seed, "1e-2"] < 0.05, f"at 1e-2, lower by 0.02 to 0.04 ({figures})"
    for seed in (1338, 1339):  # 11 quotes 0.00 and 0.01 over the first hundred batches, 0.11 and 0.09 over the last
        assert hundreds[seed][0] < 0.03 < 0.06 < hundreds[seed][-1], f"it falls behind only after a while ({figures})"
    for seed in (1337, 1338, 1339):
        constant, longer = gaps[seed, "1e-2"], gaps[seed, "1,500 steps at 1e-2"]
        falling, smaller = gaps[seed, "falling to 1e-3"], gaps[seed, "5.5e-3"]
        assert longer > constant / 2, f"three times as many steps at 1e-2 close less than half the gap ({figures})"
        assert falling < 0, f"500 steps falling to 1e-3 put LayerNorm behind ({figures})"
        assert falling < smaller < constant, f"a constant 5.5e-3 closes part of the gap ({figures})"


def notebook_11_four_stacks() -> dict:
    """11's four stacks, as its cell builds them: name → a maker."""
    stack = notebook_11_stack()
    return {"both": stack(), "residual only": stack(layer_norm=False), "LayerNorm only": stack(residual=False),
            "neither": stack(residual=False, layer_norm=False)}


@pytest.mark.slow  # five trainings of 150 steps, about 10 s
def test_11_the_four_stacks_after_150_steps_at_seeds_1338_and_1339(splits):
    """11's four stacks trained for 150 steps (its cell's run) from seed 1338, and the stack with neither from 1339 too:
    the same picture as at 1337, no cliff in the stack with neither, and its block 1's weights moving in all nearly as
    far as its block 3's."""
    stacks = notebook_11_four_stacks()
    bigram = token_losses(counted_bigram(splits[0]), splits[1]).mean().item()
    found = {}  # (seed, stack) → ((val loss, mean training loss of batches 25–49, of 125–149), batch losses, moves)
    for seed, names in ((1338, tuple(stacks)), (1339, ("neither",))):
        for name in names:
            curve = []  # the training loss, batch by batch
            seed_everything(seed)  # as train_and_measure does before it builds the stack: its starting weights
            start = {key: value.clone() for key, value in stacks[name]().state_dict().items()}
            model, loss = train_and_measure(stacks[name], *splits, steps=150, seed=seed, batch_losses=curve)
            end = model.state_dict()
            moved = [torch.cat([(end[key].cpu() - value).abs().flatten() for key, value in start.items()
                                if key.startswith(f"blocks.{i}.")]).median().item() for i in range(3)]
            stretches = [torch.tensor(curve[a:b]).mean().item() for a, b in ((25, 50), (125, 150))]
            found[seed, name] = ((loss, *stretches), curve, moved)
    figures = "; ".join(
        f"seed {seed}, {name}: {loss:.3f}, batches 25–49 {early:.3f}, 125–149 {late:.3f}, first batch {curve[0]:.2f}, "
        f"highest after it {max(curve[1:]):.2f}"
        + (f"; the median weight of blocks 1, 2 and 3 moved {', '.join(f'{m:.3f}' for m in moved)}"
           if name == "neither" else "")
        for (seed, name), ((loss, early, late), curve, moved) in found.items())
    print(f"after 150 steps: {figures}")
    # 11 quotes seed 1338's losses and stretches (the Intel Xeon's); ±0.04, as 11's cells leave seed 1337's
    torch.testing.assert_close(torch.tensor([found[1338, name][0] for name in stacks]), torch.tensor(
        [[2.388, 2.731, 2.383], [2.326, 2.646, 2.319], [3.353, 3.311, 3.289], [3.131, 3.266, 3.124]]), atol=0.04,
        rtol=0, msg=f"seed 1338's figures, as 11 quotes them ({figures})")
    loss = {name: found[1338, name][0][0] for name in stacks}
    assert loss["residual only"] < loss["both"] < bigram < 3.0 < min(loss["LayerNorm only"], loss["neither"]), (
        f"the same picture: with residual paths below the bigram, without far above it ({figures})")
    for seed, first in ((1338, 4.15), (1339, 4.16)):
        _, curve, moved = found[seed, "neither"]
        assert abs(curve[0] - first) <= 0.005, f"the untrained stack's first batch, as quoted ({figures})"
        assert max(curve[1:]) < curve[0], f"no batch above the first: no cliff at seed {seed} ({figures})"
        # 11 quotes 0.034, 0.030, 0.036 at 1338 and 0.035, 0.032, 0.038 at 1339; ±0.02, as 11's cell leaves its own
        torch.testing.assert_close(torch.tensor(moved), torch.tensor({1338: [0.034, 0.030, 0.036],
                                                                      1339: [0.035, 0.032, 0.038]}[seed]),
                                   atol=0.02, rtol=0, msg=f"the median moves, as quoted ({figures})")
        assert moved[0] > 0.8 * moved[2], f"block 1's weights moved nearly as far as block 3's ({figures})"


@pytest.mark.slow  # untrained stacks only, a few seconds
def test_11_untrained_stacks_at_seeds_1338_and_1339(splits):
    """11's Appendix B at the two other seeds it quotes, each stack built from that seed (its gradient taken on the one
    batch that 11's block_gradients draws from 1337 by default): block 1's gradient far below block 3's in the stack
    with neither, large at every block in the LayerNorm-only stack; and at the top of each, the chunks' last
    characters read back every time with residual paths, for at most 3% without."""
    train_data, val_data = splits
    device = pick_device(verbose=False)
    stacks = notebook_11_four_stacks()
    made = notebook_namespace("11", ("block_gradients", "top_of_stack", "parts"), torch=torch, train_data=train_data,
                              device=device, embed=embed)
    chunks = consecutive_chunks(val_data, 8, device=device)[0][:4000]  # the first 4,000 validation chunks, as in 11
    last = chunks[:, -1]
    grads, rows = {}, {}  # (seed, stack) → each block's gradient size; → (alike, read back, varying / common part)
    for seed in (1338, 1339):
        for name, make in stacks.items():
            seed_everything(seed)
            grads[seed, name] = made["block_gradients"](make().to(device))  # 11's one batch, drawn from 1337
            seed_everything(seed)
            with torch.no_grad():
                _, top = made["top_of_stack"](make().to(device), chunks)
                averages = torch.stack([top[last == c].mean(0) for c in range(VOCAB_SIZE)]).nan_to_num(1e9)
                parts = made["parts"](top)
                rows[seed, name] = (nn.functional.normalize(top, dim=-1).mean(0).norm().item() ** 2,
                                    (torch.cdist(top, averages).argmin(-1) == last).float().mean().item(),
                                    parts["varying"] / parts["common"])
    figures = "; ".join(
        f"seed {seed}, {name}: gradient at blocks 1 to 3 {', '.join(f'{g:#.2g}' for g in grads[seed, name])}, top "
        f"vectors alike {alike:.3f}, read back {read:.0%}, varying part {varying:.2f} of the common part"
        for (seed, name), (alike, read, varying) in rows.items())
    print(f"the untrained stacks: {figures}")
    # Untrained, so every machine gives these figures to the digits 11 quotes: half a unit of the last
    for seed, at_1, at_3, apart in ((1338, 0.0014, 0.17, 122), (1339, 0.0020, 0.19, 98)):
        neither = grads[seed, "neither"]
        assert abs(neither[0] - at_1) <= 0.00005 and abs(neither[2] - at_3) <= 0.005, f"neither ({figures})"
        assert abs(neither[2] / neither[0] - apart) <= 0.5, f"neither: block 3 / block 1, as quoted ({figures})"
        assert all(1 <= g <= 3 for g in grads[seed, "LayerNorm only"]), f"LayerNorm only: 1 to 3 ({figures})"
        alike, read, varying = zip(*(rows[seed, name] for name in stacks), strict=True)
        assert read[0] == read[1] == 1 and max(read[2:]) < 0.035, f"read back: 100%, then at most 3% ({figures})"
        assert all(0.545 <= a < 0.605 for a in alike[:2]) and 0.865 <= alike[2] < 0.935 and alike[3] >= 0.9995, (
            f"alike: 0.55 to 0.60 with residual paths, 0.87 to 0.93 LayerNorm only, 1.000 with neither ({figures})")
    varying = torch.tensor([rows[seed, "LayerNorm only"][2] for seed in (1338, 1339)])
    torch.testing.assert_close(varying, torch.tensor([0.39, 0.27]), atol=0.005, rtol=0,
                               msg=f"LayerNorm only: the varying part 0.39 and 0.27 of the common part ({figures})")


class CentreOnly(nn.Module):
    """A final LayerNorm's first half only: each position's mean over its numbers taken away, its size left as it is."""

    def forward(self, x):
        return x - x.mean(-1, keepdim=True)


class OneLengthSetByTheStack(nn.Module):
    """In place of ln_f: each position's x divided by its own length, times the mean length over the batch, so that
    every x reaches lm_head at one length, but one that the stack below can still change (the mean passes gradient,
    unless `cut`)."""

    def __init__(self, cut: bool = False):
        super().__init__()
        self.cut = cut

    def forward(self, x):
        length = x.norm(dim=-1, keepdim=True)
        mean = length.mean()
        return x / length * (mean.detach() if self.cut else mean)


class LayerNormAtTheStacksLength(nn.LayerNorm):
    """ln_f, its output then as long as the mean x of the batch (times that length over √32, the length of a
    LayerNorm's output before γ), the gradient passing through that mean."""

    def forward(self, x):
        return super().forward(x) * x.norm(dim=-1).mean() / math.sqrt(x.shape[-1])


class DoubledLayerNorm(nn.LayerNorm):
    """ln_f with its output multiplied by 2, so that lm_head reads an x nearly as long as without ln_f (after 150
    steps, a median length of about 11, against 7 with ln_f and 12 to 13 without it)."""

    def forward(self, x):
        return 2 * super().forward(x)


def with_final(make, final):
    """A maker of `make()`'s model with `final()` (None: nothing) in place of its ln_f."""

    def changed():
        model = make()
        model.ln_f = nn.Identity() if final is None else final()
        return model

    return changed


def gradient_along_x(model: nn.Module, chunks: torch.Tensor, y: torch.Tensor) -> float:
    """The median |cosine| between x at the top of the stack and the loss's gradient with respect to it (0: the
    gradient has no part along x, so nothing in the loss asks for a longer or shorter x)."""
    x = model.blocks(embed(model, chunks)).detach().requires_grad_()
    F.cross_entropy(model.lm_head(model.ln_f(x)).flatten(0, 1), y.flatten()).backward()
    return F.cosine_similarity(x.grad, x, dim=-1).abs().median().item()


@torch.no_grad()
def reading_length(model: nn.Module, chunks: torch.Tensor, y: torch.Tensor) -> tuple[float, float, float]:
    """For a stack: (its loss on `chunks`, its loss with every x at the top scaled to the median length, the
    correlation between x's length at the top and the probability of the likeliest next character)."""
    top = model.blocks(embed(model, chunks))
    length = top.norm(dim=-1, keepdim=True)
    loss = F.cross_entropy(model.lm_head(model.ln_f(top)).transpose(1, 2), y).item()
    one_length = F.cross_entropy(model.lm_head(model.ln_f(top / length * length.median())).transpose(1, 2), y).item()
    likeliest = model.lm_head(model.ln_f(top)).softmax(-1).max(-1).values
    return loss, one_length, torch.corrcoef(torch.stack([length.flatten(), likeliest.flatten()]))[0, 1].item()


@pytest.mark.slow  # thirty trainings of 150 steps, about two minutes
def test_11_in_150_step_runs_ln_f_s_division_by_size_is_most_of_layer_norms_cost(splits):
    stack = notebook_11_stack()
    makers = {
        "both": stack(), "blocks' LayerNorms only": with_final(stack(), None),
        "ln_f only": with_final(stack(layer_norm=False), lambda: nn.LayerNorm(32)),
        "residual only": stack(layer_norm=False),
        "ln_f centring only": with_final(stack(), CentreOnly),
        "ln_f dividing only": with_final(stack(), lambda: nn.RMSNorm(32)),
        "one length set by the stack": with_final(stack(), OneLengthSetByTheStack),
        "one length, its gradient cut": with_final(stack(), lambda: OneLengthSetByTheStack(cut=True)),
        "ln_f doubled": with_final(stack(), lambda: DoubledLayerNorm(32)),
        "ln_f at the stack's length": with_final(stack(), lambda: LayerNormAtTheStacksLength(32)),
    }
    chunks, y = consecutive_chunks(splits[1], 8, device=pick_device(verbose=False))
    found, lengths = {}, {}
    for seed in (1337, 1338, 1339):
        runs = {name: train_and_measure(make, *splits, steps=150, seed=seed) for name, make in makers.items()}
        loss = {name: value for name, (_, value) in runs.items()}
        with torch.no_grad():
            spread = {name: model(chunks)[0].std(-1).median().item() for name, (model, _) in runs.items()}
            read = {name: model.ln_f(model.blocks(embed(model, chunks))).norm(dim=-1).median().item()
                    for name, (model, _) in runs.items()}  # how long an x lm_head reads
            gamma = {name: runs[name][0].ln_f.weight.pow(2).mean().sqrt().item() for name in ("both", "ln_f doubled")}
        lengths[seed] = read
        along = {name: gradient_along_x(runs[name][0], chunks[:2000], y[:2000])
                 for name in ("both", "blocks' LayerNorms only")}
        # 11: multiplying x by any positive number leaves ln_f's output as it was, so the gradient through ln_f has
        # no part along x (here a cosine of about 1e-7); without ln_f it has (about 0.1)
        assert along["both"] < 1e-4 < 0.05 < along["blocks' LayerNorms only"], f"the gradient along x ({along})"
        assert gamma["ln_f doubled"] < gamma["both"], f"doubled, ln_f learns a smaller γ ({gamma})"
        found[seed] = (loss, spread, reading_length(runs["blocks' LayerNorms only"][0], chunks, y),
                       reading_length(runs["both"][0], chunks, y)[2])
        print(f"seed {seed}, 150 steps: " + ", ".join(f"{name} {value:.3f}" for name, value in loss.items()))
        print("  the scores' spread (median standard deviation of a position's 65): "
              + ", ".join(f"{name} {value:.2f}" for name, value in spread.items()))
        print("  the median length of what lm_head reads: "
              + ", ".join(f"{name} {value:.1f}" for name, value in read.items())
              + "; ln_f's γ, root mean square: " + ", ".join(f"{name} {value:.2f}" for name, value in gamma.items())
              + "; the gradient's part along x at the top, median |cosine|: "
              + ", ".join(f"{name} {value:.1g}" for name, value in along.items()))
        print("  without ln_f: {:.3f}; every x at the top scaled to one length: {:.3f}; x's length against the "
              "likeliest character's probability: correlation {:.2f}".format(*found[seed][2])
              + f" (with ln_f: {found[seed][3]:.2f})")
    for seed, (loss, spread, (plain, one_length, correlation), with_ln_f) in found.items():
        figures = f"seed {seed}: {loss}, {spread}"
        # 11 quotes: without ln_f's division, 0.04 to 0.10 lower; the blocks' LayerNorms move it by 0.01 to 0.02 (up
        # with ln_f kept, down without it)
        for with_it, without_it in (("both", "blocks' LayerNorms only"), ("ln_f only", "residual only"),
                                    ("both", "ln_f centring only")):
            assert 0.03 < loss[with_it] - loss[without_it] < 0.12, f"{with_it} vs {without_it} ({figures})"
        for with_it, without_it in (("both", "ln_f only"), ("blocks' LayerNorms only", "residual only")):
            assert abs(loss[with_it] - loss[without_it]) < 0.03, f"the blocks' LayerNorms: little ({figures})"
        for kept, part in (("both", "ln_f dividing only"), ("blocks' LayerNorms only", "ln_f centring only")):
            assert abs(loss[kept] - loss[part]) < 0.01, f"{part} ends where {kept} does ({figures})"
        assert spread["blocks' LayerNorms only"] > spread["both"] + 0.2, f"without it, scores spread wider ({figures})"
        lead = loss["both"] - loss["blocks' LayerNorms only"]
        assert 0.25 * lead < one_length - plain < 0.75 * lead and correlation > 0.4 > 0.2 > with_ln_f, (
            f"its scores read x's length: one length for every x costs it part of its lead ({figures}, "
            f"{plain:.3f}, {one_length:.3f}, {correlation:.2f})")
        assert one_length < loss["both"], f"with x's length taken away, still ahead of the stack with ln_f ({figures})"
        # 11 quotes (Intel Xeon): one length set by the stack 2.324, 2.332, 2.338; ln_f doubled 2.363, 2.387, 2.394
        same_length = loss["one length set by the stack"]
        assert abs(same_length - loss["blocks' LayerNorms only"]) < 0.02 and same_length < loss["both"] - 0.025, (
            f"trained without x's length to read, the stack learns as fast as without ln_f ({figures})")
        assert spread["one length set by the stack"] > spread["blocks' LayerNorms only"] - 0.05, (
            f"and its scores spread at least as wide ({figures})")
        assert abs(loss["ln_f doubled"] - loss["both"]) < 0.02, f"ln_f doubled ends where ln_f does ({figures})"
        # 11 quotes (Intel Xeon): the stack without ln_f leads ln_f doubled by 0.03 to 0.05 (0.030, 0.046, 0.054)
        assert 0.02 < loss["ln_f doubled"] - loss["blocks' LayerNorms only"] < 0.07, (
            f"the stack without ln_f stays ahead of ln_f doubled ({figures})")
        read = lengths[seed]
        assert read["both"] < 8 < 10 < min(read["ln_f doubled"], read["blocks' LayerNorms only"]), (
            f"ln_f doubled hands lm_head an x nearly as long as without ln_f, not as short as ln_f ({figures}, {read})")
        # what the stacks that lead share: the loss's gradient reaches x's overall length. 11 quotes (Intel Xeon): the
        # gradient cut 2.400, 2.417, 2.441 (lm_head reads 52 to 74); ln_f at the stack's length 2.331, 2.334, 2.338
        assert loss["one length, its gradient cut"] > loss["both"] and read["one length, its gradient cut"] > 30, (
            f"with the mean's gradient cut, x grows unchecked and the lead is gone ({figures}, {read})")
        assert abs(loss["ln_f at the stack's length"] - loss["blocks' LayerNorms only"]) < 0.02, (
            f"ln_f itself, at a length the stack sets, ends as low as without ln_f ({figures})")
    new_stacks = ("one length set by the stack", "one length, its gradient cut", "ln_f doubled",
                  "ln_f at the stack's length")
    quoted = {1337: (2.324, 2.400, 2.363, 2.331), 1338: (2.332, 2.417, 2.387, 2.334),
              1339: (2.338, 2.441, 2.394, 2.338)}  # 11's figures (Intel Xeon), stack by stack
    torch.testing.assert_close(torch.tensor([[found[seed][0][name] for name in new_stacks] for seed in quoted]),
                               torch.tensor(list(quoted.values())), atol=0.02, rtol=0,  # another CPU's rounding
                               msg="the losses 11 quotes for its four new stacks, seeds 1337 to 1339")


def notebook_11_lengths_up():
    """11's own `lengths_up(model, chunks)`: x's median length in the embeddings, then after each part up a stack."""
    return notebook_namespace("11", ("lengths_up",), embed=embed, torch=torch)["lengths_up"]


@pytest.mark.slow  # six trainings of 2 to 4 updates, a few seconds
def test_11_the_cliff_is_x_grown_nine_times_through_the_stack_with_neither(splits):
    stack, lengths_up = notebook_11_stack(), notebook_11_lengths_up()
    chunks, targets = consecutive_chunks(splits[1], 8, device=pick_device(verbose=False))
    found, models = {}, {}
    for name, make in (("neither", stack(residual=False, layer_norm=False)), ("LayerNorm only", stack(residual=False))):
        for updates in (2, 3, 4):
            model, loss = train_and_measure(make, *splits, steps=updates, decay=False)
            lengths = lengths_up(model, chunks)
            with torch.no_grad():
                scores = model(chunks)[0]
                spread = scores.std(-1).median().item()
                likeliest = scores.softmax(-1).max(-1)
                right = (likeliest.indices == targets).float().mean().item()
            found[name, updates] = (loss, lengths, spread, right, likeliest.values.mean().item())
            models[name, updates] = model
            print(f"{name}, {updates} updates: validation loss {loss:.2f}; x's length in the embeddings, then after "
                  f"each part {', '.join(f'{v:.1f}' for v in lengths)}; the scores' spread {spread:.2f}; the "
                  f"likeliest character right {right:.1%} of the time, given {found[name, updates][-1]:.2f} on average")
    _, before, spread_before, right_before, _ = found["neither", 2]
    loss, after, spread_after, right_after, sure = found["neither", 3]
    _, later, spread_later, _, _ = found["neither", 4]
    with torch.no_grad():  # after three updates, every x at the top scaled to the median length it had after two
        top = models["neither", 3].blocks(embed(models["neither", 3], chunks))
        shrunk = top / top.norm(dim=-1, keepdim=True) * before[-1]
        shrunk_loss = F.cross_entropy(models["neither", 3].lm_head(shrunk).transpose(1, 2), targets).item()
    print(f"after three updates, with every x at the top scaled to length {before[-1]:.1f}: {shrunk_loss:.2f}")
    figures = f"{found}, scaled to two updates' length: {shrunk_loss:.2f}"
    # 11 quotes: x at the top 2.9, 25 and 4.6 after 2, 3 and 4 updates; the scores' spread 0.44, then 4.3 (its own
    # cells then scale x at the top, and give each part's gain)
    assert loss > 8 and after[-1] > 5 * before[-1] and after[-1] > 3 * later[-1], f"x grew, then shrank ({figures})"
    assert all(a < b for a, b in zip(after[1:-1], after[2:], strict=True)), (
        f"each part after the first heads lengthens x ({figures})")
    assert spread_after > 5 * max(spread_before, spread_later), f"the scores spread far wider ({figures})"
    assert abs(right_after - right_before) < 0.02 and sure > 0.9, f"surer, not more often right ({figures})"
    loss_later, right_later, sure_later = found["neither", 4][0], found["neither", 4][3], found["neither", 4][4]
    # 11: after the fourth update fewer are right (8% against 15%), yet the loss is lower: far less sure predictions
    assert right_later < right_before - 0.03 and loss_later < found["neither", 2][0] and sure_later < 0.3, (
        f"after four updates: less often right, yet a lower loss, with less sure predictions ({figures})")
    assert shrunk_loss < 4, f"scaled back to its earlier length, x scores about as before ({figures})"
    assert all(found["LayerNorm only", n][2] < 1.5 for n in (2, 3, 4)), f"not with LayerNorms ({figures})"


def model_of(optimizer) -> list:
    """The weights an optimiser updates, in the model's order."""
    return [p for group in optimizer.param_groups for p in group["params"]]


@pytest.mark.slow  # four updates of a three-block stack, and a few passes over the validation text, 10 s
def test_11_plain_gradient_descent_would_not_have_lengthened_x_as_adamws_third_update_did(splits):
    stack, lengths_up = notebook_11_stack()(residual=False, layer_norm=False), notebook_11_lengths_up()
    chunks = consecutive_chunks(splits[1], 8, device=pick_device(verbose=False))[0]
    weights, gradients = [], []  # the weights before and after each update; the batch's gradient behind each

    def make():
        model = stack()
        weights.append(parameters_to_vector(model.parameters()).detach().clone())
        return model

    def after_update(optimizer, args, kwargs):
        weights.append(parameters_to_vector(model_of(optimizer)).detach().clone())
        gradients.append(torch.cat([p.grad.flatten() for p in model_of(optimizer)]))

    hook = register_optimizer_step_post_hook(after_update)  # called after every optimiser's step
    try:
        model, _ = train_and_measure(make, *splits, steps=4, decay=False)
    finally:
        hook.remove()

    def top_length(w: torch.Tensor) -> float:
        vector_to_parameters(w, model.parameters())
        return lengths_up(model, chunks)[-1]

    if model_device(model).type == "cpu":  # on a CPU the replays that 11 takes as one run's points are exactly that
        for updates in (2, 3):
            replay = train_and_measure(stack, *splits, steps=updates, decay=False)[0]
            assert torch.equal(parameters_to_vector(replay.parameters()), weights[updates]), f"replay of {updates}"
    moves = [b - a for a, b in itertools.pairwise(weights)]
    longer = [move.norm().item() / (1e-2 * g.norm().item()) for move, g in zip(moves, gradients, strict=True)]
    clear = gradients[0].abs() > 1e-6  # well above AdamW's eps, 1e-8
    first = (moves[0][clear].abs() / 1e-2).aminmax()  # the first update's moves of those weights, in learning rates
    before_third = top_length(weights[2])
    adamw = top_length(weights[3]) / before_third  # what AdamW's third update did to x's length at the top
    plain = top_length(weights[2] - 1e-2 * gradients[2]) / before_third  # what a plain gradient step would have done
    figures = (f"AdamW's moves at updates 1 to 4 {', '.join(f'{v:.0f}' for v in longer)} times as long as plain "
               f"gradient descent's (at the same learning rate, on the same batch); the third update lengthens x at "
               f"the top {adamw:.2f} times, a plain gradient step in its place {plain:.3f} times; the batch "
               f"gradients' sizes {', '.join(f'{g.norm():.3g}' for g in gradients)}; at the first update, the "
               f"{clear.float().mean():.0%} of weights whose gradient is above 1e-6 moved {first.min:.3f} to "
               f"{first.max:.3f} times the learning rate")
    print(figures)
    # 11 quotes: the replays are one run's points (checked above); a plain third step would have lengthened x by 2%;
    # the batch gradients behind the third and fourth updates 0.83 and 38.3, 46 times; at the first update, each weight
    # with a clear gradient moves by the learning rate
    assert min(longer[:3]) > 100 and adamw > 5 and plain < 1.05, f"plain descent would have moved far less ({figures})"
    assert gradients[3].norm() > 30 * gradients[2].norm(), f"a far larger gradient behind the fourth ({figures})"
    assert 0.95 < first.min and first.max < 1.05, f"the first update: the learning rate, weight by weight ({figures})"


def record_live_units(model: nn.Module) -> list[list[tuple[bool, int]]]:
    """Hooks on each block's feed-forward ReLU: for every batch the model reads, (whether it is training, how many of
    the layer's units are positive somewhere in the batch) is appended to that block's list; returns the lists. A
    unit positive nowhere is dead there: it gives 0, and passes no gradient back."""
    record = []
    for block in model.blocks:
        counts = []
        block.ffwd.net[1].register_forward_hook(lambda relu, inputs, output, counts=counts: counts.append(
            (relu.training, int((inputs[0] > 0).flatten(0, -2).any(0).sum()))))
        record.append(counts)
    return record


def record_sizes(model: nn.Module) -> list[list[tuple[float, float, float]]]:
    """Hooks on each block: for every training batch, (the median length of the x the block hands on, the mean and the
    standard deviation of its feed-forward units' pre-activations) is appended to that block's list; returns the
    lists."""
    record = []
    for block in model.blocks:
        sizes, pre = [], []
        block.ffwd.net[1].register_forward_hook(lambda relu, inputs, output, pre=pre: pre.append(
            (inputs[0].mean().item(), inputs[0].std().item())) if relu.training else None)
        block.register_forward_hook(lambda block, inputs, output, sizes=sizes, pre=pre: sizes.append(
            (output.norm(dim=-1).median().item(), *pre[-1])) if block.training else None)
        record.append(sizes)
    return record


def live_units(model: nn.Module, record: list, chunks: torch.Tensor) -> list[int]:
    """For each block, how many of its feed-forward units are positive somewhere in `chunks` (n, T). It empties
    `record` (record_live_units's lists) first: read what training recorded before calling it."""
    for counts in record:
        counts.clear()
    with torch.no_grad():
        model(chunks)
    return [counts[0][1] for counts in record]


def weights_reached(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> list[str]:
    """The names of the weights, in the model's order, that the gradient of the loss on batch (x, y) reaches (not
    exactly 0 everywhere)."""
    model.zero_grad()
    model(x, y)[1].backward()
    return [name for name, p in model.named_parameters() if p.grad is not None and p.grad.any()]


@pytest.mark.slow  # two trainings of a three-block stack, about 40 s
def test_11_the_stack_with_neither_learns_at_a_smaller_learning_rate(splits):
    """At 3e-3 it learns; at the recipe's 1e-2 it learns for a while, then the ReLUs of one feed-forward layer all die,
    which leaves the model one prediction for every input (the frequencies) and no gradient to learn its way back.
    They die when the x that the blocks hand on grows tens of times longer, which it does at 1e-2 only. (Under a CPU
    limit of `make cpu-check` the 1e-2 run may instead keep its units and end between the bigram and the
    frequencies.)"""
    train_data, val_data = splits
    bigram = token_losses(counted_bigram(train_data), val_data).mean().item()
    counts = torch.bincount(train_data, minlength=VOCAB_SIZE).float()  # as 11 scores the frequencies' loss
    frequencies = nn.functional.cross_entropy(counts.log().expand(len(val_data), -1), val_data).item()
    best_without_input = notebook_namespace("11", ("best_without_input",), torch=torch,
                                            VOCAB_SIZE=VOCAB_SIZE)["best_without_input"]
    floor = best_without_input(train_data)  # the least training loss without reading the input (11's 3.309)
    records, sizes = {}, {}

    def recorded(lr):
        """11's stack with neither, recording its live units in records[lr] and its sizes in sizes[lr]."""
        def make():
            model = notebook_11_stack()(residual=False, layer_norm=False)()
            records[lr], sizes[lr] = record_live_units(model), record_sizes(model)
            return model
        return make

    learned, smaller = train_and_measure(recorded(3e-3), *splits, lr=3e-3)
    losses = []  # the 1e-2 run's training loss, batch by batch
    stuck, recipes = train_and_measure(recorded(1e-2), *splits, batch_losses=losses)
    during = [[n for training, n in counts if training] for counts in records[1e-2]]  # per block, per step
    device = model_device(stuck)
    chunks = consecutive_chunks(val_data, 8, device=device)[0]  # every validation chunk
    live = {lr: live_units(model, records[lr], chunks) for lr, model in ((3e-3, learned), (1e-2, stuck))}
    figures = (f"the stack with neither: {smaller:.3f} at 3e-3, {recipes:.3f} at 1e-2; the bigram {bigram:.3f}, "
               f"the frequencies {frequencies:.3f}. Live feed-forward units per block (of 128), on every validation "
               f"chunk: {live}")
    # 2.433 on the Intel Xeon, 2.420 on the AMD EPYC, 2.476 on the Xeon limited to AVX2 (make cpu-check's first limit),
    # 2.453 on the AMD EPYC limited to AVX2, but 2.558 (above the bigram) on the AMD EPYC limited to SSE4: under a CPU
    # limit, only that it learns, far below the floor of ignoring the input and better than at 1e-2
    if CPU_LIMITED:
        assert smaller < min(floor - 0.5, recipes), f"at 3e-3 it learns, better than at 1e-2 ({figures})"
    else:
        assert smaller < bigram < frequencies - 0.5, f"at 3e-3 it learns, below the bigram ({figures})"
    assert min(live[3e-3]) >= 0.9 * 128, f"at 3e-3 nearly every unit of every layer is alive ({figures})"
    if CPU_LIMITED and 0 not in live[1e-2]:
        # Under a CPU limit the 1e-2 run can take another path: on the AMD EPYC limited to AVX2 (6 December 2026) no
        # layer died (128, 115 and 122 units live) and it ended at 2.571, limited to SSE4 at 2.727 (128, 82 and 121),
        # between the bigram and the frequencies, as seeds 1338 and 1339 end on the AMD EPYC unlimited (11's Appendix D
        # quotes them). What holds: 3e-3 does better.
        print(figures)
        assert bigram < recipes < frequencies - 0.1 and recipes > smaller + 0.05, (
            f"at 1e-2, no layer dead: it ends between the bigram and the frequencies, above the 3e-3 run ({figures})")
        return
    assert abs(recipes - frequencies) <= 0.01, f"at the recipe's 1e-2 it ends at the frequencies' loss ({figures})"
    assert 0 in live[1e-2], f"at 1e-2 every unit of one feed-forward layer is dead ({figures})"

    dead = max(k for k, n in enumerate(live[1e-2]) if n == 0)  # the block whose units all died (the top one, if two)
    died = max(step for step, n in enumerate(during[dead]) if n > 0) + 1  # from this step on, none in any batch
    # stretches of 100 batches before then: the fewest live units in any batch of each, and its mean loss
    fewest = torch.tensor(during[dead][:died], dtype=torch.float).unfold(0, 100, 1).min(1).values
    mean_loss = torch.tensor(losses[:died]).unfold(0, 100, 1).mean(1)
    healthy = (fewest >= 0.5 * 128) & (mean_loss < floor - 0.1)  # most units live, and well below the floor
    after = torch.tensor(losses[-500:]).mean().item()
    with torch.no_grad():
        x = embed(stuck, chunks)
        for block in stuck.blocks[:dead + 1]:
            x = block(x)
    bias = f"blocks.{dead}.ffwd.net.2.bias"  # the last Linear's bias of the dead layer
    hands_on_its_bias = torch.equal(x, stuck.get_parameter(bias).expand_as(x))
    reached = weights_reached(stuck, *get_batch(train_data, 8, 64, device, torch.Generator().manual_seed(1337)))
    names = [name for name, _ in stuck.named_parameters()]
    hundreds = "; ".join(f"{s}-{s + 99} {min(during[dead][s:s + 100])} to {max(during[dead][s:s + 100])}, "
                         f"{torch.tensor(losses[s:s + 100]).mean():.3f}" for s in range(0, died, 100))
    figures += (f". At 1e-2, block {dead + 1}'s live units in the first batch {during[dead][0]}, none from step {died} "
                f"on; per hundred batches, up to the hundred in which they died, the fewest to the most live and the "
                f"mean loss: {hundreds}; the mean loss of 100 batches at best {mean_loss.min():.3f}, of the last 500 "
                f"{after:.3f} (the floor of ignoring the input {floor:.3f}); it hands on its last Linear's bias: "
                f"{hands_on_its_bias}; one batch's gradient reaches {reached}")
    print(figures)
    assert 0.35 * 128 <= during[dead][0] <= 0.65 * 128, f"untrained, about half of its units live ({figures})"
    assert died >= 200 and healthy.any(), (
        f"they die late: before, for 100 batches or more, most were live and the loss well below the floor ({figures})"
    )
    assert abs(after - floor) < 0.05, f"and the loss goes back to the floor of ignoring the input ({figures})"
    assert hands_on_its_bias, f"that layer hands on its last Linear's bias, whatever the input ({figures})"
    assert set(reached) <= set(names[names.index(bias):]), f"no gradient reaches below the dead layer ({figures})"

    # Why they died at 1e-2: the x the blocks hand on grew tens of times longer, at 1e-2 only
    fast, slow = sizes[1e-2], sizes[3e-3]  # per block, per step: (length handed on, pre-activations' mean, their sd)
    steps = (100, 500, 600, died - 1)  # the last, the last step at which some of block 3's units were live
    sizes_figures = (f"at 1e-2, at steps {steps}: block 1 hands on x of median length "
                     f"{', '.join(f'{fast[0][k][0]:.1f}' for k in steps)}, block 2 "
                     f"{', '.join(f'{fast[1][k][0]:.1f}' for k in steps)}; block {dead + 1}'s pre-activations' mean "
                     f"{', '.join(f'{fast[dead][k][1]:.2f}' for k in steps)}. At 3e-3 the longest median length of "
                     f"the x each block hands on: {', '.join(f'{max(v[0] for v in block):.1f}' for block in slow)}; "
                     f"from step 100 on, the pre-activations' means within "
                     f"{max(abs(v[1]) for block in slow for v in block[100:]):.2f} of 0, their standard deviations at "
                     f"most {max(v[2] for block in slow for v in block[100:]):.2f}")
    print(sizes_figures)
    assert fast[0][died - 1][0] > 10 * fast[0][100][0], f"at 1e-2, x grew over ten times first ({sizes_figures})"
    # When block 3's units die, the x block 2 hands it grew tens of times first: on the Intel Xeon whose figures 11's
    # table quotes, 2.4 at step 100, 77 at 500, 33 at 600, 471 at 668 (the last step with a live unit); on the AMD EPYC
    # 11 also quotes, most of it at the end (43 at step 600, 271 at 652); on the Xeon limited to SSE4 by step 600
    # (4,481; 3,688 at 828, the last step with a live unit). On the Xeon limited to AVX2, block 2's own units die
    # instead (none live from step 633 on; block 3 keeps 5), and block 1's x, above, is the one that grows.
    if dead == 2:
        assert fast[1][died - 1][0] > 10 * fast[1][100][0], f"block 2's x grew tens of times ({sizes_figures})"
    # near 0 at step 100, far below it by the end; in between another CPU's path differs (step 500: −25 on the Intel
    # Xeon whose figures 11's table quotes, −0.21 on the AMD EPYC)
    assert fast[dead][died - 1][1] < -10 < -1 < fast[dead][100][1], f"pre-acts sank far below 0 ({sizes_figures})"
    assert max(v[0] for block in slow for v in block) < 20, f"at 3e-3, no x grows far ({sizes_figures})"
    assert max(abs(v[1]) for block in slow for v in block[100:]) < 1, f"at 3e-3, means near 0 ({sizes_figures})"

    # Why below 0 and not above: not the bias, but the dead layer's rows, each pointing against the mean input
    parts = {lr: pre_activation_parts(model, dead, chunks) for lr, model in ((1e-2, stuck), (3e-3, learned))}
    why = "; ".join(f"at {lr:g}, block {dead + 1}'s mean pre-activation {p['mean']:.2f} = its bias's mean "
                    f"{p['bias']:+.2f} + mean row · mean input {p['row_input']:+.2f}, {p['against']} of 128 rows "
                    f"against the mean input (cosine {p['cosine']:+.2f}), the mean input {p['length']:.1f} long, the "
                    f"mean row {p['row_length']:.2f}"
                    for lr, p in parts.items())
    print(why)
    dying = parts[1e-2]
    assert dying["row_input"] < -10 and abs(dying["bias"]) < 0.01 * abs(dying["mean"]), f"rows, not bias ({why})"
    assert dying["against"] >= 0.9 * 128 and dying["cosine"] < -0.5, f"nearly every row points against it ({why})"
    assert abs(parts[3e-3]["row_input"]) < 1, f"at 3e-3 the product stays small ({why})"


def pre_activation_parts(model, block: int, chunks) -> dict:
    """Block `block`'s (from 0) feed-forward pre-activations over `chunks`: their mean, split exactly into the first
    Linear's mean bias and its mean row · the mean input, with the rows whose product with the mean input is below 0,
    the cosine of the mean row and the mean input, and the lengths of the mean input and of the mean row."""
    first = model.blocks[block].ffwd.net[0]
    seen = {}
    hook = first.register_forward_hook(lambda module, given, out: seen.update(h=given[0].flatten(0, -2),
                                                                               z=out.flatten(0, -2)))
    try:
        with torch.no_grad():
            model(chunks)
    finally:
        hook.remove()
    mean_input, mean_row = seen["h"].mean(0), first.weight.detach().mean(0)
    return {"mean": seen["z"].mean().item(), "bias": first.bias.detach().mean().item(),
            "row_input": (mean_row @ mean_input).item(), "against": int((first.weight.detach() @ mean_input < 0).sum()),
            "cosine": nn.functional.cosine_similarity(mean_row, mean_input, 0).item(),
            "length": mean_input.norm().item(), "row_length": mean_row.norm().item()}


@pytest.mark.slow  # one training of a three-block stack, about 20 s
def test_11_held_to_one_length_the_units_of_the_stack_with_neither_survive_1e_2(splits):
    def held():
        model = notebook_11_stack()(residual=False, layer_norm=False)()
        for block in model.blocks:  # every x divided by its root mean square: an RMSNorm without its learned scale
            block.ln1, block.ln2 = (nn.RMSNorm(32, elementwise_affine=False) for _ in range(2))
        model.ln_f = nn.RMSNorm(32, elementwise_affine=False)
        return model

    model, loss = train_and_measure(held, *splits)
    chunks = consecutive_chunks(splits[1], 8, device=model_device(model))[0]
    live = live_units(model, record_live_units(model), chunks)
    print(f"the stack with neither, every x held to one length before each part: {loss:.3f} at 1e-2; live "
          f"feed-forward units per block (of 128), on every validation chunk: {live}")
    # 11 quotes 128, 120 and 123 live and a loss of 3.197 on the Intel Xeon (without the rescaling: 128, 19 and 0), and
    # 128, 123 and 105 live and 3.123 on an AMD EPYC. The same division written another way rounds differently and
    # ends elsewhere (3.137 to 3.235, 82 or more live in each layer, in runs made while writing this), hence the margins
    assert min(live) > 0.5 * 128, f"no layer dies: most units of every block stay live ({live})"
    assert 2.6 < loss < 3.4, f"yet it learns little, far above the bigram ({loss:.3f})"


@pytest.fixture(scope="module")
def finished(splits) -> float:
    """The validation loss of 11's finished model (three blocks) after the recipe, as 11's cell trains it."""
    return train_and_measure(blocks.TransformerModel, *splits)[1]


@pytest.mark.slow  # five trainings of three blocks, about 50 s (with the finished model's, shared, 75 s)
def test_11_layer_norm_costs_three_blocks_a_little_at_the_recipe_and_helps_at_constant_rates(splits, finished):
    stack = notebook_11_stack()
    residual_only = train_and_measure(stack(layer_norm=False), *splits)[1]
    gaps = {}  # constant learning rate → the loss without LayerNorm minus with it, after 500 steps
    for rate in (1e-2, 3e-2):
        without, with_ = (train_and_measure(stack(layer_norm=layer_norm), *splits, steps=500, lr=rate, decay=False)[1]
                          for layer_norm in (False, True))
        gaps[rate] = without - with_
    figures = (f"three blocks after the recipe: {finished:.3f} with LayerNorm, {residual_only:.3f} without; after 500 "
               f"steps, without minus with: {gaps[1e-2]:+.3f} at a constant 1e-2, {gaps[3e-2]:+.3f} at 3e-2")
    print(figures)
    assert 0 < finished - residual_only < 0.04, f"at the recipe, without LayerNorm a little lower ({figures})"
    assert gaps[1e-2] > 0.01 and gaps[3e-2] > 0.02, f"at constant rates, with LayerNorm lower ({figures})"


@pytest.mark.slow  # four trainings of three blocks, about 50 s
def test_11_layer_norm_costs_three_blocks_a_little_at_seeds_1338_and_1339_too(splits):
    """11's three blocks without their LayerNorms (ln_f included) after the recipe from seeds 1338 and 1339, against the
    same blocks with them, both trained here (11's seed table quotes the blocks with them from `python -m
    helpers.stage_spread`)."""
    residual_only = notebook_11_stack()(layer_norm=False)
    without = {seed: train_and_measure(residual_only, *splits, seed=seed)[1] for seed in (1338, 1339)}
    with_ = {seed: train_and_measure(blocks.TransformerModel, *splits, seed=seed)[1] for seed in (1338, 1339)}
    figures = "; ".join(f"seed {seed}: {loss:.3f} without LayerNorm, {with_[seed]:.3f} with it"
                        for seed, loss in without.items())
    print(f"three blocks after the recipe: {figures}")
    # 11 quotes 2.018 and 2.023 without, 2.029 and 2.039 with (the Intel Xeon); the AMD EPYC gave 2.010 to 2.014 and
    # 2.022 to 2.025 without, and 2.030 to 2.046 and 2.032 to 2.040 with (SSE4's 2.046 the farthest), so ±0.02
    torch.testing.assert_close(torch.tensor([*without.values(), *with_.values()]),
                               torch.tensor([2.018, 2.023, 2.029, 2.039]), atol=0.02, rtol=0,
                               msg=f"as 11 quotes ({figures})")
    assert all(0 < with_[seed] - loss < 0.04 for seed, loss in without.items()), (
        f"at the recipe, without LayerNorm a little lower ({figures})")


@pytest.mark.slow  # one training of three blocks on chunks of 16, about 30 s (with the finished model's, shared, 55 s)
def test_11_a_longer_context_takes_the_finished_model_further(splits, finished):
    longer = train_and_measure(lambda: blocks.TransformerModel(block_size=16), *splits, batch_size=32)[1]
    print(f"three blocks after the recipe: {finished:.3f} on chunks of 8 (batch 64), {longer:.3f} on chunks of 16 "
          "(batch 32: the same 512 characters a step)")
    assert longer < finished - 0.015, f"block 16 ends lower: {longer:.3f} against {finished:.3f}"


@pytest.mark.slow  # one more training of the finished model, about 30 s (with the shared one, 50 s)
def test_11_the_finished_model_does_not_overfit_yet(splits, finished):
    recipe = finished
    longer = train_and_measure(blocks.TransformerModel, *splits, steps=2000)[1]
    print(f"the finished model on the validation text: {recipe:.3f} after 1,500 steps, {longer:.3f} after 2,000")
    assert longer < recipe - 0.005, f"2,000 steps end lower than 1,500: {longer:.3f} against {recipe:.3f}"


@pytest.mark.slow  # two trainings of three blocks with dropout, about 30 s (with the finished model's, shared, 45 s)
def test_11_dropout_raises_the_finished_models_loss(splits, finished):
    """11 leaves dropout at 0: at this size and this many steps, dropping what the parts add only costs."""
    dropped = {rate: train_and_measure(lambda rate=rate: blocks.TransformerModel(dropout=rate), *splits)[1]
               for rate in (0.1, 0.2)}
    figures = (f"three blocks after the recipe, on the validation text: {finished:.3f} without dropout, "
               + ", ".join(f"{loss:.3f} with dropout {rate}" for rate, loss in dropped.items()))
    print(figures)
    # 11 quotes (Intel Xeon): 2.029, 2.055 and 2.084
    assert finished + 0.01 < dropped[0.1] < dropped[0.2] - 0.01, f"the more dropout, the higher the loss ({figures})"
