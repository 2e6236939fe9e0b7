//! The rules and how votes become verdicts: the decision policies over
//! checker answers ([`policy`]), the rules editions and their typed form
//! ([`editions`], [`rules`]), certification of `sat` answers by their models
//! ([`certification`]), the minimality rule ([`minimality`]), division maps
//! ([`division_map`]) and the pair record every stage agrees on ([`pair`]).
//! The bottom room: it imports no other room of the campaign.

pub mod certification;
pub mod division_map;
pub mod editions;
pub mod minimality;
pub mod pair;
pub mod policy;
pub mod rules;
