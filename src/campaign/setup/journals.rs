//! Reading a campaign's journals: its own and every shard's
//! (`shards/*/NAME`), so that any stage sees all finished work whether or
//! not `coreval merge` ran. Torn or bad lines are warned about, once.

use super::config::Campaign;
use anyhow::Result;
use serde::de::DeserializeOwned;
use std::cell::RefCell;
use std::path::PathBuf;

impl Campaign {
    /// Every record of journal `name` (`runs.jsonl`, `cores.jsonl`…), in
    /// a vector sized once ([`crate::store::journal::for_each_mapped`]'s hint).
    pub fn read_journal<T: DeserializeOwned + Send>(&self, name: &str) -> Result<Vec<T>> {
        let out = RefCell::new(Vec::new());
        self.for_each_record_mapped(
            name,
            |n| out.borrow_mut().reserve(n),
            &|r| r,
            |r| out.borrow_mut().push(r),
        )?;
        Ok(out.into_inner())
    }

    /// [`Campaign::read_journal`] one record at a time (nothing is held):
    /// `f` gets every record of `name`, then of the shards' journals.
    pub fn for_each_record<T: DeserializeOwned + Send>(
        &self,
        name: &str,
        f: impl FnMut(T),
    ) -> Result<()> {
        self.for_each_record_mapped(name, |_| {}, &|r| r, f)
    }

    /// [`Campaign::for_each_record`], each record first turned by `map` on
    /// the threads that parse it, and `hint` told about how many more
    /// records each journal holds ([`crate::store::journal::for_each_mapped`]).
    pub fn for_each_record_mapped<T: DeserializeOwned + Send, U: Send>(
        &self,
        name: &str,
        hint: impl FnMut(usize),
        map: &(dyn Fn(T) -> U + Sync),
        f: impl FnMut(U),
    ) -> Result<()> {
        let parse = |text: &[u8]| serde_json::from_slice::<T>(text).map(map);
        self.for_each_record_parsed(name, hint, &parse, f)
    }

    /// [`Campaign::for_each_record_mapped`] with the parse of a line given
    /// ([`crate::store::journal::for_each_parsed`]).
    pub fn for_each_record_parsed<U: Send>(
        &self,
        name: &str,
        mut hint: impl FnMut(usize),
        parse: &(dyn Fn(&[u8]) -> serde_json::Result<U> + Sync),
        mut f: impl FnMut(U),
    ) -> Result<()> {
        let mut paths = vec![self.dir.join(name)];
        if let Ok(rd) = std::fs::read_dir(self.dir.join("shards")) {
            let mut shards: Vec<PathBuf> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.path().join(name))
                .collect();
            shards.sort();
            paths.extend(shards.into_iter().filter(|p| p.exists()));
        }
        for p in paths {
            let report = crate::store::journal::for_each_parsed(&p, &mut hint, parse, &mut f)?;
            for w in report.warnings(&p) {
                crate::store::journal::warn_once(w);
            }
        }
        Ok(())
    }
}
