"""verify's batches for APIs that take a bounded list (landing_zone.verify.checks.common.chunks): every value asked
exactly once, in order, no batch over the API's limit; a bad size is refused."""

from __future__ import annotations

import pytest

from landing_zone.verify.checks.common import chunks


@pytest.mark.parametrize("count", [0, 1, 199, 200, 201, 450])
def test_every_value_is_in_exactly_one_batch_of_at_most_the_limit(count):
    values = [f"vpc-{i:04d}" for i in range(count)]
    batches = chunks(values, 200)
    assert [v for batch in batches for v in batch] == values
    assert all(1 <= len(batch) <= 200 for batch in batches)
    assert len(batches) == -(-count // 200)  # ceil: 450 IDs -> 200, 200, 50


def test_a_size_below_one_is_refused():
    with pytest.raises(ValueError, match="chunk size must be at least 1, got 0"):
        chunks(["a"], 0)
