//! Where the page keeps its tuning records: IndexedDB (database `tessel`,
//! object store `tuning-records`, one entry per workload and target keyed
//! by [`crate::tuning::store_key`], its value TVM's workload line followed
//! by the workload's tuning-record lines).
//!
//! IndexedDB rather than localStorage: its quota is a share of the disk
//! instead of a few MB for the whole origin, so long tunings of many
//! workloads fit, and writes do not block the main thread. Its API is
//! asynchronous while the page wants the records synchronously when Start
//! is pressed, so the store is read once into memory when the page opens
//! ([`open`]); [`when_ready`] runs what needs the records after that, and
//! each appended record updates the memory copy and is written behind.
//!
//! Records an earlier version of the page kept in localStorage (`tessel.
//! tune.*`) move into IndexedDB on the first open. Where IndexedDB cannot be
//! opened (some private-browsing modes, a blocked upgrade), the store keeps
//! using localStorage, and says so in [`kind`].

use std::cell::RefCell;
use std::collections::BTreeMap;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransactionMode};

use crate::share;
use crate::tuning::STORE_PREFIX;

/// The IndexedDB database and object store names.
pub const DATABASE: &str = "tessel";
pub const OBJECT_STORE: &str = "tuning-records";

/// Where the records live once the store is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    IndexedDb,
    LocalStorage,
}

impl StoreKind {
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::IndexedDb => "indexeddb",
            StoreKind::LocalStorage => "localstorage",
        }
    }
}

type Waiting = Vec<Box<dyn FnOnce()>>;

#[derive(Default)]
struct Store {
    /// `None` until [`open`] finished.
    kind: Option<StoreKind>,
    db: Option<IdbDatabase>,
    /// Every entry (key under [`STORE_PREFIX`], text), when in IndexedDB.
    entries: BTreeMap<String, String>,
    waiting: Waiting,
    /// Told when a write fails (the quota, say).
    on_error: Option<Box<dyn Fn(String)>>,
}

thread_local! {
    static STORE: RefCell<Store> = RefCell::new(Store::default());
}

/// Opens the store and reads it into memory; `on_error` is told of a
/// record that could not be written. Runs the [`when_ready`] callbacks
/// after.
pub fn open(on_error: impl Fn(String) + 'static) {
    STORE.with_borrow_mut(|s| s.on_error = Some(Box::new(on_error)));
    wasm_bindgen_futures::spawn_local(async {
        let opened = open_database().await;
        let kind = match opened {
            Ok((db, entries)) => {
                STORE.with_borrow_mut(|s| {
                    s.db = Some(db);
                    s.entries = entries;
                    s.kind = Some(StoreKind::IndexedDb);
                });
                migrate_local_storage();
                StoreKind::IndexedDb
            }
            Err(why) => {
                web_sys::console::warn_1(&JsValue::from_str(&format!(
                    "tuning records stay in localStorage: IndexedDB could not be opened ({why})"
                )));
                StoreKind::LocalStorage
            }
        };
        let waiting = STORE.with_borrow_mut(|s| {
            s.kind = Some(kind);
            std::mem::take(&mut s.waiting)
        });
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("data-tune-store", kind.name());
        }
        for f in waiting {
            f();
        }
    });
}

/// Where the records are, once [`open`] has finished.
pub fn kind() -> Option<StoreKind> {
    STORE.with_borrow(|s| s.kind)
}

/// Runs `f` now if the store is open, else when it is.
pub fn when_ready(f: impl FnOnce() + 'static) {
    let f: Box<dyn FnOnce()> = Box::new(f);
    // `f` runs outside the borrow: it reads the store.
    let now = STORE.with_borrow_mut(|s| {
        if s.kind.is_some() {
            Some(f)
        } else {
            s.waiting.push(f);
            None
        }
    });
    if let Some(f) = now {
        f();
    }
}

