//! Signed JSON Web Tokens (RFC 7515 compact serialization, RFC 7519
//! claims) with the keys a sign-in uses: ES256 (ECDSA on P-256 with
//! SHA-256, RFC 7518 §3.4) and RS256 (RSASSA-PKCS1-v1_5 with SHA-256,
//! RFC 7518 §3.3), signed with `ring`.
//!
//! [`SigningKey`] is a private key: made fresh from the operating system's
//! generator ([`SigningKey::generate_es256`], kept as a PKCS#8 document so
//! it can be stored and read back with [`SigningKey::from_pkcs8_der`]), or
//! read from a key file ([`SigningKey::from_text`]: PEM or a private JWK).
//! It gives its public JWK ([`SigningKey::public_jwk`]), its RFC 7638
//! thumbprint ([`SigningKey::thumbprint`], [`jwk_thumbprint`]) and compact JWTs
//! ([`SigningKey::sign`]). Its `Debug` shows the algorithm and the
//! thumbprint, never the private key, and no [`JoseError`] quotes key
//! bytes.

use std::fmt;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{
    self, EcdsaKeyPair, KeyPair as _, RsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING,
};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The command that makes a key this module reads (an ES256 key in a
/// PKCS#8 PEM file), quoted in the errors that ask for another key.
pub const MAKE_KEY: &str =
    "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out key.pem";

/// Why a key cannot be read or used, or a JWT cannot be signed: one
/// sentence naming what is wrong and, where there is one, the way out.
/// Never a byte of the key.
#[derive(Debug, thiserror::Error)]
pub enum JoseError {
    /// The text is neither a PEM file nor a JSON object (a JWK).
    #[error("the key is neither PEM (-----BEGIN PRIVATE KEY-----) nor a JSON Web Key (a JSON object); make one with `{MAKE_KEY}`")]
    NotAKey,
    /// A PEM file with no block that holds a private key; `found` names the
    /// blocks it has (`CERTIFICATE`, `PUBLIC KEY`, ...), if any.
    #[error("the PEM file holds no private key (found: {found}); it needs a PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY block")]
    NoPrivateKey {
        /// The labels of the PEM blocks found, comma-separated, or `none`.
        found: String,
    },
    /// A PEM block is not closed by its `-----END ...-----` line.
    #[error("the PEM block {label} has no -----END {label}----- line")]
    UnclosedPem {
        /// The block's label.
        label: String,
    },
    /// A PEM block whose body is not base64.
    #[error("the PEM block {label} is not valid base64")]
    PemBase64 {
        /// The block's label.
        label: String,
    },
    /// The private key is encrypted with a passphrase.
    #[error("the private key is encrypted with a passphrase, which is not supported; write it decrypted (kept owner-only) with `openssl pkey -in KEY -out KEY.pem`")]
    Encrypted,
    /// A key of a type or curve that cannot sign here.
    #[error("the key is {what}, which cannot sign here: only EC P-256 (ES256) and RSA of 2048 bits or more (RS256) can; make one with `{MAKE_KEY}`")]
    UnsupportedKey {
        /// What it is: `an Ed25519 key`, `an EC key on another curve`, ...
        what: String,
    },
    /// The key's DER structure is not what its label says.
    #[error("the {what} is malformed: {reason}; convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pem`")]
    Malformed {
        /// Which structure: `PKCS#8 key`, `EC PRIVATE KEY`, ...
        what: &'static str,
        /// What is wrong, as `ring` or the reader says it (never key data).
        reason: &'static str,
    },
    /// A JWK member is missing or is not what it must be.
    #[error("the JSON Web Key's \"{member}\" {problem}")]
    Jwk {
        /// The member: `kty`, `crv`, `x`, `d`, ...
        member: &'static str,
        /// What is wrong: `is missing`, `is not base64url`, ...
        problem: &'static str,
    },
    /// A public JWK where a private one is needed.
    #[error(
        "the JSON Web Key is a public key (it has no \"d\"): the private key is needed to sign"
    )]
    PublicJwk,
    /// An algorithm other than ES256 and RS256.
    #[error("the signing algorithm \"{0}\" is not supported: use ES256 or RS256")]
    UnsupportedAlg(String),
    /// An algorithm that does not go with the key.
    #[error("{alg} needs {needs} key, but the key is {is}")]
    AlgMismatch {
        /// The algorithm asked for.
        alg: Alg,
        /// The key it needs: `an EC P-256`, `an RSA`.
        needs: &'static str,
        /// The key given: `an EC P-256 key`, `an RSA key`.
        is: &'static str,
    },
    /// The operating system's random generator or the signer failed.
    #[error("signing failed (the system's random generator or the signer)")]
    Sign,
}

