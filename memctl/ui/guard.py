"""The page's doors: who may open it, and which form posts are its own.

Every request needs the vault's bearer token (memctl.http_auth, the MCP listeners' own:
loopback is open to every local user): an `Authorization` header, or the HttpOnly cookie
a first visit to `/?token=TOKEN` sets. On loopback the Host header must name loopback too
(a DNS-rebound name is refused). Every form carries a token signed for this process (one per rendered page, valid for
hours) and every post's Origin must be the page's own: a page on another site can
neither read these pages (no CORS) nor post to them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping
from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.1", "localhost", "::1")
COOKIE = "memctl_ui"
FORM_TOKEN_HOURS = 12
SECURITY_HEADERS = {
    # No script at all: the page is server-drawn HTML and SVG; forms post to itself only.
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    # same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on a post.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


class Guard:
    def __init__(self, *, host: str, port: int, token: str) -> None:
        if not token:
            raise ValueError("the page needs a token")
        self.host, self.port, self.token = host, port, token
        self._secret = secrets.token_bytes(32)
        where = f"[{host}]" if ":" in host else host
        self.origin = f"http://{where}:{port}"
        names = ("127.0.0.1", "localhost", "[::1]") if host in LOOPBACK else (where,)
        # On loopback the Host header is checked too: a DNS-rebound name is refused.
        self.hosts = {f"{name}:{port}" for name in names}
        self.origins = {f"http://{h}" for h in self.hosts}

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK

    def host_allowed(self, host_header: str) -> bool:
        return not self.loopback or host_header in self.hosts

    def authorised(self, headers: Mapping[str, str], cookies: Mapping[str, str]) -> bool:
        """The bearer token in the Authorization header, or in the page's cookie."""
        from memctl.http_auth import authorized

        return authorized(headers.get("authorization"), self.token) or self.token_matches(
            cookies.get(COOKIE, "")
        )

    def token_matches(self, value: str) -> bool:
        return hmac.compare_digest(value.encode("utf-8", "replace"), self.token.encode())

    # -- forms ------------------------------------------------------------------------

    def _sign(self, body: str) -> str:
        return hmac.new(self._secret, body.encode(), hashlib.sha256).hexdigest()[:32]

    def form_token(self) -> str:
        """A fresh token for one rendered page's forms."""
        body = f"{secrets.token_urlsafe(12)}.{int(time.time())}"
        return f"{body}.{self._sign(body)}"

    def form_token_valid(self, value: str, now: float | None = None) -> bool:
        body, _, signature = value.rpartition(".")
        stamp = body.rpartition(".")[2]
        if not body or not stamp.isdigit():
            return False
        if not hmac.compare_digest(signature.encode(), self._sign(body).encode()):
            return False
        age = (time.time() if now is None else now) - int(stamp)
        return 0 <= age <= FORM_TOKEN_HOURS * 3600

    def same_origin(self, headers: Mapping[str, str]) -> bool:
        """The post comes from this page: its Origin (else its Referer) is ours. A browser
        always sends one of them with a form post; a post without either is refused."""
        origin = headers.get("origin")
        if origin is None:
            referer = headers.get("referer")
            if referer is None:
                return False
            parts = urlsplit(referer)
            origin = f"{parts.scheme}://{parts.netloc}"
        if self.loopback:
            return origin in self.origins
        return origin == self.origin or origin == f"http://{headers.get('host', '')}"
