//! The outcome of a call made while trying a server by hand
//! ([`super::Step::Result`], a [`CallOutcome`]) as lines, for every front
//! end: whether it failed (the call itself, or the server's `isError`),
//! its content blocks (text; images
//! and audio named with their type and size; embedded resources and links
//! by URI), then `structuredContent` pretty-printed and whether it fits the
//! tool's `outputSchema`. Every text of the server's is escaped
//! ([`crate::safe_text::display`]); the lines are not yet wrapped (the
//! terminal wraps them to its width, plain mode says them whole).

use serde_json::Value;

use super::{CallOutcome, Kind};
use crate::safe_text::{display, display_multiline};

/// Most characters of one text block shown (the rest is counted).
const MAX_TEXT: usize = 20_000;

/// What a line is, for its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// A heading of ours.
    Heading,
    /// The server's text.
    Text,
    /// A failure.
    Error,
    /// A note of ours.
    Muted,
}

/// The outcome as lines (safe text, not yet wrapped), under the heading
/// `Result of the tool 'NAME'`: for a call that failed or got no answer in
/// time, `The call failed: SENTENCE`; for a cancelled one,
/// [`super::cancelled_words`]; for the server's result, as it sent it
/// (every member its own), its content blocks, the structured content
/// and, when the tool declares an `outputSchema`, whether it fits
/// (`output_check`, its sentences safe text).
pub fn result_lines(
    kind: Kind,
    tool: &str,
    outcome: &CallOutcome,
    output_check: Option<&Result<(), Vec<String>>>,
) -> Vec<(Tone, String)> {
    let mut out = vec![(
        Tone::Heading,
        format!("Result of the {} '{}'", kind.noun(), display(tool)),
    )];
    let result = match outcome {
        CallOutcome::Answered(result) => result,
        CallOutcome::Failed(failure) => {
            out.push((
                Tone::Error,
                format!("The call failed: {}", display(&failure.sentence)),
            ));
            return out;
        }
        CallOutcome::TimedOut(sentence) => {
            out.push((
                Tone::Error,
                format!("The call failed: {}", display(sentence)),
            ));
            return out;
        }
        CallOutcome::Cancelled => {
            out.push((Tone::Muted, super::cancelled_words(kind, tool)));
            return out;
        }
    };
    if result.get("isError") == Some(&Value::Bool(true)) {
        out.push((
            Tone::Error,
            "The tool reported an error (isError: true).".to_owned(),
        ));
    }
    // A prompt: its description and messages, each block under its role.
    if let Some(messages) = result.get("messages").and_then(Value::as_array) {
        if let Some(d) = result.get("description").and_then(Value::as_str) {
            out.extend(display_multiline(d).into_iter().map(|l| (Tone::Text, l)));
        }
        out.push((Tone::Heading, format!("Messages: {}", messages.len())));
        for m in messages {
            out.push((Tone::Heading, format!("{}:", display(text_of(m, "role")))));
            block_lines(m.get("content").unwrap_or(&Value::Null), &mut out);
        }
        return out;
    }
    // A resource: each of its contents as an embedded resource.
    if let Some(contents) = result.get("contents").and_then(Value::as_array) {
        out.push((Tone::Heading, format!("Contents: {}", contents.len())));
        for c in contents {
            block_lines(
                &serde_json::json!({"type": "resource", "resource": c}),
                &mut out,
            );
        }
        return out;
    }
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    out.push((Tone::Heading, format!("Content: {} block(s)", blocks.len())));
    for b in blocks {
        block_lines(b, &mut out);
    }
    if let Some(s) = result.get("structuredContent") {
        out.push((Tone::Heading, "Structured content:".to_owned()));
        let pretty = serde_json::to_string_pretty(s).unwrap_or_default();
        out.extend(
            display_multiline(&pretty)
                .into_iter()
                .map(|l| (Tone::Text, l)),
        );
    }
    match output_check {
        Some(Ok(())) => out.push((
            Tone::Muted,
            "The structured content fits the tool's outputSchema.".to_owned(),
        )),
        Some(Err(faults)) => {
            out.push((
                Tone::Error,
                "The structured content does not fit the tool's outputSchema:".to_owned(),
            ));
            out.extend(faults.iter().map(|f| (Tone::Error, format!("  {f}"))));
        }
        None => {}
    }
    out
}

