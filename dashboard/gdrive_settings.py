"""Documents Settings → Google Drive: the Google Cloud set-up steps, what is still missing,
then the section's fields (the generic settings form)."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.settings.model import GoogleDriveSettings
from core.types import Actor
from dashboard.i18n import t
from dashboard.settings_form import section_form


def gdrive_tab(engine: Engine, actor: Actor) -> None:
    cfg = engine.settings().gdrive
    st.caption(t("settings.about.gdrive"))
    with st.expander(t("gdrive.setup_title"), icon=":material/checklist:", expanded=not cfg.client_id):
        st.markdown(t("gdrive.setup_steps", redirect=cfg.redirect_uri or "https://<your-host>/google_drive"))
    missing = engine.gdrive_status(actor)["missing"]
    if missing:
        st.warning(t("gdrive.missing", fields=", ".join(missing)), icon=":material/settings:")
    else:
        st.success(t("gdrive.setup_ok"))
    st.caption(t("gdrive.strict_note"))
    section_form(engine, actor, "gdrive", GoogleDriveSettings)
