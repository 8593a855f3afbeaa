"""Settings sections rendered from the typed model: one widget per field, help text from
the Field descriptions, env-overridden fields locked, secrets masked, validation by the engine."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal, get_args, get_origin

import streamlit as st
from pydantic import BaseModel, SecretStr

from core import Engine
from core.errors import InvalidSettings
from core.settings.fields import choices_of, plugin_maps
from core.types import Actor
from dashboard.i18n import lang, lang_key, t, worded
from dashboard.locales.settings_text import EN as FIELD_EN
from dashboard.locales.settings_text import ZH as FIELD_ZH

LONG_TEXT = {"rag_template", "rag_strict_no_hit_reply", "not_from_kb_marker", "rag_strict_uncovered_text"}
# Changing these changes what is stored in the index: existing knowledge bases need a reindex.
REINDEX_SECTIONS = {"chunking", "embedding"}


def _node(data: dict, path: str) -> dict:
    for part in path.split("."):
        data = data.get(part, {}) if isinstance(data, dict) else {}
    return data if isinstance(data, dict) else {}


def env_var(path: str, name: str) -> str:
    return "RAGDESK_" + "__".join(p.upper() for p in (*path.split("."), name))


def field_text(path: str, name: str, description: str = "") -> tuple[str, str]:
    """(label, help) in the user's language; unknown fields: the name in words, the model's description."""
    table = FIELD_ZH if lang() == "zh" else FIELD_EN
    label, help_text = table.get(f"{path}.{name}") or FIELD_EN.get(f"{path}.{name}") or ("", "")
    return label or name.replace("_", " ").capitalize(), help_text or description


def option_label(path: str, name: str, value: str) -> str:
    """A select box's value in words (``opt.<section>.<field>.<value>``); the value itself when unnamed."""
    key = f"opt.{path}.{name}.{value}"
    text = t(key)
    return value if text == key else text


def _widget(path: str, name: str, info, value: Any, locked: bool, key: str) -> Any:
    ann = info.annotation
    label, help_text = field_text(path, name, info.description or "")
    if locked:
        help_text = (help_text + " " + t("settings.locked_help", var=env_var(path, name))).strip()
        label = f"🔒 {label}"
    help_text = help_text or None
    if ann is SecretStr:  # a secret by its type: shown masked, never its value
        return st.text_input(label, value=value, type="password", help=help_text, disabled=locked, key=key)
    if ann is bool:
        return st.toggle(label, value=bool(value), help=help_text, disabled=locked, key=key)
    options = list(get_args(ann)) if get_origin(ann) is Literal else choices_of(info)  # a plugin name: the registry's
    if options is not None:
        if value not in options:
            options.append(value)  # saved while a plugin now gone was installed: shown, not lost
        # a key per language: the browser would keep the old language's label (dashboard/i18n.py)
        return st.selectbox(label, options, index=options.index(value), help=help_text, disabled=locked,
                            key=lang_key(key), format_func=worded(options, lambda v: option_label(path, name, v)))
    if ann is int:
        return int(st.number_input(label, value=int(value), step=1, help=help_text, disabled=locked, key=key))
    if ann is float:
        return float(st.number_input(label, value=float(value), step=0.05, format="%.2f", help=help_text,
                                     disabled=locked, key=key))
    if get_origin(ann) is list:
        raw = st.text_input(label, value=", ".join(value), help=help_text, disabled=locked, key=key)
        return [x.strip() for x in raw.split(",") if x.strip()]
    if name in LONG_TEXT:
        return st.text_area(label, value=value, help=help_text, disabled=locked, key=key,
                            height=220 if name == "rag_template" else 80)
    return st.text_input(label, value=str(value), help=help_text, disabled=locked, key=key)


