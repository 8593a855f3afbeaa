"""The one upload limit, in the browser too (issue 36): the file pickers said "200MB per file"
(Streamlit's default) while ``parsing.max_upload_mb`` was 100, and a file over the limit was
sent whole before the engine refused it.

Each picker gets the limit as its own ``max_upload_size``, so the browser says it and refuses a
larger file before a byte is sent; and this process's upload route (Streamlit's
``server.maxUploadSize``, read on each upload request) follows the setting, so a client that
skips the browser's check is cut off at the same size. The engine still checks every file.
"""

from __future__ import annotations

from streamlit import config as st_config

from core import Engine
from core.curated.csv_io import MAX_CSV_BYTES

_MB = 1024 * 1024


def upload_limit_mb(engine: Engine) -> int:
    """The largest file a picker on this page takes, in MB; the server's cap made to match it
    (a saved change of the setting applies from the next page run)."""
    limit = int(engine.settings().parsing.max_upload_mb)
    if st_config.get_option("server.maxUploadSize") != limit:
        # Streamlit's internal config API: st.set_option takes client options only, and this one
        # is read per request (streamlit/web/server/starlette/starlette_routes.py)
        st_config.set_option("server.maxUploadSize", limit)
    return limit


def csv_limit_mb(engine: Engine) -> int:
    """The curated-answer CSV's limit: the engine's own cap for it, within the upload limit."""
    return max(1, min(MAX_CSV_BYTES // _MB, upload_limit_mb(engine)))
