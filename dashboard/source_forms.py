"""Forms that add a server folder (admins), a WebDAV folder or a DingTalk knowledge base as a synced
source, beside the web pages form on the synced-sources panel. The WebDAV password and the DingTalk
AppSecret are password fields, handed to the engine as a SecretStr and never shown again."""

from __future__ import annotations

import streamlit as st
from pydantic import SecretStr

from core import Engine
from core.types import Actor
from dashboard.gdrive_widgets import show_report
from dashboard.i18n import t


def _writable_kbs(engine: Engine, actor: Actor) -> dict:
    return {kb.id: kb for kb in engine.list_kbs(actor) if actor.is_admin or kb.owner_id == actor.user_id}


def folder_form(engine: Engine, actor: Actor) -> None:
    """Admins only: a folder of the server (a local disk or a network mount) under an allowed root."""
    kbs = _writable_kbs(engine, actor)
    if not actor.is_admin or not kbs:
        return
    with st.expander(t("sources.folder_title"), icon=":material/folder_open:"):
        path = st.text_input(t("sources.folder_path"), key="folder_path", help=t("sources.folder_help"))
        kb_id = st.selectbox(t("gdrive.import_into"), list(kbs), format_func=lambda i: kbs[i].name, key="folder_kb")
        if st.button(t("gdrive.web_add"), key="folder_add", icon=":material/create_new_folder:", disabled=not path.strip()):
            show_report(engine.add_folder_source(actor, kb_id, path.strip()))


def webdav_form(engine: Engine, actor: Actor) -> None:
    kbs = _writable_kbs(engine, actor)
    if not kbs:
        return
    with st.expander(t("sources.webdav_title"), icon=":material/cloud_sync:"):
        url = st.text_input(t("sources.webdav_url"), key="webdav_url", help=t("sources.webdav_help"))
        username = st.text_input(t("sources.webdav_user"), key="webdav_user")
        password = st.text_input(t("sources.webdav_password"), key="webdav_password", type="password")
        kb_id = st.selectbox(t("gdrive.import_into"), list(kbs), format_func=lambda i: kbs[i].name, key="webdav_kb")
        ready = url.strip() and username.strip() and password
        if st.button(t("gdrive.web_add"), key="webdav_add", icon=":material/add_link:", disabled=not ready):
            show_report(engine.add_webdav_source(actor, kb_id, url.strip(), username.strip(), SecretStr(password)))


def dingtalk_form(engine: Engine, actor: Actor) -> None:
    """A DingTalk knowledge base (or one folder of it), read with an app's AppKey and AppSecret as the operator."""
    kbs = _writable_kbs(engine, actor)
    if not kbs:
        return
    with st.expander(t("sources.dingtalk_title"), icon=":material/menu_book:"):
        app_key = st.text_input(t("sources.dingtalk_app_key"), key="dingtalk_app_key")
        secret = st.text_input(t("sources.dingtalk_secret"), key="dingtalk_secret", type="password")
        operator = st.text_input(t("sources.dingtalk_operator"), key="dingtalk_operator", help=t("sources.dingtalk_help"))
        workspace = st.text_input(t("sources.dingtalk_workspace"), key="dingtalk_workspace")
        folder = st.text_input(t("sources.dingtalk_folder"), key="dingtalk_folder")
        kb_id = st.selectbox(t("gdrive.import_into"), list(kbs), format_func=lambda i: kbs[i].name, key="dingtalk_kb")
        ready = app_key.strip() and secret and operator.strip() and workspace.strip()
        if st.button(t("gdrive.web_add"), key="dingtalk_add", icon=":material/add_link:", disabled=not ready):
            show_report(engine.add_dingtalk_source(actor, kb_id, app_key.strip(), SecretStr(secret), operator.strip(),
                                                   workspace.strip(), folder.strip()))
