//! Secret detection (the binding: "Sensitive information MUST use
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
/// boundaries (`apiKey` → `api`, `key`); a trailing plural `s` is dropped
/// from words of four letters or more (`tokens` → `token`; not `pass`).
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

/// Words that, earlier in the same sentence, turn a mention of a secret
/// into an instruction not to give it ("do not give us your PIN", "never
/// type a password here"); `don't` is split into `don` and `t`.
const NEGATIONS: &[&str] = &["not", "never", "don", "dont", "no", "without", "nor"];

/// The secret word (as written in the list of secret words, joined by a
/// space) that `text` names, if any.
pub fn secret_word(text: &str) -> Option<String> {
    first_hit(&words(text)).map(|(_, seq)| seq.join(" "))
}

/// The first secret word sequence in `ws`: (index, the sequence).
fn first_hit(ws: &[String]) -> Option<(usize, &'static [&'static str])> {
    (0..ws.len()).find_map(|i| {
        SECRET_WORDS
            .iter()
            .find(|seq| {
                ws.len() >= i + seq.len()
                    && ws[i..i + seq.len()]
                        .iter()
                        .zip(seq.iter())
                        .all(|(a, b)| a == b || unleet(a) == *b)
            })
            .map(|seq| (i, *seq))
    })
}

/// A word with digits written for letters read as letters (`passw0rd` →
/// `password`, `p1n` → `pin`): a field titled "Passw0rd" still asks for a
/// password. Words of digits alone are left as they are.
fn unleet(w: &str) -> String {
    if !w.chars().any(char::is_alphabetic) {
        return w.to_owned();
    }
    w.chars()
        .map(|c| match c {
            '0' => 'o',
            '1' => 'i',
            '3' => 'e',
            '4' => 'a',
            '5' => 's',
            '7' => 't',
            c => c,
        })
        .collect()
}

/// The secret word a description asks for, sentence by sentence; a
/// sentence that says not to give it ("do not give us your PIN") does not
/// count.
pub fn description_secret_word(text: &str) -> Option<String> {
    text.split(['.', '!', '?', ';', '\n']).find_map(|sentence| {
        let ws = words(sentence);
        let (at, seq) = first_hit(&ws)?;
        let negated = ws[..at].iter().any(|w| NEGATIONS.contains(&w.as_str()));
        (!negated).then(|| seq.join(" "))
    })
}

/// Why a field looks like it asks for a secret: the field (its title, else
/// its name; unsanitised server text) and the word that matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretHit {
    pub field: String,
    pub word: String,
}

/// Whether a field asks for what looks like a secret (in its name, title or
/// description), and which word says so.
pub fn field_secret(f: &Field) -> Option<SecretHit> {
    let word = secret_word(&f.name)
        .or_else(|| f.title.as_deref().and_then(secret_word))
        .or_else(|| f.description.as_deref().and_then(description_secret_word))?;
    Some(SecretHit {
        field: f.title.clone().unwrap_or_else(|| f.name.clone()),
        word,
    })
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
            "Passw0rd",
            "p1n code",
            "t0ken",
            "s3cret",
        ] {
            assert!(secret_word(t).is_some(), "{t}");
        }
    }

    #[test]
    fn descriptions_that_say_not_to_give_it_do_not_count() {
        assert_eq!(description_secret_word("do not give us your PIN"), None);
        assert_eq!(description_secret_word("Don't paste a token here."), None);
        assert_eq!(description_secret_word("Never type your password."), None);
        assert_eq!(
            description_secret_word("No spaces. Your PIN, please."),
            Some("pin".into())
        );
        assert_eq!(
            description_secret_word("The API key from your settings"),
            Some("api key".into())
        );
        assert_eq!(secret_word("apiKey"), Some("api key".into()));
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
            "v10",
            "Room 101",
            "p1nned",
        ] {
            assert_eq!(secret_word(t), None, "{t}");
        }
    }
}
