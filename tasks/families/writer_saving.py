"""Writer family on saving: keep a copy of the document as OpenDocument text or export it as PDF."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_document_format, verify_document_text, verify_pdf_document
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from ..gui_script import GuiScript
from .samples import KEYWORDS, TITLES, title
from .writer_base import DONE, Step, WriterDocumentTask, click_node, keys, typed, when_absent


class SaveAs(WriterDocumentTask):
    """Save a copy of the document as an OpenDocument text or export it as PDF."""

    id = "writer.save_as"
    instruction_template = (
        "The document {path} is open in LibreOffice Writer. Save it {how} as {target}; the docx file may stay as it is."
    )
    oracles = ("api", "gui")
    tags = ("writer", "files")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        params = self.base_params(rng, count=int(rng.integers(2, 4)))
        file_format = str(rng.choice(("odt", "pdf")))
        name = f"{rng.choice(KEYWORDS)}_{rng.choice(TITLES).split()[0].lower()}"
        doc_title = title(rng)
        while doc_title == params["heading"]:
            doc_title = title(rng)
        how = "in OpenDocument Text format" if file_format == "odt" else "as a PDF (export)"
        params.update(file_format=file_format, target=f"~/Documents/{name}.{file_format}", how=how, doc_title=doc_title)
        return params

    def verify(self, ctx: TaskContext) -> VerifierResult:
        p = ctx.params
        saved = ctx.read_file(p["target"])
        if p["file_format"] == "pdf":
            return verify_pdf_document(saved, title=p["doc_title"])
        return all_of(
            {
                "format": verify_document_format(saved, "odt"),
                "text": verify_document_text(saved, "\n".join(self.body(p)), match="equals"),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy([f"WriterTools.save(path={params['target']!r})", DONE])

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        # The GTK file chooser opens in the document's folder (~/Documents) with its name field focused.
        name = params["target"].rsplit("/", 1)[-1]
        if params["file_format"] == "pdf":  # File > Export As > Export Directly as PDF: a chooser set to PDF
            chooser = ("file chooser", "Export")
            opening: list[Step] = [
                keys("alt", "f"),
                click_node("menu", "Export As"),
                click_node("menu item", "Export Directly as PDF"),
            ]
        else:  # File > Save As (ctrl+shift+s), then pick the ODF file type
            chooser = ("file chooser", "Save")
            opening = [
                keys("ctrl", "shift", "s"),
                click_node("combo box", None, within=chooser),
                click_node("menu item", "ODF Text Document (.odt)"),
            ]
        naming = [click_node("text", "", within=chooser), keys("ctrl", "a"), typed(name + "\n")]
        # Declare done only once the chooser has closed: the save or export has then started in the
        # office, and the env's idle barrier waits for it before the verifier reads the file.
        return GuiScript([*opening, *naming, when_absent(*chooser, DONE)])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "target": params["target"].replace("~/Documents/", "~/")}


SAVING_TASKS = (SaveAs,)
