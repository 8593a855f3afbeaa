"""Documents Settings → Google Drive: the Google Cloud set-up steps, what is still missing,
then the section's fields (the generic settings form)."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.settings.model import GoogleDriveSettings
from core.types import Actor
from dashboard.i18n import t
from dashboard.settings_form import field_text, section_form

# The Google Picker is not offered, so its API key is not asked for (the setting stays for old rows).
HIDDEN = frozenset({"api_key"})


def gdrive_tab(engine: Engine, actor: Actor) -> None:
    cfg = engine.settings().gdrive
    st.caption(t("settings.about.gdrive"))
    with st.expander(t("gdrive.setup_title"), icon=":material/checklist:", expanded=not cfg.client_id):
        st.markdown(t("gdrive.setup_steps", redirect=cfg.redirect_uri or "https://<your-host>/google_drive"))
    missing = engine.gdrive_status(actor)["missing"]
    if missing:
        labels = ", ".join(field_text("gdrive", name)[0] for name in missing)  # the fields' labels, not their keys
        st.warning(t("gdrive.missing", fields=labels), icon=":material/settings:")
    else:
        st.success(t("gdrive.setup_ok"))
    st.caption(t("gdrive.strict_note"))
    section_form(engine, actor, "gdrive", GoogleDriveSettings, hidden=HIDDEN)
