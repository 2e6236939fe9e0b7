//! Storage: how coreval keeps what it has done and reads what it is given.
//! The append-only journals and the campaign lock, regular files only
//! (no FIFO or device is ever opened), paths from data kept inside their
//! folder, CSV tables read by column name, the smtcomp tool's JSON files,
//! BenchExec's result XML,
//! and compact in-memory records.

pub mod benchexec_xml;
pub mod compact;
pub mod csv_table;
pub mod journal;
pub mod lock;
pub mod regular;
pub mod safepath;
pub mod smtcomp_json;
