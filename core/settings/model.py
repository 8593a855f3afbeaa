"""The one typed settings model, in nested sections.

Defaults come from the product brief (seeds 000 and 002). Validation messages are written
for the admin who typed the value.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from core.plugins import (
    CHAT_PROVIDERS,
    EMBEDDING_PROVIDERS,
    FORMATS,
    SEARCH_ENGINES,
    SOURCES,
)
from core.settings.fields import PluginSettings, env, plugin_map, plugin_name, secret

__all__ = ["PluginSettings", "SecretStr"]  # re-exported for plugins: their sub-models use both
SearchEngineName = plugin_name(SEARCH_ENGINES)
ChatProviderName = plugin_name(CHAT_PROVIDERS)
EmbeddingProviderName = plugin_name(EMBEDDING_PROVIDERS)
# Each plugin's own settings sub-model, under its kind's section (defaults for those not set).
EmbeddingProviderSettingsMap = plugin_map(EMBEDDING_PROVIDERS, "Settings of embedding providers added as plugins.")
ChatProviderSettingsMap = plugin_map(CHAT_PROVIDERS, "Settings of LLM providers added as plugins.")
FormatSettingsMap = plugin_map(FORMATS, "Settings of document formats added as plugins.")
SourceSettingsMap = plugin_map(SOURCES, "Settings of remote source kinds added as plugins.")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ChunkingSettings(_Section):
    chunk_size: int = Field(500, ge=50, le=100_000, description="Largest chunk, in characters (or tokens).")
    chunk_overlap: int = Field(50, ge=0, description="Shared text between neighbouring chunks.")
    chunk_min_size_target: int = Field(
        0, ge=0, description="Merge small chunks forward until they reach this size (0 = no merge)."
    )
    size_unit: Literal["characters", "tokens"] = Field(
        "characters", description="Measure sizes in characters or in tokens of the embedding model's tokenizer."
    )
    markdown_header_split: bool = Field(True, description="Split on Markdown headings H1-H6 first.")
    heading_glue: bool = Field(True, description="Join a heading line to the paragraph after it.")
    contextual_text: bool = Field(
        False, description="Embed and keyword-index each chunk with its document title and heading path (a reindex applies it)."
    )
    # On by default: +0.010-0.021 nDCG@10 on the report halves of both XQuAD chunk sets, +0.07-0.11
    # across languages, Cranfield unchanged; ~30 KB a chunk on disk (docs/retrieval.md, "Late interaction").
    token_vectors: bool = Field(True, description=(
        "Store each chunk's token vectors (about 30 KB a chunk on disk) so that search can rank the best candidates "
        "by late interaction. Only embedders with token vectors have them (the bundled multilingual-e5-small; not "
        "MiniLM or API embedders). A reindex applies it."))

    @model_validator(mode="after")
    def _check_sizes(self) -> ChunkingSettings:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size ({self.chunk_size})"
            )
        if self.chunk_min_size_target > self.chunk_size:
            raise ValueError(
                f"chunk_min_size_target ({self.chunk_min_size_target}) must not exceed chunk_size ({self.chunk_size})"
            )
        return self


class EmbeddingSettings(_Section):
    provider: EmbeddingProviderName = Field(
        "local", description="local = a model bundled in an installed package; openai = any OpenAI-compatible API; ollama = Ollama's native API."
    )
    model: str = Field("multilingual-e5-small", description="Model name (local: multilingual-e5-small or all-minilm-l6-v2).")
    base_url: str = Field("", description="API base URL for openai/ollama providers.")
    api_key: SecretStr = secret("API key for the openai provider (stored, never shown back).")
    batch_size: int = Field(32, ge=1, le=2048)
    timeout_seconds: float = Field(60.0, gt=0, le=3600)
    providers: EmbeddingProviderSettingsMap


class RerankerSettings(_Section):
    kind: Literal["none", "cross-encoder", "http"] = Field(
        "none", description="No reranker model ships in any installable package, so it is off by default."
    )
    model_path: str = Field("", description="Local folder of a sentence-transformers CrossEncoder.")
    url: str = Field("", description="A /rerank endpoint (TEI, vLLM, llama.cpp, Jina/Cohere style).")
    api_key: SecretStr = secret()
    model: str = ""
    top_n: int = Field(20, ge=1, le=200, description="How many hybrid-ranked candidates the reranker rescores (only those are kept).")
    scores: Literal["logits", "probabilities"] = Field(
        "logits", description="What the reranker returns: raw logits (squashed with a sigmoid; llama.cpp, TEI raw_scores, "
        "a CrossEncoder without activation) or probabilities in [0, 1] (Cohere, Jina, TEI by default), used as they are.")


class RetrievalSettings(_Section):
    mode: Literal["dense", "bm25", "hybrid", "hybrid+rerank"] = "hybrid"
    candidates: int = Field(40, ge=1, le=1000, description="Candidates recalled per channel before rerank.")
    dense_weight: float = Field(0.6, ge=0, le=1, description="Weight of vector similarity in the hybrid rerank.")
    bm25_weight: float = Field(0.4, ge=0, le=1, description="Weight of BM25 keyword score in the hybrid rerank.")
    rag_min_similarity: float = Field(0.30, ge=0, le=1, description="Normal mode: drop results below this calibrated score.")
    rag_max_results: int = Field(4, ge=1, le=50)
    rag_max_content_chars: int = Field(1200, ge=100, le=200_000, description="Cap on characters injected per result.")
    dedupe_threshold: float = Field(0.95, ge=0.5, le=1.0, description="Near-identical chunks above this similarity are shown once.")
    # Late interaction (core/retrieval/late.py); weight and candidates chosen on the tune halves
    # (benchmarks/late_interaction.py, docs/retrieval.md).
    late_interaction: bool = Field(True, description=(
        "Hybrid modes: rank the best candidates again by late interaction (each question token matched with the "
        "passage's tokens) where the knowledge base's index holds token vectors. Off for embedders without them. "
        "Reorders passages; what passes the minimum score does not change."))
    late_weight: float = Field(0.8, ge=0, le=1, description="Share of the late-interaction score in that order (the rest: the hybrid score).")
    late_candidates: int = Field(20, ge=2, le=200, description="How many hybrid-ranked candidates late interaction ranks again.")
    reranker: RerankerSettings = Field(default_factory=RerankerSettings)

    @model_validator(mode="after")
    def _weights(self) -> RetrievalSettings:
        if self.dense_weight + self.bm25_weight <= 0:
            raise ValueError("dense_weight and bm25_weight cannot both be 0")
        return self


class LLMSettings(_Section):
    provider: ChatProviderName = Field(
        "extractive", description="extractive = offline answerer that quotes the knowledge base (no model needed)."
    )
    base_url: str = ""
    api_key: SecretStr = secret()
    model: str = ""
    temperature: float = Field(0.2, ge=0, le=2)
    context_length: int = Field(8192, ge=512, le=2_000_000, description="Model context window in tokens (Ollama: num_ctx).")
    timeout_seconds: float = Field(120.0, gt=0, le=3600)
    providers: ChatProviderSettingsMap


DEFAULT_RAG_TEMPLATE = """Use the context below to answer the query. Cite the passages you use inline as [n], \
where n is the number shown before each passage. If the context does not contain the answer, say so plainly. \
Answer in the language of the query.

