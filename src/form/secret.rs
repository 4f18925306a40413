//! Secret detection (issue 3 item 3; seed: "Sensitive information MUST use
//! URL mode, never a form"): a form whose field names, titles or
//! descriptions ask for what looks like a password, token, API key, card
//! number or PIN gets a visible warning. Matching is by whole words, with
//! camelCase, snake_case and kebab-case split, so `pinned` or `shipping`
//! do not match `pin`.

use crate::binding::Field;

/// Word sequences that name a secret (lowercase, singular).
const SECRET_WORDS: &[&[&str]] = &[
    &["password"],
    &["passwd"],
    &["passphrase"],
    &["passcode"],
    &["secret"],
    &["token"],
    &["apikey"],
    &["api", "key"],
    &["access", "key"],
    &["private", "key"],
    &["card", "number"],
    &["cardnumber"],
    &["credit", "card"],
    &["cvv"],
    &["cvc"],
    &["pin"],
    &["otp"],
];

/// Split text into lowercase words at non-alphanumerics and camelCase
/// boundaries (`apiKey` → `api`, `key`); a trailing plural `s` is dropped.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_numeric();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    for w in &mut out {
        if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
            w.pop();
        }
    }
    out
}

/// Whether `text` names a secret.
pub fn text_looks_secret(text: &str) -> bool {
    let ws = words(text);
    SECRET_WORDS.iter().any(|seq| {
        ws.windows(seq.len())
            .any(|win| win.iter().zip(seq.iter()).all(|(a, b)| a == b))
    })
}

/// Whether a field asks for what looks like a secret (in its name, title or
/// description).
pub fn field_looks_secret(f: &Field) -> bool {
    text_looks_secret(&f.name)
        || f.title.as_deref().is_some_and(text_looks_secret)
        || f.description.as_deref().is_some_and(text_looks_secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_secret_words() {
        for t in [
            "password",
            "Your Password",
            "apiKey",
            "API key",
            "api_key",
            "GitHub token",
            "accessTokens",
            "Card number",
            "creditCard",
            "PIN",
            "pin-code",
            "client_secret",
        ] {
            assert!(text_looks_secret(t), "{t}");
        }
    }

    #[test]
    fn ignores_lookalikes() {
        for t in [
            "pinned",
            "shipping address",
            "spinning",
            "keyboard layout",
            "Full name",
            "tokenizer mode",
        ] {
            assert!(!text_looks_secret(t), "{t}");
        }
    }
}
