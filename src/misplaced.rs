//! Inputs that are not AHP events but look like something a server
//! developer has at hand: the raw `params` of an MCP `elicitation/create`
//! request (what a server log shows), a whole JSON-RPC message or a batch
//! of them (a JSON array), a
//! 2026-07-28 `inputRequests` entry (`{"method": "elicitation/create",
//! "params": …}` without `jsonrpc`) or an `input_required` result holding
//! `inputRequests`, or an MCP `ElicitResult` (`{"action": "accept",
//! "content": …}`, alone or as a JSON-RPC response's `result`). Where an
//! event is expected they get one line that says
//! what the input looks like and the `wrap` command that makes an event of
//! it (`wrap` takes params only, so the line says how to take them out;
//! for an `ElicitResult`, that `respond` makes result events), instead of
//! a list of wire-root errors.

use serde_json::Value;

/// The one line for `v` when it looks like MCP params or a JSON-RPC
/// message rather than an AHP event; None for anything else (an event,
/// even an invalid one, keeps its own errors).
pub fn hint(v: &Value) -> Option<String> {
    if let Some(items) = v.as_array() {
        return batch_hint(items);
    }
    let o = v.as_object()?;
    // An AHP event names its type and carries a payload: its own errors
    // say more than a guess.
    if o.contains_key("type") || o.contains_key("payload") {
        return None;
    }
    if o.get("jsonrpc").and_then(Value::as_str) == Some("2.0") {
        // A response whose result asks for input (2026-07-28).
        if let Some(reqs) = o.get("result").and_then(|r| r.get("inputRequests")) {
            return Some(input_requests_hint(
                "a JSON-RPC response whose result is input_required",
                ".result.inputRequests",
                reqs,
            ));
        }
        if o.get("result").is_some_and(is_elicit_result) {
            return Some(format!(
                "this is a JSON-RPC response carrying an MCP ElicitResult, not an AHP event: {MAKE_RESULTS}"
            ));
        }
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
    if o.get("method").and_then(Value::as_str) == Some("elicitation/create")
        && o.get("params").is_some_and(Value::is_object)
    {
        return Some(format!("this is an MCP {REVISION} inputRequests entry (an elicitation/create request without \"jsonrpc\"), not an AHP event: take its \"params\" and wrap them with the entry's key (jq .params FILE | ahp-elicit wrap --server NAME --protocol-version {REVISION} --input-key KEY - > request.json)"));
    }
    if let Some(reqs) = o.get("inputRequests").filter(|r| r.is_object()) {
        return Some(input_requests_hint(
            "an MCP input_required result",
            ".inputRequests",
            reqs,
        ));
    }
    if is_elicit_result(v) {
        return Some(format!(
            "this is an MCP ElicitResult (a client's answer), not an AHP result event: {MAKE_RESULTS}"
        ));
    }
    let params = o.contains_key("message")
        && (o.contains_key("requestedSchema") || o.contains_key("url") || o.contains_key("mode"));
    params.then(|| {
        "this looks like the params of an MCP elicitation/create request, not an AHP event: wrap them first (ahp-elicit wrap --server NAME FILE > request.json)".to_owned()
    })
}

/// The line for a JSON array holding JSON-RPC messages (a batch, as
/// JSON-RPC 2.0 allows and MCP 2025-03-26 sent): how many messages, how
/// many of them are `elicitation/create` requests, and how to wrap the
/// params of the first such one (its index in the array, for jq). None
/// when no item is a JSON-RPC message (an array of anything else keeps
/// its own errors).
fn batch_hint(items: &[Value]) -> Option<String> {
    let is_rpc = |v: &Value| v.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    if !items.iter().any(is_rpc) {
        return None;
    }
    let asks = |v: &Value| {
        is_rpc(v) && v.get("method").and_then(Value::as_str) == Some("elicitation/create")
    };
    let count = items.iter().filter(|v| asks(v)).count();
    let messages = match items.len() {
        1 => "1 message".to_owned(),
        n => format!("{n} messages"),
    };
    Some(match items.iter().position(asks) {
        Some(first) => format!(
            "this is a JSON-RPC batch ({messages}, {count} of them elicitation/create), not an AHP event: wrap each request's \"params\" on its own (jq '.[{first}].params' FILE | ahp-elicit wrap --server NAME - > request.json)"
        ),
        None => format!(
            "this is a JSON-RPC batch ({messages}, none of them elicitation/create), not an AHP event: only elicitation/create params can be wrapped (ahp-elicit wrap --server NAME PARAMS)"
        ),
    })
}

/// How AHP result events are made, for a hint about an MCP answer.
const MAKE_RESULTS: &str = "result events are made by answering a request event (ahp-elicit respond request.json > result.json), and validate checks events";

/// Whether `v` is an MCP `ElicitResult`: an object whose `action` is
/// `accept`, `decline` or `cancel`, with no keys beyond `action`, `content`
/// and `_meta`.
fn is_elicit_result(v: &Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    matches!(
        o.get("action").and_then(Value::as_str),
        Some("accept" | "decline" | "cancel")
    ) && o
        .keys()
        .all(|k| matches!(k.as_str(), "action" | "content" | "_meta"))
}

/// The MCP revision whose results carry `inputRequests`.
const REVISION: &str = crate::binding::Revision::V2026_07_28.as_str();

/// The line for an `inputRequests` map found at `path` (a jq path) of
/// `what`: its keys (at most 3 named, sanitized and cut) and the command
/// that wraps one entry's params at a time.
fn input_requests_hint(what: &str, path: &str, reqs: &Value) -> String {
    let keys: Vec<&String> = reqs
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    let mut named: Vec<String> = keys
        .iter()
        .take(3)
        .map(|k| {
            let k: String = k.chars().take(40).collect();
            format!("\"{}\"", crate::safe_text::display(&k))
        })
        .collect();
    if keys.len() > 3 {
        named.push(format!("{} more", keys.len() - 3));
    }
    let entries = match keys.len() {
        0 => "no entries".to_owned(),
        1 => format!("1 entry: {}", named.join(", ")),
        n => format!("{n} entries: {}", named.join(", ")),
    };
    format!(
        "this is {what} ({entries}), not an AHP event: wrap each elicitation/create entry's \"params\" on its own, with its key (jq '{path}.KEY.params' FILE | ahp-elicit wrap --server NAME --protocol-version {REVISION} --input-key KEY - > request.json)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_json_rpc_batch_is_named_with_the_index_of_its_first_request() {
        let ask = json!({"jsonrpc": "2.0", "id": 5, "method": "elicitation/create",
            "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}});
        let ping = json!({"jsonrpc": "2.0", "id": 6, "method": "ping"});
        assert_eq!(
            hint(&json!([ask])).as_deref(),
            Some("this is a JSON-RPC batch (1 message, 1 of them elicitation/create), not an AHP event: wrap each request's \"params\" on its own (jq '.[0].params' FILE | ahp-elicit wrap --server NAME - > request.json)")
        );
        let h = hint(&json!([ping, ask, ask])).expect("a batch is named");
        assert!(
            h.contains("(3 messages, 2 of them elicitation/create)"),
            "{h}"
        );
        assert!(h.contains("jq '.[1].params' FILE"), "{h}");
        let h = hint(&json!([ping])).expect("a batch is named");
        assert!(h.contains("none of them elicitation/create"), "{h}");
        // Arrays of anything else keep their own errors.
        assert_eq!(hint(&json!([])), None);
        assert_eq!(hint(&json!([1, {"type": "x"}])), None);
    }

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

    #[test]
    fn input_requests_entries_and_results_are_named() {
        let params = json!({"mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {}}});
        let entry = json!({"method": "elicitation/create", "params": params});
        let h = hint(&entry).unwrap();
        assert!(
            h.starts_with("this is an MCP 2026-07-28 inputRequests entry"),
            "{h}"
        );
        assert!(h.contains("jq .params FILE | ahp-elicit wrap --server NAME --protocol-version 2026-07-28 --input-key KEY -"), "{h}");
        let result = json!({"resultType": "input_required", "inputRequests": {"ask\u{1b}[2J": entry, "b": entry, "c": entry, "d": entry}});
        let h = hint(&result).unwrap();
        assert!(h.starts_with("this is an MCP input_required result (4 entries: \"ask\\u{1b}[2J\", \"b\", \"c\", 1 more), not an AHP event"), "{h}");
        assert!(
            h.contains("jq '.inputRequests.KEY.params' FILE | ahp-elicit wrap"),
            "{h}"
        );
        let rpc = json!({"jsonrpc": "2.0", "id": 3, "result": {"inputRequests": {"k": entry}}});
        let h = hint(&rpc).unwrap();
        assert!(
            h.contains("(1 entry: \"k\")") && h.contains("jq '.result.inputRequests.KEY.params'"),
            "{h}"
        );
        // Another method's entry is not an elicitation.
        assert_eq!(hint(&json!({"method": "roots/list", "params": {}})), None);
    }
}
