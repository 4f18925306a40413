//! Sampling by hand: the server's `sampling/createMessage` (pushed at
//! 2025-11-25, an input request of an `input_required` result at
//! 2026-07-28), answered by a person (or an answers rule) who writes the
//! model's reply.
//!
//! A sampling request is put to the person as a form of one multi-line
//! text field, `reply`, whose message shows the request (system prompt,
//! model preferences, `maxTokens`, the tools offered, and every message
//! with its role): the same desk, screen, editor, review step, `--events`
//! records and answers rules as an elicitation. The request event says
//! what it is in `extensions."ahp-elicit/sampling"` (`method` and the
//! params as received), which answers rules match with `"method":
//! "sampling/createMessage"`. An accepted form becomes the
//! `CreateMessageResult` [`create_message_result`]; a decline or cancel
//! is the user's rejection: at 2025-11-25 the JSON-RPC error
//! [`USER_REJECTED`], at 2026-07-28 (whose input responses have no
//! rejection) the call is not sent again and ends.

use serde_json::{json, Map, Value};

use crate::binding::{Action, RequestEvent};

/// The method of a sampling request.
pub const SAMPLING: &str = "sampling/createMessage";
/// The method of a roots request.
pub const ROOTS: &str = "roots/list";
/// The request event's extension key saying it is a sampling request.
pub const EXTENSION_KEY: &str = crate::scripted::rules::SAMPLING_EXTENSION;
/// The name of the form field the person writes the reply in.
pub const REPLY_FIELD: &str = "reply";
/// `model` of a reply a person wrote.
pub const HUMAN_MODEL: &str = "human";
/// The JSON-RPC error code of a sampling request the person declined (the
/// MCP sampling specification's "User rejected sampling request").
pub const USER_REJECTED: i64 = -1;
/// Its message.
pub const USER_REJECTED_MESSAGE: &str = "User rejected sampling request";
/// The most characters of the request shown in the form's message (the
/// binding's string limit is 65,536); the rest is cut, and said so.
const MAX_SHOWN: usize = 60_000;
/// The most characters of one message's text, system prompt or tool
/// description shown before the rest is cut.
const MAX_PART: usize = 8_000;

/// Whether `req` is a sampling request put to the person as a form.
pub fn is_sampling(req: &RequestEvent) -> bool {
    req.event
        .get("extensions")
        .and_then(|e| e.get(EXTENSION_KEY))
        .is_some()
}

/// The elicitation params of the form a sampling request is shown as: a
/// required multi-line text field [`REPLY_FIELD`] and the request written
/// out as its message.
pub fn sampling_params(params: &Value) -> Value {
    json!({
        "mode": "form",
        "message": describe(params),
        "requestedSchema": {
            "type": "object",
            "properties": {
                REPLY_FIELD: {
                    "type": "string",
                    // No description: a field's description is shown as
                    // the server's words, and these would be ours (the
                    // header says the reply goes as model "human").
                    "title": "Your reply, as the model's"
                }
            },
            "required": [REPLY_FIELD]
        }
    })
}

/// Mark a request event built from [`sampling_params`] as the sampling
/// request `params` (its `extensions."ahp-elicit/sampling"`).
pub fn mark(req: &mut RequestEvent, params: &Value) {
    if let Some(o) = req.event.as_object_mut() {
        let ext = o
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(e) = ext.as_object_mut() {
            e.insert(
                EXTENSION_KEY.into(),
                json!({ "method": SAMPLING, "params": params }),
            );
        }
    }
}

/// The `CreateMessageResult` of a reply a person wrote (the same shape in
/// both revisions).
pub fn create_message_result(text: &str) -> Value {
    json!({
        "role": "assistant",
        "content": { "type": "text", "text": text },
        "model": HUMAN_MODEL,
        "stopReason": "endTurn"
    })
}

/// The `CreateMessageResult` of the `ElicitResult` the form got: the
/// reply of an accept; None for a decline or cancel (the person rejected
/// the request).
pub fn sampling_answer(elicit: &Value) -> Option<Value> {
    if elicit.get("action").and_then(Value::as_str) != Some(Action::Accept.as_str()) {
        return None;
    }
    let text = elicit
        .get("content")
        .and_then(|c| c.get(REPLY_FIELD))
        .and_then(Value::as_str)
        .unwrap_or("");
    Some(create_message_result(text))
}

/// `text` cut to `max` characters, saying how many were left out.
fn cut(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept} … ({} more characters not shown)", n - max)
}

