"""The Assistants page's form: create, change and delete an assistant (core/assistants/) through the
engine, which checks who asks (its owner or an admin changes it; each knowledge base must be
readable by its author). A bad value (a prompt without {{CONTEXT}}, a filter field none of its
knowledge bases has, a taken name) is the engine's CoreError shown above the form; the form keeps
everything typed, since it is not cleared on submit."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core import Engine
from core.assistants.types import AssistantView
from core.errors import CoreError
from core.types import Actor
from dashboard.errors import show_error
from dashboard.filter_box import typed_where, written
from dashboard.i18n import lang_key, t, worded

MODES = ("strict", "normal")
VISIBILITIES = ("private", "shared", "public")
PICKED = "assistant_edit"  # the picker's key: "" is a new assistant
PICK_NEXT = "assistant_edit_next"
FLASH = "assistant_flash"
NEW_FORM = "assistant_new_form"  # a counter: a saved new assistant's form comes back empty
CLEARABLE = {"strict_min_similarity": "assistants.strict_threshold", "normal_min_similarity": "assistants.normal_threshold",
             "top_k": "assistants.top_k", "prompt": "assistants.prompt", "refusal_text": "assistants.refusal",
             "where": "assistants.filter_field"}


def pick_assistant(assistants: list[AssistantView]) -> AssistantView | None:
    """The assistant to change (those the user may change), or None for a new one. Set through the
    widget's own state before it is drawn (as ``dashboard.page.choose_kb`` does)."""
    mine = {a.id: a for a in assistants if a.may_change}
    wanted = st.session_state.pop(PICK_NEXT, None)
    if wanted is not None:
        st.session_state[PICKED] = wanted if wanted in mine else ""
    if st.session_state.get(PICKED) not in ("", *mine):
        st.session_state[PICKED] = ""
    label = {a.id: f"{a.name} ({a.owner})" for a in mine.values()}
    chosen = st.selectbox(t("assistants.edit_pick"), ["", *mine], key=PICKED,
                          format_func=lambda i: label.get(i, t("assistants.new")))
    return mine.get(chosen)


