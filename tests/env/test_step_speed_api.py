"""A cheaper API call: the kept document's controller is kept with it until the focus moves.

Stand-in documents count ``getCurrentController`` round trips (no office needed for the rules);
the real office behaviour across windows and dialogs is ``tests/guest/test_api_document_cache.py``.
"""

from __future__ import annotations

from desktop_gym.guest.apps.uno_document_cache import DocumentCache


class StandInConnection:
    """Stands in for an office connection (only its identity matters to the cache)."""


class StandInDocument:
    """A document that counts the controller look-ups made on it."""

    def __init__(self) -> None:
        self.lookups = 0
        self.controllers = [object()]

    def getCurrentController(self):  # noqa: N802 - UNO's name
        self.lookups += 1
        return self.controllers[-1]


def test_a_kept_documents_controller_is_looked_up_once_while_the_focus_stays() -> None:
    cache, office, document = DocumentCache(), StandInConnection(), StandInDocument()
    cache.keep(office, ("w1", "a.xlsx"), document)
    first = cache.controller(document)
    assert cache.controller(document) is first and document.lookups == 1


def test_a_new_focus_key_or_a_forgotten_document_looks_the_controller_up_again() -> None:
    cache, office, document = DocumentCache(), StandInConnection(), StandInDocument()
    cache.keep(office, ("w1", "a.xlsx : 1"), document)
    cache.controller(document)
    document.controllers.append(object())  # Window > New Window: the same document, another controller
    cache.keep(office, ("w2", "a.xlsx : 2"), document)
    assert cache.controller(document) is document.controllers[-1] and document.lookups == 2
    cache.forget(office)  # the document was closed
    cache.controller(document)
    cache.controller(document)
    assert document.lookups == 4  # a document that is not kept is asked every time


def test_controllers_are_kept_per_office_and_only_for_the_kept_document() -> None:
    cache, office, other_office = DocumentCache(), StandInConnection(), StandInConnection()
    mine, theirs, loose = StandInDocument(), StandInDocument(), StandInDocument()
    cache.keep(office, ("w1",), mine)
    cache.keep(other_office, ("w9",), theirs)
    for _ in range(3):
        assert cache.controller(mine) is mine.controllers[-1]
        assert cache.controller(theirs) is theirs.controllers[-1]
        cache.controller(loose)
    assert (mine.lookups, theirs.lookups, loose.lookups) == (1, 1, 3)
    replacement = StandInDocument()
    cache.keep(office, ("w1", "b.xlsx"), replacement)  # another document took the focus
    assert cache.controller(replacement) is replacement.controllers[-1]
    cache.controller(mine)
    assert mine.lookups == 2  # no longer kept: asked afresh
