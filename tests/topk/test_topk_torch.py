"""The torch backend of ``topk_from_scores`` (CPU, and CUDA where there is one) gives the numpy
backend's items and scores, bit for bit: ties at the cut (the exact path), ties inside the top
k, -inf (never returned), k past the catalogue, training items masked."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.errors import InputError
from receval.topk import topk_from_scores

torch = pytest.importorskip("torch")
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@st.composite
def blocks(draw):
    n_users, n_items = draw(st.integers(1, 30)), draw(st.integers(1, 40))
    levels = draw(st.sampled_from([2, 5, 1000]))  # many ties .. almost none
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    s = (rng.integers(0, levels, size=(n_users, n_items)) / levels).astype(
        draw(st.sampled_from([np.float32, np.float64])))
    s[rng.random(s.shape) < draw(st.sampled_from([0.0, 0.3]))] = -np.inf
    mask = sp.csr_matrix(rng.random(s.shape) < 0.2)
    return s, mask, draw(st.integers(1, 50))


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=60, deadline=None)
@given(blocks())
def test_torch_gives_the_numpy_bits(device, case):
    s, mask, k = case
    a = topk_from_scores(s, k, exclude=mask, backend="numpy")
    t = torch.from_numpy(s).to(device)
    b = topk_from_scores(t, k, exclude=mask, device=device, block_users=7)
    np.testing.assert_array_equal(a.items, b.items)
    np.testing.assert_array_equal(a.scores, b.scores.astype(a.scores.dtype))
    assert torch.equal(t, torch.from_numpy(s).to(device))  # the caller's tensor untouched
    as_tensor = torch.from_numpy(mask.toarray()).to(device)
    c = topk_from_scores(t, k, exclude=as_tensor, device=device, block_users=5)
    np.testing.assert_array_equal(a.items, c.items)
    np.testing.assert_array_equal(a.scores, c.scores.astype(a.scores.dtype))


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=40, deadline=None)
@given(blocks())
def test_masking_in_place_gives_the_same_bits_and_writes_only_minus_inf(device, case):
    s, mask, k = case
    want = topk_from_scores(s, k, exclude=mask, backend="numpy")
    dense = mask.toarray()
    for exclude in (mask, torch.from_numpy(dense).to(device)):
        t = torch.from_numpy(s.copy()).to(device)
        got = topk_from_scores(t, k, exclude=exclude, device=device, block_users=7, copy=False)
        np.testing.assert_array_equal(want.items, got.items)
        np.testing.assert_array_equal(want.scores, got.scores.astype(want.scores.dtype))
        # the caller's tensor now holds -inf at the excluded items, its scores elsewhere
        expect = np.where(dense, -np.inf, s)
        np.testing.assert_array_equal(t.cpu().numpy(), expect)
    arr = s.copy()
    got = topk_from_scores(arr, k, exclude=mask, backend="numpy", copy=False)
    np.testing.assert_array_equal(want.items, got.items)
    np.testing.assert_array_equal(arr, np.where(dense, -np.inf, s))


def test_copy_is_a_boolean():
    with pytest.raises(InputError, match="copy='no'"):
        topk_from_scores(np.zeros((1, 3)), 1, copy="no")


@pytest.mark.parametrize("device", DEVICES)
def test_a_tensor_mask_is_boolean_and_of_the_scores_shape(device):
    s = torch.rand(3, 4, device=device)
    with pytest.raises(InputError, match="boolean and of the scores' shape"):
        topk_from_scores(s, 2, exclude=torch.zeros(3, 4, device=device))
    with pytest.raises(InputError, match="boolean and of the scores' shape"):
        topk_from_scores(s, 2, exclude=torch.zeros(3, 5, dtype=torch.bool, device=device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_nan_and_inf_are_refused_naming_the_cell(device, bad):
    s = torch.rand(4, 6, device=device)
    s[2, 3] = bad
    with pytest.raises(InputError, match="user row 2, item column 3"):
        topk_from_scores(s, 2)
