//! The fast reading of a valid elicitation event: one pass over its bytes
//! into closed, borrowed types, then the binding's runtime checks, with no
//! `serde_json::Value` tree for the envelope and no JSON Schema run.
//!
//! It decides nothing on its own. [`read_valid`] answers only "this event is
//! valid, and here is what the full reading would give", or `None`: "not
//! sure". The caller then takes the full path ([`parse_json`],
//! [`read_request`], [`read_result`]), whose violations, pointers
//! and messages are the only ones ever reported (for a request refused
//! only at its body, `validate` takes the full path from the body on, with
//! the rest of the request as this reading proved it). The schemas stay the
//! authority: every check here is at least as strict as the schema keyword
//! it stands for, and anything this module does not model refuses:
//!
//! - the envelope is read into closed types (`deny_unknown_fields`, a
//!   duplicate member refuses, `null` never stands for an absent member);
//!   only `user.elicitation.request` and `user.elicitation.result` events,
//!   `extensions` holding `mcp` only, and the keywords of the wire root
//!   (`const`, `enum`, the event id's length and pattern, the overlays'
//!   text-part rules) checked by hand; `time` goes through the same
//!   `date-time` format checker as the schema ([`format_ok`]);
//! - the body text is read into a `Value` (the form reader needs one) and
//!   held to a closed model of the pinned `request` / `result` definition
//!   ([`request_holds`], [`result_holds`]): known members only, integers as
//!   integer literals, formats through [`format_ok`];
//! - the runtime checks that follow are the full path's own functions
//!   ([`proven_params_body`], [`proven_result_checks`]); any violation
//!   refuses, so an invalid event is always reported by the full path.
//!
//! The differential test (`tests/lib/fast_path_agrees.rs`) and the fuzz target
//! `fast_path` run both readings over every vector, hostile case, SDK form
//! and generated event, and require the same verdict and the same reading.
//!
//! [`parse_json`]: super::parse_json
//! [`read_request`]: super::read_request
//! [`read_result`]: super::read_result
//! [`format_ok`]: super::content::format_ok
//! [`proven_params_body`]: super::params::proven_params_body
//! [`proven_result_checks`]: super::result::proven_result_checks
//! [`request_holds`]: super::holds::request_holds
//! [`result_holds`]: super::holds::result_holds

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::content::format_ok;
use super::envelope::{checked_text, parse_text, Action, Mode, Server, REQUEST_TYPE, RESULT_TYPE};
use super::form_model::StringFormat;
use super::holds::{request_holds, result_holds};
use super::params::{proven_params_body, ElicitationRequest, RequestView};
use super::request::RequestEvent;
use super::result::{elicit_result, proven_result_checks, ResultEvent};
use super::revision::{revision_of, CallMethod, CallRef, McpExtension, Revision};
use super::violation::Part;

/// A valid event as the full reading gives it, with `event` left `Null`
/// (the fast reading builds no tree of the whole event).
#[derive(Debug, Clone, PartialEq)]
pub enum ValidEvent {
    /// A valid `user.elicitation.request`.
    Request(RequestEvent),
    /// A `user.elicitation.result` valid on its own (the cross-checks
    /// against its request are still to run).
    Result(ResultEvent),
}

/// Read `bytes` as a valid request or result event without building its
/// tree, or `None` when it is not certainly one (invalid, another event
/// type, or a shape this reading does not model): then only the full
/// reading may judge it. When `Some`, the full reading
/// ([`super::parse_json`], then [`super::read_request`] or
/// [`super::read_result`]) accepts the same bytes and gives the same
/// value (but for `event`, `Null` here).
pub fn read_valid(bytes: &[u8]) -> Option<ValidEvent> {
    // The limits of `parse_json`: size, then depth and UTF-8.
    read_valid_text(checked_text(bytes).ok()?, &mut None)
}

/// A request the fast reading refused at its body: every other member of
/// the event was proven valid, and the body text parsed. The full reading
/// of the event takes it from here instead of reading the whole event
/// again ([`super::request::request_from_refused_body`]; only `validate`,
/// of the command line, reads on from a refusal).
#[derive(Debug)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) struct RefusedBody {
    /// The request as the full reading gives it but for its `view` (left
    /// [`RequestView::Omit`]) and `event` (`Null`).
    pub request: RequestEvent,
    /// What [`parse_text`] gave for the body text
    /// (`payload.elicitation.request.text`).
    pub params: Value,
}

