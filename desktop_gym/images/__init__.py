"""Desktop images without a registry: Debian rootfs helpers (:mod:`.debian`) and the image build (:mod:`.build`)."""

from .build import ImageBuildError, build_image, ensure_image, image_exists, image_tag

__all__ = ["ImageBuildError", "build_image", "ensure_image", "image_exists", "image_tag"]
