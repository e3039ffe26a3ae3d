//! Insertion-ordered dictionaries (and sets) keyed by hashable values.

use std::collections::HashMap;

use super::error::{ExcKind, PyErr, Res};
use super::value::Value;

/// A hashable key: what Python's `hash` and `==` agree on. Numbers that
/// compare equal (`1`, `1.0`, `True`) share a key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HKey {
    None,
    Int(i64),
    /// A float that is not an integer (by bits).
    Float(u64),
    Str(String),
    Tuple(Vec<HKey>),
    /// Objects hashed by identity (functions, classes, host objects).
    Id(usize),
    /// Host objects with a value identity (a GlobalVar's name, a dtype).
    Named(&'static str, String),
}

impl HKey {
    /// The key of `v`, or a `TypeError` for unhashable values.
    pub fn of(v: &Value) -> Res<HKey> {
        Ok(match v {
            Value::None => HKey::None,
            Value::Bool(b) => HKey::Int(*b as i64),
            Value::Int(i) => HKey::Int(*i),
            Value::Float(f) => float_key(*f),
            Value::Str(s) => HKey::Str(s.to_string()),
            Value::Tuple(items) => HKey::Tuple(items.iter().map(HKey::of).collect::<Res<_>>()?),
            Value::NpScalar(s) => match s.num {
                super::value::Num::I(i) => HKey::Int(i),
                super::value::Num::F(f) => float_key(f),
            },
            Value::NpDType(d) => HKey::Named("dtype", d.to_string()),
            Value::Host(o) => match o.hash_name() {
                Some((kind, name)) => HKey::Named(kind, name),
                None => HKey::Id(v.identity().unwrap_or(0)),
            },
            Value::List(_) | Value::Dict(_) | Value::Set(_) | Value::Array(_) | Value::Slice(_) => {
                return Err(PyErr::new(
                    ExcKind::TypeError,
                    format!("unhashable type: '{}'", v.type_name()),
                ))
            }
            other => HKey::Id(other.identity().unwrap_or(0)),
        })
    }
}

fn float_key(f: f64) -> HKey {
    if f.fract() == 0.0 && f.abs() < 9.2e18 {
        HKey::Int(f as i64)
    } else {
        HKey::Float(f.to_bits())
    }
}

/// An insertion-ordered map.
#[derive(Clone, Default)]
pub struct Dict {
    entries: Vec<(Value, Value)>,
    index: HashMap<HKey, usize>,
    /// `collections.defaultdict`'s factory: called (no arguments) to make
    /// the value of a missing key on `d[key]`, which then inserts it.
    pub default_factory: Option<Value>,
}

impl Dict {
    pub fn new() -> Dict {
        Dict::default()
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn get(&self, k: &Value) -> Res<Option<Value>> {
        let key = HKey::of(k)?;
        Ok(self
            .index
            .get(&key)
            .and_then(|&i| self.entries.get(i))
            .map(|(_, v)| v.clone()))
    }
    pub fn get_str(&self, k: &str) -> Option<Value> {
        self.index
            .get(&HKey::Str(k.to_string()))
            .and_then(|&i| self.entries.get(i))
            .map(|(_, v)| v.clone())
    }
    pub fn contains(&self, k: &Value) -> Res<bool> {
        Ok(self.index.contains_key(&HKey::of(k)?))
    }
    pub fn insert(&mut self, k: Value, v: Value) -> Res<()> {
        let key = HKey::of(&k)?;
        match self.index.get(&key) {
            Some(&i) => {
                if let Some(slot) = self.entries.get_mut(i) {
                    slot.1 = v;
                }
            }
            None => {
                self.index.insert(key, self.entries.len());
                self.entries.push((k, v));
            }
        }
        Ok(())
    }
    pub fn remove(&mut self, k: &Value) -> Res<Option<Value>> {
        let key = HKey::of(k)?;
        let Some(i) = self.index.remove(&key) else {
            return Ok(None);
        };
        if i >= self.entries.len() {
            return Ok(None);
        }
        let (_, v) = self.entries.remove(i);
        for slot in self.index.values_mut() {
            if *slot > i {
                *slot -= 1;
            }
        }
        Ok(Some(v))
    }
    pub fn pop_last(&mut self) -> Option<(Value, Value)> {
        let (k, v) = self.entries.pop()?;
        if let Ok(key) = HKey::of(&k) {
            self.index.remove(&key);
        }
        Some((k, v))
    }
    pub fn clear(&mut self) {
        self.entries.clear();
        self.index.clear();
    }
    pub fn keys(&self) -> Vec<Value> {
        self.entries.iter().map(|(k, _)| k.clone()).collect()
    }
    pub fn values(&self) -> Vec<Value> {
        self.entries.iter().map(|(_, v)| v.clone()).collect()
    }
    pub fn items(&self) -> Vec<(Value, Value)> {
        self.entries.clone()
    }
}

impl PyErr {
    /// `KeyError: key` for a missing key.
    pub fn key_error(key: Value) -> Box<PyErr> {
        PyErr::with_args(ExcKind::KeyError, vec![key])
    }
}