/// A JWS signing algorithm (RFC 7518 §3.1) this module signs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alg {
    /// ECDSA using P-256 and SHA-256.
    Es256,
    /// RSASSA-PKCS1-v1_5 using SHA-256.
    Rs256,
}

impl Alg {
    /// Its JOSE name: `ES256`, `RS256`.
    pub fn as_str(self) -> &'static str {
        match self {
            Alg::Es256 => "ES256",
            Alg::Rs256 => "RS256",
        }
    }

    /// The algorithm a JOSE name names (exact, case-sensitive as RFC 7518
    /// has it). Errors: another name ([`JoseError::UnsupportedAlg`]).
    pub fn parse(name: &str) -> Result<Alg, JoseError> {
        match name {
            "ES256" => Ok(Alg::Es256),
            "RS256" => Ok(Alg::Rs256),
            other => Err(JoseError::UnsupportedAlg(
                other.chars().take(40).collect::<String>(),
            )),
        }
    }
}

impl fmt::Display for Alg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The JOSE header members a caller chooses; `alg` is the key's.
#[derive(Debug, Clone, Default)]
pub struct Header<'a> {
    /// `typ`: `dpop+jwt` for a DPoP proof, `JWT` for a client assertion;
    /// none when `None`.
    pub typ: Option<&'a str>,
    /// `kid`, the key's identifier at the authorization server.
    pub kid: Option<&'a str>,
    /// Whether the public key goes in the header as `jwk` (a DPoP proof).
    pub jwk: bool,
}

enum Pair {
    Ec(EcdsaKeyPair),
    Rsa(RsaKeyPair),
}

/// A private key that signs JWTs, with the algorithm it signs with.
pub struct SigningKey {
    pair: Pair,
    alg: Alg,
    /// The PKCS#8 document, when the key was made here or read from one:
    /// what [`SigningKey::pkcs8_der`] gives to store.
    pkcs8: Option<Vec<u8>>,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("alg", &self.alg)
            .field("thumbprint", &self.thumbprint())
            .finish_non_exhaustive()
    }
}

// DER object identifiers, with their tag and length.
const OID_EC_PUBLIC_KEY: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_P256: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const OID_RSA: &[u8] = &[
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
];
const OID_ED25519: &[u8] = &[0x06, 0x03, 0x2b, 0x65, 0x70];