/// Every stored entry, as (key, text).
pub fn entries() -> Vec<(String, String)> {
    let in_memory = STORE.with_borrow(|s| {
        (s.kind == Some(StoreKind::IndexedDb)).then(|| {
            s.entries
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
    });
    in_memory.unwrap_or_else(|| share::prefs_with_prefix(STORE_PREFIX))
}

/// Appends `text` to entry `key`: in memory now, in IndexedDB behind (a
/// failed write goes to `open`'s `on_error`). False when it could not be
/// kept at all (localStorage full).
pub fn append(key: &str, text: &str) -> bool {
    let write = STORE.with_borrow_mut(|s| {
        let db =
            s.db.clone()
                .filter(|_| s.kind == Some(StoreKind::IndexedDb))?;
        let value = s.entries.entry(key.to_string()).or_default();
        value.push_str(text);
        Some((db, value.clone()))
    });
    match write {
        Some((db, value)) => {
            put(&db, key, &value);
            true
        }
        None => share::append_pref(key, text),
    }
}

/// Writes one entry in a transaction of its own; transactions on one store
/// complete in the order they were made, so the last append wins.
fn put(db: &IdbDatabase, key: &str, value: &str) {
    let request = db
        .transaction_with_str_and_mode(OBJECT_STORE, IdbTransactionMode::Readwrite)
        .and_then(|tx| tx.object_store(OBJECT_STORE))
        .and_then(|store| store.put_with_key(&JsValue::from_str(value), &JsValue::from_str(key)));
    let failed = |why: String| {
        STORE.with_borrow(|s| {
            if let Some(tell) = &s.on_error {
                tell(why)
            }
        })
    };
    match request {
        Ok(request) => {
            let key = key.to_string();
            wasm_bindgen_futures::spawn_local(async move {
                if let Err(e) = settle(&request).await {
                    failed(format!("the record for {key} could not be written: {e}"));
                }
            });
        }
        Err(e) => failed(format!(
            "the record for {key} could not be written: {}",
            describe(&e)
        )),
    }
}

/// The request's result once it succeeds, or its error.
async fn settle(request: &IdbRequest) -> Result<JsValue, String> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let req = request.clone();
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call1(&JsValue::NULL, &req.result().unwrap_or(JsValue::UNDEFINED));
        });
        let req = request.clone();
        let err = Closure::once_into_js(move |_: web_sys::Event| {
            let why = req
                .error()
                .ok()
                .flatten()
                .map_or_else(|| "unknown error".to_string(), |e| e.message());
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&why));
        });
        request.set_onsuccess(Some(ok.unchecked_ref()));
        request.set_onerror(Some(err.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|e| describe(&e))
}

fn describe(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| e.dyn_ref::<js_sys::Error>().map(|e| e.message().into()))
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Opens (creating on first use) the database, and reads every entry.
async fn open_database() -> Result<(IdbDatabase, BTreeMap<String, String>), String> {
    let factory = web_sys::window()
        .ok_or("no window")?
        .indexed_db()
        .map_err(|e| describe(&e))?
        .ok_or("IndexedDB is not available")?;
    let request: IdbOpenDbRequest = factory
        .open_with_u32(DATABASE, 1)
        .map_err(|e| describe(&e))?;
    let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        let db = e
            .target()
            .and_then(|t| t.dyn_into::<IdbRequest>().ok())
            .and_then(|r| r.result().ok())
            .and_then(|db| db.dyn_into::<IdbDatabase>().ok());
        if let Some(db) = db {
            if !db.object_store_names().contains(OBJECT_STORE) {
                let _ = db.create_object_store(OBJECT_STORE);
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let db: IdbDatabase = settle(&request)
        .await?
        .dyn_into()
        .map_err(|_| "the open request gave no database".to_string())?;
    request.set_onupgradeneeded(None);
    drop(upgrade);
    if !db.object_store_names().contains(OBJECT_STORE) {
        return Err(format!("the database has no `{OBJECT_STORE}` store"));
    }
    let store = db
        .transaction_with_str(OBJECT_STORE)
        .and_then(|tx| tx.object_store(OBJECT_STORE))
        .map_err(|e| describe(&e))?;
    let keys = settle(&store.get_all_keys().map_err(|e| describe(&e))?).await?;
    let values = settle(&store.get_all().map_err(|e| describe(&e))?).await?;
    let (keys, values) = (js_sys::Array::from(&keys), js_sys::Array::from(&values));
    let entries = keys
        .iter()
        .zip(values.iter())
        .filter_map(|(k, v)| Some((k.as_string()?, v.as_string()?)))
        .collect();
    Ok((db, entries))
}

/// Moves the records an earlier page kept in localStorage into the store
/// (appended to what the store has for the same key), then removes them.
fn migrate_local_storage() {
    for (key, text) in share::prefs_with_prefix(STORE_PREFIX) {
        let kept = STORE.with_borrow(|s| s.entries.contains_key(&key));
        // A workload's text starts with its workload line: keep one.
        let text = if kept {
            text.split_once('\n')
                .map_or("", |(_, rest)| rest)
                .to_string()
        } else {
            text
        };
        append(&key, &text);
        share::remove_pref(&key);
    }
}
