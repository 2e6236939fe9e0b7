//! Holding a million records compactly: [`Cold`], the rarely set part of
//! a record (a run's inline provenance, a verdict's details), a null
//! pointer when unset; [`shared`], one copy of a text that many records
//! repeat (a core's hash, a solver's or a family's name); [`Name`], such a
//! shared text as a record's field; [`let_go`], a million records freed
//! off the caller's path.

use serde::{Deserialize, Serialize};

/// A part that is mostly unset: boxed when set, a null pointer when unset
/// (held by each of a million records), read as its unset value through
/// `Deref`. Serialized as the part itself.
#[derive(Clone, Debug, Default)]
pub struct Cold<T>(Option<Box<T>>);

/// What a [`Cold`] part reads as when unset.
pub trait Unset: PartialEq + Sized + 'static {
    fn unset() -> &'static Self;
}

impl<T: Unset> Cold<T> {
    /// Whether it reads as the unset value.
    pub fn is_unset(&self) -> bool {
        **self == *T::unset()
    }
}

impl<T: Unset> Cold<T> {
    /// Let go of the box when what it holds reads as unset again (after
    /// writes through `DerefMut`, which box it).
    pub fn tidy(&mut self) {
        if self.0.as_deref().is_some_and(|t| t == T::unset()) {
            self.0 = None;
        }
    }
}

impl<T: Unset> From<T> for Cold<T> {
    fn from(t: T) -> Self {
        Cold((t != *T::unset()).then(|| Box::new(t)))
    }
}

impl<T: Unset> std::ops::Deref for Cold<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.as_deref().unwrap_or(T::unset())
    }
}

impl<T: Unset + Clone> std::ops::DerefMut for Cold<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.get_or_insert_with(|| Box::new(T::unset().clone()))
    }
}

impl<T: Unset> PartialEq for Cold<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Unset + Serialize> Serialize for Cold<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de, T: Unset + Deserialize<'de>> Deserialize<'de> for Cold<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Cold::from)
    }
}

/// `text` held once: the copy in `distinct`, else a new one put there.
pub fn shared<S: std::hash::BuildHasher>(
    distinct: &mut std::collections::HashSet<std::sync::Arc<str>, S>,
    text: &str,
) -> std::sync::Arc<str> {
    match distinct.get(text) {
        Some(same) => std::sync::Arc::clone(same),
        None => {
            let new: std::sync::Arc<str> = std::sync::Arc::from(text);
            distinct.insert(std::sync::Arc::clone(&new));
            new
        }
    }
}

/// A name that many records repeat (a pair's solver, benchmark and
/// division), held as one shared text: 16 bytes a record instead of a
/// string of its own. Reads, compares, hashes, orders and serializes as
/// the text.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Name(std::sync::Arc<str>);

impl Name {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The shared text itself, for holders of `Arc<str>`.
    pub fn shared(&self) -> std::sync::Arc<str> {
        std::sync::Arc::clone(&self.0)
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<std::sync::Arc<str>> for Name {
    fn from(s: std::sync::Arc<str>) -> Self {
        Name(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(s.into())
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(s.into())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

/// Frees `value` on a thread of its own, so that the caller goes on at
/// once: a million run records take about a second to free (each has a
/// few allocations), time the next stage of a run need not wait for. The
/// process may end before the thread is done; the memory goes back to the
/// system then anyway. Freed in place when no thread can be started.
pub fn let_go<T: Send + 'static>(value: T) {
    // A spawn that fails drops the closure, and the value in it, here.
    let free = std::thread::Builder::new().name("coreval-free".into());
    let _ = free.spawn(move || drop(value));
}
