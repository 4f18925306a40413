"""A small MCP server with its own OAuth authorization server, standard
library only, that misbehaves on purpose, for tests/mcp/hostile_auth.rs.

Every MCP endpoint is http://127.0.0.1:PORT/s/<scenario>/mcp; the scenario
also names its protected resource metadata (/prm/<scenario>) and its
authorization server (issuer http://127.0.0.1:PORT/as/<scenario>, metadata
at /.well-known/oauth-authorization-server/as/<scenario>), so one process
serves every case. The authorization server keeps its registered clients
and issued tokens in memory; POST /restart forgets them all, as a real one
does when it restarts. /authorize redirects at once (a stand-in browser
that follows redirects signs in), but refuses a client it does not know
with HTTP 400, as the TypeScript SDK's example does; the token endpoint
answers `invalid_client` for one.

Scenarios (anything else behaves):
  forgetful      a token it did not issue gets HTTP 500 from the MCP
                 endpoint (the TypeScript SDK's example after a restart)
  forgetful-norefresh  the same, and no refresh token is issued (as that
                 example does)
  lenient        /authorize takes any client id (only the token endpoint
                 checks it)
  token-ctl      the token endpoint refuses with control and bidi
                 characters in its error_description
  token-crlf     the access token issued holds CR LF
  token-huge     the token answer is over 1 MiB
  token-deep     the token answer is nested 100000 deep
  prm-deep       the resource metadata is nested 100000 deep
  prm-hang       the resource metadata never answers (until the client
                 gives up)
  rm-file        the challenge's resource_metadata is a file: URL
  rm-remote-http the challenge's resource_metadata is plain http to
                 another host
  authz-idn      the authorization endpoint is a look-alike IDN host, in
                 Unicode
  authz-userinfo the authorization endpoint has user info before its host
  authz-ctl      the authorization endpoint holds bidi and escape
                 characters
  revoke-500     the revocation endpoint fails with HTTP 500 (every
                 scenario advertises /revoke/<scenario>, which forgets the
                 token it is given)
  as-home        the resource metadata (at its well-known path too) names
                 an authorization server at http://127.0.0.1:PORT (this
                 machine), whatever host the server was asked as
  rm-home        the challenge's resource_metadata is at
                 http://127.0.0.1:PORT (this machine), whatever host the
                 server was asked as
  rm-nxdomain    the challenge's resource_metadata is at a host no name
                 lookup finds (https://metadata.invalid/prm)
  named-localhost the resource metadata calls the server
                 http://localhost:PORT/s/named-localhost/mcp
  reg-redirect   registration is refused with invalid_redirect_uri
  iss-mixup      the authorization server says it sends RFC 9207 `iss`,
                 and /authorize answers with another issuer's
  scope-header   a request with "Bearer given-token" (a token given with
                 --header) gets HTTP 403 insufficient_scope asking for
                 scope "admin"
  dpop           DPoP (RFC 9449): the metadata lists ES256 in
                 dpop_signing_alg_values_supported; the token endpoint
                 wants a valid proof (tests/servers/dpop_proof.py checks
                 it) and issues DPoP tokens bound to its key (a refresh
                 token too); the MCP endpoint wants "DPoP TOKEN" and a
                 proof with the token's ath, signed by that key; the
                 revocation endpoint checks a proof when one is sent;
                 challenges are DPoP ones
  dpop-nonce     dpop, and the authorization server (token and
                 revocation endpoints) wants its nonce "as-nonce-1"
                 (400 use_dpop_nonce), the MCP endpoint its own,
                 "rs-nonce-1" (401 DPoP error="use_dpop_nonce"), each
                 given in a DPoP-Nonce header
  dpop-stepup    dpop, and tools/call wants scope "admin" (403 DPoP
                 error="insufficient_scope" asking for "mcp admin")
  dpop-rs256     the metadata lists only RS256 for DPoP (bearer tokens)

As another machine: the server is also a forward proxy (CONNECT) to itself,
so a client with HTTP_PROXY=http://127.0.0.1:PORT (and NO_PROXY=127.0.0.1)
that asks http://any.host.test/s/<scenario>/mcp meets a server that is not
on this machine; every URL it publishes names the host it was asked as.

Answers that are not an MCP server's, at http://127.0.0.1:PORT/plain/<kind>
(no sign-in asked): html (HTTP 200, a web page), not-json (HTTP 200 JSON
that does not parse), not-rpc (HTTP 200 JSON that is not JSON-RPC), 500
(HTTP 500 with a line of text), missing-cap (HTTP 400 with a JSON-RPC
-32021 error and "id": null, naming the capability in its data); open answers as an MCP server that asks
for no sign-in (a JSON-RPC error). Any other path is HTTP 404 "not found".

With --record FILE, one JSON line per event: {"event": "register"},
{"event": "authorize", "known": bool}, {"event": "token", "grant": ...,
"outcome": ...}, {"event": "restart"}, {"event": "revoke", "hint": ...,
"known": bool, "client": ...}, {"event": "connect", "target":
"host:port"} for a tunnel asked of it as a proxy, and for every request
{"event": "request", "host": the Host header, "path": ..., "auth": whether
it carried an Authorization header, "dpop": whether it carried a DPoP
header}, and in the DPoP scenarios {"event": "dpop", "at": "token",
"mcp" or "revoke", "ok": bool, "why": why a proof was refused, "nonce":
the proof's nonce, "jkt": its key's thumbprint, "scheme": the
Authorization scheme}.

Usage: python3 hostile_as.py [--record FILE]; prints "listening
http://127.0.0.1:PORT" when ready.
"""

