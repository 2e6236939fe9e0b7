//! The journals and what they prove: the record types and journal file
//! names ([`records`]), what produced each record ([`produced`],
//! [`configs`]) and whether it is still current ([`provenance`],
//! [`current`]), the named index ([`index`]), the facts every report opens
//! with ([`facts`]), and the [`Loaded`] campaign the stages after naming
//! read, opened with its lock ([`loaded::open`]). The top room: it imports
//! [`crate::campaign::setup`] and [`crate::campaign::verdict`], neither
//! imports it.

pub mod configs;
pub mod current;
pub mod facts;
pub mod index;
pub mod loaded;
pub mod produced;
pub mod provenance;
pub mod records;

pub use loaded::Loaded;
