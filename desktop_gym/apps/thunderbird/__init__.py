"""The mail client (Debian's Thunderbird ESR) on the session's own mail server: its spec;
``ThunderbirdTools`` in ``tools``.

The launch runs a mail server as the session's user on fresh loopback ports (IMAP: dovecot's ``imap``
on a Maildir store in the session home; SMTP: aiosmtpd spooling what is sent), which runs Thunderbird
on a session profile set up for that account (``launch.py``, ``server.py``). Standard library only.
"""

from __future__ import annotations

from ..spec import command_app

SPEC = command_app(
    "thunderbird",
    aliases=("mail", "email", "e-mail", "mail client", "email client", "thunderbird mail"),
    packages=("thunderbird", "dovecot-imapd"),
    doctor=("thunderbird", "/usr/lib/dovecot/imap"),
    opens_files=False,
    file_types=(".eml",),
    tools="ThunderbirdTools",
    hooks="thunderbird",
)
