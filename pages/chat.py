"""Chat: streamed answers, citations, where each answer came from, #knowledge-base mentions,
files attached to the chat, temporary chats, searchable history, feedback, the
context-length warning, the Web search switch; on an empty install, what to do first."""

import streamlit as st

from core.ingest.service import Upload
from dashboard.assistant_picker import assistant_picker
from dashboard.chat_history import history
from dashboard.chat_widgets import ask_streaming, mentioned_kbs, render_answer, render_stored_message, web_search_toggle
from dashboard.demo_widgets import demo_loaded_message, first_steps
from dashboard.errors import guard
from dashboard.filter_box import filter_box, typed_where
from dashboard.gdrive_widgets import chat_attach
from dashboard.i18n import t
from dashboard.page import page_context
from dashboard.uploads import upload_limit_mb

engine, actor = page_context()
st.title(t("nav.chat"))

with guard():
    demo_loaded_message()
    web = web_search_toggle(engine)
    warning = engine.context_warning(web=web)
    if warning:
        st.warning(warning, icon=":material/warning:")
    kbs = engine.list_kbs(actor)
    names = {kb.id: kb.name for kb in kbs}
    assistant = assistant_picker(engine, actor)  # issue 35: its preset replaces the selection
    chosen = [] if assistant else st.multiselect(t("chat.kbs"), list(names), format_func=names.get, key="chat_kbs",
                                                 placeholder=t("chat.kbs_all"))
    # the box is for a chat over chosen knowledge bases: an assistant carries its own filter (its caption shows it)
    typed_filter = "" if assistant else filter_box("chat_filter")
    if kbs:
        st.caption(t("chat.mention_hint", names=" ".join(f"`#{kb.name}`" for kb in kbs[:8])))  # code: no break at a hyphen
    temporary = st.session_state.get("temporary", False)
    chat_attach(engine, actor, temporary)  # issue 12: attach files from Google Drive
    chat_id = None if temporary else st.session_state.get("chat_id")
    if not kbs and not chat_id and not st.session_state.get("temp_answers"):
        first_steps(engine, actor)
    if temporary:
        st.info(t("chat.temporary_on"), icon=":material/visibility_off:")
        for i, (question, answer) in enumerate(st.session_state.get("temp_answers", [])):
            st.chat_message("user").markdown(question)
            with st.chat_message("assistant"):
                render_answer(answer, key=f"temp{i}")
    elif chat_id:
        messages = engine.chat_messages(actor, chat_id)
        cited = {c.get("file_id") for m in messages for c in (m.citations or [])}
        existing = {f.id for f in engine.list_files(actor)} if cited else set()
        ratings = engine.feedback_of(actor, [m.id for m in messages if m.role == "assistant"])
        for msg in messages:
            render_stored_message(msg, engine, actor, existing, ratings.get(msg.id))

prompt = st.chat_input(t("chat.placeholder"), accept_file="multiple", key="chat_prompt",
                       max_upload_size=upload_limit_mb(engine))  # the one upload limit (dashboard/uploads.py)
if prompt:
    with guard():
        question = (prompt.text or "").strip()
        if prompt.files:
            if temporary:
                st.warning(t("chat.attach_temporary"))
            else:
                if chat_id is None:
                    chat_id = engine.create_chat(actor, title=question[:60] or prompt.files[0].name).id
                    st.session_state["chat_id"] = chat_id
                results = engine.attach_to_chat(actor, chat_id, [Upload(f.name, f.getvalue()) for f in prompt.files])
                for r in results:
                    if r.ok:
                        st.caption(t("chat.attached", name=r.name, status=t("status.indexed")))
                    else:
                        st.error(t("chat.attach_failed", name=r.name, error=r.error))
        if question:
            st.chat_message("user").markdown(question)
            if assistant:
                answer = ask_streaming(engine, actor, question, assistant=assistant, chat_id=chat_id,
                                       temporary=temporary, web=web)
            else:
                selected = list(dict.fromkeys(chosen + mentioned_kbs(question, kbs))) or None
                where = typed_where(typed_filter)  # a bad one: guard() shows why
                answer = ask_streaming(engine, actor, question, kbs=selected, chat_id=chat_id, temporary=temporary,
                                       web=web, where=where)
            if temporary:
                st.session_state.setdefault("temp_answers", []).append((question, answer))
            elif answer.chat_id:
                st.session_state["chat_id"] = answer.chat_id

with guard():  # drawn last so a chat created by this message is listed at once
    history(engine, actor)
