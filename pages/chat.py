"""Chat: streamed answers, citations, #knowledge-base mentions, files attached to the chat,
temporary chats, searchable history, the context-length warning, the Web search switch."""

import streamlit as st

from core.ingest.service import Upload
from dashboard.chat_widgets import (ask_streaming, history, mentioned_kbs, render_answer, render_stored_message,
                                    web_search_toggle)
from dashboard.errors import guard
from dashboard.gdrive_widgets import chat_attach
from dashboard.i18n import t
from dashboard.page import page_context

engine, actor = page_context()
st.title(t("nav.chat"))

with guard():
    web = web_search_toggle(engine)
    warning = engine.context_warning(web=web)
    if warning:
        st.warning(warning, icon=":material/warning:")
    kbs = engine.list_kbs(actor)
    names = {kb.id: kb.name for kb in kbs}
    chosen = st.multiselect(t("chat.kbs"), list(names), format_func=names.get, key="chat_kbs",
                            placeholder=t("chat.kbs_all"))
    if kbs:
        st.caption(t("chat.mention_hint", names=" ".join(f"#{kb.name}" for kb in kbs[:8])))
    temporary = st.session_state.get("temporary", False)
    chat_attach(engine, actor, temporary)  # issue 12: attach files from Google Drive
    chat_id = None if temporary else st.session_state.get("chat_id")
    if temporary:
        st.info(t("chat.temporary_on"), icon=":material/visibility_off:")
        for question, answer in st.session_state.get("temp_answers", []):
            st.chat_message("user").markdown(question)
            with st.chat_message("assistant"):
                render_answer(answer)
    elif chat_id:
        for msg in engine.chat_messages(actor, chat_id):
            render_stored_message(msg)

prompt = st.chat_input(t("chat.placeholder"), accept_file="multiple", key="chat_prompt")
if prompt:
    with guard():
        question = (prompt.text or "").strip()
        if prompt.files:
            if temporary:
                st.warning(t("chat.attach_temporary"))
            else:
                if chat_id is None:
                    chat_id = engine.create_chat(actor, title=question[:60]).id
                    st.session_state["chat_id"] = chat_id
                results = engine.attach_to_chat(actor, chat_id, [Upload(f.name, f.getvalue()) for f in prompt.files])
                for r in results:
                    (st.caption if r.ok else st.error)(t("chat.attached", name=r.name, status=r.status, error=r.error))
        if question:
            st.chat_message("user").markdown(question)
            selected = list(dict.fromkeys(chosen + mentioned_kbs(question, kbs))) or None
            answer = ask_streaming(engine, actor, question, kbs=selected, chat_id=chat_id, temporary=temporary, web=web)
            if temporary:
                st.session_state.setdefault("temp_answers", []).append((question, answer))
            elif answer.chat_id:
                st.session_state["chat_id"] = answer.chat_id

with guard():  # drawn last so a chat created by this message is listed at once
    history(engine, actor)
