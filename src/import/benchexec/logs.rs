//! Where a BenchExec result's output logs are read from: BenchExec's
//! `<…>.logfiles` folder, or the same folder zipped (`<…>.logfiles.zip`, as
//! BenchExec leaves it when it compresses its results). Logs are found by
//! file name (`<run set>.<task basename>.log`) in either.

use anyhow::{Context, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use zip::ZipArchive;

/// Bytes read of one log at most (a zip entry cannot make the import
/// allocate more than this).
const MAX_LOG: u64 = 256 << 20;

/// An open source of output logs.
pub enum Logs {
    /// A folder of logs.
    Dir(PathBuf),
    /// A zip of the folder: its entries by file name.
    Zip {
        path: PathBuf,
        archive: RefCell<ZipArchive<File>>,
        by_name: HashMap<String, usize>,
    },
}

impl Logs {
    /// Open `path`: a `.zip` file, else a folder.
    pub fn open(path: &Path) -> Result<Logs> {
        if !path.to_string_lossy().ends_with(".zip") {
            return Ok(Logs::Dir(path.to_path_buf()));
        }
        let file = crate::store::regular::open(path)
            .with_context(|| format!("cannot open the log archive {}", path.display()))?;
        let archive = ZipArchive::new(file)
            .with_context(|| format!("{}: not a readable zip archive", path.display()))?;
        // Entries by file name, the first of a name in archive order.
        let mut by_name = HashMap::new();
        for i in 0..archive.len() {
            let Some(Ok(name)) = archive.name_for_index(i) else {
                continue;
            };
            let base = name.rsplit('/').next().unwrap_or(&name);
            if !base.is_empty() {
                by_name.entry(base.to_string()).or_insert(i);
            }
        }
        Ok(Logs::Zip {
            path: path.to_path_buf(),
            archive: RefCell::new(archive),
            by_name,
        })
    }

    /// The logs of result file `xml` where BenchExec puts them: the
    /// `<…>.logfiles` folder, or `<…>.logfiles.zip` when only that exists.
    pub fn beside(xml: &Path) -> Result<Logs> {
        Logs::open(&crate::store::benchexec_xml::logs_beside(xml))
    }

    /// The log called `file` (a bare file name), if there is one.
    pub fn read(&self, file: &str) -> Option<Vec<u8>> {
        match self {
            Logs::Dir(dir) => {
                // Names from the XML must not lead outside the log folder.
                let path = crate::store::safepath::safe_join(dir, file).ok()?;
                crate::store::regular::read(&path).ok()
            }
            Logs::Zip {
                archive, by_name, ..
            } => {
                let i = *by_name.get(file)?;
                let mut archive = archive.borrow_mut();
                let entry = archive.by_index(i).ok()?;
                let mut bytes = Vec::new();
                entry.take(MAX_LOG).read_to_end(&mut bytes).ok()?;
                Some(bytes)
            }
        }
    }

    /// Where the logs are, for messages.
    pub fn path(&self) -> &Path {
        match self {
            Logs::Dir(p) | Logs::Zip { path: p, .. } => p,
        }
    }
}
