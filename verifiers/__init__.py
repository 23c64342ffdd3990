"""Rule-based verifiers: they read real saved documents and files and decide success.

Imported as ``desktop_gym.verifiers`` (the top-level ``verifiers/`` folder is linked under the
package so it never shadows the PyPI package of the same name).

Every verifier is also registered by name (``get_verifier("xlsx_cells")``) and declares what it
reads (``reads="file"``: the saved file's bytes, None when missing; ``reads="live"``: something
fetched from the guest, such as an ``ExecResult``). Results combine with ``all_of``, ``any_of``
and ``not_``.
"""

from .compose import all_of, any_of, not_
from .document_layout import verify_docx_header_footer, verify_docx_page_setup, verify_docx_tables
from .documents import (
    docx_paragraphs,
    verify_document_text,
    verify_docx_alignment,
    verify_docx_font,
    verify_docx_has_paragraph,
    verify_docx_line_spacing,
    verify_docx_paragraph_count,
    verify_docx_paragraph_style,
)
from .files import (
    TREE_LISTING_COMMAND,
    verify_command_output,
    verify_directory_tree,
    verify_file_absent,
    verify_file_contains,
    verify_file_exists,
    verify_file_regex,
    verify_file_sha256,
    verify_text_file,
)
from .presentations import (
    verify_pptx_background,
    verify_pptx_layout,
    verify_pptx_notes,
    verify_pptx_shapes,
    verify_pptx_slide_count,
    verify_pptx_text,
    verify_pptx_title,
    verify_pptx_transitions,
)
from .registry import (
    UnknownVerifierError,
    VerifierSpec,
    get_verifier,
    get_verifier_spec,
    list_verifiers,
    register_verifier,
)
from .result import VerifierResult
from .spreadsheet import (
    verify_xlsx_cells,
    verify_xlsx_column_widths,
    verify_xlsx_font,
    verify_xlsx_formulas,
    verify_xlsx_number_formats,
)
from .spreadsheet_objects import verify_xlsx_charts, verify_xlsx_pivot_tables
from .spreadsheet_structure import (
    verify_xlsx_autofilter,
    verify_xlsx_conditional_formatting,
    verify_xlsx_freeze_panes,
    verify_xlsx_sheet_names,
    verify_xlsx_sorted,
)
from .tables import TableOptions, compare_rows, verify_csv_rows, verify_sheet_table
from .writer_extra import verify_document_format, verify_docx_list, verify_docx_page_number, verify_pdf_document

__all__ = [
    "TREE_LISTING_COMMAND",
    "TableOptions",
    "UnknownVerifierError",
    "VerifierResult",
    "VerifierSpec",
    "all_of",
    "any_of",
    "compare_rows",
    "docx_paragraphs",
    "get_verifier",
    "get_verifier_spec",
    "list_verifiers",
    "not_",
    "register_verifier",
    "verify_command_output",
    "verify_csv_rows",
    "verify_directory_tree",
    "verify_document_format",
    "verify_document_text",
    "verify_docx_alignment",
    "verify_docx_font",
    "verify_docx_has_paragraph",
    "verify_docx_header_footer",
    "verify_docx_line_spacing",
    "verify_docx_list",
    "verify_docx_page_number",
    "verify_docx_page_setup",
    "verify_docx_paragraph_count",
    "verify_docx_paragraph_style",
    "verify_docx_tables",
    "verify_file_absent",
    "verify_file_contains",
    "verify_file_exists",
    "verify_file_regex",
    "verify_file_sha256",
    "verify_pdf_document",
    "verify_pptx_background",
    "verify_pptx_layout",
    "verify_pptx_notes",
    "verify_pptx_shapes",
    "verify_pptx_slide_count",
    "verify_pptx_text",
    "verify_pptx_title",
    "verify_pptx_transitions",
    "verify_sheet_table",
    "verify_text_file",
    "verify_xlsx_autofilter",
    "verify_xlsx_cells",
    "verify_xlsx_charts",
    "verify_xlsx_column_widths",
    "verify_xlsx_conditional_formatting",
    "verify_xlsx_font",
    "verify_xlsx_formulas",
    "verify_xlsx_freeze_panes",
    "verify_xlsx_number_formats",
    "verify_xlsx_pivot_tables",
    "verify_xlsx_sheet_names",
    "verify_xlsx_sorted",
]
