"""An MCP server, its OAuth authorization server and an identity provider
in one process, for signing in without a person (tests/mcp/grants.rs).
Python standard library plus PyJWT and cryptography (pinned in
.ci/sdk/requirements.txt; run with .ci/sdk/venv/bin/python).

  python grants_as.py --dir DIR [--expires-in SECONDS]

It writes into DIR the private keys of its pre-registered clients
(rs-client.pem RS256, es-client.pem ES256 as PKCS#8, es-client.jwk as a
private JWK) and records what it did in DIR/as.jsonl, one event a line
(never a secret). It prints `listening http://127.0.0.1:PORT/mcp`.

The authorization server (issuer http://127.0.0.1:PORT) verifies, and
refuses with the RFC 6749 error a real one would:
  client authentication  client_secret_basic (basic-client), client_secret_post
                         (post-client), private_key_jwt (rs-client, es-client:
                         signature with the client's key, iss = sub = the
                         client id, aud = the issuer, exp, a jti never seen);
                         enterprise-client authenticates with basic too
  client_credentials     an authenticated client; no-cc-client may not use
                         it (unauthorized_client)
  jwt-bearer             an assertion signed by the workload issuer (/mint/
                         workload) for aud = the issuer, not expired
                         (invalid_grant otherwise; sub
                         "unauthorized-workload" gets unauthorized_client),
                         or an ID-JAG of the identity provider (typ
                         oauth-id-jag+jwt, aud = the issuer, resource = the
                         MCP server, client_id = the authenticated client)
  every grant            resource = http://127.0.0.1:PORT/mcp exactly
                         (invalid_target), scopes among read and admin
                         (invalid_scope otherwise)
Access tokens last --expires-in seconds (default 3600); no refresh token.

The identity provider's token endpoint (/idp/token) takes the RFC 8693
exchange of an ID token (/mint/id-token: aud idp-client) for an ID-JAG,
its client idp-client authenticated with client_secret_basic.

The MCP endpoint (/mcp) takes a token of this server for its resource:
tools `whoami` (asks a reason with a form on the call's SSE stream, then
answers the subject, client and scopes of the token and the reason) and
`admin` (needs scope admin: HTTP 403 insufficient_scope otherwise).

/mint/workload?sub=S&aud=A&exp=SECONDS and /mint/id-token?sub=S&exp=SECONDS
answer a freshly signed JWT (negative exp: already expired): the tests'
stand-ins for a CI system's OIDC token and an identity provider's sign-in.
"""

import argparse
import base64
import json
import os
import secrets
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

p = argparse.ArgumentParser()
p.add_argument("--dir", required=True)
p.add_argument("--expires-in", type=int, default=3600)
ARGS = p.parse_args()

LOCK = threading.Lock()
TOKENS = {}  # access token -> {sub, client, scopes}
JTIS = set()
ANSWERS = {}  # elicitation id -> [threading.Event, answer]

SECRETS = {
    "basic-client": "basic-secret-Vq3xZ8",
    "post-client": "post-secret-Lm4pT2",
    "enterprise-client": "enterprise-secret-Rt7yU1",
    "no-cc-client": "nocc-secret-Hb9wQ5",
    "idp-client": "idp-secret-Kc2nM8",
}
SCOPES = {"read", "admin"}


def pem(key):
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def write(name, data):
    path = os.path.join(ARGS.dir, name)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, data if isinstance(data, bytes) else data.encode())
    os.close(fd)


RS_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ES_KEY = ec.generate_private_key(ec.SECP256R1())
CLIENT_KEYS = {"rs-client": (RS_KEY.public_key(), "RS256"),
               "es-client": (ES_KEY.public_key(), "ES256")}
write("rs-client.pem", pem(RS_KEY))
write("es-client.pem", pem(ES_KEY))
write("es-client.jwk", json.dumps(json.loads(jwt.algorithms.ECAlgorithm.to_jwk(ES_KEY))))
WORKLOAD_KEY = ec.generate_private_key(ec.SECP256R1())
IDP_KEY = ec.generate_private_key(ec.SECP256R1())
RECORD = os.path.join(ARGS.dir, "as.jsonl")


def record(event, **fields):
    with LOCK, open(RECORD, "a") as f:
        f.write(json.dumps(dict(event=event, **fields)) + "\n")