impl SigningKey {
    /// A new ES256 key pair from the operating system's generator.
    ///
    /// Errors: the generator failed ([`JoseError::Sign`]).
    pub fn generate_es256() -> Result<SigningKey, JoseError> {
        let rng = SystemRandom::new();
        let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| JoseError::Sign)?;
        SigningKey::from_pkcs8_der(doc.as_ref())
    }

    /// A key from a PKCS#8 (RFC 5958 v1, unencrypted) DER document: EC
    /// P-256 (ES256) or RSA (RS256).
    ///
    /// Errors: another key type or curve ([`JoseError::UnsupportedKey`]),
    /// a document `ring` refuses ([`JoseError::Malformed`]).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<SigningKey, JoseError> {
        let (oid, params) = pkcs8_algorithm(der).ok_or(JoseError::Malformed {
            what: "PKCS#8 key",
            reason: "not a PKCS#8 PrivateKeyInfo",
        })?;
        let pair = if oid == OID_EC_PUBLIC_KEY {
            if params != OID_P256 {
                return Err(JoseError::UnsupportedKey {
                    what: "an EC key on a curve other than P-256".into(),
                });
            }
            Pair::Ec(
                EcdsaKeyPair::from_pkcs8(
                    &ECDSA_P256_SHA256_FIXED_SIGNING,
                    der,
                    &SystemRandom::new(),
                )
                .map_err(|e| rejected("PKCS#8 key", e))?,
            )
        } else if oid == OID_RSA {
            Pair::Rsa(RsaKeyPair::from_pkcs8(der).map_err(|e| rejected("PKCS#8 key", e))?)
        } else if oid == OID_ED25519 {
            return Err(JoseError::UnsupportedKey {
                what: "an Ed25519 key".into(),
            });
        } else {
            return Err(JoseError::UnsupportedKey {
                what: "neither EC nor RSA".into(),
            });
        };
        Ok(SigningKey::new(pair, Some(der.to_vec())))
    }

    /// A key from the text of a key file: PEM (a `PRIVATE KEY` block,
    /// PKCS#8; `EC PRIVATE KEY`, SEC 1; `RSA PRIVATE KEY`, PKCS#1) or a
    /// private JSON Web Key (RFC 7517: `kty` `EC` with `crv` `P-256`, `x`,
    /// `y`, `d`; or `kty` `RSA` with `n`, `e`, `d`, `p`, `q`, `dp`, `dq`,
    /// `qi`). Its algorithm is the key type's (ES256 for EC, RS256 for
    /// RSA), or a JWK's `alg` when it has one.
    ///
    /// Errors: see [`JoseError`]; none quotes the text.
    pub fn from_text(text: &str) -> Result<SigningKey, JoseError> {
        let t = text.trim_start_matches('\u{feff}').trim();
        if t.starts_with('{') {
            let v: Value = serde_json::from_str(t).map_err(|_| JoseError::NotAKey)?;
            return SigningKey::from_jwk(&v);
        }
        if t.contains("-----BEGIN ") {
            return SigningKey::from_pem(t);
        }
        Err(JoseError::NotAKey)
    }

    /// A key from PEM text: the first block holding a private key (see
    /// [`SigningKey::from_text`]).
    ///
    /// Errors: no such block, an encrypted key, a block that is not
    /// base64 or not the key its label says (see [`JoseError`]).
    pub fn from_pem(text: &str) -> Result<SigningKey, JoseError> {
        let blocks = pem_blocks(text)?;
        for b in &blocks {
            if b.encrypted {
                return Err(JoseError::Encrypted);
            }
            let der = || {
                STANDARD
                    .decode(b.body.as_bytes())
                    .map_err(|_| JoseError::PemBase64 {
                        label: b.label.clone(),
                    })
            };
            match b.label.as_str() {
                "PRIVATE KEY" => return SigningKey::from_pkcs8_der(&der()?),
                "ENCRYPTED PRIVATE KEY" => return Err(JoseError::Encrypted),
                "EC PRIVATE KEY" => return SigningKey::from_sec1_der(&der()?),
                "RSA PRIVATE KEY" => {
                    let pair = RsaKeyPair::from_der(&der()?)
                        .map_err(|e| rejected("RSA PRIVATE KEY", e))?;
                    return Ok(SigningKey::new(Pair::Rsa(pair), None));
                }
                "OPENSSH PRIVATE KEY" => {
                    return Err(JoseError::UnsupportedKey {
                        what: "an OpenSSH key (convert it with `ssh-keygen -p -m PKCS8 -f KEY`)"
                            .into(),
                    })
                }
                _ => {}
            }
        }
        let found = if blocks.is_empty() {
            "none".to_string()
        } else {
            blocks
                .iter()
                .map(|b| b.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        Err(JoseError::NoPrivateKey { found })
    }

    /// A key from a SEC 1 `ECPrivateKey` (RFC 5915), as `openssl ecparam
    /// -genkey` writes it: wrapped in PKCS#8 for `ring`.
    fn from_sec1_der(sec1: &[u8]) -> Result<SigningKey, JoseError> {
        let mut alg_id = Vec::new();
        alg_id.extend_from_slice(OID_EC_PUBLIC_KEY);
        alg_id.extend_from_slice(OID_P256);
        let mut body = vec![0x02, 0x01, 0x00]; // version 0
        body.extend(der_tlv(0x30, &alg_id));
        body.extend(der_tlv(0x04, sec1));
        let pkcs8 = der_tlv(0x30, &body);
        let pair = EcdsaKeyPair::from_pkcs8(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            &pkcs8,
            &SystemRandom::new(),
        )
        .map_err(|e| match reason(&e) {
            // The curve in the SEC 1 parameters is not P-256.
            WRONG_ALGORITHM => JoseError::UnsupportedKey {
                what: "an EC key on a curve other than P-256".into(),
            },
            _ => rejected("EC PRIVATE KEY", e),
        })?;
        Ok(SigningKey::new(Pair::Ec(pair), Some(pkcs8)))
    }

    /// A key from a private JSON Web Key (see [`SigningKey::from_text`]);
    /// its `alg`, when present, must be ES256 or RS256 and go with `kty`.
    ///
    /// Errors: not an object, a member missing or not base64url, a public
    /// key, another `kty` or curve, a key `ring` refuses (see
    /// [`JoseError`]).
    pub fn from_jwk(jwk: &Value) -> Result<SigningKey, JoseError> {
        let o = jwk.as_object().ok_or(JoseError::NotAKey)?;
        let kty = o.get("kty").and_then(Value::as_str).ok_or(JoseError::Jwk {
            member: "kty",
            problem: "is missing",
        })?;
        if !o.contains_key("d") {
            return Err(JoseError::PublicJwk);
        }
        let key = match kty {
            "EC" => {
                match o.get("crv").and_then(Value::as_str) {
                    Some("P-256") => {}
                    Some(_) => {
                        return Err(JoseError::UnsupportedKey {
                            what: "an EC key on a curve other than P-256".into(),
                        })
                    }
                    None => {
                        return Err(JoseError::Jwk {
                            member: "crv",
                            problem: "is missing",
                        })
                    }
                }
                let x = b64_member(o, "x", Some(32))?;
                let y = b64_member(o, "y", Some(32))?;
                let d = b64_member(o, "d", Some(32))?;
                let mut point = Vec::with_capacity(65);
                point.push(0x04);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                let pair = EcdsaKeyPair::from_private_key_and_public_key(
                    &ECDSA_P256_SHA256_FIXED_SIGNING,
                    &d,
                    &point,
                    &SystemRandom::new(),
                )
                .map_err(|e| rejected("EC JSON Web Key", e))?;
                SigningKey::new(Pair::Ec(pair), None)
            }
            "RSA" => {
                if o.contains_key("oth") {
                    return Err(JoseError::UnsupportedKey {
                        what: "a multi-prime RSA key".into(),
                    });
                }
                let c = ring::rsa::KeyPairComponents {
                    public_key: ring::rsa::PublicKeyComponents {
                        n: b64_member(o, "n", None)?,
                        e: b64_member(o, "e", None)?,
                    },
                    d: b64_member(o, "d", None)?,
                    p: b64_member(o, "p", None)?,
                    q: b64_member(o, "q", None)?,
                    dP: b64_member(o, "dp", None)?,
                    dQ: b64_member(o, "dq", None)?,
                    qInv: b64_member(o, "qi", None)?,
                };
                let pair =
                    RsaKeyPair::from_components(&c).map_err(|e| rejected("RSA JSON Web Key", e))?;
                SigningKey::new(Pair::Rsa(pair), None)
            }
            "OKP" => {
                return Err(JoseError::UnsupportedKey {
                    what: "an OKP (Ed25519 or X25519) key".into(),
                })
            }
            _ => {
                return Err(JoseError::Jwk {
                    member: "kty",
                    problem: "is neither EC nor RSA",
                })
            }
        };
        match o.get("alg") {
            None => Ok(key),
            Some(Value::String(a)) => key.with_alg(Alg::parse(a)?),
            Some(_) => Err(JoseError::Jwk {
                member: "alg",
                problem: "is not a string",
            }),
        }
    }

    fn new(pair: Pair, pkcs8: Option<Vec<u8>>) -> SigningKey {
        let alg = match pair {
            Pair::Ec(_) => Alg::Es256,
            Pair::Rsa(_) => Alg::Rs256,
        };
        SigningKey { pair, alg, pkcs8 }
    }

    /// The key signing with `alg`, which must go with it (ES256 with an
    /// EC P-256 key, RS256 with an RSA key).
    ///
    /// Errors: they do not go together ([`JoseError::AlgMismatch`]).
    pub fn with_alg(mut self, alg: Alg) -> Result<SigningKey, JoseError> {
        let (ok, is) = match (&self.pair, alg) {
            (Pair::Ec(_), Alg::Es256) | (Pair::Rsa(_), Alg::Rs256) => (true, ""),
            (Pair::Ec(_), _) => (false, "an EC P-256 key"),
            (Pair::Rsa(_), _) => (false, "an RSA key"),
        };
        if !ok {
            let needs = match alg {
                Alg::Es256 => "an EC P-256",
                Alg::Rs256 => "an RSA",
            };
            return Err(JoseError::AlgMismatch { alg, needs, is });
        }
        self.alg = alg;
        Ok(self)
    }

    /// The algorithm it signs with.
    pub fn alg(&self) -> Alg {
        self.alg
    }

    /// The PKCS#8 DER document of a key made here or read from PKCS#8 or
    /// SEC 1 (what a store keeps); `None` for one read from PKCS#1 or a
    /// JWK. Secret: never to be printed or logged.
    pub fn pkcs8_der(&self) -> Option<&[u8]> {
        self.pkcs8.as_deref()
    }

    /// The public key as a JWK with only its required members (RFC 7518
    /// §6.2.1 and §6.3.1): `kty`, `crv`, `x`, `y` for EC; `kty`, `n`, `e`
    /// for RSA; base64url without padding.
    pub fn public_jwk(&self) -> Map<String, Value> {
        let mut m = Map::new();
        match &self.pair {
            Pair::Ec(p) => {
                // The uncompressed point: 0x04, x (32 bytes), y (32 bytes).
                let point = p.public_key().as_ref();
                m.insert("kty".into(), "EC".into());
                m.insert("crv".into(), "P-256".into());
                m.insert("x".into(), URL_SAFE_NO_PAD.encode(&point[1..33]).into());
                m.insert("y".into(), URL_SAFE_NO_PAD.encode(&point[33..65]).into());
            }
            Pair::Rsa(p) => {
                let c = signature::RsaPublicKeyComponents::<Vec<u8>>::from(p.public());
                m.insert("kty".into(), "RSA".into());
                m.insert("n".into(), URL_SAFE_NO_PAD.encode(&c.n).into());
                m.insert("e".into(), URL_SAFE_NO_PAD.encode(&c.e).into());
            }
        }
        m
    }

    /// The RFC 7638 JWK thumbprint of its public key (SHA-256,
    /// base64url): DPoP's `jkt`.
    pub fn thumbprint(&self) -> String {
        jwk_thumbprint(&self.public_jwk()).unwrap_or_default()
    }

    /// A compact JWT: `base64url(header).base64url(claims).base64url(sig)`,
    /// the header holding `alg` (the key's), then `typ`, `kid` and `jwk`
    /// as `header` asks; `claims` is serialized as given.
    ///
    /// Errors: the signer or the random generator failed
    /// ([`JoseError::Sign`]).
    pub fn sign(&self, header: &Header<'_>, claims: &Value) -> Result<String, JoseError> {
        let mut h = Map::new();
        h.insert("alg".into(), self.alg.as_str().into());
        if let Some(t) = header.typ {
            h.insert("typ".into(), t.into());
        }
        if let Some(k) = header.kid {
            h.insert("kid".into(), k.into());
        }
        if header.jwk {
            h.insert("jwk".into(), Value::Object(self.public_jwk()));
        }
        let mut input = URL_SAFE_NO_PAD.encode(Value::Object(h).to_string());
        input.push('.');
        input.push_str(&URL_SAFE_NO_PAD.encode(claims.to_string()));
        let rng = SystemRandom::new();
        let sig = match &self.pair {
            Pair::Ec(p) => p
                .sign(&rng, input.as_bytes())
                .map_err(|_| JoseError::Sign)?
                .as_ref()
                .to_vec(),
            Pair::Rsa(p) => {
                let mut sig = vec![0u8; p.public().modulus_len()];
                p.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &rng,
                    input.as_bytes(),
                    &mut sig,
                )
                .map_err(|_| JoseError::Sign)?;
                sig
            }
        };
        input.push('.');
        input.push_str(&URL_SAFE_NO_PAD.encode(sig));
        Ok(input)
    }
}

