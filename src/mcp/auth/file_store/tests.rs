//! The file store's tests: layout, round trips, locking, and the refusal
//! of unsafe or damaged files.

use super::*;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

fn sign_in(account: &str) -> SignIn {
    SignIn {
        key: SignInKey {
            resource: "https://mcp.example.com/mcp".into(),
            issuer: "https://login.example.com".into(),
            account: account.into(),
        },
        mcp_url: "https://mcp.example.com/mcp".into(),
        as_metadata_url: "https://login.example.com/.well-known/oauth-authorization-server".into(),
        client: ClientRegistration {
            issuer: "https://login.example.com".into(),
            kind: ClientKind::Dynamic,
            client_id: "client-1".into(),
            client_secret: Some(Secret::new("CLIENT-SECRET-1")),
            client_secret_expires_at: Some(1_900_000_000),
            token_endpoint_auth_method: "client_secret_basic".into(),
            redirect_uri: "http://127.0.0.1:51234/callback".into(),
        },
        tokens: Tokens {
            access_token: Secret::new("ACCESS-TOKEN-1"),
            token_type: "Bearer".into(),
            expires_at: Some(SystemTime::UNIX_EPOCH + Duration::new(1_800_000_000, 123_456_789)),
            refresh_token: Some(Secret::new("REFRESH-TOKEN-1")),
            scopes_requested: vec!["mcp:read".into(), "offline_access".into()],
            scopes_granted: Some(vec!["mcp:read".into()]),
            obtained_at: SystemTime::UNIX_EPOCH + Duration::new(1_799_996_400, 1),
        },
        grant: GrantType::ClientCredentials,
        dpop_key: None,
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

fn chmod(p: &Path, m: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

#[test]
fn every_field_round_trips_and_files_are_private() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(&dir.path().join("state")).unwrap();
    let s = sign_in("default");
    store.save(&s).unwrap();
    let path = store.path_of(&s.key);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir.path().join("state/oauth")), 0o700);
    assert_eq!(mode(&dir.path().join("state/oauth/clients")), 0o700);
    assert_eq!(mode(&dir.path().join("state")), 0o700);
    let name = path.file_name().unwrap().to_str().unwrap();
    assert_eq!(name.len(), 16 + ".json".len(), "{name}");
    assert!(name[..16].chars().all(|c| c.is_ascii_hexdigit()));

    assert_eq!(store.all().unwrap(), vec![s.clone()]);
    assert_eq!(
        store
            .sign_ins("https://mcp.example.com/mcp", "default")
            .unwrap(),
        vec![s.clone()]
    );
    // Identifiers are exact strings.
    assert!(store
        .sign_ins("https://mcp.example.com/mcp/", "default")
        .unwrap()
        .is_empty());
    assert!(store
        .sign_ins("https://mcp.example.com/mcp", "work")
        .unwrap()
        .is_empty());

    // The optional fields absent round-trip too.
    let mut bare = sign_in("bare");
    bare.tokens.expires_at = None;
    bare.tokens.refresh_token = None;
    bare.tokens.scopes_granted = None;
    bare.client.client_secret = None;
    bare.client.client_secret_expires_at = None;
    bare.client.kind = ClientKind::MetadataDocument;
    store.save(&bare).unwrap();
    let all = store.all().unwrap();
    assert_eq!(all.len(), 2);
    assert!(all.contains(&bare) && all.contains(&s));
}

#[test]
fn secrets_are_in_the_file_but_never_in_debug_or_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let s = sign_in("default");
    store.save(&s).unwrap();
    let path = store.path_of(&s.key);
    let text = std::fs::read_to_string(&path).unwrap();
    for secret in ["ACCESS-TOKEN-1", "REFRESH-TOKEN-1", "CLIENT-SECRET-1"] {
        assert!(text.contains(secret), "{secret} not stored");
    }
    let debug = format!("{:?} {:?}", store.all().unwrap(), store.entries().unwrap());
    assert!(
        !debug.contains("TOKEN-1") && !debug.contains("SECRET-1"),
        "{debug}"
    );

    // A damaged file (a field of the wrong type) is named, its values not.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["tokens"]["scopes_requested"] = serde_json::json!("ACCESS-TOKEN-2");
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    let e = store.all().unwrap_err().to_string();
    assert!(
        e.contains("is damaged (a field has the wrong type (expected a sequence))"),
        "{e}"
    );
    assert!(e.contains(&path.display().to_string()), "{e}");
    assert!(!e.contains("TOKEN-2"), "{e}");
    // Not JSON at all.
    std::fs::write(&path, "ACCESS-TOKEN-3 {").unwrap();
    let e = store.all().unwrap_err().to_string();
    assert!(e.contains("is not JSON") && !e.contains("TOKEN-3"), "{e}");
}

