"""The large configuration builds on a CPU with its 10.8 M weights and takes a few steps (never trained here)."""

import torch

from helpers import scaled
from helpers.data import VOCAB_SIZE


def test_the_large_configuration_has_about_10_8_million_weights():
    model = scaled.large_model()
    C, L, V, T = 384, 6, VOCAB_SIZE, 256
    per_block = 3 * C * C + (C * C + C) + (C * 4 * C + 4 * C) + (4 * C * C + C) + 2 * 2 * C  # heads, proj, ffwd, 2 LN
    expected = V * C + T * C + L * per_block + 2 * C + (C * V + V)  # embeddings, blocks, ln_f, lm_head
    assert sum(p.numel() for p in model.parameters()) == expected == 10_788_929
    assert len(model.blocks) == 6 and len(model.blocks[0].sa_heads.heads) == 6
    assert model.blocks[0].sa_heads.heads[0].key.out_features == 64  # 384 / 6
    assert model.blocks[0].dropout.p == 0.2


def test_the_large_model_takes_a_few_steps_and_its_loss_falls():
    torch.manual_seed(0)
    model = scaled.large_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=scaled.RECIPE["lr"])
    x = torch.randint(0, VOCAB_SIZE, (2, 64))  # a short context: any T up to 256 goes
    losses = []
    for _ in range(3):
        _, loss = model(x, torch.roll(x, -1, dims=1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert abs(losses[0] - torch.log(torch.tensor(65.0)).item()) < 0.5  # starts near ln 65
    assert losses[-1] < losses[0]


def test_without_a_gpu_it_refuses_in_one_sentence(capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert scaled.main([]) == 3
    assert "No CUDA GPU here" in capsys.readouterr().out
    assert scaled.main(["--steps", "0"]) == 2


def test_the_whole_text_loss_counts_every_character_once():
    torch.manual_seed(0)
    model = scaled.large_model(n_embd=12, n_head=2, n_layer=1, block_size=8, dropout=0.0)
    data = torch.randint(0, VOCAB_SIZE, (8 * 5 + 1,))
    x, y = data[:-1].view(5, 8), data[1:].view(5, 8)
    with torch.no_grad():
        expected = model.eval()(x, y)[1].item()
    assert abs(scaled.whole_text_loss(model, data, batch=2) - expected) < 1e-5
