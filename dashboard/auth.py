"""Sign-up, sign-in and sign-out, kept across refreshes and tabs by a session cookie.

The browser holds a random session token in the ``ragdesk_session`` cookie (SameSite=Strict,
Secure over https, never in the URL); the engine keeps only its hash and can revoke it
(sign-out, password change, disabled account). Streamlit reads cookies from the request that
opened the page (``st.context.cookies``) but cannot set them, so the cookie is written by a
one-line script in the page. Every run re-reads the user through the engine, so a role change
or a disabled account applies at once. Everything else in the session belongs to the user who
signed in: it is cleared whenever that user changes.
"""

from __future__ import annotations

import importlib.util
import json

import streamlit as st

from core import Engine
from core.errors import CoreError
from core.accounts.sessions import SESSION_MAX_AGE
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import LANGUAGE_NAMES, set_lang, t

COOKIE = "ragdesk_session"
SESSION_KEY = "user_id"  # the signed-in user's id (pages and tests read it)
TOKEN_KEY = "session_token"
FLASH_KEY = "auth_flash"
_COOKIE_BLOCK = "ragdesk_cookie_sync"
# The only entries that outlive a change of user: the interface language of this browser.
KEEP_ACROSS_USERS = frozenset({"lang"})


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


SHOWN_ERRORS_AS = "error_audience"


def reset_user_state() -> None:
    """Forget everything the previous user had in this browser session (selected knowledge base,
    open chat, attachments, results, widget values)."""
    for key in list(st.session_state.keys()):
        if key not in KEEP_ACROSS_USERS:
            del st.session_state[key]


def _text(value: object) -> str:
    # st.context answers None (or, under AppTest, a stand-in object) when the browser sent nothing
    return value if isinstance(value, str) else ""


def cookie_token() -> str:
    """The session token the browser sent when it opened this page ("" when none)."""
    return _text(st.context.cookies.get(COOKIE))


def _client_hint() -> str:
    """Where a sign-in comes from: the address counts failures per client; the browser is a label."""
    return _text(st.context.ip_address)


def _start_session(engine: Engine, user_id: str) -> None:
    reset_user_state()
    st.session_state[TOKEN_KEY] = engine.open_session(user_id, _session_label())
    st.session_state[SESSION_KEY] = user_id


def _session_label() -> str:
    agent = _text(st.context.headers.get("User-Agent"))[:120]
    return " · ".join(x for x in (_client_hint(), agent) if x)


def _sso_actor(engine: Engine) -> Actor | None:
    if not sso_configured() or not st.user.is_logged_in:
        return None
    email = str(st.user.get("email") or "")
    if not email:
        return None
    user = engine.sso_sign_in(email, str(st.user.get("name") or ""))
    _start_session(engine, user.id)
    return engine.session_actor(st.session_state[TOKEN_KEY])


def current_actor(engine: Engine) -> Actor | None:
    """The signed-in user as an engine Actor (None when nobody is signed in).

    The token of this tab's session wins; a fresh tab or a refresh starts from the cookie.
    """
    token = st.session_state.get(TOKEN_KEY) or cookie_token()
    actor = engine.session_actor(token) if token else None
    if actor is None:
        if st.session_state.get(SESSION_KEY):  # signed out elsewhere, expired or disabled
            reset_user_state()
        try:
            actor = _sso_actor(engine)
        except CoreError as exc:
            show_error(exc)
            return None
        if actor is None:
            return None
    elif st.session_state.get(SESSION_KEY) != actor.user_id:  # a new tab, or another user's cookie
        reset_user_state()
        st.session_state[TOKEN_KEY] = token
        st.session_state[SESSION_KEY] = actor.user_id
    st.session_state[SHOWN_ERRORS_AS] = actor  # dashboard/errors: what this user may see of a failure
    set_lang(engine.user(actor.user_id).language)
    return actor


