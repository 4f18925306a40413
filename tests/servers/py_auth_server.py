"""An MCP server protected by OAuth, with its own authorization server, both
written with the official Python SDK (`mcp` 2.3.0 from PyPI, pinned in
.ci/sdk/requirements.txt) for tests/mcp/python_auth.rs and
tests/mcp/signin_screen.rs: a second authorization server, written
independently of the TypeScript SDK's example, for refresh, rotation,
`invalid_grant`, short-lived tokens and step-up.

The authorization server is the SDK's `mcp.server.auth` (metadata, dynamic
client registration, /authorize, /token with PKCE and `resource`) over the
`OAuthAuthorizationServerProvider` below, which keeps everything in memory.
Its /authorize approves at once and redirects to the client's redirect URI
with `code`, `state` and `iss` (no page, no person): a stand-in browser
that follows redirects (.ci/mcp/follow-redirects.py) completes a sign-in.
The resource server is the SDK's Streamable HTTP app with `auth=` (bearer
tokens checked by the SDK's middleware; 401 with `resource_metadata`; the
protected resource metadata says `scopes_supported: ["read"]`). The SDK has
no per-tool scope, so a small ASGI gate in front of it answers a
`tools/call` whose token lacks the tool's scope with 403 and
`WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`.

Tools (each answers one text: JSON):
  whoami       needs `read`: {"scopes": [the token's scopes]}.
  admin_reset  needs `admin` too; asks a form first (`reason`, a required
               string, through the SDK's `Resolve`: `elicitation/create`
               at 2025-11-25, `input_required` at 2026-07-28):
               {"reset": true, "reason": ..., "scopes": [...]}.
  locked       always refused with insufficient_scope naming `read`,
               which every token has: a step-up that asks for nothing new.

Usage: python py_auth_server.py [--access-ttl SECONDS] [--rotate]
                                [--refresh-limit N] [--record FILE]
  --access-ttl   lifetime of access tokens (`expires_in`, and enforced);
                 default 3600.
  --rotate       every refresh issues a new refresh token; the old one is
                 refused from then on (`invalid_grant`).
  --refresh-limit N
                 refreshes after the Nth answer `invalid_grant` (0: every
                 refresh does); default: no limit.
  --record FILE  append one JSON line per authorization server event:
                 {"event": "authorize", "scope": ...},
                 {"event": "code"}, {"event": "refresh", "outcome":
                 "ok"|"reused"|"unknown"|"limit"}, {"event":
                 "insufficient_scope", "tool": ...}.
Serves http://127.0.0.1:<ephemeral>/mcp (the authorization server at the
same origin) and prints "listening http://127.0.0.1:<port>/mcp" on stdout
when ready.
"""

import argparse
import json
import secrets
import time
from typing import Annotated

from pydantic import BaseModel

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

# The scope each tool needs beyond the resource's `read`.
TOOL_SCOPES = {"admin_reset": "admin"}


class Provider:
    """An in-memory authorization server that approves every request."""

    def __init__(self, issuer: str, opts: argparse.Namespace):
        self.issuer = issuer
        self.opts = opts
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.spent: set[str] = set()
        self.refreshes = 0

    def record(self, **event) -> None:
        if self.opts.record:
            with open(self.opts.record, "a", encoding="utf-8") as f:
                f.write(json.dumps(event, sort_keys=True) + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.record(event="authorize", scope=" ".join(params.scopes or []))
        code = AuthorizationCode(
            code=secrets.token_urlsafe(32),
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state, iss=self.issuer)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str):
        return self.codes.get(code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull, code: AuthorizationCode):
        del self.codes[code.code]
        self.record(event="code")
        return self.issue(client.client_id, code.scopes, code.resource, None)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str):
        found = self.refresh.get(refresh_token)
        if found is None:
            self.record(event="refresh", outcome="reused" if refresh_token in self.spent else "unknown")
        return found

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes):
        if self.opts.refresh_limit is not None and self.refreshes >= self.opts.refresh_limit:
            self.record(event="refresh", outcome="limit")
            raise TokenError(error="invalid_grant", error_description="this sign-in can no longer be renewed")
        self.refreshes += 1
        self.record(event="refresh", outcome="ok")
        if self.opts.rotate:
            del self.refresh[refresh_token.token]
            self.spent.add(refresh_token.token)
            return self.issue(client.client_id, scopes, refresh_token.resource, None)
        return self.issue(client.client_id, scopes, refresh_token.resource, refresh_token.token)

    def issue(self, client_id: str, scopes: list[str], resource: str | None, refresh: str | None) -> OAuthToken:
        token = secrets.token_urlsafe(32)
        self.access[token] = AccessToken(
            token=token,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.opts.access_ttl,
            resource=resource,
        )
        if refresh is None:
            refresh = secrets.token_urlsafe(32)
            self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=token,
            expires_in=self.opts.access_ttl,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


