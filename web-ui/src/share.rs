//! The playground's state in a URL fragment and in localStorage.
//!
//! Format: `#v1.` + base64url(raw DEFLATE(JSON of [`SavedState`])). The
//! version prefix lets a later format keep reading old links.

use miniz_oxide::deflate::compress_to_vec;
use miniz_oxide::inflate::decompress_to_vec_with_limit;
use serde::{Deserialize, Serialize};

pub const PREFIX: &str = "v1.";
const STORAGE_KEY: &str = "tessel.state.v1";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedState {
    /// The script.
    #[serde(rename = "s")]
    pub source: String,
    /// The selected trace step.
    #[serde(rename = "t", default)]
    pub step: usize,
    /// The run backend.
    #[serde(rename = "b", default)]
    pub backend: String,
    /// The example it came from, if any.
    #[serde(rename = "e", default, skip_serializing_if = "String::is_empty")]
    pub example: String,
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize] as char);
        }
    }
    out
}

fn unbase64url(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = ALPHABET.iter().position(|&a| a == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

pub fn encode(state: &SavedState) -> String {
    let json = serde_json::to_string(state).unwrap_or_default();
    format!(
        "{PREFIX}{}",
        base64url(&compress_to_vec(json.as_bytes(), 9))
    )
}

pub fn decode(text: &str) -> Option<SavedState> {
    let body = text.trim_start_matches('#').strip_prefix(PREFIX)?;
    let bytes = unbase64url(body)?;
    let json = decompress_to_vec_with_limit(&bytes, 4 << 20).ok()?;
    serde_json::from_slice(&json).ok()
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

pub fn save_local(state: &SavedState) {
    if let Some(s) = storage() {
        let _ = s.set_item(STORAGE_KEY, &encode(state));
    }
}

pub fn load_local() -> Option<SavedState> {
    decode(&storage()?.get_item(STORAGE_KEY).ok()??)
}

pub fn get_pref(key: &str) -> Option<String> {
    storage()?.get_item(&format!("tessel.{key}")).ok()?
}

pub fn remove_pref(key: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(&format!("tessel.{key}"));
    }
}

pub fn set_pref(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(&format!("tessel.{key}"), value);
    }
}

/// Every pref whose key starts with `prefix`, as (key, value).
pub fn prefs_with_prefix(prefix: &str) -> Vec<(String, String)> {
    let Some(s) = storage() else {
        return Vec::new();
    };
    let full = format!("tessel.{prefix}");
    (0..s.length().unwrap_or(0))
        .filter_map(|i| s.key(i).ok().flatten())
        .filter(|k| k.starts_with(&full))
        .filter_map(|k| {
            let v = s.get_item(&k).ok()??;
            Some((k["tessel.".len()..].to_string(), v))
        })
        .collect()
}

/// Appends `text` to a pref; false when it could not be stored (quota).
pub fn append_pref(key: &str, text: &str) -> bool {
    let Some(s) = storage() else {
        return false;
    };
    let key = format!("tessel.{key}");
    let old = s.get_item(&key).ok().flatten().unwrap_or_default();
    s.set_item(&key, &(old + text)).is_ok()
}

/// The page's address with `state` in the fragment (embed parameters dropped).
pub fn share_url(state: &SavedState) -> String {
    let Some(window) = web_sys::window() else {
        return String::new();
    };
    let loc = window.location();
    let base = format!(
        "{}{}",
        loc.origin().unwrap_or_default(),
        loc.pathname().unwrap_or_default()
    );
    format!("{base}#{}", encode(state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for n in 0..5 {
            let s = SavedState {
                source: "x = 1\n".repeat(n) + "ü → λ",
                step: n,
                backend: "interpreter".into(),
                example: String::new(),
            };
            assert_eq!(decode(&encode(&s)), Some(s));
        }
        assert_eq!(unbase64url(&base64url(b"ab")).unwrap(), b"ab");
        assert_eq!(unbase64url(&base64url(b"abcd")).unwrap(), b"abcd");
    }
}
