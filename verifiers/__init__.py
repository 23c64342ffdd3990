"""Rule-based verifiers: they read real saved documents and files and decide success.

Imported as ``desktop_gym.verifiers`` (the top-level ``verifiers/`` folder is linked under the
package so it never shadows the PyPI package of the same name).

Every verifier is also registered by name (``get_verifier("xlsx_cells")``) and declares what it
reads (``reads="file"``: the saved file's bytes, None when missing; ``reads="live"``: something
fetched from the guest, such as an ``ExecResult``). Results combine with ``all_of``, ``any_of``
and ``not_``. A helper that finds a check cannot go on raises ``CheckFailed``; the registry returns
it as a failed result. Every verifier module is imported here, so every verifier is registered.
"""

from .archive_members import archive_digests, verify_archive_members
from .archives import tar_members, verify_tar_archive
from .browser_state import BROWSER_READS, same_url
from .code_editor import (
    verify_vscode_extensions,
    verify_vscode_keybinding,
    verify_vscode_settings,
    verify_vscode_workbench,
)
from .compose import all_of, any_of, not_
from .document_layout import verify_docx_header_footer, verify_docx_page_setup, verify_docx_tables
from .document_lists import verify_docx_list, verify_docx_page_number
from .document_runs import (
    equation_count,
    formatted_spans,
    verify_docx_equations,
    verify_docx_formatted_text,
    verify_docx_page_breaks,
    verify_docx_paragraph_alignment,
    verify_docx_run_fonts,
)
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
from .docx_state import document_state, verify_docx_state
from .exports import pdf_page_count, verify_document_format, verify_pdf_document, verify_pdf_pages
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
from .image_edits import (
    image_grid,
    verify_image_brightness,
    verify_image_close_to,
    verify_image_color_count,
    verify_image_grayscale,
    verify_image_properties,
    verify_image_region_ink,
)
from .images import image_fingerprint, verify_image_similar
from .mail import (
    MAIL_READS,
    verify_mail_contact,
    verify_mail_filter,
    verify_mail_flags,
    verify_mail_folders,
    verify_mail_location,
    verify_mail_prefs,
    verify_mail_sent,
)
from .media_player import (
    MEDIA_PLAYER_READS,
    verify_vlc_playlist,
    verify_vlc_preferences,
    verify_vlc_snapshot,
    verify_vlc_status,
    verify_vlc_track,
)
from .pdf_text import pdf_page_texts, verify_pdf_text
from .pptx_state import presentation_state, verify_pptx_state
from .presentation_media import (
    verify_pptx_media,
    verify_pptx_orientation,
    verify_pptx_picture_fills_slide,
    verify_pptx_slide_number_color,
)
from .presentation_outline import (
    verify_odp_slide_titles,
    verify_pptx_autoshape,
    verify_pptx_slide_texts,
    verify_pptx_slide_titles,
    verify_pptx_title_font_size,
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
from .result import CheckFailed, VerifierResult
from .spreadsheet import (
    verify_xlsx_cells,
    verify_xlsx_column_widths,
    verify_xlsx_font,
    verify_xlsx_formulas,
    verify_xlsx_number_formats,
)
from .spreadsheet_format import verify_xlsx_conditional_rule, verify_xlsx_fill, verify_xlsx_merged_cells
from .spreadsheet_objects import verify_xlsx_charts, verify_xlsx_pivot_tables
from .spreadsheet_structure import (
    verify_xlsx_autofilter,
    verify_xlsx_conditional_formatting,
    verify_xlsx_freeze_panes,
    verify_xlsx_sheet_names,
    verify_xlsx_sorted,
)
from .tables import TableOptions, compare_rows, verify_csv_rows, verify_sheet_table
from .workbook_state import state_differences, verify_xlsx_state, workbook_state

__all__ = [
    "BROWSER_READS",
    "MEDIA_PLAYER_READS",
    "MAIL_READS",
    "verify_mail_contact",
    "verify_mail_filter",
    "verify_mail_flags",
    "verify_mail_folders",
    "verify_mail_location",
    "verify_mail_prefs",
    "verify_mail_sent",
    "verify_vlc_playlist",
    "verify_vlc_preferences",
    "verify_vlc_snapshot",
    "verify_vlc_status",
    "verify_vlc_track",
    "verify_vscode_extensions",
    "verify_vscode_keybinding",
    "verify_vscode_settings",
    "verify_vscode_workbench",
    "same_url",
    "verify_pptx_slide_number_color",
    "verify_pptx_picture_fills_slide",
    "verify_pdf_text",
    "pdf_page_texts",
    "verify_image_similar",
    "image_fingerprint",
    "image_grid",
    "verify_image_brightness",
    "verify_image_close_to",
    "verify_image_color_count",
    "verify_image_grayscale",
    "verify_image_properties",
    "verify_image_region_ink",
    "equation_count",
    "verify_docx_equations",
    "verify_pptx_orientation",
    "verify_pptx_media",
    "verify_docx_run_fonts",
    "verify_docx_paragraph_alignment",
    "verify_docx_page_breaks",
    "verify_docx_formatted_text",
    "verify_archive_members",
    "formatted_spans",
    "archive_digests",
    "CheckFailed",
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
    "pdf_page_count",
    "register_verifier",
    "tar_members",
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
    "verify_odp_slide_titles",
    "verify_pdf_document",
    "verify_pdf_pages",
    "verify_pptx_autoshape",
    "verify_pptx_background",
    "verify_pptx_layout",
    "verify_pptx_notes",
    "verify_pptx_shapes",
    "verify_pptx_slide_count",
    "verify_pptx_slide_texts",
    "verify_pptx_slide_titles",
    "verify_pptx_text",
    "verify_pptx_title",
    "verify_pptx_title_font_size",
    "verify_pptx_transitions",
    "verify_sheet_table",
    "verify_tar_archive",
    "verify_text_file",
    "verify_xlsx_autofilter",
    "verify_xlsx_cells",
    "verify_xlsx_charts",
    "verify_xlsx_column_widths",
    "verify_xlsx_conditional_formatting",
    "verify_xlsx_conditional_rule",
    "verify_xlsx_fill",
    "verify_xlsx_font",
    "verify_xlsx_formulas",
    "verify_xlsx_freeze_panes",
    "verify_xlsx_merged_cells",
    "verify_xlsx_number_formats",
    "verify_xlsx_pivot_tables",
    "verify_xlsx_sheet_names",
    "verify_xlsx_sorted",
    "verify_xlsx_state",
    "verify_docx_state",
    "verify_pptx_state",
    "presentation_state",
    "document_state",
    "workbook_state",
    "state_differences",
]
