"""OS families that reorganise files: sort files into folders by extension, rename files by a pattern.

Both verify the folder's exact tree and that every file kept its content (a file moved or
renamed to the wrong place, or emptied, fails).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_directory_tree, verify_text_file
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from .os_base import PLACES, TerminalTask, distinct_words, folder_listing, shell_oracle, typed_commands
from .samples import distinct_ints

EXTENSIONS = ("pdf", "txt", "png", "csv")


def _content(name: str) -> str:
    return f"{name}: sample content\n"


class SortByExtension(TerminalTask):
    """Move every file of ~/Downloads into a subfolder named after its extension."""

    id = "os.sort_by_extension"
    instruction_template = (
        "In the open terminal, sort the files in ~/Downloads into subfolders named after their extension: every "
        ".pdf file goes into ~/Downloads/pdf, every .txt file into ~/Downloads/txt, and so on for each "
        "extension present. Afterwards no file may be left directly in ~/Downloads."
    )
    oracles = ("api", "gui")

    folder = "~/Downloads"

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        count = int(rng.integers(6, 9))
        # Every extension appears at least once; the rest are drawn, then the order is shuffled.
        extensions = [*EXTENSIONS, *(str(e) for e in rng.choice(EXTENSIONS, size=count - len(EXTENSIONS)))]
        rng.shuffle(extensions)
        stems = distinct_words(rng, count)
        files = [{"name": f"{stem}.{ext}", "folder": ext} for stem, ext in zip(stems, extensions, strict=True)]
        return {"files": files}

    def input_files(self, params: dict) -> dict[str, bytes]:
        return {f"{self.folder}/{f['name']}": _content(f["name"]).encode() for f in params["files"]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        files = ctx.params["files"]
        checks: dict[str, VerifierResult] = {
            "tree": verify_directory_tree(
                folder_listing(ctx, self.folder), [f"{f['name'].rsplit('.', 1)[1]}/{f['name']}" for f in files]
            )
        }
        if checks["tree"].success:
            for f in files:
                path = f"{self.folder}/{f['name'].rsplit('.', 1)[1]}/{f['name']}"
                checks[f["name"]] = verify_text_file(ctx.read_file(path), _content(f["name"]))
        return all_of(checks)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        folders = sorted({f["folder"] for f in params["files"]})
        moves = "; ".join(f"mv {f['name']} {f['folder']}/" for f in params["files"])
        return shell_oracle(f"cd ~/Downloads && mkdir -p {' '.join(folders)} && {{ {moves}; }}")

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return typed_commands(
            'cd ~/Downloads && for f in *.*; do mkdir -p "${f##*.}" && mv "$f" "${f##*.}/"; done; cd ~'
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # One file goes into the folder of another extension.
        files = [dict(f) for f in params["files"]]
        index = int(rng.integers(len(files)))
        files[index]["folder"] = next(e for e in EXTENSIONS if e != files[index]["folder"])
        return {**params, "files": files}


class RenameByPattern(TerminalTask):
    """Rename IMG_<number>.jpg files to <place>_<number>.jpg, keeping the numbers."""

    id = "os.rename_pattern"
    instruction_template = (
        "In the open terminal, rename every file in ~/Pictures/{album} from IMG_<number>.jpg to "
        "{place}_<number>.jpg, keeping each number exactly as it is (IMG_0042.jpg becomes {place}_0042.jpg). "
        "The files stay in the same folder."
    )
    oracles = ("api", "gui")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        numbers = sorted(distinct_ints(rng, 1, 9999, int(rng.integers(4, 7))))
        album = f"album_{distinct_words(rng, 1)[0]}"
        return {"album": album, "place": distinct_words(rng, 1, PLACES)[0], "numbers": numbers}

    @staticmethod
    def _photo(number: int) -> str:
        return f"JPEG placeholder for photo {number:04d}\n"

    def input_files(self, params: dict) -> dict[str, bytes]:
        folder = f"~/Pictures/{params['album']}"
        return {f"{folder}/IMG_{n:04d}.jpg": self._photo(n).encode() for n in params["numbers"]}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        folder = f"~/Pictures/{p['album']}"
        names = {n: f"{p['place']}_{n:04d}.jpg" for n in p["numbers"]}
        checks = {"tree": verify_directory_tree(folder_listing(ctx, folder), list(names.values()))}
        if checks["tree"].success:  # each new name holds the photo of the same number
            for number, name in names.items():
                checks[name] = verify_text_file(ctx.read_file(f"{folder}/{name}"), self._photo(number))
        return all_of(checks)

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        moves = " && ".join(f"mv IMG_{n:04d}.jpg {params['place']}_{n:04d}.jpg" for n in params["numbers"])
        return shell_oracle(f"cd ~/Pictures/{params['album']} && {moves}")

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        rename = f'for f in IMG_*.jpg; do mv "$f" "{params["place"]}_${{f#IMG_}}"; done'
        return typed_commands(f"cd ~/Pictures/{params['album']} && {rename}; cd ~")

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "place": next(p for p in PLACES if p != params["place"])}
