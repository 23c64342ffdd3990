"""Property tests for what crosses the wire: JSON fields, options checks, screenshots, observations."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from desktop_gym.serve.session import ENV_OPTIONS, check_env_options, check_reset_options
from desktop_gym.serve.wire import (
    check_bind,
    decode_image,
    decode_observation,
    dumps,
    encode_image,
    encode_observation,
    loads_object,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_loads_object_round_trips_every_json_object(value):
    assert loads_object(json.dumps(value), "options_json") == value


@given(json_values.filter(lambda value: not isinstance(value, dict)))
def test_loads_object_refuses_non_objects_naming_the_field(value):
    with pytest.raises(ValueError, match="options_json: expected a JSON object"):
        loads_object(json.dumps(value), "options_json")


@given(st.text(min_size=1, max_size=40))
def test_loads_object_never_raises_anything_but_value_error(text):
    try:
        assert isinstance(loads_object(text, "field"), dict)
    except ValueError as error:
        assert str(error).startswith("field:")


def test_loads_object_caps_the_length():
    with pytest.raises(ValueError, match="over the limit"):
        loads_object("{" + " " * 70_000 + "}", "options_json")


@given(st.dictionaries(st.text(min_size=1, max_size=10), json_values, min_size=1, max_size=4))
def test_env_options_are_accepted_only_when_known_and_well_typed(options):
    try:
        check_env_options(options)
    except ValueError as error:
        assert str(error).startswith("options_json.") and any(f"options_json.{key}:" in str(error) for key in options)
    else:
        assert set(options) <= set(ENV_OPTIONS)


@given(st.dictionaries(st.sampled_from(["task_id", "params", "task", "seed", "x"]), json_values, max_size=3))
def test_reset_options_name_the_bad_key(options):
    try:
        check_reset_options(options)
    except ValueError as error:
        assert "options_json." in str(error)
    else:
        assert isinstance(options.get("task_id", ""), str) and isinstance(options.get("params", {}), dict)
        assert "task" not in options  # no random value is a valid inline task definition


@settings(max_examples=30, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 12), st.integers(1, 12), st.just(3))), st.sampled_from(["raw", "png"]))
def test_lossless_screenshots_round_trip_exactly(image, fmt):
    assert np.array_equal(decode_image(encode_image(image, fmt)), image)


@settings(max_examples=10, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(8, 40), st.integers(8, 40), st.just(3))))
def test_jpeg_screenshots_keep_their_shape(image):
    assert decode_image(encode_image(image, "jpeg")).shape == image.shape


@given(st.dictionaries(st.sampled_from(["instruction", "a11y_tree", "last_action_error"]), st.text(max_size=30)))
def test_observations_round_trip_in_the_order_of_the_space(texts):
    screenshot = np.full((2, 3, 3), 7, dtype=np.uint8)
    parts = ("screenshot", *sorted(texts))
    decoded = decode_observation(encode_observation({"screenshot": screenshot, **texts}, "raw"), parts)
    assert list(decoded) == list(parts) and np.array_equal(decoded["screenshot"], screenshot)
    assert {key: decoded[key] for key in texts} == texts


def test_dumps_turns_numpy_and_non_finite_floats_into_plain_json():
    text = dumps({"a": np.int64(3), "b": np.array([1.5]), "c": float("nan"), "d": (1, 2)})
    assert json.loads(text) == {"a": 3, "b": [1.5], "c": None, "d": [1, 2]}


@pytest.mark.parametrize("address", ["0.0.0.0:1", "10.1.2.3:50051", "[2001:db8::1]:5"])
def test_binding_beyond_loopback_needs_a_token(address):
    with pytest.raises(ValueError, match="without a token"):
        check_bind(address, "")
    check_bind(address, "secret")
    check_bind("127.0.0.1:0", "")
    check_bind("unix:/tmp/x.sock", "")