#[test]
fn a_pre_registered_clients_secret_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let mut s = sign_in("default");
    s.client.kind = ClientKind::PreRegistered;
    store.save(&s).unwrap();
    store.save_client(&s.client).unwrap();
    let text = std::fs::read_to_string(store.path_of(&s.key)).unwrap();
    let client = std::fs::read_to_string(store.client_path(&s.client.issuer)).unwrap();
    assert!(!text.contains("CLIENT-SECRET-1") && !client.contains("CLIENT-SECRET-1"));
    assert_eq!(store.all().unwrap()[0].client.client_secret, None);
}

#[test]
fn client_registrations_are_kept_per_issuer() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let c = sign_in("default").client;
    store.save_client(&c).unwrap();
    assert_eq!(mode(&store.client_path(&c.issuer)), 0o600);
    assert_eq!(store.client(&c.issuer).unwrap(), Some(c.clone()));
    assert_eq!(store.client("https://login.example.com/").unwrap(), None);
    // Client files are not sign-ins.
    assert!(store.all().unwrap().is_empty());
    assert!(store.remove_client(&c.issuer).unwrap());
    assert!(!store.remove_client(&c.issuer).unwrap());
    assert_eq!(store.client(&c.issuer).unwrap(), None);
}

#[test]
fn a_file_open_to_others_is_refused_with_the_chmod_that_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let s = sign_in("default");
    store.save(&s).unwrap();
    let path = store.path_of(&s.key);
    let p = path.display().to_string();
    chmod(&path, 0o644);
    let e = store.all().unwrap_err().to_string();
    assert_eq!(
        e,
        format!("refusing to read the sign-in file {p}: it is open to others (mode 0644); run chmod 600 {p}")
    );
    chmod(&path, 0o640);
    let e = store.all().unwrap_err().to_string();
    assert!(e.contains("open to its group (mode 0640)"), "{e}");
    chmod(&path, 0o600);
    assert_eq!(store.all().unwrap().len(), 1);

    let oauth = dir.path().join("oauth");
    chmod(&oauth, 0o755);
    let e = FileStore::open(dir.path()).unwrap_err().to_string();
    let o = oauth.display().to_string();
    assert!(
        e.ends_with(&format!("(mode 0755); run chmod 700 {o}")),
        "{e}"
    );
}

#[test]
fn a_file_owned_by_another_user_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.json");
    std::fs::write(&path, "{}").unwrap();
    // Root can give the file away; anyone else checks the rule on a
    // file they do not own (the root directory).
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&path, Some(65534), None).unwrap();
    }
    let m = std::fs::metadata(if root { path.as_path() } else { Path::new("/") }).unwrap();
    assert_ne!(m.uid(), unsafe { libc::geteuid() });
    let e = check_owner_and_mode(&m, "F", "read the sign-in file", "600").unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::Unsafe {
                why: Unsafety::OtherOwner { uid, .. },
                ..
            } if uid == m.uid()
        ),
        "{e:?}"
    );
    let e = e.to_string();
    assert!(
        e.starts_with("refusing to read the sign-in file F: it belongs to another user (uid "),
        "{e}"
    );
    if unsafe { libc::geteuid() } == 0 {
        chmod(&path, 0o600);
        let e = read_private(&path).unwrap_err().to_string();
        assert!(e.contains("belongs to another user (uid 65534)"), "{e}");
    }
}

#[test]
fn links_and_fifos_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let s = sign_in("default");
    let path = store.path_of(&s.key);
    let victim = dir.path().join("elsewhere.json");
    std::fs::write(&victim, "{}").unwrap();
    chmod(&victim, 0o600);
    std::os::unix::fs::symlink(&victim, &path).unwrap();
    let e = store.all().unwrap_err().to_string();
    assert!(e.contains("is a symbolic link; remove it (rm "), "{e}");
    // Writing replaces the link itself, never the file it names.
    store.save(&s).unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "{}");
    assert!(!std::fs::symlink_metadata(&path)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(store.all().unwrap(), vec![s.clone()]);

    std::fs::remove_file(&path).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = store.all().unwrap_err().to_string();
    assert!(e.contains("is not a regular file"), "{e}");

    // A linked oauth directory is refused.
    let other = tempfile::tempdir().unwrap();
    let linked = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(other.path(), linked.path().join("oauth")).unwrap();
    let e = FileStore::open(linked.path()).unwrap_err().to_string();
    assert!(e.contains("is a symbolic link"), "{e}");
}

