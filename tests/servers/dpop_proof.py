"""Checking DPoP proofs (RFC 9449 section 4.3) with the standard library
only, for tests/servers/hostile_as.py: the JWT's form, typ and alg, a
public jwk, the ES256 signature, jti (never twice), htm, htu, iat, the
server's nonce, and for a request to the resource the access token's hash
(ath) and the key it is bound to (its RFC 7638 thumbprint, jkt).

ES256 is ECDSA on P-256 with SHA-256 (FIPS 186-4; the curve of SEC 2):
verified here with the curve's arithmetic written out in affine
coordinates, which is slow (milliseconds a proof) and not constant time,
and fine for checking a test client's proofs.
"""

import base64
import hashlib
import json
import threading
import time

# P-256 (SEC 2, section 2.4.2): the field prime, the group order, the
# curve's b (a is -3) and the base point.
P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
G = (
    0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
    0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5,
)

# How far a proof's iat may be from now, in seconds.
IAT_WINDOW = 300

_SEEN = set()
_LOCK = threading.Lock()


class ProofError(Exception):
    """The proof is refused; the message says why."""


class NonceNeeded(ProofError):
    """The proof is good but does not carry the server's nonce."""


def _add(p, q):
    if p is None:
        return q
    if q is None:
        return p
    (x1, y1), (x2, y2) = p, q
    if x1 == x2:
        if (y1 + y2) % P == 0:
            return None
        slope = (3 * x1 * x1 - 3) * pow(2 * y1, -1, P) % P
    else:
        slope = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (slope * slope - x1 - x2) % P
    return (x3, (slope * (x1 - x3) - y1) % P)


def _mul(k, point):
    out = None
    while k:
        if k & 1:
            out = _add(out, point)
        point = _add(point, point)
        k >>= 1
    return out


def es256_verify(x, y, message, signature):
    """Whether the 64-byte signature (R || S) of message verifies with the
    public key (x, y)."""
    if not (0 <= x < P and 0 <= y < P) or (y * y - (x * x * x - 3 * x + B)) % P:
        return False
    if len(signature) != 64:
        return False
    r = int.from_bytes(signature[:32], "big")
    s = int.from_bytes(signature[32:], "big")
    if not (0 < r < N and 0 < s < N):
        return False
    e = int.from_bytes(hashlib.sha256(message).digest(), "big")
    w = pow(s, -1, N)
    point = _add(_mul(e * w % N, G), _mul(r * w % N, (x, y)))
    return point is not None and point[0] % N == r


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64e(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def thumbprint(jwk):
    """The RFC 7638 thumbprint of an EC public JWK."""
    members = {k: jwk[k] for k in ("crv", "kty", "x", "y")}
    text = json.dumps(members, separators=(",", ":"), sort_keys=True)
    return b64e(hashlib.sha256(text.encode()).digest())


def ath(token):
    return b64e(hashlib.sha256(token.encode("ascii")).digest())


def check(proof, htm, htu, nonce=None, token=None, jkt=None):
    """Check one proof for a request htm to htu; with nonce, it must carry
    it (NonceNeeded otherwise, checked last); with token, its ath must be
    the token's and, with jkt, its key the one the token is bound to.
    Returns the key's thumbprint and the claims."""
    if not proof:
        raise ProofError("no DPoP proof")
    if "," in proof:
        raise ProofError("more than one DPoP proof")
    parts = proof.split(".")
    if len(parts) != 3:
        raise ProofError("not a compact JWT")
    try:
        header = json.loads(b64d(parts[0]))
        claims = json.loads(b64d(parts[1]))
        signature = b64d(parts[2])
    except ValueError:
        raise ProofError("not a JWT")
    if header.get("typ") != "dpop+jwt":
        raise ProofError("typ is not dpop+jwt")
    if header.get("alg") != "ES256":
        raise ProofError("alg is not ES256")
    jwk = header.get("jwk")
    if not isinstance(jwk, dict) or jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise ProofError("no EC P-256 jwk")
    if "d" in jwk:
        raise ProofError("the jwk holds a private key")
    try:
        x = int.from_bytes(b64d(jwk["x"]), "big")
        y = int.from_bytes(b64d(jwk["y"]), "big")
    except (KeyError, ValueError):
        raise ProofError("the jwk has no x and y")
    if not es256_verify(x, y, f"{parts[0]}.{parts[1]}".encode(), signature):
        raise ProofError("the signature does not verify")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti:
        raise ProofError("no jti")
    if claims.get("htm") != htm:
        raise ProofError(f"htm is not {htm}")
    if claims.get("htu") != htu:
        raise ProofError(f"htu is not {htu}")
    iat = claims.get("iat")
    if not isinstance(iat, int) or abs(time.time() - iat) > IAT_WINDOW:
        raise ProofError("iat is not now")
    key = thumbprint(jwk)
    if token is not None:
        if claims.get("ath") != ath(token):
            raise ProofError("ath is not the access token's")
        if jkt is not None and key != jkt:
            raise ProofError("the key is not the one the token is bound to")
    elif "ath" in claims:
        raise ProofError("ath in a proof without a token")
    if nonce is not None and claims.get("nonce") != nonce:
        raise NonceNeeded("no nonce or an old one")
    with _LOCK:
        if jti in _SEEN:
            raise ProofError("jti seen before (a replayed proof)")
        _SEEN.add(jti)
    return key, claims