/// [`read_valid`] of a text whose limits and UTF-8 were checked
/// ([`super::checked_text`]), so that a caller going on to the full reading
/// of the same text checks them once. When it refuses a request at its
/// body, whose text it parsed, the rest of the request and that parse are
/// left in `spare`.
pub(crate) fn read_valid_text(text: &str, spare: &mut Option<RefusedBody>) -> Option<ValidEvent> {
    let Obj(env): Obj<Envelope<'_>> = serde_json::from_str(text).ok()?;
    if env.ahp.0 != "0.1" || !event_id(&env.id.0) || !format_ok(StringFormat::DateTime, &env.time.0)
    {
        return None;
    }
    if env
        .parent_event_id
        .as_ref()
        .is_some_and(|p| !event_id(&p.0))
    {
        return None;
    }
    let mcp = match env.extensions.as_ref().and_then(|e| e.0.mcp.as_ref()) {
        None => None,
        Some(m) => Some(mcp_extension(&m.0)?),
    };
    let rev = revision_of(mcp.as_ref());
    let el = env.payload.0.elicitation.0;
    let mode = Mode::parse(&el.mode.0)?;
    let server = Server {
        name: el.server.0.name.0.into_owned(),
        title: el.server.0.title.map(|t| t.0.into_owned()),
        version: el.server.0.version.map(|t| t.0.into_owned()),
    };
    let id = env.id.0.into_owned();
    match &*env.ty.0 {
        REQUEST_TYPE => {
            if el.action.is_some() || el.result.is_some() {
                return None;
            }
            let mut request = RequestEvent {
                id,
                adapter: env.source.0.adapter.0.into_owned(),
                server,
                mode,
                view: RequestView::Omit,
                mcp,
                event: Value::Null,
            };
            request.view = match body(el.request.as_ref().map(|p| &p.0))? {
                Body::Metadata => RequestView::Metadata,
                Body::Omit => RequestView::Omit,
                Body::Gap { reason, detail } => RequestView::Gap { reason, detail },
                Body::Text(t) => {
                    let params = parse_text(t, Part::RequestText).ok()?;
                    let read = request_holds(rev, &params)
                        .and_then(|proof| proven_params_body(rev, &params, mode, &proof).ok());
                    let Some((message, body)) = read else {
                        *spare = Some(RefusedBody { request, params });
                        return None;
                    };
                    let Value::Object(params) = params else {
                        return None;
                    };
                    RequestView::Body(ElicitationRequest {
                        params,
                        message,
                        body,
                    })
                }
            };
            Some(ValidEvent::Request(request))
        }
        RESULT_TYPE => {
            if el.request.is_some() {
                return None;
            }
            let action = Action::parse(&el.action?.0)?;
            let parent_event_id = env.parent_event_id?.0.into_owned();
            let result = match body(el.result.as_ref().map(|p| &p.0))? {
                Body::Text(t) => {
                    let value = parse_text(t, Part::ResultText).ok()?;
                    let proof = result_holds(&value)?;
                    let said = proven_result_checks(rev, &value, mode, &proof).ok()?;
                    if said != action {
                        return None;
                    }
                    let Value::Object(value) = value else {
                        return None;
                    };
                    Some(elicit_result(value, action))
                }
                _ => None,
            };
            Some(ValidEvent::Result(ResultEvent {
                id,
                parent_event_id,
                server,
                mode,
                action,
                result,
                mcp,
                event: Value::Null,
            }))
        }
        _ => None,
    }
}

/// `$defs/eventId` (and the same rule of `inputKey` and `call.name`):
/// `1..=max` characters, none of them C0, DEL or C1.
pub(crate) fn id_like(s: &str, max: usize) -> bool {
    let mut n = 0;
    for c in s.chars() {
        if matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}') {
            return false;
        }
        n += 1;
    }
    (1..=max).contains(&n)
}

/// `$defs/eventId`: 1 to 256 characters, no C0, DEL or C1.
pub(crate) fn event_id(s: &str) -> bool {
    id_like(s, 256)
}

/// `extensions.mcp` (closed `$defs/mcpExtension`) as the full reading gives
/// it; None when the version is not pinned or a member breaks its rule.
fn mcp_extension(m: &Mcp<'_>) -> Option<McpExtension> {
    let protocol_version = Revision::parse(&m.protocol_version.0)?;
    if m.input_key.as_ref().is_some_and(|k| !id_like(&k.0, 256)) {
        return None;
    }
    let call = match &m.call {
        None => None,
        Some(Obj(c)) => {
            if !id_like(&c.name.0, 2048) {
                return None;
            }
            Some(CallRef {
                method: CallMethod::parse(&c.method.0)?,
                name: c.name.0.clone().into_owned(),
            })
        }
    };
    Some(McpExtension {
        protocol_version,
        input_key: m.input_key.as_ref().map(|k| k.0.clone().into_owned()),
        call,
    })
}

