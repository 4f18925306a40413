//! The default store's tests: new sign-ins in the keychain when it
//! answers, else in the file store (and said so); sign-ins read from both;
//! one found in the file store kept there.

use super::*;

#[test]
fn the_file_store_is_created_only_when_first_written() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("state");
    let store = open_store(Some(dir.to_str().unwrap())).unwrap();
    assert!(!dir.exists(), "nothing is created when the store is opened");
    // Looking for a sign-in creates nothing either.
    assert!(store.all().unwrap().is_empty());
    assert!(store
        .sign_ins("http://a.example/mcp", "default")
        .unwrap()
        .is_empty());
    assert!(store.client("http://a.example").unwrap().is_none());
    assert!(!dir.exists(), "nothing is created by a look-up");
    // The first write creates the store.
    assert!(!store.remove_client("http://a.example").unwrap());
    assert!(dir.join("oauth").is_dir());
}

#[test]
fn memory_keeps_nothing_on_disk() {
    let store = open_store(Some("memory")).unwrap();
    assert!(store.all().unwrap().is_empty());
    let key = SignInKey {
        resource: "r".into(),
        issuer: "i".into(),
        account: "default".into(),
    };
    assert_eq!(store.kept_in(&key), "memory, for this run only");
}

#[cfg(all(
    feature = "keyring",
    any(target_os = "linux", target_os = "macos", windows)
))]
mod with_a_keychain {
    use super::*;
    use crate::mcp::auth::keyring_store::tests::{sign_in, MapKeychain};

    /// The default store on a file store in `dir` and a map keychain, or
    /// no keychain (`None`).
    fn default_store(dir: &std::path::Path, keychain: Option<Arc<MapKeychain>>) -> DefaultStore {
        DefaultStore::with(
            lazy_file(Some(dir.to_path_buf())),
            Box::new(move || match &keychain {
                Some(k) => Ok(Arc::new(KeyringStore::with(k.clone(), None)) as Arc<dyn Store>),
                None => Err(StoreError::KeychainUnreachable {
                    keychain: "the Secret Service keychain",
                    why: "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set".into(),
                }),
            }),
        )
    }

    #[test]
    fn new_sign_ins_go_to_the_keychain_and_file_ones_stay_in_their_file() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("state");
        // An earlier run without a keychain kept one in a file.
        let old = sign_in("https://old.example.com", "default");
        let without = default_store(&dir, None);
        without.save(&old).unwrap();
        let file = file_store::FileStore::open(&dir).unwrap();
        assert_eq!(
            without.kept_in(&old.key),
            format!(
                "{} (0600 file); no keychain answered (no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set)",
                file.path_of(&old.key).display()
            )
        );
        // Now a keychain answers.
        let map = Arc::new(MapKeychain::default());
        let store = default_store(&dir, Some(map.clone()));
        let new = sign_in("https://new.example.com", "default");
        store.save(&new).unwrap();
        assert_eq!(store.kept_in(&new.key), "the Secret Service keychain");
        assert!(map
            .items
            .lock()
            .unwrap()
            .contains_key(&keyring_store::item_of(&new.key)));
        // Both are read; the file's is renewed in its file.
        assert_eq!(store.all().unwrap().len(), 2);
        assert_eq!(
            store.sign_ins(&old.key.resource, "default").unwrap(),
            vec![old.clone()]
        );
        let mut renewed = old.clone();
        renewed.tokens.access_token = crate::mcp::auth::store::Secret::new("ACCESS-TOKEN-2");
        store.save(&renewed).unwrap();
        assert_eq!(file.all().unwrap(), vec![renewed.clone()]);
        assert!(!map
            .items
            .lock()
            .unwrap()
            .contains_key(&keyring_store::item_of(&old.key)));
        assert_eq!(
            store.kept_in(&old.key),
            format!("{} (0600 file)", file.path_of(&old.key).display())
        );
        // A client registration follows the same rule.
        store.save_client(&new.client).unwrap();
        assert_eq!(
            store.client(&new.client.issuer).unwrap(),
            Some(new.client.clone())
        );
        assert!(file.client(&new.client.issuer).unwrap().is_none());
        // Removing removes from both.
        assert!(store.remove(&old.key).unwrap());
        assert!(store.remove(&new.key).unwrap());
        assert!(store.all().unwrap().is_empty());
    }

    #[test]
    fn the_keychain_is_asked_once_and_only_when_needed() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("state");
        let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = asked.clone();
        let store = DefaultStore::with(
            lazy_file(Some(dir)),
            Box::new(move || {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Err(StoreError::NoKeychainHere)
            }),
        );
        assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert!(store.all().unwrap().is_empty());
        assert!(store.client("https://login.example.com").unwrap().is_none());
        assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
