"""A real HTTP server on 127.0.0.1 serving scripted routes, for the URL-fetching tests."""

from __future__ import annotations

import datetime
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Route = Callable[[BaseHTTPRequestHandler], None]


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.server.hits.append(self.path)  # type: ignore[attr-defined]
        route = self.server.routes.get(self.path.split("?")[0])  # type: ignore[attr-defined]
        if route is None:
            self.send_error(404, "Not Found")
            return
        route(self)

    def log_message(self, format: str, *args) -> None:  # keep test output quiet
        pass


class LocalServer:
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.scheme = "https" if tls else "http"
        if tls is not None:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self._server.routes = self.routes  # type: ignore[attr-defined]
        self._server.hits = []  # type: ignore[attr-defined]
        self._server.daemon_threads = True

    @property
    def hits(self) -> list[str]:
        return self._server.hits  # type: ignore[attr-defined]

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self._server.server_address[1]}{path}"

    def serve(self, path: str, body: bytes, content_type: str, status: int = 200, length: bool = True) -> None:
        def route(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            if length:
                handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)

        self.routes[path] = route

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        def route(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(status)
            handler.send_header("Location", location)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        self.routes[path] = route

    def stream(self, path: str, chunk: bytes, count: int, declared_length: int | None = None, delay: float = 0) -> None:
        def route(handler: BaseHTTPRequestHandler) -> None:
            time.sleep(delay)
            handler.send_response(200)
            handler.send_header("Content-Type", "text/plain")
            if declared_length is not None:
                handler.send_header("Content-Length", str(declared_length))
            handler.end_headers()
            try:
                for _ in range(count):
                    handler.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading at its size cap, as it should

        self.routes[path] = route

    def start(self) -> None:
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def local_server(tls: ssl.SSLContext | None = None) -> Iterator[LocalServer]:
    server = LocalServer(tls)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def tiny_pdf(line: str) -> bytes:
    """A one-page PDF with one line of Helvetica text, written object by object."""
    content = f"BT /F1 18 Tf 72 700 Td ({line}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def self_signed_localhost(tmp_dir) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context, client context trusting it) for a certificate naming only "localhost"."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_dir / "cert.pem", tmp_dir / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_path, key_path)
    client = ssl.create_default_context(cafile=str(cert_path))
    return server, client
