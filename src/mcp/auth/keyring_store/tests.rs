//! The keychain store's tests on a keychain that is a map (the real one,
//! GNOME Keyring on a D-Bus session bus, is in tests/mcp/keyring.rs):
//! items and index, damage, the errors' words, the probe's bound.

use super::*;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

use crate::mcp::auth::store::{ClientKind, GrantType, Secret, Tokens};

/// Makes the error a failing [`MapKeychain`] answers.
type MakeError = fn() -> keyring::Error;

/// A keychain in memory; `fail` makes every call fail with the error it
/// makes; `hang` makes every call wait until the test ends.
#[derive(Default)]
pub(crate) struct MapKeychain {
    pub items: Mutex<HashMap<String, Vec<u8>>>,
    pub fail: Mutex<Option<MakeError>>,
    pub hang: Mutex<Option<mpsc::Receiver<()>>>,
}

impl MapKeychain {
    fn check(&self) -> Result<(), keyring::Error> {
        if let Some(rx) = self.hang.lock().unwrap().as_ref() {
            let _ = rx.recv();
        }
        match *self.fail.lock().unwrap() {
            Some(f) => Err(f()),
            None => Ok(()),
        }
    }
}

impl Keychain for MapKeychain {
    fn get(&self, user: &str) -> Result<Option<Vec<u8>>, keyring::Error> {
        self.check()?;
        Ok(self.items.lock().unwrap().get(user).cloned())
    }
    fn set(&self, user: &str, secret: &[u8]) -> Result<(), keyring::Error> {
        self.check()?;
        self.items
            .lock()
            .unwrap()
            .insert(user.to_owned(), secret.to_vec());
        Ok(())
    }
    fn delete(&self, user: &str) -> Result<bool, keyring::Error> {
        self.check()?;
        Ok(self.items.lock().unwrap().remove(user).is_some())
    }
}

pub(crate) fn sign_in(resource: &str, account: &str) -> SignIn {
    SignIn {
        grant: GrantType::AuthorizationCode,
        key: SignInKey {
            resource: resource.into(),
            issuer: "https://login.example.com".into(),
            account: account.into(),
        },
        mcp_url: format!("{resource}/mcp"),
        as_metadata_url: "https://login.example.com/.well-known/oauth-authorization-server".into(),
        client: ClientRegistration {
            issuer: "https://login.example.com".into(),
            kind: ClientKind::Dynamic,
            client_id: "c-1".into(),
            client_secret: Some(Secret::new("CLIENT-SECRET-1")),
            client_secret_expires_at: None,
            token_endpoint_auth_method: "client_secret_basic".into(),
            redirect_uri: "http://127.0.0.1:5555/callback".into(),
        },
        tokens: Tokens {
            access_token: Secret::new("ACCESS-TOKEN-1"),
            token_type: "Bearer".into(),
            expires_at: None,
            refresh_token: Some(Secret::new("REFRESH-TOKEN-1")),
            scopes_requested: vec!["mcp".into()],
            scopes_granted: None,
            obtained_at: SystemTime::UNIX_EPOCH,
        },
        dpop_key: Some(Secret::new("DPOP-KEY-1")),
    }
}

fn store() -> (Arc<MapKeychain>, KeyringStore) {
    let map = Arc::new(MapKeychain::default());
    let store = KeyringStore::with(map.clone(), None);
    (map, store)
}

#[test]
fn a_sign_in_is_one_item_holding_its_whole_record_and_the_index_names_it() {
    let (map, store) = store();
    let s = sign_in("https://mcp.example.com", "default");
    store.save(&s).unwrap();
    store
        .save(&sign_in("https://mcp.example.com", "work"))
        .unwrap();
    // Saved again (a refresh): still one item, the index unchanged.
    store.save(&s).unwrap();
    let items = map.items.lock().unwrap().clone();
    let mut names: Vec<&str> = items.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(names[0], "index");
    assert!(names[1].starts_with("sign-in ") && names[1].len() == "sign-in ".len() + 16);
    let item = &items[&item_of(&s.key)];
    let text = std::str::from_utf8(item).unwrap();
    // Compact JSON with every secret of the sign-in in it.
    assert!(!text.contains('\n'), "{text}");
    for secret in ["ACCESS-TOKEN-1", "REFRESH-TOKEN-1", "CLIENT-SECRET-1"] {
        assert!(text.contains(secret), "{text}");
    }
    // The index holds names, never a secret.
    let index = std::str::from_utf8(&items["index"]).unwrap();
    assert!(
        !index.contains("TOKEN") && !index.contains("SECRET"),
        "{index}"
    );
    assert_eq!(
        store
            .sign_ins("https://mcp.example.com", "default")
            .unwrap(),
        vec![s.clone()]
    );
    assert_eq!(store.all().unwrap().len(), 2);
    assert!(store.remove(&s.key).unwrap());
    assert!(!store.remove(&s.key).unwrap());
    assert_eq!(store.all().unwrap().len(), 1);
    assert_eq!(store.remove_all().unwrap(), 1);
    assert!(store.all().unwrap().is_empty());
    assert_eq!(store.kept_in(&s.key), keychain_name());
}

