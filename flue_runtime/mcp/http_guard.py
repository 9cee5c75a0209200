"""Who may talk to `flue-skills mcp --http`: the server's own `Host`/`Origin`, and a bearer token when one is set.

A server on a loopback address is still reachable from any web page the user opens: the page's
script can point a host name it controls at 127.0.0.1 (DNS rebinding) and send requests whose
`Host` is that name. So on a loopback bind only the server's own `host:port` is accepted as
`Host`, and as `Origin` when a request carries one (the MCP SDK's own check, with the exact port,
applied to every request before the app sees it). A non-loopback bind is refused unless asked
for with `--allow-remote`, and then a token is required (`FLUE_SKILLS_MCP_TOKEN`): every request
must carry `Authorization: Bearer <token>`. A token set for a loopback server is required too.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Guard", "MIN_TOKEN", "TOKEN_ENV", "bind_problem", "is_loopback", "is_wildcard"]


TOKEN_ENV = "FLUE_SKILLS_MCP_TOKEN"
#: A shorter token is refused: it could be guessed.
MIN_TOKEN = 16


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """0.0.0.0 or ::: every interface, so no one address the clients use."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def bind_problem(host: str, allow_remote: bool, environ: Mapping[str, str]) -> str:
    """Why `--http HOST:...` may not serve as asked ("" when it may)."""
    token = environ.get(TOKEN_ENV)
    if token is not None and len(token) < MIN_TOKEN:
        return f"{TOKEN_ENV} holds {len(token)} characters; use a random token of at least {MIN_TOKEN}"
    if is_loopback(host):
        return ""
    if not allow_remote:
        return (
            f"{host} is not a loopback address: other machines could reach the server; to serve them, pass "
            f"--allow-remote and set {TOKEN_ENV} to a random token that every client sends as "
            "`Authorization: Bearer <token>`"
        )
    if not token:
        return f"--allow-remote needs a token: set {TOKEN_ENV} to a random token of at least {MIN_TOKEN} characters"
    return ""


def _authority(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(frozen=True)
class Guard:
    """The checks every request meets before the MCP app sees it."""

    security: TransportSecuritySettings
    token: str | None

    @classmethod
    def of(cls, host: str, bound: str, port: int, environ: Mapping[str, str]) -> Guard:
        """For a server asked to listen on `host` (as given), bound to address `bound`, on `port`."""
        from mcp.server.transport_security import TransportSecuritySettings

        token = environ.get(TOKEN_ENV) or None
        if is_wildcard(host):  # no one `Host` to hold requests to; the token is the guard (bind_problem)
            return cls(TransportSecuritySettings(enable_dns_rebinding_protection=False), token)
        hosts = [_authority(name, port) for name in dict.fromkeys([host, bound])]
        if port == 80:
            hosts += [name.rpartition(":")[0] for name in hosts]
        origins = [f"http://{name}" for name in hosts]
        return cls(TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins), token)

    def wrap(self, app: ASGIApp) -> ASGIApp:
        return _Guarded(app, self)


class _Guarded:
    """The ASGI app behind the guard: `Host`/`Origin` by the SDK's check (421, 403), then the token (401)."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        from mcp.server.transport_security import TransportSecurityMiddleware

        self.app = app
        self.guard = guard
        self.check = TransportSecurityMiddleware(guard.security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            from starlette.requests import Request
            from starlette.responses import Response

            request = Request(scope)
            refused: Any = await self.check.validate_request(request, is_post=False)  # content type: the app's
            if refused is None and self.guard.token is not None:
                given = request.headers.get("authorization", "")
                if not hmac.compare_digest(given.encode(), f"Bearer {self.guard.token}".encode()):
                    refused = Response(
                        "Unauthorized: send Authorization: Bearer <token>",
                        status_code=401,
                        headers={"WWW-Authenticate": "Bearer"},
                    )
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)
