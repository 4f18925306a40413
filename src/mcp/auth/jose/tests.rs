use ring::signature::{RsaPublicKeyComponents, UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};
use serde_json::json;

use super::*;

/// The test keys under `tests/keys/` (made with `openssl genpkey`; test
/// only, never used anywhere else).
macro_rules! key {
    ($name:literal) => {
        include_str!(concat!("../../../../tests/keys/", $name))
    };
}

/// Splits a compact JWT and checks its signature with `ring`'s public-key
/// verification against the key's public JWK; gives the decoded header
/// and claims.
fn verify(jwt: &str, jwk: &Map<String, Value>) -> (Value, Value) {
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3, "{jwt}");
    let input = format!("{}.{}", parts[0], parts[1]);
    let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
    let b = |m: &str| URL_SAFE_NO_PAD.decode(jwk[m].as_str().unwrap()).unwrap();
    match jwk["kty"].as_str().unwrap() {
        "EC" => {
            let mut point = vec![4u8];
            point.extend(b("x"));
            point.extend(b("y"));
            assert_eq!(sig.len(), 64, "ES256 signatures are R || S, 64 bytes");
            UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
                .verify(input.as_bytes(), &sig)
                .expect("the ES256 signature verifies");
        }
        "RSA" => {
            RsaPublicKeyComponents {
                n: b("n"),
                e: b("e"),
            }
            .verify(
                &signature::RSA_PKCS1_2048_8192_SHA256,
                input.as_bytes(),
                &sig,
            )
            .expect("the RS256 signature verifies");
        }
        k => panic!("kty {k}"),
    }
    let dec = |p: &str| serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap();
    (dec(parts[0]), dec(parts[1]))
}

#[test]
fn a_generated_key_signs_a_dpop_proof_that_verifies() {
    let k = SigningKey::generate_es256().unwrap();
    assert_eq!(k.alg(), Alg::Es256);
    let jwk = k.public_jwk();
    assert_eq!(
        jwk.keys().collect::<Vec<_>>(),
        ["kty", "crv", "x", "y"],
        "only the public members"
    );
    let claims = json!({"jti": "j1", "htm": "POST", "htu": "https://as.example/token", "iat": 1});
    let jwt = k
        .sign(
            &Header {
                typ: Some("dpop+jwt"),
                kid: None,
                jwk: true,
            },
            &claims,
        )
        .unwrap();
    let (h, c) = verify(&jwt, &jwk);
    assert_eq!(
        h,
        json!({"alg": "ES256", "typ": "dpop+jwt", "jwk": Value::Object(jwk.clone())})
    );
    assert_eq!(c, claims);
    // Two signatures of the same input differ (ECDSA's random nonce) and
    // both verify.
    let again = k
        .sign(
            &Header {
                typ: Some("dpop+jwt"),
                kid: None,
                jwk: true,
            },
            &claims,
        )
        .unwrap();
    assert_ne!(again, jwt);
    verify(&again, &jwk);
}

#[test]
fn a_generated_key_is_stored_and_read_back_as_pkcs8() {
    let k = SigningKey::generate_es256().unwrap();
    let der = k.pkcs8_der().unwrap().to_vec();
    let back = SigningKey::from_pkcs8_der(&der).unwrap();
    assert_eq!(back.public_jwk(), k.public_jwk());
    assert_eq!(back.thumbprint(), k.thumbprint());
    // Signed by the one read back, verified with the first's public key.
    let jwt = back.sign(&Header::default(), &json!({"a": 1})).unwrap();
    let (h, _) = verify(&jwt, &k.public_jwk());
    assert_eq!(h, json!({"alg": "ES256"}));
    // Two generated keys differ.
    assert_ne!(
        SigningKey::generate_es256().unwrap().thumbprint(),
        k.thumbprint()
    );
}