/// One content block as text: its text, or what it is (`[image,
/// image/png]`, `[tool use: NAME {input}]`, `[tool result]`).
fn block(b: &Value) -> String {
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("?");
    match kind {
        "text" => cut(
            b.get("text").and_then(Value::as_str).unwrap_or(""),
            MAX_PART,
        ),
        "image" | "audio" => format!(
            "[{kind}, {}]",
            b.get("mimeType").and_then(Value::as_str).unwrap_or("?")
        ),
        "tool_use" => format!(
            "[tool use: {} {}]",
            b.get("name").and_then(Value::as_str).unwrap_or("?"),
            cut(
                &b.get("input").map(Value::to_string).unwrap_or_default(),
                MAX_PART
            )
        ),
        "tool_result" => {
            let inner: Vec<String> = b
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(block)
                .collect();
            format!("[tool result: {}]", inner.join(" "))
        }
        other => format!("[{other} content]"),
    }
}

/// The request `params` written out for the person: what the server asks
/// for, then each message with its role.
pub fn describe(params: &Value) -> String {
    let mut out = vec![
        "The server asks for a model's reply (sampling/createMessage): you write it.".to_owned(),
    ];
    if let Some(s) = params.get("systemPrompt").and_then(Value::as_str) {
        out.push(format!("System prompt: {}", cut(s, MAX_PART)));
    }
    if let Some(p) = params.get("modelPreferences").filter(|p| p.is_object()) {
        let mut said = Vec::new();
        let hints: Vec<&str> = p
            .get("hints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|h| h.get("name").and_then(Value::as_str))
            .collect();
        if !hints.is_empty() {
            said.push(format!("hints {}", hints.join(", ")));
        }
        for k in ["costPriority", "speedPriority", "intelligencePriority"] {
            if let Some(v) = p.get(k).and_then(Value::as_f64) {
                said.push(format!("{} {v}", k.trim_end_matches("Priority")));
            }
        }
        if !said.is_empty() {
            out.push(format!("Model preferences: {}", said.join("; ")));
        }
    }
    if let Some(m) = params.get("maxTokens") {
        out.push(format!("Max tokens: {m}"));
    }
    if let Some(t) = params.get("temperature").and_then(Value::as_f64) {
        out.push(format!("Temperature: {t}"));
    }
    if let Some(stops) = params.get("stopSequences").and_then(Value::as_array) {
        let s: Vec<String> = stops.iter().map(Value::to_string).collect();
        out.push(format!("Stop sequences: {}", s.join(", ")));
    }
    if let Some(c) = params.get("includeContext").and_then(Value::as_str) {
        out.push(format!("Include context: {c} (no context is added)"));
    }
    if let Some(tools) = params.get("tools").and_then(Value::as_array) {
        out.push(format!("Tools offered ({}):", tools.len()));
        for t in tools {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("?");
            let desc = t.get("description").and_then(Value::as_str).unwrap_or("");
            out.push(format!("  {name}: {}", cut(desc, 200)));
        }
    }
    let messages = params.get("messages").and_then(Value::as_array);
    out.push(format!("Messages ({}):", messages.map_or(0, Vec::len)));
    for m in messages.into_iter().flatten() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
        let text = match m.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().map(block).collect::<Vec<_>>().join("\n"),
            Some(b) => block(b),
            None => String::new(),
        };
        out.push(format!("[{role}] {text}"));
    }
    cut(&out.join("\n"), MAX_SHOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_is_written_out_with_every_part_the_person_needs() {
        let params = json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Capital of France?"}},
                {"role": "assistant", "content": [{"type": "text", "text": "Let me think."},
                    {"type": "image", "data": "AA==", "mimeType": "image/png"}]}
            ],
            "systemPrompt": "Answer in one word.",
            "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.5},
            "maxTokens": 50,
            "tools": [{"name": "lookup", "description": "Look a city up", "inputSchema": {"type": "object"}}]
        });
        let text = describe(&params);
        assert_eq!(
            text,
            "The server asks for a model's reply (sampling/createMessage): you write it.\n\
             System prompt: Answer in one word.\n\
             Model preferences: hints claude; speed 0.5\n\
             Max tokens: 50\n\
             Tools offered (1):\n  lookup: Look a city up\n\
             Messages (2):\n\
             [user] Capital of France?\n\
             [assistant] Let me think.\n[image, image/png]"
        );
        let form = sampling_params(&params);
        assert_eq!(form["requestedSchema"]["required"], json!(["reply"]));
        assert_eq!(form["message"], json!(text));
    }

    #[test]
    fn an_accept_is_the_reply_as_the_models_and_a_decline_is_none() {
        let accepted = json!({"action": "accept", "content": {"reply": "Paris"}});
        assert_eq!(
            sampling_answer(&accepted),
            Some(
                json!({"role": "assistant", "content": {"type": "text", "text": "Paris"},
                "model": "human", "stopReason": "endTurn"})
            )
        );
        assert_eq!(sampling_answer(&json!({"action": "decline"})), None);
        assert_eq!(sampling_answer(&json!({"action": "cancel"})), None);
    }

    #[test]
    fn long_text_is_cut_and_says_so() {
        let long = "x".repeat(MAX_PART + 5);
        let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": long}}], "maxTokens": 1});
        let text = describe(&params);
        assert!(text.ends_with("… (5 more characters not shown)"), "{text}");
    }
}