def assistant_form(engine: Engine, actor: Actor, a: AssistantView | None) -> None:
    kbs = {kb.id: kb.name for kb in engine.list_kbs(actor)}
    repeated = {n for n in kbs.values() if list(kbs.values()).count(n) > 1}
    kb_label = {i: f"{n} ({i[:8]})" if n in repeated else n for i, n in kbs.items()}
    key = f"asst_{a.id}" if a else f"asst_new{st.session_state.get(NEW_FORM, 0)}"
    with st.form(key):
        name = st.text_input(t("assistants.name"), value=a.name if a else "", key=f"{key}_name")
        description = st.text_input(t("assistants.description"), value=a.description if a else "",
                                    key=f"{key}_description")
        chosen_kbs = st.multiselect(t("assistants.kbs"), list(kbs), default=[i for i in (a.kb_ids if a else [])
                                                                            if i in kbs],
                                    format_func=kb_label.get, key=f"{key}_kbs", placeholder=t("assistants.all_kbs"))
        if a and a.hidden_kbs:
            st.caption(t("assistants.hidden", n=a.hidden_kbs))
        c1, c2 = st.columns(2)
        mode = c1.selectbox(t("assistants.mode"), MODES, index=MODES.index(a.mode) if a else 0,
                            format_func=worded(MODES, lambda m: t(f"assistants.mode.{m}")),
                            key=lang_key(f"{key}_mode"))
        visibility = c2.selectbox(t("assistants.visibility"), VISIBILITIES,
                                  index=VISIBILITIES.index(a.visibility) if a else 0,
                                  format_func=worded(VISIBILITIES, lambda v: t(f"vis.{v}")),
                                  key=lang_key(f"{key}_visibility"))
        c1, c2, c3 = st.columns(3)
        strict_bar = c1.number_input(t("assistants.strict_threshold"), 0.0, 1.0, a.strict_min_similarity if a else None,
                                     step=0.01, key=f"{key}_strict", placeholder=t("assistants.global"))
        normal_bar = c2.number_input(t("assistants.normal_threshold"), 0.0, 1.0, a.normal_min_similarity if a else None,
                                     step=0.01, key=f"{key}_normal", placeholder=t("assistants.global"))
        top_k = c3.number_input(t("assistants.top_k"), 1, 50, a.top_k if a else None, step=1, key=f"{key}_top_k",
                                placeholder=t("assistants.global"))
        refusal = st.text_area(t("assistants.refusal"), value=a.refusal_text if a else "", height=68,
                               key=f"{key}_refusal", placeholder=t("assistants.refusal_help"))
        prompt = st.text_area(t("assistants.prompt"), value=a.prompt if a else "", height=120, key=f"{key}_prompt",
                              placeholder=t("assistants.prompt_help"))
        where_text = st.text_input(t("assistants.filter_field"), value=written(a.where) if a and a.where else "",
                                   key=f"{key}_where", placeholder=t("chat.filter_help"))
        # a number box once filled cannot be emptied in every browser: the way back to a global setting
        reset = st.multiselect(t("assistants.reset"), [k for k in CLEARABLE if a and getattr(a, k) not in (None, "")],
                               format_func=lambda k: t(CLEARABLE[k]), key=f"{key}_reset") if a else []
        shared = st.text_input(t("assistants.shared_with"), value=", ".join(a.shared_with) if a else "",
                               key=f"{key}_shared", help=t("assistants.shared_help"))
        saved = st.form_submit_button(t("common.save") if a else t("assistants.create"), type="primary",
                                      icon=":material/save:" if a else ":material/add:")
    if not saved:
        return
    fields = dict(name=name, description=description, kbs=chosen_kbs, mode=mode, visibility=visibility,
                  strict_min_similarity=strict_bar, normal_min_similarity=normal_bar,
                  top_k=int(top_k) if top_k is not None else None, refusal_text=refusal, prompt=prompt,
                  shared_with=[u.strip() for u in shared.split(",") if u.strip()], reset=reset)
    try:
        fields["where"] = typed_where(where_text)
        done = _save(engine, actor, a, fields)
    except CoreError as exc:  # shown under the form, which keeps everything typed (not cleared on submit)
        show_error(exc)
        return
    if a is None:
        st.session_state[NEW_FORM] = st.session_state.get(NEW_FORM, 0) + 1
    st.session_state[PICK_NEXT] = done.id
    st.session_state[FLASH] = t("assistants.saved", name=done.name)
    st.rerun()


def _save(engine: Engine, actor: Actor, a: AssistantView | None, fields: dict[str, Any]) -> AssistantView:
    if a is None:
        fields.pop("reset")
        return engine.create_assistant(actor, fields.pop("name"), fields.pop("kbs"), **{
            k: v for k, v in fields.items() if v not in (None, "", [])})
    return engine.update_assistant(actor, a.id, **changes(a, fields))


def changes(a: AssistantView, fields: dict[str, Any]) -> dict[str, Any]:
    """The update of ``a`` the form asks for: what changed, and the tuning fields emptied (back to
    the global setting) in ``clear``. Its knowledge bases are sent only when changed, so those its
    editor may not read any more stay in it."""
    out: dict[str, Any] = {k: fields[k] for k in ("name", "description", "mode", "visibility")}
    if set(fields["kbs"]) != set(a.kb_ids):
        out["kbs"] = fields["kbs"]
    clear = []
    for k in CLEARABLE:
        value, before = fields[k], getattr(a, k)
        if k in fields["reset"] or value in (None, "") or (isinstance(value, str) and not value.strip()):
            if before not in (None, ""):
                clear.append(k)
        elif value != before:
            out[k] = value
    if sorted(fields["shared_with"]) != sorted(a.shared_with):
        out["shared_with"] = fields["shared_with"]
    return {**out, "clear": clear or None}


def delete_form(engine: Engine, actor: Actor, a: AssistantView) -> None:
    with st.form(f"asst_delete_{a.id}"):
        sure = st.checkbox(t("assistants.delete_sure", name=a.name), key=f"asst_delete_sure_{a.id}")
        if st.form_submit_button(t("assistants.delete"), icon=":material/delete:"):
            if not sure:
                st.warning(t("assistants.delete_tick"))
                return
            try:
                engine.delete_assistant(actor, a.id)
            except CoreError as exc:
                show_error(exc)
                return
            st.session_state[PICK_NEXT] = ""
            st.session_state[FLASH] = t("assistants.deleted", name=a.name)
            st.rerun()