/// A base64 `data` field's decoded size in bytes (about: padding aside).
fn decoded_size(data: &str) -> usize {
    let body = data.trim_end_matches('=');
    body.len() * 3 / 4
}

fn text_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// One content block as lines.
fn block_lines(b: &Value, out: &mut Vec<(Tone, String)>) {
    let kind = text_of(b, "type");
    match kind {
        "text" => {
            let t = text_of(b, "text");
            let cut: String = t.chars().take(MAX_TEXT).collect();
            out.extend(display_multiline(&cut).into_iter().map(|l| (Tone::Text, l)));
            let more = t.chars().count().saturating_sub(MAX_TEXT);
            if more > 0 {
                out.push((Tone::Muted, format!("({more} more characters not shown)")));
            }
        }
        "image" | "audio" => out.push((
            Tone::Muted,
            format!(
                "[{kind}: {}, {} bytes]",
                display(text_of(b, "mimeType")),
                decoded_size(text_of(b, "data"))
            ),
        )),
        "resource_link" => out.push((
            Tone::Muted,
            format!(
                "[link: {}{}]",
                display(text_of(b, "uri")),
                match text_of(b, "name") {
                    "" => String::new(),
                    n => format!(" ({})", display(n)),
                }
            ),
        )),
        "resource" => {
            let r = b.get("resource").unwrap_or(&Value::Null);
            let what = match (r.get("text"), r.get("blob")) {
                (Some(_), _) => "text".to_owned(),
                (_, Some(Value::String(blob))) => format!("{} bytes", decoded_size(blob)),
                _ => "empty".to_owned(),
            };
            out.push((
                Tone::Muted,
                format!(
                    "[resource: {}, {}, {what}]",
                    display(text_of(r, "uri")),
                    display(text_of(r, "mimeType"))
                ),
            ));
            if let Some(t) = r.get("text").and_then(Value::as_str) {
                let cut: String = t.chars().take(MAX_TEXT).collect();
                out.extend(display_multiline(&cut).into_iter().map(|l| (Tone::Text, l)));
            }
        }
        other => out.push((
            Tone::Muted,
            format!("[a block of type '{}']", display(other)),
        )),
    }
}

