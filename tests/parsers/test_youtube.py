"""YouTube transcripts, tested at the HTTP level: the library gets a requests Session whose
transport adapter answers like YouTube's watch page, innertube player API and timedtext
endpoint. Nothing of ours is patched."""

import json
from importlib import resources
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from requests.adapters import HTTPAdapter

from core.errors import FetchError, InvalidInput, ParseError
from core.parsers.base import ParseContext
from core.parsers.youtube import fetch_transcript, youtube_video_id
from core.settings.model import ParsingSettings

VIDEO = "aB3dE5fG7h_"
API_KEY = "AIzaRecordedKey_0123456789"


class RecordedYouTube(HTTPAdapter):
    """Serves YouTube's three endpoints from canned bodies and records what was asked."""

    def __init__(self, watch_html: str, player: dict | None, transcripts: dict[str, str], player_status: int = 200):
        super().__init__()
        self.watch_html, self.player, self.transcripts, self.player_status = watch_html, player, transcripts, player_status
        self.requests: list[tuple[str, str]] = []

    def send(self, request, **kwargs):
        self.requests.append((request.method, request.url))
        parts = urlsplit(request.url)
        query = parse_qs(parts.query)
        if parts.path == "/watch":
            return self._response(request, 200, self.watch_html, "text/html; charset=utf-8")
        if parts.path == "/youtubei/v1/player":
            assert query["key"] == [API_KEY] and json.loads(request.body)["videoId"]
            return self._response(request, self.player_status, json.dumps(self.player or {}), "application/json")
        if parts.path == "/api/timedtext":
            body = self.transcripts.get(query.get("lang", [""])[0])
            if body is not None:
                return self._response(request, 200, body, "text/xml; charset=utf-8")
        return self._response(request, 404, "not found", "text/plain")

    @staticmethod
    def _response(request, status: int, body: str, content_type: str) -> requests.Response:
        response = requests.Response()
        response.status_code, response.url, response.request = status, request.url, request
        response._content = body.encode("utf-8")
        response.headers["Content-Type"] = content_type
        response.encoding = "utf-8"
        return response


def _session(adapter: HTTPAdapter) -> requests.Session:
    session = requests.Session()
    session.mount("https://", adapter)
    return session


def _track(lang: str, name: str, kind: str | None = None) -> dict:
    track = {"baseUrl": f"https://www.youtube.com/api/timedtext?v={VIDEO}&lang={lang}&fmt=srv3",
             "name": {"runs": [{"text": name}]}, "languageCode": lang}
    if kind:
        track["kind"] = kind
    return track


def _player(*tracks: dict) -> dict:
    captions = {"playerCaptionsTracklistRenderer": {"captionTracks": list(tracks), "translationLanguages": []}}
    return {"playabilityStatus": {"status": "OK"}, "captions": captions} if tracks else {"playabilityStatus": {"status": "OK"}}


WATCH = f'<html><script>ytcfg.set({{"INNERTUBE_API_KEY": "{API_KEY}"}});</script></html>'
ZH_XML = """<?xml version="1.0" encoding="utf-8" ?><transcript>
<text start="0.0" dur="4.0">大家好，欢迎收看本期节目。</text>
<text start="4.5" dur="6.0">今天我们介绍知识库的搭建方法。</text>
<text start="12.0" dur="5.0">首先准备好需要上传的文档。</text>
<text start="31.5" dur="5.0">然后选择合适的嵌入模型。</text>
<text start="40.0" dur="3.0"></text>
<text start="47.2" dur="5.0">最后测试检索效果 &amp;amp; 回答质量。</text>
<text start="75.0" dur="4.0">感谢观看。</text>
</transcript>"""
EN_XML = """<?xml version="1.0" encoding="utf-8" ?><transcript>
<text start="0.0" dur="3.0">Hello and welcome.</text></transcript>"""


@pytest.mark.parametrize(
    "url",
    [
        f"https://www.youtube.com/watch?v={VIDEO}", f"https://www.youtube.com/watch?feature=share&v={VIDEO}&t=42s",
        f"https://youtu.be/{VIDEO}", f"https://youtu.be/{VIDEO}?si=abc", f"https://www.youtube.com/shorts/{VIDEO}",
        f"https://www.youtube.com/embed/{VIDEO}?start=10", f"https://m.youtube.com/watch?v={VIDEO}",
        f"https://www.youtube-nocookie.com/embed/{VIDEO}", f"https://youtube.com/live/{VIDEO}",
    ],
)
def test_video_urls_are_recognised(url):
    assert youtube_video_id(url) == VIDEO


@pytest.mark.parametrize(
    "url",
    ["https://example.com/watch?v=aB3dE5fG7h_", "https://www.youtube.com/watch?v=short", "https://www.youtube.com/@channel",
     "https://youtu.be/", "https://www.youtube.com/playlist?list=PL123"],
)
def test_other_urls_are_not_videos(url):
    assert youtube_video_id(url) is None