/// The RFC 7638 thumbprint of a public JWK: SHA-256 over its required
/// members (EC: `crv`, `kty`, `x`, `y`; RSA: `e`, `kty`, `n`) in that
/// order, as JSON with no whitespace, base64url without padding.
///
/// Errors: `kty` is neither EC nor RSA, or a required member is missing
/// or not a string ([`JoseError::Jwk`]).
pub fn jwk_thumbprint(jwk: &Map<String, Value>) -> Result<String, JoseError> {
    let members: &[&'static str] = match jwk.get("kty").and_then(Value::as_str) {
        Some("EC") => &["crv", "kty", "x", "y"],
        Some("RSA") => &["e", "kty", "n"],
        Some(_) => {
            return Err(JoseError::Jwk {
                member: "kty",
                problem: "is neither EC nor RSA",
            })
        }
        None => {
            return Err(JoseError::Jwk {
                member: "kty",
                problem: "is missing",
            })
        }
    };
    let mut json = String::from("{");
    for (i, m) in members.iter().enumerate() {
        let v = jwk.get(*m).and_then(Value::as_str).ok_or(JoseError::Jwk {
            member: m,
            problem: "is missing or not a string",
        })?;
        if i > 0 {
            json.push(',');
        }
        json.push_str(&Value::from(*m).to_string());
        json.push(':');
        json.push_str(&Value::from(v).to_string());
    }
    json.push('}');
    Ok(URL_SAFE_NO_PAD.encode(Sha256::digest(json.as_bytes())))
}

