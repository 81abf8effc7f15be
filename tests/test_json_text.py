"""pybai._json_text.dumps_indented writes exactly the text of json.dumps(obj, indent=...)."""

import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pybai._json_text import dumps_indented

_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=8))
_KEYS = st.one_of(st.text(max_size=6), st.integers(-5, 5), st.booleans(), st.none(),
                  st.floats(allow_nan=False, width=16))
_DOCUMENTS = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.lists(inner, max_size=4).map(tuple),
    st.dictionaries(_KEYS, inner, max_size=5)), max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(_DOCUMENTS, st.integers(0, 4))
def test_the_text_is_that_of_the_standard_encoder(document, indent):
    assert dumps_indented(document, indent) == json.dumps(document, indent=indent)


def test_long_lists_of_numbers_and_numpy_scalars_are_written_as_the_standard_encoder_writes_them():
    rng = np.random.default_rng(0)
    values = np.round(rng.random(5000), 6).tolist()
    document = {"mean_allocation": [values, [math.nan, -math.inf, 1, True, None, 2.5e-300]],
                "strategies": [{"name": "a", "x": np.float64(0.1), "n": [1, 2, 3]}], "": [[]], "e": {}}
    assert dumps_indented(document) == json.dumps(document, indent=2)