/// What a text part selects.
enum Body<'p> {
    Text(&'p str),
    Metadata,
    Omit,
    Gap {
        reason: String,
        detail: Option<String>,
    },
}

/// `$defs/textPart` (and `$defs/gap`), absent meaning omit; None when a
/// rule of the part does not hold.
fn body<'p>(part: Option<&'p TextPart<'_>>) -> Option<Body<'p>> {
    let Some(p) = part else {
        return Some(Body::Omit);
    };
    if p.ty.0 != "text" {
        return None;
    }
    match (&*p.selection.0, &p.text, &p.gap) {
        ("body", Some(t), None) => Some(Body::Text(&t.0)),
        ("body", None, Some(Obj(g))) => {
            if !matches!(&*g.reason.0, "unavailable" | "too-large" | "error") {
                return None;
            }
            Some(Body::Gap {
                reason: g.reason.0.clone().into_owned(),
                detail: g.detail.as_ref().map(|d| d.0.clone().into_owned()),
            })
        }
        ("metadata", None, None) => Some(Body::Metadata),
        ("omit", None, None) => Some(Body::Omit),
        _ => None,
    }
}

/// A JSON string, borrowed from the input when it has no escapes. Unlike
/// `Cow<str>` through serde's derive, this never takes `null`.
#[derive(Debug)]
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

/// A JSON object read as `T`. serde's derived structs also take a JSON
/// array (members by position), which the schemas never allow: this reads
/// only an object.
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// An optional member that, when present, is a `T` (`null` refuses, where
/// serde's `Option` would read it as absent).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The closed envelope (the wire root's members; `payload` as the request
/// and result overlays close it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    #[serde(borrow)]
    ahp: Text<'a>,
    #[serde(borrow)]
    id: Text<'a>,
    #[serde(borrow, rename = "type")]
    ty: Text<'a>,
    #[serde(borrow)]
    time: Text<'a>,
    #[serde(borrow)]
    source: Obj<Source<'a>>,
    #[serde(
        borrow,
        default,
        rename = "parentEventId",
        deserialize_with = "present"
    )]
    parent_event_id: Option<Text<'a>>,
    #[serde(borrow)]
    payload: Obj<Payload<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    extensions: Option<Obj<Extensions<'a>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Source<'a> {
    #[serde(borrow)]
    adapter: Text<'a>,
    #[serde(borrow, default, deserialize_with = "present")]
    #[allow(dead_code)]
    instance: Option<Text<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Payload<'a> {
    #[serde(borrow)]
    elicitation: Obj<Elicitation<'a>>,
}

/// `elicitationRequest` and `elicitationResult` in one: which members the
/// event's type allows is checked after reading.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Elicitation<'a> {
    #[serde(borrow)]
    server: Obj<ServerText<'a>>,
    #[serde(borrow)]
    mode: Text<'a>,
    #[serde(borrow, default, deserialize_with = "present")]
    action: Option<Text<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    request: Option<Obj<TextPart<'a>>>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<Obj<TextPart<'a>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerText<'a> {
    #[serde(borrow)]
    name: Text<'a>,
    #[serde(borrow, default, deserialize_with = "present")]
    title: Option<Text<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    version: Option<Text<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextPart<'a> {
    #[serde(borrow, rename = "type")]
    ty: Text<'a>,
    #[serde(borrow)]
    selection: Text<'a>,
    #[serde(borrow, default, deserialize_with = "present")]
    text: Option<Text<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    gap: Option<Obj<GapText<'a>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GapText<'a> {
    #[serde(borrow)]
    reason: Text<'a>,
    #[serde(borrow, default, deserialize_with = "present")]
    detail: Option<Text<'a>>,
}

/// `extensions` holding `mcp` only (other members refuse).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Extensions<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    mcp: Option<Obj<Mcp<'a>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Mcp<'a> {
    #[serde(borrow, rename = "protocolVersion")]
    protocol_version: Text<'a>,
    #[serde(borrow, default, rename = "inputKey", deserialize_with = "present")]
    input_key: Option<Text<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    call: Option<Obj<Call<'a>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Call<'a> {
    #[serde(borrow)]
    method: Text<'a>,
    #[serde(borrow)]
    name: Text<'a>,
}