const WRONG_ALGORITHM: &str = "its algorithm is not the one its structure says";

/// Why `ring` refused a key, in words (its `Display` is a fixed name).
fn reason(e: &ring::error::KeyRejected) -> &'static str {
    match e.to_string().as_str() {
        "InconsistentComponents" => "its private and public parts do not match",
        "InvalidComponent" => "a component is out of range",
        "InvalidEncoding" => "its DER encoding is invalid",
        "PublicKeyIsMissing" => "it has no public key",
        "TooSmall" => "too small",
        "TooLarge" => "too large",
        "VersionNotSupported" => "its version is not supported",
        "WrongAlgorithm" => WRONG_ALGORITHM,
        "PrivateModulusLenNotMultipleOf512Bits" => "its modulus is not a multiple of 512 bits",
        _ => "it was refused",
    }
}

fn rejected(what: &'static str, e: ring::error::KeyRejected) -> JoseError {
    match reason(&e) {
        "too small" => JoseError::UnsupportedKey {
            what: "an RSA key under 2048 bits".into(),
        },
        "too large" => JoseError::UnsupportedKey {
            what: "an RSA key over 8192 bits".into(),
        },
        reason => JoseError::Malformed { what, reason },
    }
}

/// A base64url member of a JWK, decoded; `len`, when given, is the exact
/// length it must have.
fn b64_member(
    o: &Map<String, Value>,
    member: &'static str,
    len: Option<usize>,
) -> Result<Vec<u8>, JoseError> {
    let s = o
        .get(member)
        .and_then(Value::as_str)
        .ok_or(JoseError::Jwk {
            member,
            problem: "is missing or not a string",
        })?;
    let b = URL_SAFE_NO_PAD
        .decode(s.trim_end_matches('=').as_bytes())
        .map_err(|_| JoseError::Jwk {
            member,
            problem: "is not base64url",
        })?;
    if len.is_some_and(|l| l != b.len()) {
        return Err(JoseError::Jwk {
            member,
            problem: "has the wrong length for P-256 (32 bytes)",
        });
    }
    Ok(b)
}

