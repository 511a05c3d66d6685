"""The three averaging schemes agree and never look ahead."""

import pytest
import torch

from helpers.averaging import average_loop, average_matmul, average_softmax

SCHEMES = [average_loop, average_matmul, average_softmax]


def test_hou_running_averages():
    x = torch.tensor([[[2.0, 7.0], [6.0, 4.0], [6.0, 5.0]]])
    expected = torch.tensor([[[2.0, 7.0], [4.0, 5.5], [14 / 3, 16 / 3]]])
    for scheme in SCHEMES:
        torch.testing.assert_close(scheme(x), expected)


def test_schemes_agree_on_a_batch():
    x = torch.randn(4, 8, 2, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(average_matmul(x), average_loop(x))
    torch.testing.assert_close(average_softmax(x), average_loop(x))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_no_scheme_looks_at_the_future(scheme):
    x = torch.randn(2, 6, 3)
    changed = x.clone()
    changed[:, 4:] = 100.0  # rewrite the last two positions
    torch.testing.assert_close(scheme(x)[:, :4], scheme(changed)[:, :4])