class ScopeGate:
    """ASGI: a `tools/call` whose (valid) token lacks the tool's scope gets
    403 insufficient_scope naming that scope; `locked` always does, naming
    `read`. Everything else, and every request without a valid token (the
    SDK answers 401), passes through unchanged."""

    def __init__(self, app, provider: Provider, metadata_url: str):
        self.app, self.provider, self.metadata_url = app, provider, metadata_url

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/mcp":
            return await self.app(scope, receive, send)
        messages, body = [], b""
        while True:
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            if message["type"] != "http.request" or not message.get("more_body"):
                break

        async def replay():
            return messages.pop(0) if messages else await receive()

        needed = await self.needed_scope(scope, body)
        if needed is None:
            return await self.app(scope, replay, send)
        tool, want = needed
        self.provider.record(event="insufficient_scope", tool=tool)
        challenge = (
            f'Bearer error="insufficient_scope", scope="{want}", '
            f'resource_metadata="{self.metadata_url}", error_description="{tool} needs {want}"'
        )
        payload = json.dumps({"error": "insufficient_scope", "error_description": f"{tool} needs {want}"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", challenge.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    async def needed_scope(self, scope, body: bytes):
        """(tool, scope) when this request must be refused, else None."""
        try:
            msg = json.loads(body)
            tool = msg["params"]["name"] if msg.get("method") == "tools/call" else None
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        header = dict(scope["headers"]).get(b"authorization", b"").decode()
        token = await self.provider.load_access_token(header[7:]) if header[:7].lower() == "bearer " else None
        if tool is None or token is None or token.expires_at < time.time():
            return None
        if tool == "locked":
            return tool, "read"
        want = TOOL_SCOPES.get(tool)
        return (tool, want) if want and want not in token.scopes else None


class Confirm(BaseModel):
    reason: str


def ask_confirm() -> Elicit[Confirm]:
    return Elicit("Why reset?", Confirm)


def token_scopes() -> list[str]:
    token = get_access_token()
    return sorted(token.scopes) if token else []


def main() -> None:
    from serve_http import local_socket, serve

    parser = argparse.ArgumentParser()
    parser.add_argument("--access-ttl", type=int, default=3600)
    parser.add_argument("--rotate", action="store_true")
    parser.add_argument("--refresh-limit", type=int, default=None)
    parser.add_argument("--record")
    opts = parser.parse_args()

    sock, port = local_socket()
    origin = f"http://127.0.0.1:{port}"
    provider = Provider(origin, opts)
    server = MCPServer(
        "py-auth",
        version="1.0.0",
        log_level="WARNING",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=origin,
            resource_server_url=f"{origin}/mcp",
            validate_token_resource=True,
            required_scopes=["read"],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=["read", "admin"], default_scopes=["read", "admin"]
            ),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """The scopes of the token this call came with."""
        return json.dumps({"scopes": token_scopes()})

    @server.tool()
    async def admin_reset(confirm: Annotated[ElicitationResult[Confirm], Resolve(ask_confirm)]) -> str:
        """Needs the `admin` scope; asks why first."""
        reason = confirm.data.reason if isinstance(confirm, AcceptedElicitation) else None
        return json.dumps({"reset": True, "reason": reason, "scopes": token_scopes()})

    @server.tool()
    def locked() -> str:
        """Always refused for lack of a scope the token already has."""
        return json.dumps({"unreachable": True})

    app = ScopeGate(
        server.streamable_http_app(), provider, f"{origin}/.well-known/oauth-protected-resource/mcp"
    )
    serve(app, sock, f"{origin}/mcp")


if __name__ == "__main__":
    main()
