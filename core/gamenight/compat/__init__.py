"""The one place where gamenight reaches into private internals of Textual and asyncssh.

Four patches, each a function that checks what it relies on and leaves the library alone
(returning ``False``) when that is not there, so that a new release of Textual or asyncssh
costs a speed-up or a count, never a room that cannot start:

* :func:`gamenight.compat.textual_internals.share_parsed_css` -- ``Stylesheet._parse_rules``
  shares parsed CSS across the stylesheets of one process (the SSH room template and the rooms
  forked from it);
* :func:`gamenight.compat.textual_internals.tolerate_undecodable_input` -- the Linux driver's
  module-level ``getincrementaldecoder`` decodes stdin with ``errors="replace"``, so one invalid
  byte no longer stops the room's input thread;
* :func:`gamenight.compat.textual_internals.keep_wide_characters_whole` -- ``Compositor._render_chops``
  (and ``render_partial_update``'s line ends) no longer cuts a widget's line inside a wide character
  where that widget lies over the edge of another (a Japanese coach panel over a table); it stands
  down unless ``_render_chops``'s source is the one it was written for;
* :func:`gamenight.compat.asyncssh_internals.on_refused_global_request` -- wraps
  ``SSHConnection._report_global_response`` and reads ``_global_request_queue`` to count the
  global requests (port forwardings) the server refused, but not a client's keepalives.

They were written for, and are tested with, the versions in :data:`TESTED_WITH`; pyproject.toml
pins Textual and asyncssh below the next minor version, and ``tests/core/test_compat.py`` fails
when the internals these patches rely on change.  Raising a pin means: upgrade, run that test
file, fix what it reports, then raise :data:`TESTED_WITH` and the pin together.

This package imports nothing itself: the SSH server (headless) imports only the asyncssh module.
"""

from __future__ import annotations

__all__ = ["TESTED_WITH"]

TESTED_WITH = {"textual": (8, 2), "asyncssh": (2, 24)}
"""``{distribution: (major, minor)}`` the patches were last checked against."""