def section_form(engine: Engine, actor: Actor, path: str, model: type[BaseModel], hidden: frozenset[str] = frozenset()) -> dict:
    """Draw one section as a form; on Save, send only the changed fields. Returns the widget values.

    A form, so Save takes every value typed so far: a field commits only on blur or Enter
    otherwise, and a password field's own "show" button keeps the focus inside it (Tab, Save
    left the secret behind while the page said "Saved")."""
    current = _node(engine.settings_masked(), path)
    locked = _node(engine.settings_overridden(), path)
    # Keys carry a digest of the saved values, so widgets refresh after any save (here or elsewhere).
    digest = hashlib.sha1(json.dumps(current, sort_keys=True, default=str).encode()).hexdigest()[:8]
    values: dict = {}
    with st.form(f"settings_form.{path}", border=False, enter_to_submit=False):
        for name, info in model.model_fields.items():
            if isinstance(current.get(name), dict) or name in hidden:
                continue  # a nested section has its own form; plugins' sub-models follow
            values[name] = _widget(path, name, info, current.get(name), name in locked, f"set.{path}.{name}.{digest}")
        changed = {k: v for k, v in values.items() if v != current.get(k) and k not in locked}
        # each plugin's own settings (a web search engine's key), in the same form: one Save keeps all
        for field, plugin, sub in plugin_maps(model):
            sub_path, sub_current = f"{path}.{field}.{plugin}", _node(current, f"{field}.{plugin}")
            sub_locked = _node(locked, f"{field}.{plugin}")
            with st.expander(option_label(path, field, plugin), expanded=plugin == values.get("web_search_engine")):
                for name, info in sub.model_fields.items():
                    value = _widget(sub_path, name, info, sub_current.get(name), name in sub_locked,
                                    f"set.{sub_path}.{name}.{digest}")
                    if value != sub_current.get(name) and name not in sub_locked:
                        changed.setdefault(field, {}).setdefault(plugin, {})[name] = value
        submitted = st.form_submit_button(t("common.save"), key=f"save.{path}", icon=":material/save:", type="primary")
    if submitted:
        _save(engine, actor, path, changed)
    return values


def _save(engine: Engine, actor: Actor, path: str, changed: dict) -> None:
    if not changed:
        st.info(t("settings.nothing_changed"))
        return
    patch: dict = changed
    for part in reversed(path.split(".")):
        patch = {part: patch}
    try:
        engine.save_settings(actor, patch)
    except InvalidSettings as exc:
        st.error(exc.message)
        return
    if path.split(".")[0] in REINDEX_SECTIONS:
        st.session_state["reindex_offer"] = True
    st.session_state["settings_saved"] = (path, [field_text(path, k)[0] for k in _leaf_names(changed)])
    st.rerun()


def _leaf_names(changed: dict, prefix: str = "") -> list[str]:
    out = []
    for key, value in changed.items():
        out += _leaf_names(value, f"{prefix}{key}.") if isinstance(value, dict) else [f"{prefix}{key}"]
    return out


def template_preview(template: str) -> None:
    sample = t("settings.preview_context")
    preview = template.replace("{{CONTEXT}}", sample).replace("{{QUERY}}", t("settings.preview_query"))
    st.markdown(f"**{t('settings.preview')}**")
    st.code(preview, language=None, wrap_lines=True)


def feedback_panel(engine: Engine, actor: Actor) -> None:
    """Thumbs up / down that users gave answers, newest first (admins)."""
    items = engine.list_feedback(actor)
    if not items:
        st.info(t("feedback.none"))
        return
    up = sum(1 for i in items if i.rating > 0)
    st.caption(t("feedback.summary", up=up, down=len(items) - up))
    st.dataframe([{t("feedback.when"): f"{i.when:%Y-%m-%d %H:%M}", t("feedback.user"): i.user,
                   # words, not 👍/👎: a machine without an emoji font draws those as empty boxes
                   t("feedback.rating"): t("feedback.up" if i.rating > 0 else "feedback.down"),
                   t("feedback.question"): i.question,
                   t("feedback.answer"): i.answer} for i in items], hide_index=True, width="stretch",
                 column_config={t("feedback.answer"): st.column_config.TextColumn(width="large")})
