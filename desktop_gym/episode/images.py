"""Screenshots of a vision prompt kept as PNG files, so a trajectory's steps hold file names, not pixels.

A vision prompt (:func:`~desktop_gym.episode.prompts.build_messages` with ``vision``) carries its
screenshots as image blocks ``{"type": "image", "image": <HxWx3 uint8 array>}``. Before a step is
kept, :func:`store_images` writes each array once as ``img_<sha1>.png`` (lossless, named by
content, so a screenshot shown in several prompts is one file) and puts the file's path in the
block; :func:`load_images` reads them back into arrays with exactly the pixels the policy saw, so
training rebuilds the prompt it sampled from.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .prompts import Message, Messages

MAX_IMAGE_PIXELS = 16_000_000  # a 4k screen is 8.3M pixels; larger is not a screenshot
MAX_IMAGES_PER_PROMPT = 64


class ImageStore:
    """Writes screenshots as ``img_<sha1>.png`` files in ``folder`` (once each; atomic, thread-safe).

    Args:
        folder: where the PNG files go (created when the first image is written).
    """

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)

    def save(self, image: np.ndarray) -> str:
        """Write ``image`` (HxWx3 or HxWx4 uint8; alpha dropped) unless already there; returns its absolute path.

        Raises:
            ValueError: not an HxWx3/HxWx4 image, or over ``MAX_IMAGE_PIXELS``.
        """
        from PIL import Image

        array = _checked(np.asarray(image))
        digest = hashlib.sha1(array.tobytes() + str(array.shape).encode()).hexdigest()[:20]
        path = (self.folder / f"img_{digest}.png").resolve()
        if not path.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            Image.fromarray(array).save(buffer, format="PNG", compress_level=1)
            # A temporary name of this thread's own: rollout threads may write the same screen at once.
            temporary = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
            temporary.write_bytes(buffer.getvalue())
            os.replace(temporary, path)
        return str(path)


def _checked(array: np.ndarray) -> np.ndarray:
    if array.ndim != 3 or array.shape[2] not in (3, 4):
        raise ValueError(f"a screenshot must be an HxWx3 or HxWx4 array, got shape {array.shape}")
    if array.shape[0] * array.shape[1] > MAX_IMAGE_PIXELS:
        raise ValueError(f"a screenshot of {array.shape[1]}x{array.shape[0]} is over {MAX_IMAGE_PIXELS} pixels")
    return np.ascontiguousarray(array[:, :, :3], dtype=np.uint8)  # RGB: what a PNG round trip gives back


def _map_images(messages: Sequence[Message], convert: object) -> Messages:
    result: Messages = []
    count = 0
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            blocks = []
            for block in content:
                if isinstance(block, dict) and block.get("type") == "image":
                    count += 1
                    if count > MAX_IMAGES_PER_PROMPT:
                        raise ValueError(f"a prompt holds more than {MAX_IMAGES_PER_PROMPT} images")
                    block = {**block, "image": convert(block.get("image"))}  # type: ignore[operator]
                blocks.append(block)
            content = blocks
        result.append({**message, "content": content})
    return result


def store_images(messages: Sequence[Message], store: ImageStore) -> Messages:
    """The messages with each image array written by ``store`` and replaced by its file path."""

    def save(image: object) -> object:
        return store.save(image) if isinstance(image, np.ndarray) else image

    return _map_images(messages, save)


def load_images(messages: Sequence[Message]) -> Messages:
    """The messages with each image (a file path or an array) as its RGB pixels (an HxWx3 uint8 array).

    The policy reads its prompt through this too, so sampling and training see the same pixels.

    Raises:
        FileNotFoundError: an image file is missing (names it).
        ValueError: a block's image is neither an array nor a path, or the file is not a screenshot.
    """
    from PIL import Image

    def load(image: object) -> np.ndarray:
        if isinstance(image, np.ndarray):
            return _checked(image)
        if not isinstance(image, str):
            raise ValueError(f"an image block holds {type(image).__name__}, not a file path or an array")
        path = Path(image)
        if path.suffix != ".png":
            raise ValueError(f"{path}: a stored screenshot must be a .png file")
        if not path.is_file():
            raise FileNotFoundError(f"{path}: the screenshot of a stored prompt is missing")
        with Image.open(path) as picture:
            if picture.width * picture.height > MAX_IMAGE_PIXELS:
                raise ValueError(f"{path}: {picture.width}x{picture.height} is over {MAX_IMAGE_PIXELS} pixels")
            return np.asarray(picture.convert("RGB"), dtype=np.uint8)

    return _map_images(messages, load)


def has_images(messages: Sequence[Message]) -> bool:
    """Whether any message holds an image block."""
    return any(
        isinstance(m["content"], list) and any(isinstance(b, dict) and b.get("type") == "image" for b in m["content"])
        for m in messages
    )
