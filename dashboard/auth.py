"""Sign-up, sign-in and sign-out. The session holds the user id only; every run re-reads
the user through the engine, so a role change or a deleted account applies at once."""

from __future__ import annotations

import importlib.util

import streamlit as st

from core import Engine
from core.errors import CoreError, NotFound
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import LANGUAGE_NAMES, set_lang, t

SESSION_KEY = "user_id"


def sso_configured() -> bool:
    """Streamlit's OIDC sign-in is offered only when [auth] is in the secrets (and Authlib,
    which st.login needs, is installed)."""
    try:
        configured = "auth" in st.secrets
    except (FileNotFoundError, KeyError):
        return False
    except Exception:  # a malformed secrets file: no SSO button rather than a broken sign-in page
        return False
    return configured and importlib.util.find_spec("authlib") is not None


def _sso_user_id(engine: Engine) -> str | None:
    if not sso_configured() or not st.user.is_logged_in:
        return None
    email = str(st.user.get("email") or "")
    if not email:
        return None
    user = engine.sso_sign_in(email, str(st.user.get("name") or ""))
    st.session_state[SESSION_KEY] = user.id
    return user.id


def current_actor(engine: Engine) -> Actor | None:
    """The signed-in user as an engine Actor (None when nobody is signed in)."""
    user_id = st.session_state.get(SESSION_KEY) or _sso_user_id(engine)
    if not user_id:
        return None
    try:
        user = engine.user(user_id)
        actor = engine.actor_for(user_id)
    except NotFound:  # the account went away meanwhile
        st.session_state.pop(SESSION_KEY, None)
        return None
    set_lang(user.language)
    return actor


def sign_out() -> None:
    st.session_state.pop(SESSION_KEY, None)
    if sso_configured() and st.user.is_logged_in:
        st.logout()


def require_admin(actor: Actor) -> None:
    """Stop an admin page for anyone else, with a clear message (the engine refuses them too)."""
    if not actor.is_admin:
        st.error(t("auth.admin_only"), icon=":material/lock:")
        st.stop()


def _language_picker() -> None:
    codes = list(LANGUAGE_NAMES)
    current = st.session_state.get("lang", "en")
    choice = st.segmented_control(t("common.language"), codes, format_func=LANGUAGE_NAMES.get,
                                  default=current if current in codes else "en", key="signin_lang")
    if choice and choice != current:
        set_lang(choice)
        st.rerun()


def sign_in_screen(engine: Engine) -> None:
    """The screen shown to visitors: sign in, create an account, or single sign-on."""
    with st.container(horizontal=True, horizontal_alignment="center"), st.container(width=560):
        _sign_in_forms(engine)  # a form-sized column, centred on wide screens; full width on a phone


def _sign_in_forms(engine: Engine) -> None:
    st.title("ragdesk")
    _language_picker()
    first = engine.user_count() == 0
    if first:
        st.info(t("auth.first_admin"), icon=":material/shield_person:")
    signin_tab, signup_tab = st.tabs([t("auth.sign_in"), t("auth.sign_up")])
    with signin_tab, st.form("sign_in"):
        name = st.text_input(t("auth.user_name"), key="signin_name")
        password = st.text_input(t("auth.password"), type="password", key="signin_password")
        if st.form_submit_button(t("auth.sign_in"), type="primary"):
            try:
                user = engine.sign_in(name, password)
            except CoreError as exc:
                show_error(exc)
            else:
                st.session_state[SESSION_KEY] = user.id
                st.rerun()
    with signup_tab, st.form("sign_up"):
        name = st.text_input(t("auth.user_name"), key="signup_name", help=t("auth.name_rule"))
        password = st.text_input(t("auth.password"), type="password", key="signup_password", help=t("auth.password_rule"))
        again = st.text_input(t("auth.password_again"), type="password", key="signup_password2")
        if st.form_submit_button(t("auth.create_account"), type="primary"):
            if password != again:
                st.error(t("auth.passwords_differ"))
            else:
                try:
                    user = engine.sign_up(name, password, language=st.session_state.get("lang", "en"))
                except CoreError as exc:
                    show_error(exc)
                else:
                    st.session_state[SESSION_KEY] = user.id
                    st.rerun()
    if sso_configured():
        st.divider()
        if st.button(t("auth.sso"), icon=":material/login:"):
            st.login()
