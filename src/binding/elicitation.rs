//! The names of the elicitation codec that are read by this path: the
//! codec itself lives in the modules of what it reads ([`super::envelope`],
//! [`super::params`], [`super::request`], [`super::result`]) and of what it
//! builds ([`super::wrap`]).

pub use super::params::{read_params, read_params_with};