#[test]
fn a_save_replaces_the_file_atomically_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let mut s = sign_in("default");
    store.save(&s).unwrap();
    let path = store.path_of(&s.key);
    // A hard link keeps the old file: a rename leaves it whole, an
    // in-place write would change it.
    let old = dir.path().join("old");
    std::fs::hard_link(&path, &old).unwrap();
    let before = std::fs::read(&old).unwrap();
    s.tokens.access_token = Secret::new("ACCESS-TOKEN-NEW");
    store.save(&s).unwrap();
    assert_eq!(std::fs::read(&old).unwrap(), before);
    assert_eq!(
        store.all().unwrap()[0].tokens.access_token.expose(),
        "ACCESS-TOKEN-NEW"
    );
    assert_eq!(mode(&path), 0o600);
    let names: Vec<String> = std::fs::read_dir(dir.path().join("oauth"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn other_versions_and_foreign_files_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let s = sign_in("default");
    store.save(&s).unwrap();
    let path = store.path_of(&s.key);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["version"] = 2.into();
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    let e = store.all().unwrap_err().to_string();
    assert!(
        e.contains("has format version 2; this ahp-elicit reads version 1"),
        "{e}"
    );
    std::fs::write(&path, "[1, 2]").unwrap();
    let e = store.all().unwrap_err().to_string();
    assert!(e.contains("has no format version"), "{e}");
    // `entries` lists the broken file rather than failing.
    let entries = store.entries().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].path, path);
    assert!(entries[0].sign_in.is_err());
    assert_eq!(store.remove_all().unwrap(), 1);
    assert!(store.entries().unwrap().is_empty());
}

#[test]
fn remove_deletes_one_sign_in() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    store.save(&sign_in("default")).unwrap();
    store.save(&sign_in("work")).unwrap();
    assert!(store.remove(&sign_in("work").key).unwrap());
    assert!(!store.remove(&sign_in("work").key).unwrap());
    assert_eq!(store.all().unwrap(), vec![sign_in("default")]);
}

/// Whether another open of the lock file could take the lock now.
fn free(store: &FileStore, key: &SignInKey) -> bool {
    let f = open_lock(&store.path_of(key).with_extension("lock")).unwrap();
    let rc = unsafe {
        libc::flock(
            std::os::fd::AsRawFd::as_raw_fd(&f),
            libc::LOCK_EX | libc::LOCK_NB,
        )
    };
    rc == 0
}

#[test]
fn the_lock_is_held_until_dropped_and_serializes_read_modify_write() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let s = sign_in("default");
    let held = store.lock(&s.key).unwrap();
    assert_eq!(mode(&store.path_of(&s.key).with_extension("lock")), 0o600);
    assert!(!free(&store, &s.key));
    // Another sign-in's lock is another file.
    assert!(free(&store, &sign_in("work").key));
    drop(held);
    assert!(free(&store, &s.key));

    // Two threads each refresh (read, change, write) 25 times under
    // the lock: no update is lost.
    let mut first = s.clone();
    first.tokens.token_type = "0".into();
    store.save(&first).unwrap();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let store = store.clone();
            let key = s.key.clone();
            std::thread::spawn(move || {
                for _ in 0..25 {
                    let _l = store.lock(&key).unwrap();
                    let mut cur = store.all().unwrap().remove(0);
                    let n: u32 = cur.tokens.token_type.parse().unwrap();
                    cur.tokens.token_type = (n + 1).to_string();
                    store.save(&cur).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(store.all().unwrap()[0].tokens.token_type, "50");
}

#[test]
fn the_directory_follows_the_environment() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    };
    assert_eq!(
        dir_from(env(&[("AHP_ELICIT_STATE_DIR", "/s"), ("HOME", "/h")])),
        Some(PathBuf::from("/s"))
    );
    assert_eq!(
        dir_from(env(&[("XDG_STATE_HOME", "/x"), ("HOME", "/h")])),
        Some(PathBuf::from("/x/ahp-elicit"))
    );
    assert_eq!(
        dir_from(env(&[
            ("XDG_STATE_HOME", "rel"),
            ("AHP_ELICIT_STATE_DIR", ""),
            ("HOME", "/h")
        ])),
        Some(PathBuf::from("/h/.local/state/ahp-elicit"))
    );
    assert_eq!(dir_from(env(&[])), None);
}

#[test]
fn a_dpop_key_round_trips_and_a_file_without_one_reads_as_bearer() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let mut s = sign_in("default");
    s.tokens.token_type = "DPoP".into();
    s.dpop_key = Some(Secret::new("PKCS8-DOCUMENT-BASE64URL"));
    store.save(&s).unwrap();
    let path = store.path_of(&s.key);
    let text = std::fs::read_to_string(&path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["dpop_key"], "PKCS8-DOCUMENT-BASE64URL");
    assert_eq!(v["version"], 1, "the same format version");
    assert_eq!(store.all().unwrap(), vec![s.clone()]);
    // A file written before DPoP (no dpop_key) is a bearer sign-in.
    let mut old = v.clone();
    old.as_object_mut().unwrap().remove("dpop_key");
    old["tokens"]["token_type"] = "Bearer".into();
    std::fs::write(&path, old.to_string()).unwrap();
    let back = &store.all().unwrap()[0];
    assert_eq!(back.dpop_key, None);
    assert_eq!(back.tokens.token_type, "Bearer");
    // Debug never shows it.
    assert!(!format!("{s:?}").contains("PKCS8-DOCUMENT"));
}
