"""The attention stages in helpers/attention.py: each one line from the last, and the Head that runs the last one."""

import pytest
import torch
import torch.nn.functional as F

from helpers import average_softmax, changed_lines
from helpers.attention import (
    Head,
    attend_qk,
    attend_qkv,
    attend_scaled,
    attention_weights,
    causal_softmax,
    future_mask,
    weights_and_output,
)

N_EMBD, HEAD_SIZE = 12, 8


@pytest.fixture
def head():
    torch.manual_seed(1337)
    return Head(N_EMBD, HEAD_SIZE).eval()


@pytest.mark.parametrize("T", [1, 7, 40])
def test_head_equals_pytorch_fused_causal_attention(head, T):
    x = torch.randn(3, T, N_EMBD)
    with torch.no_grad():
        q, k, v = head.query(x), head.key(x), head.value(x)
        expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        torch.testing.assert_close(head(x), expected, atol=1e-6, rtol=0)


def test_head_forward_is_the_last_stage_itself():
    """Head.forward holds no code of its own: it calls attend_scaled with the head's three projections."""
    removed, added = changed_lines(attend_scaled, Head.forward)
    assert added == ["return attend_scaled(x, self.query, self.key, self.value)"]
    assert len(removed) == 6  # every line of the stage: the head runs it rather than repeating it


def test_head_works_on_one_unbatched_sequence(head):
    x = torch.randn(6, N_EMBD)
    with torch.no_grad():
        torch.testing.assert_close(head(x), head(x.unsqueeze(0))[0])


@pytest.mark.parametrize("attend", [attend_qkv, attend_scaled])
def test_attention_weights_are_the_stages_own_row_stochastic_causal_weights(head, attend):
    T = 9
    x = torch.randn(4, T, N_EMBD)
    with torch.no_grad():
        wei = attention_weights(attend, x, head.query, head.key)
        out = attend(x, head.query, head.key, head.value)
    assert wei.shape == (4, T, T)
    torch.testing.assert_close(wei @ head.value(x), out)  # the very weights the stage blended with
    torch.testing.assert_close(wei.sum(-1), torch.ones(4, T))
    future = torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)
    assert (wei[:, future] == 0).all()  # exactly 0, not merely small
    assert (wei[:, ~future] > 0).all()


def test_attention_weights_follow_the_scale():
    torch.manual_seed(0)
    head = Head(4, 64)
    x = torch.randn(1, 6, 4)
    with torch.no_grad():
        scores = head.query(x) @ head.key(x).transpose(-2, -1)
        torch.testing.assert_close(attention_weights(attend_qkv, x, head.query, head.key), causal_softmax(scores))
        torch.testing.assert_close(
            attention_weights(attend_scaled, x, head.query, head.key), causal_softmax(scores / 8)
        )


def test_weights_and_output_is_notebook_06s_step(head):
    x = torch.randn(2, 5, N_EMBD)
    with torch.no_grad():
        wei, out = weights_and_output(x, head.query, head.key, head.value)
        torch.testing.assert_close(out, attend_qkv(x, head.query, head.key, head.value))
        torch.testing.assert_close(wei @ head.value(x), out)


@pytest.mark.parametrize(
    "old, new, removed, added",
    [
        (average_softmax, attend_qk, "wei = torch.zeros((T, T)", "wei = query(x) @ key(x).transpose(-2, -1)"),
        (attend_qk, attend_qkv, "return wei @ x", "return wei @ value(x)"),
        (
            attend_qkv,
            attend_scaled,
            "wei = query(x) @ key(x).transpose(-2, -1)",
            "wei = query(x) @ key(x).transpose(-2, -1) * key.out_features ** -0.5",
        ),
    ],
    ids=["03→05 scores from q and k", "05→06 blend v", "06→07 scale"],
)
def test_each_stage_is_one_line_from_the_last(old, new, removed, added):
    gone, came = changed_lines(old, new)
    assert len(gone) == 1 and len(came) == 1
    assert gone[0].startswith(removed) and came[0] == added


def test_the_average_and_the_head_differ_in_the_scores_and_the_blend():
    """What the README's headline says: scheme three's average and the head's code differ in two lines."""
    assert changed_lines(average_softmax, attend_scaled) == (
        ["wei = torch.zeros((T, T), device=x.device)", "return wei @ x"],
        ["wei = query(x) @ key(x).transpose(-2, -1) * key.out_features ** -0.5", "return wei @ value(x)"],
    )


def test_the_stages_differ_in_what_they_compute():
    torch.manual_seed(0)
    head = Head(4, 4)
    x = torch.randn(2, 6, 4)
    with torch.no_grad():
        qk = attend_qk(x, head.query, head.key)
        qkv = attend_qkv(x, head.query, head.key, head.value)
        scaled = attend_scaled(x, head.query, head.key, head.value)
    assert not torch.allclose(qk, qkv) and not torch.allclose(qkv, scaled)
    assert not torch.allclose(average_softmax(x), qk)


def test_future_mask_marks_what_each_position_must_not_see():
    mask = future_mask(4)
    assert mask.tolist() == [
        [False, True, True, True],  # position 0 sees only itself
        [False, False, True, True],
        [False, False, False, True],
        [False, False, False, False],  # the last position sees everything
    ]


def test_causal_softmax_masks_exactly_the_future_and_keeps_the_dtype():
    scores = torch.randn(3, 5, 5)
    wei = causal_softmax(scores)
    assert (wei[:, future_mask(5)] == 0).all() and (wei[:, ~future_mask(5)] > 0).all()
    torch.testing.assert_close(wei.sum(-1), torch.ones(3, 5))
    torch.testing.assert_close(wei[0, 2, :3], torch.softmax(scores[0, 2, :3], dim=-1))
    assert causal_softmax(scores.to(torch.float64)).dtype == torch.float64


@pytest.mark.parametrize("head_size", [0, -3])
def test_head_refuses_a_head_size_below_one_in_a_sentence(head_size):
    """Head(16, 0) used to build and then fail inside forward with Python's ZeroDivisionError from the scale line."""
    with pytest.raises(ValueError, match=r"head_size must be at least 1"):
        Head(N_EMBD, head_size)
