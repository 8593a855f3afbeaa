import importlib.util
import ipaddress

import httpx
import pytest

from core.errors import BlockedAddress, FetchError, FileTooLarge
from core.parsers.base import ParseContext
from core.parsers.url import HttpStatusError, fetch_url
from core.parsers.url_guard import AllowList, blocked_reason, check_url
from core.parsers.url_transport import GuardedTransport
from core.settings.model import ParsingSettings
from tests.parsers.http_fixtures import local_server, tiny_pdf

PUBLIC_IP = "93.184.215.14"  # a literal public address: resolving it makes no DNS query

PAGE = (
    "<html><head><title>部署说明</title></head><body><article><h1>部署说明</h1>"
    "<p>这是通过网址抓取的中文网页内容，服务器在响应头里声明了字符集。</p></article></body></html>"
)


LOCAL = ["127.0.0.1"]  # what an admin opens to fetch from the local test server


def _ctx(**overrides) -> ParseContext:
    return ParseContext(settings=ParsingSettings(**overrides))


@pytest.fixture
def server():
    with local_server() as srv:
        yield srv


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]:8080/", "http://127.1/",
        "http://0x7f000001/", "http://2130706433/", "http://0.0.0.0/", "http://[::ffff:127.0.0.1]/",
        "http://[fe80::1]/", "http://224.0.0.1/", "http://192.168.1.20/", "http://172.16.0.5/",
        "http://100.64.0.1/", "http://[fd00::1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://localhost:6333/",
    ],
)
def test_internal_addresses_are_blocked_by_the_decision_function(url):
    closed = any(h in url for h in ("169.254.", "fe80::", "a9fe:a9fe"))  # link-local / metadata
    with pytest.raises(BlockedAddress, match="never fetched" if closed else "url_allow_hosts"):
        check_url(url, AllowList())
    if closed:  # whatever is open, even a list too wide to be saved today
        everything = AllowList(frozenset({"localhost"}), (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")), True)
        with pytest.raises(BlockedAddress, match="never fetched"):
            check_url(url, everything)
    else:  # the deprecated switch opens it, and so does opening its network
        assert check_url(url, True)
        assert check_url(url, AllowList.parse(["0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "100.64.0.0/11", "172.16.0.0/12",
                                               "192.168.0.0/16", "224.0.0.0/4", "::1", "::ffff:127.0.0.0/104",
                                               "fd00::/64", "localhost"]))


def test_public_addresses_pass_and_reasons_are_specific():
    assert check_url(f"https://{PUBLIC_IP}/x", AllowList()) == [PUBLIC_IP]
    assert blocked_reason(ipaddress.ip_address("8.8.8.8")) is None
    assert blocked_reason(ipaddress.ip_address("169.254.169.254")).startswith("link-local")
    assert "embedded" in blocked_reason(ipaddress.ip_address("::ffff:10.1.2.3"))


@pytest.mark.parametrize("url", ["ftp://example.com/a", "file:///etc/passwd", "gopher://x/", "http:///nohost"])
def test_only_http_and_https_with_a_host(url):
    with pytest.raises(FetchError):
        check_url(url, AllowList.parse(LOCAL))


def test_local_server_is_refused_by_default_without_a_request(server):
    server.serve("/page", PAGE.encode(), "text/html; charset=utf-8")
    with pytest.raises(BlockedAddress):
        fetch_url(server.url("/page"), _ctx())
    assert server.hits == []


def test_guarded_transport_checks_at_connect_time(server):
    """The socket-level check stands on its own: even a caller that skipped check_url
    cannot reach a blocked address through the default transport."""
    server.serve("/page", b"ok", "text/plain")
    with httpx.Client(transport=GuardedTransport(AllowList())) as client:
        with pytest.raises(BlockedAddress):
            client.get(server.url("/page"))
    assert server.hits == []
    with httpx.Client(transport=GuardedTransport(AllowList.parse(LOCAL))) as client:
        assert client.get(server.url("/page")).text == "ok"


def test_html_page_with_charset_in_the_header(server):
    server.serve("/page", PAGE.encode("gbk"), "text/html; charset=GBK")
    doc = fetch_url(server.url("/page"), _ctx(url_allow_hosts=LOCAL))
    assert doc.title == "部署说明" and doc.source_name == server.url("/page")
    assert "服务器在响应头里声明了字符集" in doc.text
    assert doc.metadata["encoding"] == "gb18030" and doc.metadata["content_type"] == "text/html"


def test_redirects_are_followed_and_recorded(server):
    server.serve("/new", PAGE.encode(), "text/html; charset=utf-8")
    server.redirect("/old", "/new", status=301)
    doc = fetch_url(server.url("/old"), _ctx(url_allow_hosts=LOCAL))
    assert doc.metadata["final_url"] == server.url("/new") and "部署说明" in doc.text
    assert server.hits == ["/old", "/new"]


def test_too_many_redirects(server):
    for i in range(7):
        server.redirect(f"/r{i}", f"/r{i + 1}")
    with pytest.raises(FetchError, match="more than 5 times"):
        fetch_url(server.url("/r0"), _ctx(url_allow_hosts=LOCAL))
    assert len(server.hits) == 6


def test_redirect_to_an_internal_address_is_refused_before_it_is_requested():
    seen: list[str] = []

    def public_site(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(302, headers={"Location": "http://169.254.169.254/latest/meta-data/"})

    with pytest.raises(BlockedAddress, match="169.254.169.254"):
        fetch_url(f"http://{PUBLIC_IP}/start", _ctx(), transport=httpx.MockTransport(public_site))
    assert seen == [f"http://{PUBLIC_IP}/start"]


def test_redirect_to_another_scheme_is_refused():
    transport = httpx.MockTransport(lambda request: httpx.Response(302, headers={"Location": "file:///etc/passwd"}))
    with pytest.raises(FetchError, match="only http and https"):
        fetch_url(f"http://{PUBLIC_IP}/", _ctx(), transport=transport)


def test_size_cap_while_streaming(server):
    server.stream("/endless", b"x" * 65536, count=40)  # 2.5 MB, no Content-Length
    with pytest.raises(FileTooLarge, match="more than the URL limit of 1 MB"):
        fetch_url(server.url("/endless"), _ctx(url_allow_hosts=LOCAL, url_max_mb=1))


def test_size_cap_from_declared_length(server):
    server.stream("/huge", b"x" * 1024, count=1, declared_length=5 * 1024 * 1024)
    with pytest.raises(FileTooLarge, match="5.0 MB"):
        fetch_url(server.url("/huge"), _ctx(url_allow_hosts=LOCAL, url_max_mb=1))


def test_http_errors_carry_the_status(server):
    server.serve("/gone", b"gone", "text/plain", status=410)
    with pytest.raises(HttpStatusError, match="HTTP 410") as caught:
        fetch_url(server.url("/gone"), _ctx(url_allow_hosts=LOCAL))
    assert caught.value.status == 410
    with pytest.raises(HttpStatusError) as missing:
        fetch_url(server.url("/nothing-here"), _ctx(url_allow_hosts=LOCAL))
    assert missing.value.status == 404


def test_slow_server_times_out(server):
    server.stream("/slow", b"late", count=1, delay=2.0)
    with pytest.raises(FetchError, match="timed out"):
        fetch_url(server.url("/slow"), _ctx(url_allow_hosts=LOCAL, url_timeout_seconds=0.3))


def test_markdown_is_dispatched_by_content_type(server):
    server.serve("/notes", "# 会议纪要\n\n- 确认上线时间\n".encode(), "text/markdown; charset=utf-8")
    doc = fetch_url(server.url("/notes"), _ctx(url_allow_hosts=LOCAL))
    assert "确认上线时间" in doc.text and doc.metadata["kind"] == "markdown"
    assert doc.source_name == server.url("/notes")


@pytest.mark.skipif(importlib.util.find_spec("core.parsers.pdf") is None, reason="the PDF parser is not in this tree yet")
def test_pdf_url_goes_to_the_pdf_parser(server):
    server.serve("/download", tiny_pdf("Quarterly revenue grew 12 percent"), "application/pdf")
    doc = fetch_url(server.url("/download"), _ctx(url_allow_hosts=LOCAL))
    assert doc.metadata["kind"] == "pdf" and doc.mime == "application/pdf"
    assert "Quarterly revenue grew 12 percent" in doc.text
    assert doc.parts[0].page == 1


def test_tls_checks_the_url_host_while_the_socket_goes_to_the_checked_address(tmp_path):
    """The pinned connection still speaks TLS to the name in the URL: SNI and certificate
    verification use "localhost", so a certificate for localhost verifies, and the same
    server reached by its bare IP (not in the certificate) does not."""
    from tests.parsers.http_fixtures import self_signed_localhost

    server_tls, client_tls = self_signed_localhost(tmp_path)
    with local_server(tls=server_tls) as srv:
        srv.serve("/secure", "加密页面".encode(), "text/plain; charset=utf-8")
        with httpx.Client(transport=GuardedTransport(AllowList.parse(LOCAL), ssl_context=client_tls)) as client:
            assert client.get(srv.url("/secure", host="localhost")).text == "加密页面"
            with pytest.raises(httpx.ConnectError, match="(?i)certificate"):
                client.get(srv.url("/secure", host="127.0.0.1"))
