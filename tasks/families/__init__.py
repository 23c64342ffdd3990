"""Task families in Python: each samples its parameters from the env's seeded RNG and writes its own
input files, so one family yields unlimited variants; the same seed gives the same bytes.

One module per app suite; importing this package registers them all.
"""

from . import (  # noqa: F401  (each registers its suite)
    calc,
    chrome_info,
    chrome_office,
    chrome_pages,
    chrome_profile,
    gimp_colors,
    gimp_content,
    gimp_transform,
    impress,
    multi,
    os,
    train_demo,
    vlc_office,
    vlc_playback,
    vlc_playlist,
    vlc_settings,
    vlc_tracks,
    workflow_archive,
    workflow_calc,
    workflow_cleanup,
    workflow_csv_deck,
    workflow_csv_writer,
    workflow_deck_finish,
    workflow_files,
    workflow_handoff,
    workflow_impress,
    workflow_layout,
    workflow_ledger,
    workflow_letter,
    workflow_office,
    workflow_sheets,
    workflow_status_table,
    workflow_tables,
    workflow_writer,
    writer,
)