struct PemBlock {
    label: String,
    body: String,
    encrypted: bool,
}

/// The blocks of a PEM text (RFC 7468), bodies with whitespace removed;
/// a block with RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`) is marked
/// encrypted.
fn pem_blocks(text: &str) -> Result<Vec<PemBlock>, JoseError> {
    let mut out = Vec::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        let Some(label) = line
            .strip_prefix("-----BEGIN ")
            .and_then(|l| l.strip_suffix("-----"))
        else {
            continue;
        };
        let end = format!("-----END {label}-----");
        let mut body = String::new();
        let mut encrypted = false;
        let mut closed = false;
        for l in lines.by_ref() {
            if l == end {
                closed = true;
                break;
            }
            if l.contains(':') {
                encrypted |= l.starts_with("Proc-Type:") && l.contains("ENCRYPTED");
                continue;
            }
            body.push_str(l);
        }
        if !closed {
            return Err(JoseError::UnclosedPem {
                label: label.chars().take(40).collect(),
            });
        }
        out.push(PemBlock {
            label: label.chars().take(40).collect(),
            body,
            encrypted,
        });
    }
    Ok(out)
}

/// A DER tag-length-value with a definite length.
fn der_tlv(tag: u8, value: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = value.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes: Vec<u8> = n
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(value);
    out
}