#[test]
fn the_thumbprint_is_rfc_7638s_example() {
    // RFC 7638 §3.1: the RSA key of RFC 7517's appendix A.1.
    let jwk = json!({
        "kty": "RSA",
        "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        "e": "AQAB",
        "alg": "RS256",
        "kid": "2011-04-29"
    });
    assert_eq!(
        jwk_thumbprint(jwk.as_object().unwrap()).unwrap(),
        "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    );
    // RFC 9449 §6.1: the EC key of its examples and its `jkt`.
    let ec = json!({
        "kty": "EC",
        "x": "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
        "y": "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA",
        "crv": "P-256"
    });
    assert_eq!(
        jwk_thumbprint(ec.as_object().unwrap()).unwrap(),
        "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
    );
    let mut no_y = ec.as_object().unwrap().clone();
    no_y.remove("y");
    assert!(matches!(
        jwk_thumbprint(&no_y),
        Err(JoseError::Jwk { member: "y", .. })
    ));
}

/// The thumbprints of the test keys, computed apart with Python's hashlib
/// over the members RFC 7638 names.
const EC_THUMBPRINT: &str = "47HBwN6j-bT_RzL748lLIQjQ17nPSdKHYZpG1wfJmeI";
const RSA_THUMBPRINT: &str = "b3Oh_MeFntx_W6htgJ9YViXuQIi27zymBBXqhwS4AdM";

#[test]
fn openssl_keys_in_every_form_read_and_sign() {
    for (name, text, alg, tp) in [
        ("PKCS#8 EC", key!("ec-p256.pem"), Alg::Es256, EC_THUMBPRINT),
        (
            "SEC 1 EC",
            key!("ec-p256-sec1.pem"),
            Alg::Es256,
            EC_THUMBPRINT,
        ),
        (
            "EC JWK",
            key!("ec-p256.jwk.json"),
            Alg::Es256,
            EC_THUMBPRINT,
        ),
        (
            "PKCS#8 RSA",
            key!("rsa-2048.pem"),
            Alg::Rs256,
            RSA_THUMBPRINT,
        ),
        (
            "PKCS#1 RSA",
            key!("rsa-2048-pkcs1.pem"),
            Alg::Rs256,
            RSA_THUMBPRINT,
        ),
        (
            "RSA JWK",
            key!("rsa-2048.jwk.json"),
            Alg::Rs256,
            RSA_THUMBPRINT,
        ),
    ] {
        let k = SigningKey::from_text(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(k.alg(), alg, "{name}");
        assert_eq!(k.thumbprint(), tp, "{name}");
        let claims = json!({"iss": "client", "sub": "client", "aud": "https://as.example/token"});
        let jwt = k
            .sign(
                &Header {
                    typ: Some("JWT"),
                    kid: Some("k1"),
                    jwk: false,
                },
                &claims,
            )
            .unwrap();
        let (h, c) = verify(&jwt, &k.public_jwk());
        assert_eq!(
            h,
            json!({"alg": alg.as_str(), "typ": "JWT", "kid": "k1"}),
            "{name}"
        );
        assert_eq!(c, claims);
        // The key's Debug never shows the private key.
        let dbg = format!("{k:?}");
        assert!(dbg.contains(tp) && !dbg.contains("PRIVATE"), "{dbg}");
    }
}

#[test]
fn a_key_file_with_a_certificate_first_finds_the_key() {
    let text = format!(
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n{}",
        key!("ec-p256.pem")
    );
    assert_eq!(
        SigningKey::from_text(&text).unwrap().thumbprint(),
        EC_THUMBPRINT
    );
}

#[test]
fn the_algorithm_is_checked_against_the_key() {
    let ec = SigningKey::from_text(key!("ec-p256.pem")).unwrap();
    let e = ec.with_alg(Alg::Rs256).unwrap_err();
    assert_eq!(
        e.to_string(),
        "RS256 needs an RSA key, but the key is an EC P-256 key"
    );
    let rsa = SigningKey::from_text(key!("rsa-2048.pem")).unwrap();
    let e = rsa.with_alg(Alg::Es256).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ES256 needs an EC P-256 key, but the key is an RSA key"
    );
    assert!(SigningKey::from_text(key!("rsa-2048.pem"))
        .unwrap()
        .with_alg(Alg::Rs256)
        .is_ok());
    assert!(matches!(Alg::parse("HS256"), Err(JoseError::UnsupportedAlg(a)) if a == "HS256"));
    // A JWK's own `alg` is checked too.
    let mut jwk: Value = serde_json::from_str(key!("ec-p256.jwk.json")).unwrap();
    jwk["alg"] = "RS256".into();
    assert!(matches!(
        SigningKey::from_jwk(&jwk),
        Err(JoseError::AlgMismatch {
            alg: Alg::Rs256,
            ..
        })
    ));
    jwk["alg"] = "ES256".into();
    assert_eq!(SigningKey::from_jwk(&jwk).unwrap().alg(), Alg::Es256);
}

#[test]
fn keys_that_cannot_sign_are_named_without_their_bytes() {
    let ec_pem = key!("ec-p256.pem");
    let body_line = ec_pem.lines().nth(1).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("P-384", key!("ec-p384.pem").into(), "an EC key on a curve other than P-256"),
        ("Ed25519", key!("ed25519.pem").into(), "an Ed25519 key"),
        ("RSA 1024", key!("rsa-1024.pem").into(), "an RSA key under 2048 bits"),
        ("encrypted", key!("ec-p256-encrypted.pem").into(), "openssl pkey -in KEY -out KEY.pem"),
        (
            "a public key only",
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".into(),
            "holds no private key (found: PUBLIC KEY)",
        ),
        (
            "unclosed",
            format!("-----BEGIN PRIVATE KEY-----\n{body_line}\n"),
            "has no -----END PRIVATE KEY----- line",
        ),
        (
            "not base64",
            "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n".into(),
            "is not valid base64",
        ),
        (
            "garbage DER",
            "-----BEGIN PRIVATE KEY-----\nMAMCAQA=\n-----END PRIVATE KEY-----\n".into(),
            "the PKCS#8 key is malformed",
        ),
        ("not a key", "hello".into(), "neither PEM"),
        (
            "a public JWK",
            r#"{"kty":"EC","crv":"P-256","x":"F3jn06d_6HVy5VE9KP0vAaHDyffF86u4d5gM0uRqJBM","y":"X2_Q-BV9eSOw8P86rxy1d6QnTdHTbJKYKcq3Svvuvdw"}"#.into(),
            "it has no \"d\"",
        ),
        (
            "a JWK with a short d",
            r#"{"kty":"EC","crv":"P-256","x":"F3jn06d_6HVy5VE9KP0vAaHDyffF86u4d5gM0uRqJBM","y":"X2_Q-BV9eSOw8P86rxy1d6QnTdHTbJKYKcq3Svvuvdw","d":"AAAA"}"#.into(),
            "\"d\" has the wrong length",
        ),
        ("an OKP JWK", r#"{"kty":"OKP","crv":"Ed25519","x":"AA","d":"AA"}"#.into(), "an OKP"),
        ("an oct JWK", r#"{"kty":"oct","k":"AA","d":"x"}"#.into(), "\"kty\" is neither EC nor RSA"),
    ];
    for (name, text, says) in cases {
        let e = SigningKey::from_text(&text).unwrap_err().to_string();
        assert!(e.contains(says), "{name}: {e}");
        assert!(
            !e.contains(body_line) && !e.contains("MAMCAQA"),
            "{name}: {e}"
        );
    }
    // A mismatched EC JWK (d of one key, x and y of another) is refused.
    let mut jwk: Value = serde_json::from_str(key!("ec-p256.jwk.json")).unwrap();
    let other = SigningKey::generate_es256().unwrap().public_jwk();
    jwk["x"] = other["x"].clone();
    jwk["y"] = other["y"].clone();
    let e = SigningKey::from_jwk(&jwk).unwrap_err();
    assert!(
        matches!(
            e,
            JoseError::Malformed {
                what: "EC JSON Web Key",
                ..
            }
        ),
        "{e}"
    );
}