/// A tool result with one block of every kind (server text with an
/// escape in it), structured content and `isError`: the one the result
/// lines and the result screen are tested with.
#[cfg(test)]
pub(crate) fn sample_result() -> Value {
    serde_json::json!({
        "content": [
            {"type": "text", "text": "Booked for 3.\nSee you\u{1b}[31m soon."},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="},
            {"type": "resource_link", "uri": "file:///menu.txt", "name": "menu"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}},
            {"type": "hologram"}
        ],
        "structuredContent": {"guests": 3, "ok": true},
        "isError": true
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browse::{CallFailure, FailureCause};
    use serde_json::json;

    fn result() -> CallOutcome {
        CallOutcome::Answered(sample_result())
    }

    #[test]
    fn every_block_is_named_and_server_text_escaped() {
        let lines: Vec<String> = result_lines(Kind::Tool, "book", &result(), None)
            .into_iter()
            .map(|(_, l)| l)
            .collect();
        assert_eq!(
            lines,
            [
                "Result of the tool 'book'",
                "The tool reported an error (isError: true).",
                "Content: 6 block(s)",
                "Booked for 3.",
                "See you\\u{1b}[31m soon.",
                "[image: image/png, 8 bytes]",
                "[audio: audio/wav, 4 bytes]",
                "[link: file:///menu.txt (menu)]",
                "[resource: file:///a.txt, text/plain, text]",
                "A",
                "[a block of type 'hologram']",
                "Structured content:",
                "{",
                "  \"guests\": 3,",
                "  \"ok\": true",
                "}",
            ]
        );
    }

    #[test]
    fn a_failed_call_says_so() {
        let failed = CallOutcome::Failed(CallFailure {
            cause: FailureCause::Rpc(-32602),
            sentence: "tools/call failed: boom\u{1b}".into(),
        });
        let lines = result_lines(Kind::Tool, "book", &failed, None);
        assert_eq!(
            lines,
            [
                (Tone::Heading, "Result of the tool 'book'".to_owned()),
                (
                    Tone::Error,
                    "The call failed: tools/call failed: boom\\u{1b}".to_owned()
                )
            ]
        );
        let late = CallOutcome::TimedOut("no answer to tools/call 'book' within 2 s".into());
        assert_eq!(
            result_lines(Kind::Tool, "book", &late, None)[1],
            (
                Tone::Error,
                "The call failed: no answer to tools/call 'book' within 2 s".to_owned()
            )
        );
        let cancelled = result_lines(Kind::Prompt, "greet", &CallOutcome::Cancelled, None);
        assert_eq!(
            cancelled[1],
            (
                Tone::Muted,
                "Cancelled the request for the prompt 'greet'.".to_owned()
            )
        );
    }

    /// A result may carry members of the server's own: one named `error`
    /// is the server's data, shown as sent, not a failed call.
    #[test]
    fn a_result_with_an_error_member_of_its_own_is_a_result() {
        let sent = json!({"content": [{"type": "text", "text": "fine"}], "error": "not really"});
        let lines = result_lines(Kind::Tool, "probe", &CallOutcome::Answered(sent), None);
        assert_eq!(
            lines,
            [
                (Tone::Heading, "Result of the tool 'probe'".to_owned()),
                (Tone::Heading, "Content: 1 block(s)".to_owned()),
                (Tone::Text, "fine".to_owned()),
            ]
        );
    }

    #[test]
    fn the_output_schema_check_is_said_under_the_structured_content() {
        let ok = result_lines(Kind::Tool, "book", &result(), Some(&Ok(())));
        assert_eq!(
            ok.last().unwrap(),
            &(
                Tone::Muted,
                "The structured content fits the tool's outputSchema.".to_owned()
            )
        );
        let bad = Err(vec!["/guests: 3 is not of type \"string\"".to_owned()]);
        let lines = result_lines(Kind::Tool, "book", &result(), Some(&bad));
        let tail: Vec<&str> = lines[lines.len() - 2..]
            .iter()
            .map(|(_, l)| l.as_str())
            .collect();
        assert_eq!(
            tail,
            [
                "The structured content does not fit the tool's outputSchema:",
                "  /guests: 3 is not of type \"string\""
            ]
        );
    }

    #[test]
    fn a_prompt_shows_its_messages_and_a_resource_its_contents() {
        let prompt = json!({"description": "A greeting", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Hello, Ada"}}
        ]});
        let lines: Vec<String> =
            result_lines(Kind::Prompt, "greet", &CallOutcome::Answered(prompt), None)
                .into_iter()
                .map(|(_, l)| l)
                .collect();
        assert_eq!(
            lines,
            [
                "Result of the prompt 'greet'",
                "A greeting",
                "Messages: 1",
                "user:",
                "Hello, Ada"
            ]
        );
        let read = json!({"contents": [
            {"uri": "menu://today", "mimeType": "text/plain", "text": "Soup"},
            {"uri": "menu://logo", "mimeType": "image/png", "blob": "iVBORw0KGgo="}
        ]});
        let lines: Vec<String> = result_lines(
            Kind::Resource,
            "menu://today",
            &CallOutcome::Answered(read),
            None,
        )
        .into_iter()
        .map(|(_, l)| l)
        .collect();
        assert_eq!(
            lines,
            [
                "Result of the resource 'menu://today'",
                "Contents: 2",
                "[resource: menu://today, text/plain, text]",
                "Soup",
                "[resource: menu://logo, image/png, 8 bytes]"
            ]
        );
    }
}
