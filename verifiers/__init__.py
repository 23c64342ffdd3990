"""Rule-based verifiers: they read real saved documents and files and decide success.

Imported as ``desktop_gym.verifiers`` (the top-level ``verifiers/`` folder is linked under the
package so it never shadows the PyPI package of the same name).
"""

from .documents import docx_paragraphs, verify_docx_has_paragraph
from .files import verify_text_file
from .result import VerifierResult
from .spreadsheet import verify_xlsx_cells

__all__ = [
    "VerifierResult",
    "docx_paragraphs",
    "verify_docx_has_paragraph",
    "verify_text_file",
    "verify_xlsx_cells",
]