<context>
{{CONTEXT}}
</context>

Query: {{QUERY}}"""


class AnsweringSettings(_Section):
    rag_template: str = Field(DEFAULT_RAG_TEMPLATE, description="Must contain {{CONTEXT}}; {{QUERY}} is optional.")
    rag_system_context: bool = Field(
        False, description="Put retrieved context in the system message (stable prefix: providers reuse their prompt cache)."
    )
    file_context: bool = Field(True, description="Inject retrieved file content into the conversation.")
    builtin_tools: bool = Field(False, description="Offer query_knowledge_bases / view_knowledge_file / search_chats as native tools.")
    max_tool_rounds: int = Field(3, ge=0, le=10)
    follow_up_search: bool = Field(True, description=(
        "Normal mode: a follow-up (\"and for managers?\", \"那第二条呢？\") is searched with the conversation's context: "
        "the chat model writes the search query, or without one the previous question is joined to it. Strict mode never uses history."))
    low_similarity_action: Literal["general_knowledge", "flag_for_human"] = Field(
        "general_knowledge", description="Normal mode, nothing above the threshold: answer from general knowledge with a marker, or flag for a human."
    )
    not_from_kb_marker: str = Field("", description=(
        "The line before a normal-mode answer that did not come from the knowledge base. Empty: the built-in line "
        "in the question's language; a text typed here is used for every language."))
    max_question_chars: int = Field(8000, ge=100, le=1_000_000, description="Longest question (or search query) accepted.")
    max_url_mentions: int = Field(5, ge=0, le=100, description="Most URLs (#https://… or YouTube links) fetched for one message.")

    @model_validator(mode="after")
    def _template(self) -> AnsweringSettings:
        if "{{CONTEXT}}" not in self.rag_template:
            raise ValueError("rag_template must contain {{CONTEXT}}")
        return self


class StrictModeSettings(_Section):
    rag_strict_mode: bool = Field(False, description="Answers come only from the knowledge base; no hit = fixed reply, no model call.")
    # Set from benchmarks/strict_recall.py (docs/answering.md): covered questions' best hits scored
    # 0.351 and up, off-topic ones 0.330 at most (a greeting 0, a near-miss HR question 0.2-0.33).
    rag_strict_min_similarity: float = Field(0.34, ge=0, le=1)
    rag_strict_max_results: int = Field(5, ge=1, le=50)
    # On by default: strict mode's promise is that what the knowledge base does not answer is refused,
    # not met with a related passage, and that what it answers is answered in either language
    # (core/answering/answerable.py; figures in docs/answering.md, benchmarks/strict_meaning.py).
    rag_strict_term_check: bool = Field(True, description=(
        "Answer only when a passage answers the question: it mentions everything the question names "
        "(in other words or in the other language too) and states the kind of value asked for. A near "
        "miss (interns where the handbook speaks of employees) gets the fixed reply. Off: the score "
        "threshold alone decides."))
    # Off by default: a model that says yes too easily lets near misses in (core/answering/model_judge.py).
    rag_strict_model_judge: bool = Field(False, description=(
        "When the passages passed the threshold but do not mention something the question names, ask the "
        "connected language model (one extra call) whether one of them answers in other words; its answer "
        "counts only if it quotes that passage word for word. Off: such a question gets the fixed reply "
        "without any model call."))
    # Empty: the built-in text in the question's language (core/answering/replies.py; the Chinese
    # ones are the seed's). A text set here is used for every language.
    rag_strict_no_hit_reply: str = Field("", description=(
        "The fixed reply when nothing reaches the minimum score (no model is called). Empty: "
        "知识库中暂未收录相关内容，我无法凭已有信息作答。 for Chinese questions, an English sentence for others."))
    rag_strict_uncovered_text: str = Field("", description=(
        "What the answer says for a part the passages do not cover. Empty: 知识库中未收录 for Chinese "
        "questions, 'not covered by the knowledge base' for others."))
    compare_roles: list[Literal["admin", "user"]] = Field(default_factory=lambda: ["admin"], description=(
        "Roles that may see normal-mode answers while strict mode is on: the Strict A/B compare and asking "
        "for normal mode. Admins always may; everyone else gets strict answers."))


class CuratedSettings(_Section):
    """Approved question/answer pairs per knowledge base (core/curated/, docs/answering.md)."""

    enabled: bool = Field(True, description="Answer a question close enough to a curated one with its approved answer.")
    # benchmarks/curated_match.py, multilingual-e5-small: the lowest value whose neighbouring questions
    # (same words, another subject) hit at most 1 in 20 on the tune split.
    min_similarity: float = Field(0.94, ge=0.5, le=1.0, description=(
        "Cosine similarity between the question and a curated question needed to answer with the curated "
        "answer (the same question about another subject never matches, whatever the score)."))


class ParsingSettings(_Section):
    max_upload_mb: int = Field(100, ge=1, le=10_000, description="Largest file accepted, checked before it is read or stored.")
    max_chunks_per_file: int = Field(5000, ge=1, le=1_000_000, description="A file that makes more chunks is refused (embedding cost).")
    min_free_disk_mb: int = Field(512, ge=64, le=1_000_000, description=(
        "A file is refused, before anything of it is stored, when storing it would leave less than this much free "
        "space on the data folder's disk (the vector store's 32 MB log segments and SQLite need room to grow)."))
    ocr_enabled: bool = True
    ocr_dpi: int = Field(300, ge=72, le=600)
    ocr_page_timeout_seconds: float = Field(60.0, gt=0, le=3600)
    ocr_workers: int = Field(2, ge=1, le=16, description=(
        "Processes that read the scanned pages of a PDF at once, each with its own OCR model (~0.8 GB at 300 DPI): "
        "min(this, CPU cores, scanned pages); 1 reads them in this process, one at a time."))
    ocr_pdf_pictures: bool = Field(True, description="OCR pictures large enough to hold text on PDF pages that have a text layer.")
    ocr_docx_images: bool = False
    ocr_pptx_images: bool = False
    docx_headers_footers: bool = False
    spreadsheet_max_rows: int = Field(5_000, ge=1, le=1_000_000, description="Rows kept per sheet (or CSV file); the rest are dropped with a warning.")
    spreadsheet_max_columns: int = Field(100, ge=1, le=16_384, description="Columns kept per sheet; the rest are dropped with a warning.")
    zip_max_uncompressed_mb: int = Field(500, ge=1)
    zip_max_members: int = Field(10_000, ge=1)
    url_timeout_seconds: float = Field(20.0, gt=0, le=600)
    url_max_mb: int = Field(20, ge=1, le=1000)
    url_allow_hosts: list[str] = Field(default_factory=list, description=(
        "Hosts or networks (CIDR) a URL fetch may reach although they are private, e.g. 127.0.0.1, 10.1.0.0/16, "
        "wiki.internal. Link-local and cloud metadata addresses stay closed whatever this says."))
    url_allow_private: bool = Field(False, description="Deprecated: opens every private address (use url_allow_hosts).")
    youtube_languages: list[str] = Field(default_factory=lambda: ["zh-Hans", "zh", "zh-Hant", "en"])
    formats: FormatSettingsMap

    @field_validator("url_allow_hosts")
    @classmethod
    def _allow_hosts(cls, entries: list[str], info: ValidationInfo) -> list[str]:
        from core.parsers.url_guard import (
            parse_allow_entry,  # raises ValueError with the admin's message
        )

        kept = []
        for entry in entries:
            try:
                parse_allow_entry(entry)
            except ValueError as exc:
                if not (info.context or {}).get("stored"):
                    raise
                # saved before this rule existed: the guard never opened these addresses anyway
                logging.getLogger(__name__).warning("ignoring a saved url_allow_hosts entry: %s", exc)
                continue
            kept.append(entry.strip())
        return kept


class GoogleDriveSettings(_Section):
    enabled: bool = Field(False, description="Offer the Google Drive page: connect, browse, import, sync.",
                          json_schema_extra=env("ENABLE_GOOGLE_DRIVE_INTEGRATION"))
    client_id: str = Field("", description="OAuth 2.0 client ID (Google Cloud console → Credentials). Env: GOOGLE_DRIVE_CLIENT_ID.",
                           json_schema_extra=env("GOOGLE_DRIVE_CLIENT_ID"))
    client_secret: SecretStr = secret("OAuth 2.0 client secret (stored encrypted, never shown back).", "GOOGLE_DRIVE_CLIENT_SECRET")
    api_key: SecretStr = secret("API key for the Google Picker (optional). Env: GOOGLE_DRIVE_API_KEY.", "GOOGLE_DRIVE_API_KEY")
    redirect_uri: str = Field("", description="Where Google sends the user back: this app's Google Drive page URL. Env: GOOGLE_REDIRECT_URI.",
                              json_schema_extra=env("GOOGLE_REDIRECT_URI"))
    api_base_url: str = Field("https://www.googleapis.com", description="Drive API root (change only for a proxy or a test server).")
    oauth_auth_url: str = Field("https://accounts.google.com/o/oauth2/auth", description="OAuth consent screen URL.")
    oauth_token_url: str = Field("https://oauth2.googleapis.com/token", description="OAuth token endpoint.")
    revoke_url: str = Field("https://oauth2.googleapis.com/revoke", description="OAuth token revocation endpoint.")
    sync_interval_minutes: int = Field(0, ge=0, le=10_080, description="Sync watched sources every N minutes (0 = manual only).")


EngineSettingsMap = plugin_map(SEARCH_ENGINES, "Each web search engine's own settings (its module declares them).")


class WebSearchSettings(_Section):
    enable_web_search: bool = Field(False, description="Offer the chat's Web search switch (never used in strict mode).",
                                    json_schema_extra=env("ENABLE_WEB_SEARCH", "ENABLE_RAG_WEB_SEARCH"))
    web_search_engine: SearchEngineName = Field(
        "searxng", description="Which search engine answers web searches. duckduckgo is UNOFFICIAL (no public API; "
                               "through the optional ddgs package, may break or be rate-limited).",
        json_schema_extra=env("WEB_SEARCH_ENGINE", "RAG_WEB_SEARCH_ENGINE"))
    web_search_result_count: int = Field(3, ge=1, le=50, json_schema_extra=env("WEB_SEARCH_RESULT_COUNT"))
    web_search_domain_filter_list: list[str] = Field(default_factory=list, description="Keep only results on these hosts (or their subdomains); empty = all.",
                                                     json_schema_extra=env("WEB_SEARCH_DOMAIN_FILTER_LIST"))
    web_search_concurrent_requests: int = Field(10, ge=1, le=64, json_schema_extra=env("WEB_SEARCH_CONCURRENT_REQUESTS"))
    enable_web_loader_ssl_verification: bool = Field(True, json_schema_extra=env("ENABLE_WEB_LOADER_SSL_VERIFICATION"))
    web_search_trust_env: bool = Field(False, description="Use the HTTP(S)_PROXY environment variables for web search requests.",
                                       json_schema_extra=env("WEB_SEARCH_TRUST_ENV"))
    bypass_web_search_web_loader: bool = Field(False, description="Use the engine's snippets instead of loading each page.",
                                               json_schema_extra=env("BYPASS_WEB_SEARCH_WEB_LOADER"))
    bypass_web_search_embedding_and_retrieval: bool = Field(False, description="Inject the loaded pages whole (within the context budget) instead of retrieving chunks.",
                                                            json_schema_extra=env("BYPASS_WEB_SEARCH_EMBEDDING_AND_RETRIEVAL"))
    web_search_timeout_seconds: float = Field(15.0, gt=0, le=300, description="Time limit of each search engine request (pages use the parsing URL limits).")
    web_search_max_indexed_chunks: int = Field(12, ge=1, le=2000, description="Embed at most this many chunks per web search, those best matching the queries by keywords (BM25): embedding whole pages is slow on a CPU.")
    web_search_collection_ttl_hours: float = Field(24.0, gt=0, le=24 * 365, description="Web-search collections older than this are removed by the doctor.")
    engines: EngineSettingsMap

    @model_validator(mode="before")
    @classmethod
    def _legacy_flat_keys(cls, data: Any) -> Any:
        # today's release saved each engine's keys flat (web_search.tavily_api_key): move them
        return upgrade_web_search(data) if isinstance(data, dict) else data

    def engine_settings(self, name: str | None = None) -> Any:
        """The sub-model of engine ``name`` (the chosen one by default)."""
        return self.engines.get(name or self.web_search_engine)


class SourcesSettings(_Section):
    """Remote source kinds' own settings (Google Drive keeps its ``gdrive`` section)."""

    kinds: SourceSettingsMap