#[test]
fn client_registrations_are_kept_per_issuer() {
    let (_, store) = store();
    let c = sign_in("https://mcp.example.com", "default").client;
    store.save_client(&c).unwrap();
    assert_eq!(
        store.client("https://login.example.com").unwrap(),
        Some(c.clone())
    );
    assert_eq!(store.client("https://login.example.com/").unwrap(), None);
    assert_eq!(store.remove_all_clients().unwrap(), 1);
    assert_eq!(store.client("https://login.example.com").unwrap(), None);
}

#[test]
fn a_damaged_item_is_named_with_the_way_out_and_listed_not_fatal() {
    let (map, store) = store();
    let s = sign_in("https://mcp.example.com", "default");
    store.save(&s).unwrap();
    map.items.lock().unwrap().insert(
        item_of(&s.key),
        br#"{"version":1,"tokens":"ACCESS"}"#.to_vec(),
    );
    let e = store.all().unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, StoreError::KeychainItemDamaged { .. }));
    assert!(
        text.starts_with(&format!(
            "the keychain item \"{}\" (service ahp-elicit) is damaged (a field has the wrong type",
            item_of(&s.key)
        )),
        "{text}"
    );
    assert!(
        text.ends_with(
            "delete it (ahp-elicit auth logout --all --auth-store keyring) and sign in again"
        ),
        "{text}"
    );
    assert!(!text.contains("ACCESS"), "{text}");
    let entries = store.entries().unwrap();
    assert_eq!(entries.len(), 1);
    assert!(entries[0].1.is_err());
    // Another version's record is said as such.
    map.items
        .lock()
        .unwrap()
        .insert(item_of(&s.key), br#"{"version":7}"#.to_vec());
    assert!(store
        .all()
        .unwrap_err()
        .to_string()
        .contains("has format version 7; this ahp-elicit reads version 1"));
}

#[test]
fn keychain_errors_are_typed_and_name_the_file_store_as_the_way_out() {
    let (map, store) = store();
    let cases: [(MakeError, &str); 4] = [
        (
            || keyring::Error::NoStorageAccess("the collection is locked".into()),
            "the Secret Service keychain is locked or refused access (the collection is locked): unlock it, or give --auth-store file",
        ),
        (
            || keyring::Error::PlatformFailure("org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not provided by any .service files".into()),
            "the Secret Service keychain cannot be reached (org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not provided by any .service files); give --auth-store file to keep sign-ins in a 0600 file instead",
        ),
        (
            || keyring::Error::PlatformFailure("disk full".into()),
            "the Secret Service keychain failed to read its index of sign-ins (disk full); give --auth-store file to keep sign-ins in a 0600 file instead",
        ),
        (
            || keyring::Error::BadEncoding(b"ACCESS-TOKEN-1".to_vec()),
            "the Secret Service keychain failed to read its index of sign-ins (an item is not in the encoding the keychain stated); give --auth-store file to keep sign-ins in a 0600 file instead",
        ),
    ];
    if !cfg!(target_os = "linux") {
        return;
    }
    for (make, want) in cases {
        *map.fail.lock().unwrap() = Some(make);
        assert_eq!(store.all().unwrap_err().to_string(), want);
    }
    // Bidi and escapes in the system's words are made safe.
    *map.fail.lock().unwrap() =
        Some(|| keyring::Error::PlatformFailure("a\u{1b}[31m\u{202e}b".into()));
    let text = store.all().unwrap_err().to_string();
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
}

#[test]
fn the_probe_is_bounded_and_reads_only() {
    let map = Arc::new(MapKeychain::default());
    probe_with(map.clone(), Duration::from_secs(5)).unwrap();
    assert!(map.items.lock().unwrap().is_empty(), "the probe wrote");
    // A keychain that never answers: given up on after the bound.
    let (keep, rx) = mpsc::channel::<()>();
    *map.hang.lock().unwrap() = Some(rx);
    let started = std::time::Instant::now();
    let e = probe_with(map.clone(), Duration::from_millis(200)).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        e.to_string()
            .contains("cannot be reached (no answer within 0.2 s)"),
        "{e}"
    );
    drop(keep);
    // A failure of any kind is "cannot be reached".
    let map = Arc::new(MapKeychain::default());
    *map.fail.lock().unwrap() = Some(|| keyring::Error::PlatformFailure("disk full".into()));
    assert!(matches!(
        probe_with(map, Duration::from_secs(5)),
        Err(StoreError::KeychainUnreachable { .. })
    ));
}

#[test]
fn without_a_session_bus_in_the_environment_there_is_no_secret_service() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    };
    assert_eq!(
        no_session_bus(env(&[])).as_deref(),
        Some("no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set")
    );
    assert!(no_session_bus(env(&[("DBUS_SESSION_BUS_ADDRESS", "")])).is_some());
    assert!(no_session_bus(env(&[("XDG_RUNTIME_DIR", "/nonexistent-run-dir")])).is_some());
    assert_eq!(
        no_session_bus(env(&[("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/bus")])),
        None
    );
}