def test_transcript_in_preferred_language_with_30_second_windows():
    adapter = RecordedYouTube(WATCH, _player(_track("en", "English"), _track("zh-Hans", "中文（简体）", "asr")),
                              {"en": EN_XML, "zh-Hans": ZH_XML})
    doc = fetch_transcript(f"https://youtu.be/{VIDEO}", ParseContext(), http_client=_session(adapter))
    # default languages: zh-Hans before en, even though zh-Hans is only machine-generated
    assert doc.metadata["language"] == "zh-Hans" and doc.metadata["generated_captions"] is True
    assert [p.start_seconds for p in doc.parts] == [0.0, 31.5, 75.0]
    assert doc.parts[0].text == "大家好，欢迎收看本期节目。 今天我们介绍知识库的搭建方法。 首先准备好需要上传的文档。"
    assert doc.parts[1].text == "然后选择合适的嵌入模型。 最后测试检索效果 & 回答质量。"
    assert doc.metadata["video_url"] == f"https://www.youtube.com/watch?v={VIDEO}"
    assert [m for m, _ in adapter.requests] == ["GET", "POST", "GET"]
    assert "lang=zh-Hans" in adapter.requests[-1][1]


def test_language_order_comes_from_the_setting():
    adapter = RecordedYouTube(WATCH, _player(_track("en", "English"), _track("zh-Hans", "中文", "asr")),
                              {"en": EN_XML, "zh-Hans": ZH_XML})
    ctx = ParseContext(settings=ParsingSettings(youtube_languages=["en", "zh-Hans"]))
    doc = fetch_transcript(f"https://www.youtube.com/watch?v={VIDEO}", ctx, http_client=_session(adapter))
    assert doc.metadata["language"] == "en" and doc.text == "Hello and welcome."


def test_no_transcript_in_the_wanted_languages():
    adapter = RecordedYouTube(WATCH, _player(_track("de", "Deutsch")), {})
    ctx = ParseContext(settings=ParsingSettings(youtube_languages=["zh-Hans", "en"]))
    with pytest.raises(ParseError, match=f"no transcript available for video {VIDEO} in languages zh-Hans, en"):
        fetch_transcript(f"https://youtu.be/{VIDEO}", ctx, http_client=_session(adapter))


def test_captions_disabled_is_the_same_clear_error():
    adapter = RecordedYouTube(WATCH, _player(), {})
    with pytest.raises(ParseError, match="no transcript available"):
        fetch_transcript(f"https://youtu.be/{VIDEO}", ParseContext(), http_client=_session(adapter))


def test_rate_limited_is_a_fetch_error():
    adapter = RecordedYouTube(WATCH, None, {}, player_status=429)
    with pytest.raises(FetchError, match="refused"):
        fetch_transcript(f"https://youtu.be/{VIDEO}", ParseContext(), http_client=_session(adapter))


def test_not_a_video_url():
    with pytest.raises(InvalidInput):
        fetch_transcript("https://example.com/video", ParseContext())


def test_the_librarys_own_recorded_youtube_responses():
    """youtube-transcript-api ships real responses recorded from YouTube; serve those."""
    try:
        assets = resources.files("youtube_transcript_api.test.assets")
        watch = (assets / "youtube.html.static").read_text(encoding="utf-8")
        player = json.loads((assets / "youtube.innertube.json.static").read_text(encoding="utf-8"))
        xml = (assets / "transcript.xml.static").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        pytest.skip(f"this youtube-transcript-api build ships no recorded assets: {exc}")
    key = __import__("re").search(r'"INNERTUBE_API_KEY":\s*"([a-zA-Z0-9_-]+)"', watch).group(1)

    class Recorded(RecordedYouTube):
        def send(self, request, **kwargs):
            path = urlsplit(request.url).path
            self.requests.append((request.method, request.url))
            body = {"/watch": watch, "/youtubei/v1/player": json.dumps(player), "/api/timedtext": xml}[path]
            return self._response(request, 200, body, "text/html")

    adapter = Recorded(watch, player, {})
    ctx = ParseContext(settings=ParsingSettings(youtube_languages=["en"]))
    doc = fetch_transcript("https://www.youtube.com/watch?v=GJLlxj_dtq8", ctx, http_client=_session(adapter))
    assert key and doc.metadata["language"] == "en" and doc.metadata["generated_captions"] is False
    assert doc.parts[0].start_seconds == 0.0
    assert doc.text == "Hey, this is just a test this is not the original transcript just something shorter, I made up for testing"


def test_fetch_url_answers_a_video_url_with_its_transcript():
    import httpx

    from core.parsers.url import fetch_url

    adapter = RecordedYouTube(WATCH, _player(_track("zh-Hans", "中文")), {"zh-Hans": ZH_XML})
    page_requests: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda request: page_requests.append(request) or httpx.Response(500))
    doc = fetch_url(f"https://www.youtube.com/shorts/{VIDEO}", ParseContext(), transport=transport,
                    youtube_client=_session(adapter))
    assert page_requests == []  # the video page itself is never fetched as HTML
    assert doc.parts[1].start_seconds == 31.5 and doc.metadata["video_id"] == VIDEO
