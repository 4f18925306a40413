//! JSON-RPC 2.0 messages as MCP uses them (MCP 2025-11-25 "Base
//! Protocol"): requests, notifications and responses, read from and written
//! as `serde_json::Value`. Batches are not part of 2025-11-25; a JSON array
//! is split by the transports and each element read on its own.

use serde_json::{json, Map, Value};

/// JSON-RPC error code: invalid request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC error code: method not found.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC error code: invalid params (MCP: an elicitation mode the client
/// did not advertise, or params that fail the binding's checks).
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC error code: internal error (here: no valid answer could be made).
pub const INTERNAL_ERROR: i64 = -32603;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

/// One JSON-RPC message received from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request the client must answer (`id` is a string or a number).
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// A notification: no answer.
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// The answer to one of the client's requests.
    Response {
        id: Value,
        outcome: Result<Value, RpcError>,
    },
}

/// Why a JSON value is not a JSON-RPC message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ClassifyError {
    /// Not a JSON object.
    #[error("a JSON-RPC message must be a JSON object")]
    NotAnObject,
    /// No `"jsonrpc": "2.0"`.
    #[error("the message lacks \"jsonrpc\": \"2.0\"")]
    NoVersion,
    /// An id that is an object, a list or a boolean.
    #[error("a JSON-RPC id must be a string or a number")]
    BadId,
    /// A `method` that is not a string.
    #[error("\"method\" must be a string")]
    MethodNotAString,
    /// A request (a `method` with an `id`) whose id is null.
    #[error("a request id must not be null")]
    NullRequestId,
    /// Neither a request, a notification nor a response.
    #[error("the message has neither \"method\" nor \"result\" nor an \"error\" object")]
    NoKind,
}

/// Read one JSON-RPC message.
///
/// Errors: [`ClassifyError`]: not an object, no `jsonrpc: "2.0"`, an id
/// that is neither string nor number, neither `method` nor
/// `result`/`error`.
pub fn classify(v: Value) -> Result<Message, ClassifyError> {
    let Value::Object(mut o) = v else {
        return Err(ClassifyError::NotAnObject);
    };
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(ClassifyError::NoVersion);
    }
    let id = o.remove("id");
    if let Some(id) = &id {
        if !(id.is_string() || id.is_number() || id.is_null()) {
            return Err(ClassifyError::BadId);
        }
    }
    if let Some(m) = o.get("method") {
        let Some(method) = m.as_str().map(str::to_owned) else {
            return Err(ClassifyError::MethodNotAString);
        };
        let params = o.remove("params");
        return Ok(match id {
            Some(id) if !id.is_null() => Message::Request { id, method, params },
            Some(_) => return Err(ClassifyError::NullRequestId),
            None => Message::Notification { method, params },
        });
    }
    let id = id.unwrap_or(Value::Null);
    if let Some(result) = o.remove("result") {
        return Ok(Message::Response {
            id,
            outcome: Ok(result),
        });
    }
    if let Some(Value::Object(e)) = o.remove("error") {
        let code = e.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = e
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        return Ok(Message::Response {
            id,
            outcome: Err(RpcError {
                code,
                message,
                data: e.get("data").cloned(),
            }),
        });
    }
    Err(ClassifyError::NoKind)
}

/// A request `{jsonrpc, id, method, params?}` with a numeric id.
pub fn request(id: u64, method: &str, params: Option<Value>) -> Value {
    let mut o = Map::new();
    o.insert("jsonrpc".into(), json!("2.0"));
    o.insert("id".into(), json!(id));
    o.insert("method".into(), json!(method));
    if let Some(p) = params {
        o.insert("params".into(), p);
    }
    Value::Object(o)
}

/// A notification `{jsonrpc, method, params?}`.
pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut o = Map::new();
    o.insert("jsonrpc".into(), json!("2.0"));
    o.insert("method".into(), json!(method));
    if let Some(p) = params {
        o.insert("params".into(), p);
    }
    Value::Object(o)
}

/// A success response to the server's request `id`.
pub fn response(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// An error response to the server's request `id`.
pub fn error_response(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut e = Map::new();
    e.insert("code".into(), json!(code));
    e.insert("message".into(), json!(message));
    if let Some(d) = data {
        e.insert("data".into(), d);
    }
    json!({ "jsonrpc": "2.0", "id": id, "error": Value::Object(e) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_the_three_kinds() {
        let r = classify(json!({"jsonrpc":"2.0","id":7,"method":"ping"})).unwrap();
        assert_eq!(
            r,
            Message::Request {
                id: json!(7),
                method: "ping".into(),
                params: None
            }
        );
        let n =
            classify(json!({"jsonrpc":"2.0","method":"notifications/x","params":{"a":1}})).unwrap();
        assert_eq!(
            n,
            Message::Notification {
                method: "notifications/x".into(),
                params: Some(json!({"a":1}))
            }
        );
        let ok = classify(json!({"jsonrpc":"2.0","id":"a","result":{}})).unwrap();
        assert_eq!(
            ok,
            Message::Response {
                id: json!("a"),
                outcome: Ok(json!({}))
            }
        );
        let err = classify(
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":[1]}}),
        )
        .unwrap();
        assert_eq!(
            err,
            Message::Response {
                id: json!(1),
                outcome: Err(RpcError {
                    code: -32602,
                    message: "bad".into(),
                    data: Some(json!([1]))
                })
            }
        );
    }

    #[test]
    fn rejects_malformed_messages() {
        let err = |v: Value| classify(v).err();
        assert_eq!(err(json!([1])), Some(ClassifyError::NotAnObject));
        assert_eq!(
            err(json!({"id":1,"method":"x"})),
            Some(ClassifyError::NoVersion)
        );
        assert_eq!(
            err(json!({"jsonrpc":"2.0","id":{},"method":"x"})),
            Some(ClassifyError::BadId)
        );
        assert_eq!(
            err(json!({"jsonrpc":"2.0","id":null,"method":"x"})),
            Some(ClassifyError::NullRequestId)
        );
        assert_eq!(
            err(json!({"jsonrpc":"2.0","id":1})),
            Some(ClassifyError::NoKind)
        );
        assert!(ClassifyError::NoVersion.to_string().contains("\"2.0\""));
    }

    #[test]
    fn builds_messages() {
        assert_eq!(
            request(3, "tools/list", None),
            json!({"jsonrpc":"2.0","id":3,"method":"tools/list"})
        );
        assert_eq!(
            error_response(&json!("x"), INVALID_PARAMS, "m", None),
            json!({"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"m"}})
        );
        assert_eq!(
            notification("notifications/initialized", None),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"})
        );
    }
}