import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dpop_proof

RECORD = sys.argv[sys.argv.index("--record") + 1] if "--record" in sys.argv else None
LOCK = threading.Lock()
# bound: the key thumbprint a DPoP token (or refresh token) is bound to;
# scopes: what a token (or code, or refresh token) grants.
STATE = {"clients": set(), "tokens": set(), "refresh": set(), "n": 0,
         "bound": {}, "scopes": {}}
DPOP = ("dpop", "dpop-nonce", "dpop-stepup")
AS_NONCE, RS_NONCE = "as-nonce-1", "rs-nonce-1"


def record(event, **fields):
    if RECORD:
        with LOCK, open(RECORD, "a") as f:
            f.write(json.dumps(dict(event=event, **fields)) + "\n")


def fresh(prefix):
    with LOCK:
        STATE["n"] += 1
        return f"{prefix}{STATE['n']}"


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def home(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def base(self):
        host = self.headers.get("Host")
        return f"http://{host}" if host else self.home()

    def do_CONNECT(self):
        # A tunnel to this same server: the requests that follow on the
        # connection are served here, asked as the CONNECT's host.
        record("connect", target=self.path)
        self.send_response(200, "Connection established")
        self.end_headers()
        self.close_connection = False

    def send(self, code, body=b"", ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_DELETE(self):
        self.send(405)

    def route(self, method):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        url = urllib.parse.urlparse(self.path)
        parts = url.path.strip("/").split("/")
        record("request", host=self.headers.get("Host"), path=url.path,
               auth=bool(self.headers.get("Authorization")),
               dpop=bool(self.headers.get("DPoP")))
        if parts == ["restart"]:
            with LOCK:
                for k in ("clients", "tokens", "refresh", "bound", "scopes"):
                    STATE[k].clear()
            record("restart")
            return self.send(200, {})
        if len(parts) == 3 and parts[0] == "s" and parts[2] == "mcp":
            if method == "GET":
                return self.send(405)
            return self.mcp(parts[1], body)
        if len(parts) == 2 and parts[0] == "plain":
            return self.plain(parts[1], body)
        if len(parts) == 2 and parts[0] == "prm":
            return self.prm(parts[1])
        if parts[:4] == [".well-known", "oauth-protected-resource", "s", "as-home"]:
            return self.prm(parts[3])
        if parts[:2] == [".well-known", "oauth-authorization-server"] and len(parts) == 4:
            return self.send(200, self.as_metadata(parts[3]))
        if parts == ["register", "reg-redirect"]:
            record("register")
            return self.send(400, {"error": "invalid_redirect_uri",
                                   "error_description": "redirect URI not allowed"})
        if len(parts) == 2 and parts[0] == "register":
            cid = fresh("client-")
            with LOCK:
                STATE["clients"].add(cid)
            record("register")
            answer = json.loads(body or b"{}")
            answer.update(client_id=cid, token_endpoint_auth_method="none")
            return self.send(201, answer)
        if len(parts) == 2 and parts[0] == "authorize":
            return self.authorize(parts[1], urllib.parse.parse_qs(url.query))
        if len(parts) == 2 and parts[0] == "revoke":
            form = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode()).items()}
            token = form.get("token")
            if parts[1] in DPOP and self.headers.get("DPoP"):
                refused = self.proof_refused("revoke", parts[1], f"{self.base()}/revoke/{parts[1]}")
                if refused:
                    return refused()
            with LOCK:
                known = token in STATE["refresh"] or token in STATE["tokens"]
                STATE["refresh"].discard(token)
                STATE["tokens"].discard(token)
            record("revoke", hint=form.get("token_type_hint"), known=known,
                   client=form.get("client_id"))
            if parts[1] == "revoke-500":
                return self.send(500, {"error": "server_error"})
            return self.send(200, "")
        if len(parts) == 2 and parts[0] == "token":
            form = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode()).items()}
            return self.token(parts[1], form)
        return self.send(404, "not found", ctype="text/plain")

    def proof_refused(self, at, sc, htu, token=None, jkt=None):
        """Check the request's DPoP proof (see dpop_proof.check) with the
        nonce of this server when the scenario wants one. None when it is
        good; else the answer that refuses it, to send."""
        nonce = None
        if sc == "dpop-nonce":
            nonce = RS_NONCE if at == "mcp" else AS_NONCE
        try:
            key, claims = dpop_proof.check(self.headers.get("DPoP"), self.command, htu,
                                           nonce=nonce, token=token, jkt=jkt)
        except dpop_proof.NonceNeeded:
            record("dpop", at=at, ok=False, why="nonce")
            if at == "mcp":
                challenge = 'DPoP error="use_dpop_nonce", error_description="a nonce is needed", algs="ES256"'
                return lambda: self.send(401, {"error": "use_dpop_nonce"},
                                         headers=[("WWW-Authenticate", challenge), ("DPoP-Nonce", nonce)])
            return lambda: self.send(400, {"error": "use_dpop_nonce",
                                           "error_description": "a nonce is needed"},
                                     headers=[("DPoP-Nonce", nonce)])
        except dpop_proof.ProofError as e:
            why = str(e)
            record("dpop", at=at, ok=False, why=why)
            if at == "mcp":
                challenge = f'DPoP error="invalid_dpop_proof", error_description="{why}", algs="ES256"'
                return lambda: self.send(401, {"error": "invalid_dpop_proof"},
                                         headers=[("WWW-Authenticate", challenge)])
            return lambda: self.send(400, {"error": "invalid_dpop_proof", "error_description": why})
        scheme = (self.headers.get("Authorization") or " ").split(" ")[0]
        record("dpop", at=at, ok=True, nonce=claims.get("nonce"), jkt=key, scheme=scheme)
        self.proof_key = key
        return None

    def mcp(self, sc, body):
        auth = self.headers.get("Authorization") or ""
        scheme, _, token = auth.partition(" ")
        token = token if scheme in ("Bearer", "DPoP") and token else None
        with LOCK:
            known = token in STATE["tokens"]
            jkt = STATE["bound"].get(token)
            granted = STATE["scopes"].get(token, [])
        if known and jkt:
            # A DPoP-bound token: only with the DPoP scheme and a proof
            # signed with its key.
            if scheme != "DPoP":
                record("dpop", at="mcp", ok=False, why=f"a DPoP token sent as {scheme}")
                known = False
            else:
                refused = self.proof_refused("mcp", sc, f"{self.base()}/s/{sc}/mcp", token, jkt)
                if refused:
                    return refused()
        if token == "given-token" and sc == "scope-header":
            challenge = 'Bearer error="insufficient_scope", scope="admin"'
            return self.send(403, {"error": "insufficient_scope"}, headers=[("WWW-Authenticate", challenge)])
        if token and not known and sc in ("forgetful", "forgetful-norefresh"):
            return self.send(500, {"error": "server_error", "error_description": "Internal Server Error"})
        if not known:
            rm = f"{self.base()}/prm/{sc}"
            if sc == "rm-file":
                rm = "file:///etc/passwd"
            if sc == "rm-remote-http":
                rm = "http://metadata.example/prm"
            if sc == "rm-home":
                rm = f"{self.home()}/prm/{sc}"
            if sc == "rm-nxdomain":
                rm = "https://metadata.invalid/prm"
            challenge = f'Bearer error="invalid_token", resource_metadata="{rm}"'
            if sc in DPOP:
                challenge = f'DPoP error="invalid_token", algs="ES256", resource_metadata="{rm}"'
            return self.send(401, {"error": "invalid_token"}, headers=[("WWW-Authenticate", challenge)])
        msg = json.loads(body or b"{}")
        if sc == "dpop-stepup" and msg.get("method") == "tools/call" and "admin" not in granted:
            rm = f"{self.base()}/prm/{sc}"
            challenge = f'DPoP error="insufficient_scope", scope="mcp admin", algs="ES256", resource_metadata="{rm}"'
            return self.send(403, {"error": "insufficient_scope"},
                             headers=[("WWW-Authenticate", challenge)])
        if "id" not in msg:
            return self.send(202)
        m = msg.get("method")
        if m == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-as", "version": "0"},
            }
        elif m == "tools/list":
            result = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
        elif m == "tools/call":
            result = {"content": [{"type": "text", "text": "signed in"}]}
        else:
            err = {"code": -32601, "message": "Method not found"}
            return self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "error": err})
        return self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def plain(self, kind, body):
        if kind == "html":
            return self.send(200, "<!DOCTYPE html><title>Welcome</title>", ctype="text/html")
        if kind == "not-json":
            return self.send(200, "{not json")
        if kind == "not-rpc":
            return self.send(200, {"status": "ok"})
        if kind == "500":
            return self.send(500, "upstream timed out", ctype="text/plain")
        if kind == "missing-cap":
            err = {"code": -32021, "message": "Missing capability",
                   "data": {"requiredCapabilities": {"elicitation": {"form": {}}}}}
            return self.send(400, {"jsonrpc": "2.0", "id": None, "error": err})
        if kind == "open":
            msg = json.loads(body or b"{}")
            err = {"code": -32601, "message": "Method not found"}
            return self.send(200, {"jsonrpc": "2.0", "id": msg.get("id"), "error": err})
        return self.send(404, "not found", ctype="text/plain")

    def prm(self, sc):
        if sc == "prm-deep":
            return self.send(200, "[" * 100000 + "]" * 100000)
        if sc == "prm-hang":
            time.sleep(600)
            return
        issuer = f"{self.home() if sc == 'as-home' else self.base()}/as/{sc}"
        resource = f"{self.base()}/s/{sc}/mcp"
        if sc == "named-localhost":
            resource = f"http://localhost:{self.server.server_address[1]}/s/{sc}/mcp"
        return self.send(200, {
            "resource": resource,
            "authorization_servers": [issuer],
            "scopes_supported": ["mcp"],
        })

    def as_metadata(self, sc):
        b = self.base()
        d = {
            "issuer": f"{b}/as/{sc}",
            "authorization_endpoint": f"{b}/authorize/{sc}",
            "token_endpoint": f"{b}/token/{sc}",
            "registration_endpoint": f"{b}/register/{sc}",
            "revocation_endpoint": f"{b}/revoke/{sc}",
            "code_challenge_methods_supported": ["S256"],
            "response_types_supported": ["code"],
        }
        endpoint = {
            "authz-idn": "https://p\u0430ypal.com/authorize",
            "authz-userinfo": "https://accounts.example.com@evil.test/authorize",
            "authz-ctl": "https://evil.test/auth\u202eorize\x1b]8;;x\x07",
        }.get(sc)
        if endpoint:
            d["authorization_endpoint"] = endpoint
        if sc == "iss-mixup":
            d["authorization_response_iss_parameter_supported"] = True
        if sc in DPOP:
            d["dpop_signing_alg_values_supported"] = ["ES256"]
        if sc == "dpop-rs256":
            d["dpop_signing_alg_values_supported"] = ["RS256"]
        return d

    def authorize(self, sc, q):
        cid = q.get("client_id", [""])[0]
        with LOCK:
            known = cid in STATE["clients"]
        record("authorize", known=known)
        if not known and sc != "lenient":
            return self.send(400, {"error": "invalid_client", "error_description": "unknown client"})
        back = {"code": fresh("code-"), "state": q["state"][0]}
        with LOCK:
            STATE["scopes"][back["code"]] = q.get("scope", [""])[0].split()
        if sc == "iss-mixup":
            back["iss"] = "http://evil.example/as"
        loc = q["redirect_uri"][0] + "?" + urllib.parse.urlencode(back)
        return self.send(302, headers=[("Location", loc)])

    def token(self, sc, form):
        grant = form.get("grant_type")
        with LOCK:
            known = form.get("client_id") in STATE["clients"]
            renewable = form.get("refresh_token") in STATE["refresh"]
        if not known:
            record("token", grant=grant, outcome="invalid_client")
            return self.send(401, {"error": "invalid_client", "error_description": "unknown client"})
        if grant == "refresh_token" and not renewable:
            record("token", grant=grant, outcome="invalid_grant")
            return self.send(400, {"error": "invalid_grant"})
        self.proof_key = None
        if sc in DPOP:
            refused = self.proof_refused("token", sc, f"{self.base()}/token/{sc}")
            if refused:
                record("token", grant=grant, outcome="dpop")
                return refused()
            with LOCK:
                bound = STATE["bound"].get(form.get("refresh_token"))
            if grant == "refresh_token" and bound != self.proof_key:
                record("token", grant=grant, outcome="invalid_grant")
                return self.send(400, {"error": "invalid_grant",
                                       "error_description": "the refresh token is bound to another key"})
        if sc == "token-ctl":
            record("token", grant=grant, outcome="refused")
            desc = "\u202eoops\x1b[2J\x1b]0;title\x07"
            return self.send(400, {"error": "invalid_grant", "error_description": desc})
        if sc == "token-huge":
            return self.send(200, {"access_token": "A" * (2 * 1024 * 1024), "token_type": "Bearer"})
        if sc == "token-deep":
            return self.send(200, '{"a":' * 100000 + "1" + "}" * 100000)
        access, refresh = fresh("access-"), fresh("refresh-")
        if sc == "token-crlf":
            access = "abc\r\nX-Injected: 1"
        with LOCK:
            STATE["tokens"].add(access)
            STATE["refresh"].add(refresh)
            granted = STATE["scopes"].get(form.get("code") or form.get("refresh_token"), [])
            STATE["scopes"][access] = STATE["scopes"][refresh] = granted
            if self.proof_key:
                STATE["bound"][access] = STATE["bound"][refresh] = self.proof_key
        record("token", grant=grant, outcome="ok")
        token_type = "DPoP" if self.proof_key else "Bearer"
        answer = {"access_token": access, "token_type": token_type, "expires_in": 3600}
        if sc in DPOP:
            answer["scope"] = " ".join(granted)
        if sc != "forgetful-norefresh":
            answer["refresh_token"] = refresh
        return self.send(200, answer)


server = ThreadingHTTPServer(("127.0.0.1", 0), H)
server.daemon_threads = True
print(f"listening http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