class JobsSettings(_Section):
    max_attempts: int = Field(3, ge=1, le=20, description="Runs of a job whose worker died before it is failed with the reason.")
    lease_seconds: float = Field(30.0, ge=3, le=3600, description="A running job whose worker sent no heartbeat for this long is queued again.")
    ingest_batch_files: int = Field(16, ge=1, le=500, description="Queued uploads of one knowledge base a worker takes at once (embedded together).")
    dashboard_workers: int = Field(1, ge=0, le=16, description="Worker threads in the process that holds the store (the dashboard); 0 = only worker processes.")


class Settings(_Section):
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    answering: AnsweringSettings = Field(default_factory=AnsweringSettings)
    strict: StrictModeSettings = Field(default_factory=StrictModeSettings)
    curated: CuratedSettings = Field(default_factory=CuratedSettings)
    parsing: ParsingSettings = Field(default_factory=ParsingSettings)
    gdrive: GoogleDriveSettings = Field(default_factory=GoogleDriveSettings)
    web_search: WebSearchSettings = Field(default_factory=WebSearchSettings)
    sources: SourcesSettings = Field(default_factory=SourcesSettings)
    jobs: JobsSettings = Field(default_factory=JobsSettings)


def upgrade_web_search(data: dict) -> dict:
    """A web_search dict with today's flat engine keys (``tavily_api_key``) moved into the engine's
    sub-model (``engines.tavily.api_key``). A flat key wins over the nested one: it is the newer
    (a patch from the CLI or an older client, merged over a saved row)."""
    flat = {old: (name, new) for name, plugin in SEARCH_ENGINES.items() for old, new in plugin.legacy.items()}
    if not any(key in flat for key in data):
        return data
    out = {k: v for k, v in data.items() if k not in flat}
    engines = copy.deepcopy(dict(out.get("engines") or {}))
    for old, (name, new) in flat.items():
        if old in data:
            engines.setdefault(name, {})
            if isinstance(engines[name], dict):
                engines[name][new] = data[old]
    out["engines"] = engines
    return out


# Settings of the key-term check that the answerability judgement replaced (a high score no longer
# excuses a missing word; relation words are always excused): dropped from saved settings.
RETIRED = {"strict": ("rag_strict_term_excuse_score", "rag_strict_excuse_relation_words")}


def upgrade_legacy(data: dict) -> dict:
    """Settings as an earlier release wrote them (a saved row, a patch, env overrides), in today's layout."""
    if isinstance(data.get("web_search"), dict):
        data = {**data, "web_search": upgrade_web_search(data["web_search"])}
    for section, keys in RETIRED.items():
        if isinstance(data.get(section), dict) and any(k in data[section] for k in keys):
            data = {**data, section: {k: v for k, v in data[section].items() if k not in keys}}
    return data


def legacy_keys() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(old path, today's path) of every setting that moved."""
    return [(("web_search", old), ("web_search", "engines", name, new))
            for name, plugin in SEARCH_ENGINES.items() for old, new in plugin.legacy.items()]
