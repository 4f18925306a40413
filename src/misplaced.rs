//! Inputs that are not AHP events but look like something a server
//! developer has at hand: the raw `params` of an MCP `elicitation/create`
//! request (what a server log shows), or a whole JSON-RPC message. Where an
//! event is expected they get one line that says what the input looks like
//! and the `wrap` command that makes an event of it, instead of a list of
//! wire-root errors.

use serde_json::Value;

/// The one line for `v` when it looks like MCP params or a JSON-RPC
/// message rather than an AHP event; None for anything else (an event,
/// even an invalid one, keeps its own errors).
pub fn hint(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    // An AHP event names its type and carries a payload: its own errors
    // say more than a guess.
    if o.contains_key("type") || o.contains_key("payload") {
        return None;
    }
    if o.get("jsonrpc").and_then(Value::as_str) == Some("2.0") {
        let method = o.get("method").and_then(Value::as_str);
        return Some(match method {
            Some("elicitation/create") => "this is a JSON-RPC elicitation/create request, not an AHP event: take its \"params\" and wrap them (jq .params FILE | ahp-elicit wrap --server NAME - > request.json)".to_owned(),
            Some(m) => format!(
                "this is a JSON-RPC message ({}), not an AHP event: only elicitation/create params can be wrapped (ahp-elicit wrap --server NAME PARAMS)",
                crate::safe_text::display(&m.chars().take(80).collect::<String>())
            ),
            None => "this is a JSON-RPC message, not an AHP event: only elicitation/create params can be wrapped (ahp-elicit wrap --server NAME PARAMS)".to_owned(),
        });
    }
    let params = o.contains_key("message")
        && (o.contains_key("requestedSchema") || o.contains_key("url") || o.contains_key("mode"));
    params.then(|| {
        "this looks like the params of an MCP elicitation/create request, not an AHP event: wrap them first (ahp-elicit wrap --server NAME FILE > request.json)".to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_and_json_rpc_are_named_and_events_are_left_alone() {
        let params =
            json!({"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}});
        assert!(hint(&params).is_some_and(|h| h.contains("ahp-elicit wrap --server NAME FILE")));
        let url = json!({"mode": "url", "message": "Go", "url": "https://example.com", "elicitationId": "e"});
        assert!(hint(&url).is_some());
        let rpc =
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": params});
        assert!(hint(&rpc).is_some_and(|h| h.contains("jq .params FILE | ahp-elicit wrap")));
        let other = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call\u{1b}[2J"});
        assert!(hint(&other).is_some_and(|h| h.contains("tools/call\\u{1b}[2J")));
        let event = json!({"type": "user.elicitation.request", "message": "x", "mode": "form"});
        assert_eq!(hint(&event), None);
        assert_eq!(hint(&json!({"message": "just a message"})), None);
        assert_eq!(hint(&json!([1, 2])), None);
    }
}