/// One DER element read at the start of an input: its tag, the whole
/// element, its value, and the input after it.
type Der<'a> = (u8, &'a [u8], &'a [u8], &'a [u8]);

/// Reads one DER tag-length-value at the start of `input`.
fn der_read(input: &[u8]) -> Option<Der<'_>> {
    let (&tag, rest) = input.split_first()?;
    let (&first, mut rest) = rest.split_first()?;
    let len = if first < 0x80 {
        usize::from(first)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let l = rest[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        rest = &rest[n..];
        l
    };
    if rest.len() < len {
        return None;
    }
    let header = input.len() - rest.len();
    Some((tag, &input[..header + len], &rest[..len], &rest[len..]))
}

/// The algorithm OID and its parameters (each a whole DER element; the
/// parameters empty when absent) of a PKCS#8 PrivateKeyInfo.
fn pkcs8_algorithm(der: &[u8]) -> Option<(&[u8], &[u8])> {
    let (0x30, _, info, _) = der_read(der)? else {
        return None;
    };
    let (0x02, _, _, rest) = der_read(info)? else {
        return None;
    };
    let (0x30, _, alg_id, _) = der_read(rest)? else {
        return None;
    };
    let (0x06, oid, _, params) = der_read(alg_id)? else {
        return None;
    };
    let params = match der_read(params) {
        Some((_, p, _, _)) => p,
        None => &[],
    };
    Some((oid, params))
}

#[cfg(test)]
mod tests;