class Refused(Exception):
    def __init__(self, error, description, status=400):
        super().__init__(error)
        self.error, self.description, self.status = error, description, status


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def base(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

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
        q = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        base = self.base()
        if url.path == "/mcp":
            return self.send(405) if method == "GET" else self.mcp(body)
        if url.path == "/.well-known/oauth-protected-resource/mcp":
            return self.send(200, {"resource": f"{base}/mcp", "authorization_servers": [base],
                                   "scopes_supported": ["read"]})
        if url.path == "/.well-known/oauth-authorization-server":
            return self.send(200, {
                "issuer": base,
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": f"{base}/token",
                "grant_types_supported": ["client_credentials",
                                          "urn:ietf:params:oauth:grant-type:jwt-bearer"],
                "token_endpoint_auth_methods_supported": [
                    "client_secret_basic", "client_secret_post", "private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["RS256", "ES256"],
                "code_challenge_methods_supported": ["S256"],
                "scopes_supported": ["read", "admin"],
            })
        if url.path == "/mint/workload":
            return self.mint(WORKLOAD_KEY, f"{base}/workload-issuer", q.get("sub", "workload-1"),
                             q.get("aud", base), int(q.get("exp", "300")))
        if url.path == "/mint/id-token":
            return self.mint(IDP_KEY, f"{base}/idp", q.get("sub", "ada@example.com"),
                             "idp-client", int(q.get("exp", "300")))
        form = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode()).items()}
        try:
            if url.path == "/token" and method == "POST":
                return self.send(200, self.token(form))
            if url.path == "/idp/token" and method == "POST":
                return self.send(200, self.exchange(form))
        except Refused as r:
            record("refused", path=url.path, error=r.error, grant=form.get("grant_type"))
            return self.send(r.status, {"error": r.error, "error_description": r.description})
        return self.send(404, "not found", ctype="text/plain")

    def mint(self, key, iss, sub, aud, exp):
        now = int(time.time())
        claims = {"iss": iss, "sub": sub, "aud": aud, "iat": now, "exp": now + exp,
                  "jti": secrets.token_hex(8)}
        return self.send(200, jwt.encode(claims, key, algorithm="ES256"), ctype="text/plain")

    def client(self, form, allowed):
        """The authenticated client and the method it used."""
        auth = self.headers.get("Authorization") or ""
        if auth.startswith("Basic "):
            raw = base64.b64decode(auth[6:]).decode()
            cid, _, sec = raw.partition(":")
            cid, sec = urllib.parse.unquote_plus(cid), urllib.parse.unquote_plus(sec)
            method = "client_secret_basic"
        elif "client_assertion" in form:
            if form.get("client_assertion_type") != \
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
                raise Refused("invalid_client", "wrong client_assertion_type", 401)
            a = form["client_assertion"]
            try:
                cid = jwt.decode(a, options={"verify_signature": False})["iss"]
                key, alg = CLIENT_KEYS[cid]
                claims = jwt.decode(a, key, algorithms=[alg], audience=self.base(),
                                    options={"require": ["iss", "sub", "aud", "exp", "jti"]})
            except Exception as e:
                raise Refused("invalid_client", f"client assertion: {type(e).__name__}", 401)
            if claims["sub"] != cid or claims["jti"] in JTIS:
                raise Refused("invalid_client", "client assertion sub or jti", 401)
            JTIS.add(claims["jti"])
            return cid, "private_key_jwt", jwt.get_unverified_header(a)["alg"]
        elif "client_secret" in form:
            cid, sec, method = form.get("client_id"), form["client_secret"], "client_secret_post"
        else:
            return form.get("client_id"), "none", None
        if SECRETS.get(cid) != sec or cid not in allowed:
            raise Refused("invalid_client", "unknown client or wrong secret", 401)
        return cid, method, None

    def scopes(self, form):
        asked = form.get("scope", "").split()
        if any(s not in SCOPES for s in asked):
            raise Refused("invalid_scope", "scope not allowed for this client")
        return asked

    def token(self, form):
        base = self.base()
        grant = form.get("grant_type")
        if form.get("resource") != f"{base}/mcp":
            raise Refused("invalid_target", "resource is not this server's")
        clients = set(SECRETS) - {"idp-client"}
        cid, method, alg = self.client(form, clients)
        if grant == "client_credentials":
            if method == "none":
                raise Refused("invalid_client", "client authentication required", 401)
            if cid == "no-cc-client":
                raise Refused("unauthorized_client", "client may not use client_credentials")
            sub = cid
        elif grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            a = form.get("assertion", "")
            try:
                header = jwt.get_unverified_header(a)
                if header.get("typ") == "oauth-id-jag+jwt":
                    claims = jwt.decode(a, IDP_KEY.public_key(), algorithms=["ES256"],
                                        audience=base)
                    if claims.get("resource") != f"{base}/mcp" or claims.get("client_id") != cid:
                        raise Refused("invalid_grant", "ID-JAG resource or client_id")
                    grant = "id-jag"
                else:
                    claims = jwt.decode(a, WORKLOAD_KEY.public_key(), algorithms=["ES256"],
                                        audience=base)
            except jwt.ExpiredSignatureError:
                raise Refused("invalid_grant", "assertion expired")
            except jwt.InvalidAudienceError:
                raise Refused("invalid_grant", "assertion audience is not this server")
            except jwt.PyJWTError as e:
                raise Refused("invalid_grant", f"assertion: {type(e).__name__}")
            sub = claims["sub"]
            if sub == "unauthorized-workload":
                raise Refused("unauthorized_client", "workload may not use this grant")
        else:
            raise Refused("unsupported_grant_type", "no such grant here")
        scopes = self.scopes(form)
        token = "at-" + secrets.token_urlsafe(16)
        with LOCK:
            TOKENS[token] = {"sub": sub, "client": cid, "scopes": scopes}
        record("token", grant=grant, client=cid, method=method, alg=alg, sub=sub,
               scope=" ".join(scopes), resource=form.get("resource"))
        return {"access_token": token, "token_type": "Bearer", "expires_in": ARGS.expires_in,
                "scope": " ".join(scopes)}

    def exchange(self, form):
        base = self.base()
        cid, method, _ = self.client(form, {"idp-client"})
        if cid != "idp-client":
            raise Refused("invalid_client", "unknown client", 401)
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange":
            raise Refused("unsupported_grant_type", "token exchange only")
        if form.get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" or \
                form.get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token":
            raise Refused("invalid_request", "token types")
        try:
            claims = jwt.decode(form.get("subject_token", ""), IDP_KEY.public_key(),
                                algorithms=["ES256"], audience="idp-client")
        except jwt.PyJWTError as e:
            raise Refused("invalid_grant", f"ID token: {type(e).__name__}")
        now = int(time.time())
        jag = jwt.encode({"iss": f"{base}/idp", "sub": claims["sub"], "aud": form.get("audience"),
                          "resource": form.get("resource"), "client_id": "enterprise-client",
                          "iat": now, "exp": now + 300, "jti": secrets.token_hex(8)},
                         IDP_KEY, algorithm="ES256", headers={"typ": "oauth-id-jag+jwt"})
        record("exchange", client=cid, method=method, audience=form.get("audience"),
               resource=form.get("resource"), sub=claims["sub"])
        return {"access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "token_type": "N_A", "expires_in": 300}

    def mcp(self, body):
        base = self.base()
        auth = self.headers.get("Authorization") or ""
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else None
        with LOCK:
            t = TOKENS.get(token)
        if not t:
            rm = f"{base}/.well-known/oauth-protected-resource/mcp"
            challenge = f'Bearer error="invalid_token", resource_metadata="{rm}"'
            return self.send(401, {"error": "invalid_token"}, headers=[("WWW-Authenticate", challenge)])
        msg = json.loads(body or b"{}")
        if "id" not in msg:
            return self.send(202)
        if "method" not in msg:
            # The answer to an elicitation: handed to the call waiting for it.
            with LOCK:
                waiting = ANSWERS.get(msg["id"])
            if waiting:
                waiting[1] = msg.get("result")
                waiting[0].set()
            return self.send(202)
        m = msg.get("method")
        if m == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "grants-as", "version": "0"}}
        elif m == "tools/list":
            result = {"tools": [{"name": "whoami", "inputSchema": {"type": "object"}},
                                {"name": "admin", "inputSchema": {"type": "object"}}]}
        elif m == "tools/call":
            name = msg.get("params", {}).get("name")
            if name == "admin" and "admin" not in t["scopes"]:
                rm = f"{base}/.well-known/oauth-protected-resource/mcp"
                challenge = (f'Bearer error="insufficient_scope", scope="read admin", '
                             f'resource_metadata="{rm}"')
                record("insufficient_scope", client=t["client"])
                return self.send(403, {"error": "insufficient_scope"},
                                 headers=[("WWW-Authenticate", challenge)])
            text = f"{name}: sub={t['sub']} client={t['client']} scopes={' '.join(t['scopes'])}"
            if name == "whoami":
                return self.whoami(msg["id"], text)
            result = {"content": [{"type": "text", "text": text}]}
        else:
            err = {"code": -32601, "message": "Method not found"}
            return self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "error": err})
        return self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})


    def whoami(self, call_id, text):
        """Ask a reason (a form, on the call's SSE stream), then answer."""
        eid = "elicit-" + secrets.token_hex(4)
        waiting = [threading.Event(), None]
        with LOCK:
            ANSWERS[eid] = waiting
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        ask = {"jsonrpc": "2.0", "id": eid, "method": "elicitation/create", "params": {
            "message": "Why do you ask?",
            "requestedSchema": {"type": "object", "properties": {"reason": {"type": "string"}},
                                "required": ["reason"]}}}
        self.wfile.write(f"event: message\ndata: {json.dumps(ask)}\n\n".encode())
        self.wfile.flush()
        waiting[0].wait(60)
        answer = waiting[1] or {}
        reason = (answer.get("content") or {}).get("reason")
        done = {"jsonrpc": "2.0", "id": call_id,
                "result": {"content": [{"type": "text", "text": f"{text} reason={reason}"}]}}
        self.wfile.write(f"event: message\ndata: {json.dumps(done)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True


server = ThreadingHTTPServer(("127.0.0.1", 0), H)
server.daemon_threads = True
print(f"listening http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
sys.stdout.flush()
server.serve_forever()
