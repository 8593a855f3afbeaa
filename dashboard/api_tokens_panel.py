"""The signed-in user's own API tokens (sidebar popover): make one (shown once), see them, revoke one.

A new token is drawn in the run that made it and kept nowhere on the page's side (not in
session state): the next run cannot show it again, as the engine keeps only its hash.
"""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.errors import CoreError
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import lang, t

EXPIRY_CHOICES = ("30", "90", "365", "never")  # days
_PENDING = "api_token_revoke"  # id of the token whose revoke waits for its confirmation
_DONE = "api_token_done"


def _when(value) -> str:
    return f"{value:%Y-%m-%d %H:%M}" if value is not None else "—"


def _expiry_word(choice: str) -> str:
    return t("tokens.never") if choice == "never" else t("tokens.days", n=choice)


def api_tokens_popover(engine: Engine, actor: Actor) -> None:
    with st.popover(t("tokens.title"), icon=":material/key:"):
        st.caption(t("tokens.help"))
        done = st.session_state.pop(_DONE, None)
        if done:
            st.success(done)
        _create_form(engine, actor)
        _token_list(engine, actor)


def _create_form(engine: Engine, actor: Actor) -> None:
    with st.form("api_token_create", clear_on_submit=True):
        label = st.text_input(t("tokens.label"), key="api_token_label", max_chars=100, placeholder=t("tokens.label_hint"))
        # the options are the words themselves (no format_func), under a key per language: the words
        # change with the language, and a widget keeps what it showed
        words = [_expiry_word(c) for c in EXPIRY_CHOICES]
        picked = st.selectbox(t("tokens.expires"), words, index=1, key=f"api_token_days_{lang()}")
        choice = EXPIRY_CHOICES[words.index(picked)]
        if not st.form_submit_button(t("tokens.create"), type="primary", icon=":material/add:"):
            return
    try:
        made = engine.create_api_token(actor, label, None if choice == "never" else int(choice))
    except CoreError as exc:
        show_error(exc)
        return
    st.success(t("tokens.created", label=made.label or made.prefix))
    st.code(made.token, language=None)  # the code block has a copy button
    st.warning(t("tokens.copy_now"), icon=":material/content_copy:")


def _token_list(engine: Engine, actor: Actor) -> None:
    tokens = engine.list_api_tokens(actor)
    if not tokens:
        st.caption(t("tokens.none"))
        return
    pending = st.session_state.get(_PENDING)
    for token in tokens:
        expired = token.expired()
        with st.container(border=True, key=f"api_token_{token.id}"):
            st.markdown(f"**{token.label or t('tokens.unlabelled')}** · `{token.prefix}…`"
                        + (f" · :orange[{t('tokens.expired')}]" if expired else ""))
            st.caption(t("tokens.dates", created=_when(token.created_at),
                         expires=_when(token.expires_at) if token.expires_at else t("tokens.never"),
                         used=_when(token.last_used_at) if token.last_used_at else t("tokens.never_used")))
            if pending != token.id:
                if st.button(t("tokens.revoke"), key=f"api_revoke_{token.id}", icon=":material/block:"):
                    st.session_state[_PENDING] = token.id
                    st.rerun()
                continue
            st.warning(t("tokens.revoke_confirm"))
            with st.container(horizontal=True):
                if st.button(t("tokens.revoke_yes"), key=f"api_revoke_yes_{token.id}", type="primary"):
                    _revoke(engine, actor, token)
                if st.button(t("tokens.revoke_no"), key=f"api_revoke_no_{token.id}"):
                    st.session_state.pop(_PENDING, None)
                    st.rerun()


def _revoke(engine: Engine, actor: Actor, token) -> None:
    st.session_state.pop(_PENDING, None)
    try:
        engine.revoke_api_token(actor, token.id)
    except CoreError as exc:
        show_error(exc)
        return
    st.session_state[_DONE] = t("tokens.revoked", label=token.label or token.prefix)
    st.rerun()
