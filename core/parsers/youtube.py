"""YouTube transcripts: recognise video URLs and fetch captions with youtube-transcript-api.

Transcripts come in ParsingSettings.youtube_languages order (manual captions before
generated ones within a language, as the library does). Snippets are grouped into windows
of about 30 seconds, one DocPart each, with ``start_seconds`` so a citation can link to the
moment (``&t=<seconds>s``).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import requests
from youtube_transcript_api import YouTubeTranscriptApi
from youtube_transcript_api._errors import (
    CouldNotRetrieveTranscript,
    InvalidVideoId,
    NoTranscriptFound,
    RequestBlocked,
    TranscriptsDisabled,
    VideoUnavailable,
    YouTubeRequestFailed,
)

from core.errors import FetchError, InvalidInput, ParseError
from core.parsers.base import ParseContext
from core.types import DocPart, ParsedDoc

MIME = "text/x-youtube-transcript"
WINDOW_SECONDS = 30.0
_VIDEO_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_YOUTUBE_HOSTS = {"youtube.com", "m.youtube.com", "music.youtube.com", "youtube-nocookie.com"}
_PATH_PREFIXES = ("shorts", "embed", "live", "v", "e")


def youtube_video_id(url: str) -> str | None:
    """The 11-character video id of a watch, youtu.be, shorts, embed, live or m.youtube URL."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    candidate = None
    if host == "youtu.be":
        candidate = parts.path.strip("/").split("/")[0]
    elif host in _YOUTUBE_HOSTS:
        segments = [s for s in parts.path.split("/") if s]
        if segments[:1] == ["watch"]:
            candidate = (parse_qs(parts.query).get("v") or [""])[0]
        elif len(segments) >= 2 and segments[0] in _PATH_PREFIXES:
            candidate = segments[1]
    if candidate and _VIDEO_ID.match(candidate):
        return candidate
    return None


def transcript_session(ctx: ParseContext) -> requests.Session:
    """Every request the transcript library makes goes through the SSRF guard, with our timeout."""
    from core.parsers.url_guard import AllowList
    from core.parsers.url_requests import guarded_session

    parsing = ctx.settings
    return guarded_session(AllowList.of(parsing), parsing.url_timeout_seconds, parsing.url_max_mb * 1024 * 1024)


def _windows(snippets, window: float) -> list[DocPart]:
    parts: list[DocPart] = []
    texts: list[str] = []
    start: float | None = None
    for snippet in snippets:
        text = " ".join(snippet.text.split())
        if not text:
            continue
        if start is not None and snippet.start >= start + window:
            parts.append(DocPart(text=" ".join(texts), start_seconds=start))
            texts, start = [], None
        if start is None:
            start = float(snippet.start)
        texts.append(text)
    if texts and start is not None:
        parts.append(DocPart(text=" ".join(texts), start_seconds=start))
    return parts


def fetch_transcript(url: str, ctx: ParseContext, *, http_client: requests.Session | None = None) -> ParsedDoc:
    """The transcript of the video at ``url`` as timed parts; raises ParseError / FetchError."""
    video_id = youtube_video_id(url)
    if video_id is None:
        raise InvalidInput(f"not a YouTube video URL: {url!r}")
    languages = list(ctx.settings.youtube_languages)
    wanted = ", ".join(languages)
    api = YouTubeTranscriptApi(http_client=http_client or transcript_session(ctx))
    try:
        transcript = api.list(video_id).find_transcript(languages)
        fetched = transcript.fetch()
    except (NoTranscriptFound, TranscriptsDisabled) as exc:
        raise ParseError(f"no transcript available for video {video_id} in languages {wanted}") from exc
    except (VideoUnavailable, InvalidVideoId) as exc:
        raise ParseError(f"YouTube video {video_id} is unavailable") from exc
    except RequestBlocked as exc:
        raise FetchError(f"YouTube refused the transcript request for video {video_id} (rate limit or bot check)") from exc
    except YouTubeRequestFailed as exc:
        raise FetchError(f"YouTube request failed for video {video_id}: {exc.reason}") from exc
    except CouldNotRetrieveTranscript as exc:
        raise ParseError(f"could not read the transcript of video {video_id}: {exc.cause}") from exc
    except requests.RequestException as exc:
        raise FetchError(f"could not reach YouTube for video {video_id}: {type(exc).__name__}") from exc
    parts = _windows(fetched.snippets, WINDOW_SECONDS)
    if not parts:
        raise ParseError(f"the transcript of video {video_id} ({fetched.language_code}) is empty")
    return ParsedDoc(
        source_name=url,
        mime=MIME,
        parts=parts,
        title=f"YouTube video {video_id} ({fetched.language})",
        metadata={
            "video_id": video_id,
            "video_url": f"https://www.youtube.com/watch?v={video_id}",
            "language": fetched.language_code,
            "generated_captions": fetched.is_generated,
        },
    )