def sign_out(engine: Engine) -> None:
    """End the session server-side, forget the user's state, and clear the cookie."""
    engine.close_session(st.session_state.get(TOKEN_KEY, ""))
    reset_user_state()
    if sso_configured() and st.user.is_logged_in:
        st.logout()


def sync_cookie() -> None:
    """Make the browser's cookie match this session: the token while signed in, none after.

    The hidden block is drawn on every run, the sign-in screen included. Streamlit loads the code
    that runs a page's script on first use, so a block drawn only after sign-in wrote the cookie
    some time after the signed-in page showed: a refresh or a link opened in that gap found no
    cookie and asked to sign in again. Drawn from the first screen, the cookie is written in the
    same render that shows the signed-in page. When the cookie already matches, the script is
    empty (the value Streamlit read stays the one the tab opened with)."""
    token = st.session_state.get(TOKEN_KEY, "")
    script = ""
    if token != cookie_token():
        url = _text(st.context.url)
        secure = "; Secure" if url.startswith("https:") else ""
        if token:
            value = f"{COOKIE}={token}; Path=/; Max-Age={int(SESSION_MAX_AGE.total_seconds())}; SameSite=Strict{secure}"
        else:
            value = f"{COOKIE}=; Path=/; Max-Age=0; SameSite=Strict{secure}"
        script = f"document.cookie = {json.dumps(value)};"
    # a hidden block: the script runs, the page layout does not move (style-only HTML takes no space)
    st.html(f"<style>.st-key-{_COOKIE_BLOCK} {{display: none;}}</style>")
    with st.container(key=_COOKIE_BLOCK):
        st.html(f"<script>{script or '/* the cookie matches this session */'}</script>", unsafe_allow_javascript=True)


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
    # an empty install has no one to sign in: open on "Create account"
    labels = [t("auth.sign_in"), t("auth.sign_up")]
    signin_tab, signup_tab = st.tabs(labels, default=labels[1] if first else labels[0])
    with signin_tab, st.form("sign_in"):
        name = st.text_input(t("auth.user_name"), key="signin_name")
        password = st.text_input(t("auth.password"), type="password", key="signin_password")
        if st.form_submit_button(t("auth.sign_in"), type="primary"):
            try:
                user = engine.sign_in(name, password, client=_client_hint())
            except CoreError as exc:
                show_error(exc)
            else:
                _start_session(engine, user.id)
                st.rerun()  # the same page: a deep link opens what it asked for
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
                    _start_session(engine, user.id)
                    st.rerun()
    if sso_configured():
        st.divider()
        if st.button(t("auth.sso"), icon=":material/login:"):
            st.login()


def password_popover(engine: Engine, actor: Actor) -> None:
    """The signed-in user's own password: the current one is required; other sessions end."""
    with st.popover(t("auth.change_password"), icon=":material/password:"), st.form("change_password", clear_on_submit=True):
        old = st.text_input(t("auth.current_password"), type="password", key="pw_old")
        new = st.text_input(t("auth.new_password"), type="password", key="pw_new", help=t("auth.password_rule"))
        again = st.text_input(t("auth.password_again"), type="password", key="pw_new2")
        if st.form_submit_button(t("auth.change_password"), type="primary"):
            if new != again:
                st.error(t("auth.passwords_differ"))
                return
            try:
                engine.change_password(actor, old, new)
            except CoreError as exc:
                show_error(exc)
                return
            # every session ended, this one too: keep this browser signed in with a new one
            st.session_state[TOKEN_KEY] = engine.open_session(actor.user_id, _session_label())
            st.session_state[FLASH_KEY] = t("auth.password_changed")
            st.rerun()  # the next run writes the new token into the cookie


def show_flash() -> None:
    """A confirmation left by the previous run (it ended in a rerun)."""
    message = st.session_state.pop(FLASH_KEY, None)
    if message:
        st.toast(message, icon=":material/check_circle:")
