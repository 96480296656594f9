"""generator/reference/quant_axes.py: the three granularities of QuantizeLinear / DequantizeLinear-21+."""

import numpy as np
import pytest

from generator.reference.quant_axes import QuantShapeError, expand, granularity


def test_per_tensor_per_axis_and_blocked_expand_to_the_input_shape():
    x_shape = (2, 5)
    assert expand(np.float32(3), x_shape).tolist() == [[3] * 5] * 2
    assert expand(np.array([1, 2]), x_shape, axis=0).tolist() == [[1] * 5, [2] * 5]
    assert expand(np.array([1, 2, 3, 4, 5]), x_shape, axis=-1).tolist() == [[1, 2, 3, 4, 5]] * 2
    # blocks of 2 over 5 columns: the last block is short
    s = np.array([[1, 2, 3], [4, 5, 6]])
    assert expand(s, x_shape, axis=1, block_size=2).tolist() == [[1, 1, 2, 2, 3], [4, 4, 5, 5, 6]]


@pytest.mark.parametrize("d, s, ok", [(5, 3, [2]), (6, 3, [2]), (7, 3, [3]), (8, 2, [4, 5, 6, 7]), (4, 1, [4, 5, 99])])
def test_block_size_range_is_the_schema_s(d, s, ok):
    """[ceil(D/S), ceil(D/(S-1)) - 1]: exactly the block sizes that give S blocks, none of them empty."""
    for b in range(1, 12):
        fits = b in ok or (s == 1 and b >= d)
        if fits:
            assert granularity((s,), (d,), 0, b) == "blocked"
            assert -(-d // b) == s  # S blocks
        else:
            with pytest.raises(QuantShapeError):
                granularity((s,), (d,), 0, b)


@pytest.mark.parametrize("scale_shape, axis, block", [((3,), 1, 0), ((2, 5), 1, 0), ((2, 3), 0, 2), ((2, 3), 1, -1),
                                                      ((2,), 2, 0), ((2,), -3, 0)])
def test_shapes_that_do_not_fit_are_refused(scale_shape, axis, block):
    with pytest.raises(QuantShapeError):
        granularity(scale_shape, (2, 5), axis, block)
